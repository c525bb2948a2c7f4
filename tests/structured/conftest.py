"""Make the helper modules of this directory (oracle, strategies) importable by the tests,
and run every test in its own working directory: a Truncator that spills keeps artifacts
under ``./.truncation``, which must not land in the repository."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def _isolated_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
