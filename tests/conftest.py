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
