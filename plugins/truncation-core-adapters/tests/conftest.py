"""Fixtures of the adapter tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from truncation_core import Truncator


@pytest.fixture
def truncator(tmp_path: Path) -> Truncator:
    """Default limits; pages of get_artifact large enough for a short conversation."""
    return Truncator({"store": {"root": str(tmp_path / "artifacts")},
                      "tools": {"get_artifact": {"inline_limit": 120_000}}},
                     load_entrypoints=False)


#: The frameworks whose pins clash with the main environment's (crewai: mcp<2;
#: praisonaiagents[llm], which PraisonAI's ScriptedModel needs: openai<3). Their tests run in
#: an environment of their own (`make test-frameworks`, which CI runs), and are not collected
#: anywhere else, so that no run skips them.
OWN_ENVIRONMENT = ["test_crewai.py", "test_praisonai.py"]
if os.environ.get("TEST_FRAMEWORKS_VENV") != "1":
    collect_ignore = OWN_ENVIRONMENT
