"""The hosts' runnable examples (examples/claude_code_hook.py, examples/gemini_cli_hook.py)
run offline and show what they claim: the command's cut output with its exit status, and the
error line read back from the artifact."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

#: Each test starts `trunc` (and a shell): left out of `make test-fast`.
pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.mark.parametrize("name", ["claude_code_hook", "gemini_cli_hook"])
def test_example_runs(name: str, tmp_path: Path, host_env: dict[str, str]) -> None:
    done = subprocess.run([sys.executable, str(EXAMPLES / f"{name}.py")], cwd=tmp_path,
                          env=host_env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "--- what the model sees of 1 MB (exit status 2) ---\nExit code: 2\n" in out
    assert "trunc artifacts show art_" in out  # the marker says how to read the rest
    assert "\nline 9001: [009000] error: undefined reference to `frobnicate'\n" in out  # lifted
    assert "9001:[009000] error: undefined reference to `frobnicate'" in out
