"""The runnable examples in examples/ (one per framework) run offline and show what they
claim: the cut result, and the error line read back from the artifact."""

from __future__ import annotations

import contextlib
import io
import runpy
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.mark.parametrize("name", ["pydantic_ai_agent", "openai_agents_agent",
                                  "langchain_tools", "mcp_server", "smolagents_agent",
                                  "google_adk_agent"])
def test_example_runs(name: str) -> None:
    check_example(name)


def check_example(name: str) -> None:
    """Run examples/NAME.py and check what it prints (the frameworks tested in their own
    environment call this from their test files)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(EXAMPLES / f"{name}.py"), run_name="__main__")
    text = out.getvalue()
    assert "--- what the model sees of 1 MB ---\n[Artifact: art_" in text
    assert "9001:\t[009000] error: undefined reference to `frobnicate'" in text
