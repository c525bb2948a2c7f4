"""Fixtures of the adapter tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from truncation_core import Truncator


@pytest.fixture
def truncator(tmp_path: Path) -> Truncator:
    """Default limits; pages of get_artifact large enough for a short conversation."""
    return Truncator({"store": {"root": str(tmp_path / "artifacts")},
                      "tools": {"get_artifact": {"inline_limit": 120_000}}},
                     load_entrypoints=False)
