# Two targets a newcomer needs: `make demo` and `make test`. Both build .venv on first use.
# `make lint` runs ruff over the repository and mypy --strict over the package (both configured
# in pyproject.toml); `make test-fast` is the day-to-day subset (tests/fastloop.py).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# A second environment with the core and its test extra alone, none of plugins/: the core's
# tests (tests/) must pass there too (`make test-core`, which CI runs).
CORE_VENV ?= .venv-core
CORE_STAMP := $(CORE_VENV)/.installed

# The suite runs on pytest-xdist workers, one a CPU of the 2 this project's machines have (4
# workers were slower: 194 and 287 s against 175 and 248 s for 2, on the process-heavy third
# of the suite, alternated on a loaded machine); `make test TEST_WORKERS=1` runs one process.
TEST_WORKERS ?= 2
# pytest-xdist starts its workers as `python -u -c ...`: this gives them -X dev too.
XDIST = $(if $(filter 1,$(TEST_WORKERS)),-p no:xdist,\
	--tx $(TEST_WORKERS)*popen//python="$(1) -X dev" --dist loadgroup)

# The tests reuse compiled bytecode and pytest's rewritten test modules (__pycache__,
# gitignored): compiling them again costs 5 to 6 s of CPU a run, which `make test-fast`
# cannot spare (a shell may set PYTHONDONTWRITEBYTECODE for other reasons).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test test-fast test-durations test-core test-explore test-frameworks lint bench clean

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

# Every test: those marked `serial` (a wall-clock deadline or a memory peak that other tests'
# load would disturb) run alone, after the others.
test: $(STAMP)
	$(BIN)/python -X dev -m pytest -m "not serial" $(call XDIST,$(BIN)/python)
	$(BIN)/python -X dev -m pytest -m serial -p no:xdist

# The edit-run loop, on two workers: the tests that tests/durations.json measured under a
# tenth of a second of CPU, that wait for nothing and start no process (tests/fastloop.py
# marks the others slow). `make test` stays the whole suite, which CI runs.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow" -p no:cacheprovider -n 2

# Measures every test again and rewrites tests/durations.json (commit it): after adding or
# renaming tests, or when a test got slower.
test-durations: $(STAMP)
	$(BIN)/python -m pytest -q -p no:cacheprovider --record-durations=tests/durations.json \
		$(if $(filter 1,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadgroup)

# The core's tests in an environment without the first-party plugins.
$(CORE_STAMP): pyproject.toml
	$(PYTHON) -m venv $(CORE_VENV)
	$(CORE_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(CORE_VENV)/bin/python -m pip install --quiet -e ".[test]"
	touch $(CORE_STAMP)

test-core: $(CORE_STAMP)
	$(CORE_VENV)/bin/python -X dev -m pytest tests -m "not serial" \
		$(call XDIST,$(CORE_VENV)/bin/python)
	$(CORE_VENV)/bin/python -X dev -m pytest tests -m serial -p no:xdist

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
	rm -rf $(VENV) $(CORE_VENV) $(FRAMEWORKS_VENV) .pytest_cache .hypothesis .truncation
