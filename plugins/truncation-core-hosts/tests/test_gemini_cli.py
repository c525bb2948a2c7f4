"""``trunc hook gemini-cli``: the real process, answering payloads recorded from Gemini CLI's
documented contract, and the merged command run in a real shell."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from host_contracts import GEMINI_OUTPUT, GEMINI_SHELL_INPUT
from host_testing import TRUNC, payload

#: Each test starts `trunc` (and a shell): left out of `make test-fast`.
pytestmark = pytest.mark.slow

LOG = "\n".join(f"{i:06d} test case {i} ... passed" for i in range(1, 30_001)) + "\n"


def test_a_shell_command_is_merged_to_run_through_trunc_run(run_hook: Callable[..., Any],
                                                            tmp_path: Path,
                                                            host_env: dict[str, str]) -> None:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "test.log").write_text(LOG)
    sent = payload("gemini_cli_before_tool_shell",
                   tool_input={"command": "cat test.log; exit 1", "description": "tests",
                               "dir_path": "."})
    answer = run_hook("gemini-cli", sent)
    jsonschema.validate(answer, GEMINI_OUTPUT)
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == "BeforeTool"
    # merged over the model's arguments (Object.assign): the result is still shell arguments
    merged = {**sent["tool_input"], **specific["tool_input"]}
    jsonschema.validate(merged, GEMINI_SHELL_INPUT)
    assert set(specific["tool_input"]) == {"command"}
    ran = subprocess.run(["bash", "-c", merged["command"]], cwd=project / merged["dir_path"],
                         env=host_env, capture_output=True, text=True, timeout=120,
                         check=False)
    assert ran.returncode == 1 and ran.stdout.startswith("Exit code: 1\n")
    assert len(ran.stdout) <= 8_000 and "030000 test case 30000" in ran.stdout
    assert "trunc artifacts show art_" in ran.stdout
    assert f"{TRUNC} run -- env -u " in merged["command"]
    assert merged["command"].endswith(" bash -c 'cat test.log; exit 1'")


def test_what_gemini_cannot_change_is_left_alone(run_hook: Callable[..., Any]) -> None:
    # AfterTool cannot replace a result (deny makes it an error): no answer
    assert run_hook("gemini-cli", payload("gemini_cli_after_tool_mcp")) is None
    background = payload("gemini_cli_before_tool_shell",
                         tool_input={"command": "npm run dev", "is_background": True})
    assert run_hook("gemini-cli", background) is None
    other = payload("gemini_cli_before_tool_shell", tool_name="read_file",
                    tool_input={"file_path": "test.log"})
    assert run_hook("gemini-cli", other) is None
