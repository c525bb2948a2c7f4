"""Fixtures for the hostile-input tests: each runs in its own working directory, with no
``TRUNCATION_CORE_*`` variable inherited from the environment running the suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _clean_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith("TRUNCATION_CORE_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
