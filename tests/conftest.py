"""Shared fixtures and the Hypothesis profiles.

Profiles: ``ci`` (the default, sized for a 2-core machine) and ``nightly`` (many more
examples); choose with ``HYPOTHESIS_PROFILE=nightly``. ``ci`` is derandomized: every run
draws the same examples, so that a run's verdict depends on the change, not on the draw (a
random draw once found an old bug in the middle of unrelated work). ``nightly`` draws new
examples each run (``make test-explore`` runs the property tests with it): it is the one
that explores; a failure it finds becomes an ``@example``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributions import SiteDir
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=150, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.register_profile(
    "nightly", max_examples=5000, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: Fixtures of tests that start processes (the ``trunc`` command, other interpreters): they
#: are left out of ``make test-fast``, which is for the edit-run loop.
_PROCESS_FIXTURES = {"trunc_exe", "trunc_env", "broken_env"}
#: Test files whose tests are slow as a whole: commands and the CLI in real processes, 100 MB
#: inputs, memory measured in child processes, exact tokenizers, the corpus.
_SLOW_FILES = {"test_command.py", "test_cli.py", "test_demo.py", "test_imports.py",
               "test_json_stream.py", "test_canary_structured_streams.py",
               "test_store_concurrency.py", "test_store_crash.py", "test_retrieval_memory.py",
               "test_corpus_recall.py", "test_tiktoken_plugin.py", "test_estimate.py",
               "test_fit.py", "test_strategies_properties.py", "test_jsonl_xml_select.py",
               "test_cli_artifacts.py",
               # tests/hostile: bombs in capped child processes, real signals, tmpfs mounts
               "test_patterns.py", "test_config_bombs.py", "test_long_lines.py",
               "test_import_limits.py", "test_interruptions.py", "test_cli_errors.py",
               "test_fuzz.py", "test_eviction_race.py"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark as ``slow`` every test that starts a process, lives in a slow file or is a
    property test (Hypothesis draws hundreds of examples), besides those marked by hand."""
    for item in items:
        function = getattr(item, "obj", None)
        if (_PROCESS_FIXTURES & set(getattr(item, "fixturenames", ()))
                or item.path.name in _SLOW_FILES
                or getattr(function, "is_hypothesis_test", False)
                or isinstance(item, pytest.Class) or "StateMachine" in item.nodeid
                or "TestCase" in item.nodeid):
            item.add_marker(pytest.mark.slow)

REPO = Path(__file__).resolve().parent.parent
CANARY_PREFIX = "CANARY-"


@pytest.fixture(autouse=True)
def _own_working_directory(request: pytest.FixtureRequest, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Run each test of this directory in its own working directory, so that nothing a
    Truncator keeps (a filesystem artifact store defaults to ./.truncation) lands in the
    repository. Tests in subdirectories have their own conftest."""
    if request.node.path.parent == Path(__file__).parent:
        monkeypatch.chdir(tmp_path)


@pytest.fixture
def isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No TRUNCATION_CORE_* variables, and a working directory with no config above it
    (other than what the test writes)."""
    for name in list(os.environ):
        if name.startswith("TRUNCATION_CORE_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def trunc_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """Environment for running ``trunc`` as a subprocess: no inherited config variables."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNCATION_CORE_")}
    env.pop("PYTHONPATH", None)
    env["PYTHONIOENCODING"] = "utf-8"
    yield env


@pytest.fixture(scope="session")
def trunc_exe() -> str:
    """The ``trunc`` console script of the environment running the tests."""
    exe = Path(sys.executable).parent / "trunc"
    if not exe.exists():
        pytest.fail(f"the trunc console script is not installed next to {sys.executable}")
    return str(exe)


@pytest.fixture
def site_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SiteDir]:
    """A :class:`SiteDir` on ``sys.path`` for this test only."""
    root = tmp_path / "site"
    root.mkdir()
    site = SiteDir(root)
    monkeypatch.syspath_prepend(str(root))
    yield site
    for module in site.modules:
        for name in [name for name in sys.modules
                     if name == module or name.startswith(module + ".")]:
            del sys.modules[name]


@pytest.fixture
def example_plugin(site_dir: SiteDir) -> SiteDir:
    """The repository's example plugin (plugins/truncation-core-example: the entry point
    ``example``, the strategy ``sample``), installed for this test only, in ``site_dir``; a
    subprocess sees it with ``PYTHONPATH=str(example_plugin.root)``."""
    site_dir.first_party("truncation-core-example")
    return site_dir


@pytest.fixture
def unique_name(request: pytest.FixtureRequest) -> str:
    """A module name no other test uses (imported modules stay in sys.modules)."""
    import hashlib

    return "tc_" + hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:10]
