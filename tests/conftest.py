"""Shared fixtures and the Hypothesis profiles.

Profiles: ``ci`` (the default, sized for a 2-core machine) and ``nightly`` (many more
examples); choose with ``HYPOTHESIS_PROFILE=nightly``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=150, deadline=None,
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
