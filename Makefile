# Two targets a newcomer needs: `make demo` and `make test`. Both build .venv on first use.
# `make lint` runs ruff over the repository (configured in pyproject.toml).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml plugins/truncation-core-example/pyproject.toml \
		plugins/truncation-core-tiktoken/pyproject.toml \
		plugins/truncation-core-adapters/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[cli,test]" -e plugins/truncation-core-example \
		-e plugins/truncation-core-tiktoken -e "plugins/truncation-core-adapters[all]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python examples/demo.py

test: $(STAMP)
	$(BIN)/python -X dev -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .truncation
