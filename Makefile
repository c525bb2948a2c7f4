# Two targets a newcomer needs: `make demo` and `make test`. Both build .venv on first use.
# `make lint` runs ruff over the repository and mypy --strict over the package (both configured
# in pyproject.toml); `make test-fast` is the day-to-day subset (see pyproject's markers).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-fast test-explore test-frameworks lint bench clean

# First-party plugin distributions, installed beside the core as a user would install them.
PLUGINS := \
	plugins/truncation-core-example \
	plugins/truncation-core-hosts \
	plugins/truncation-core-mcp \
	plugins/truncation-core-proxy \
	plugins/truncation-core-redis \
	plugins/truncation-core-tiktoken
# The agent-framework adapters, with every framework they adapt (their tests use them).
ADAPTERS := plugins/truncation-core-adapters

$(STAMP): pyproject.toml $(PLUGINS:%=%/pyproject.toml) $(ADAPTERS)/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[cli,test]" $(PLUGINS:%=-e %) \
		-e "$(ADAPTERS)[all]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python examples/demo.py

test: $(STAMP)
	$(BIN)/python -X dev -m pytest

# The edit-run loop: no property test, no test that starts a process (tests/conftest.py marks
# them slow). `make test` stays the whole suite, which CI runs.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow" -p no:cacheprovider

# The property tests with new random examples, many more of each (the `nightly` Hypothesis
# profile): `make test` draws the same examples every run, so that its verdict depends on
# the change; this is the run that explores. A failure it finds becomes an @example.
test-explore: $(STAMP)
	HYPOTHESIS_PROFILE=nightly $(BIN)/python -X dev -m pytest -q -m hypothesis -p no:cacheprovider

# CrewAI and PraisonAI pin versions that clash with the main environment (crewai: mcp<2;
# praisonaiagents[llm], which PraisonAI's ScriptedModel needs: openai<3), so their adapters'
# tests run in an environment of their own, which CI builds and runs too. uv installs it: about
# 1.3 GB, 22 s where pip takes 6.5 minutes (measured on this machine, same packages).
FRAMEWORKS_VENV ?= .venv-frameworks
FRAMEWORKS_STAMP := $(FRAMEWORKS_VENV)/.installed

$(FRAMEWORKS_STAMP): pyproject.toml $(ADAPTERS)/pyproject.toml plugins/truncation-core-redis/pyproject.toml
	$(PYTHON) -m venv $(FRAMEWORKS_VENV)
	$(FRAMEWORKS_VENV)/bin/python -m pip install --quiet uv
	$(FRAMEWORKS_VENV)/bin/uv pip install --quiet --python $(FRAMEWORKS_VENV)/bin/python \
		-e ".[cli]" -e plugins/truncation-core-redis -e "$(ADAPTERS)[crewai,praisonai]" \
		"praisonaiagents[llm]" pytest pytest-timeout
	touch $(FRAMEWORKS_STAMP)

test-frameworks: $(FRAMEWORKS_STAMP)
	TEST_FRAMEWORKS_VENV=1 $(FRAMEWORKS_VENV)/bin/python -X dev -m pytest -p no:cacheprovider \
		$(ADAPTERS)/tests/test_crewai.py $(ADAPTERS)/tests/test_praisonai.py

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) $(FRAMEWORKS_VENV) .pytest_cache .hypothesis .truncation
