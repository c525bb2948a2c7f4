"""``trunc hook claude-code``: the real process, answering payloads recorded from Claude
Code's documented contract, and the rewritten Bash command run in a real shell."""

from __future__ import annotations

import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from host_contracts import CLAUDE_BASH_INPUT, CLAUDE_OUTPUT, MCP_CONTENT
from host_testing import TRUNC, payload

#: Each test starts `trunc` (and a shell): left out of `make test-fast`.
pytestmark = pytest.mark.slow

#: About 1 MB of build log: numbered lines, one failure in the middle.
LINES = [f"{i:06d} compiling module_{i % 97:02d}.c -O2 -Wall ... ok" for i in range(1, 20_001)]
LINES[12_344] = "012345 error: undefined reference to `frobnicate' (module_17.c:42)"
LOG = "\n".join(LINES) + "\n"

_SHOW = re.compile(r"trunc artifacts show (art_[0-9]+_[0-9a-f]{32}) --lines (\d+)-(\d+)")


def _valid(answer: dict[str, Any]) -> None:
    jsonschema.validate(answer, CLAUDE_OUTPUT)


def _shell(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """*command* as Claude Code's Bash tool runs it: a string for a real shell."""
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True,
                           text=True, timeout=120, check=False)


def _read_back(text: str, cwd: Path, env: dict[str, str]) -> str:
    """What the hint's own command prints (the omitted lines, as the model would read them),
    checked against the original, byte for byte."""
    hints = _SHOW.findall(text)
    assert hints, text[:2000]
    artifact_id, start, end = hints[-1]
    shown = _shell(f"{TRUNC} artifacts show {artifact_id} --lines {start}-{end}", cwd, env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.encode() == "".join(
        line + "\n" for line in LINES[int(start) - 1:int(end)]).encode()
    return shown.stdout


def test_a_bash_call_is_rewritten_as_the_contract_says(run_hook: Callable[..., Any]) -> None:
    sent = payload("claude_code_pre_tool_use_bash")
    answer = run_hook("claude-code", sent)
    _valid(answer)
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse"
    assert specific["permissionDecision"] == "ask"  # you approve it, unless --permission allow
    updated = specific["updatedInput"]
    jsonschema.validate(updated, CLAUDE_BASH_INPUT)
    # every field is kept but the command; the timeout is the call's own
    assert {k: v for k, v in updated.items() if k != "command"} == \
        {k: v for k, v in sent["tool_input"].items() if k != "command"}
    assert updated["timeout"] == 300_000
    assert f"{TRUNC} run --timeout 295 -- env -u " in updated["command"]
    assert updated["command"].endswith(" bash -c 'make -j4 all'")
    allowed = run_hook("claude-code", sent, "--permission", "allow")
    assert allowed["hookSpecificOutput"]["permissionDecision"] == "allow"


@pytest.mark.parametrize("name", ["claude_code_pre_tool_use_bash_background",
                                  "claude_code_pre_tool_use_read"])
def test_other_calls_are_left_alone(run_hook: Callable[..., Any], name: str) -> None:
    assert run_hook("claude-code", payload(name)) is None


def test_the_rewritten_command_runs_through_trunc_run(run_hook: Callable[..., Any],
                                                      tmp_path: Path,
                                                      host_env: dict[str, str]) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "build.log").write_text(LOG)
    command = "cd src && cat build.log && echo 'done: 3 errors' >&2 && exit 3"
    sent = payload("claude_code_pre_tool_use_bash",
                   tool_input={"command": command, "description": "build", "timeout": 60_000})
    rewritten = run_hook("claude-code", sent)["hookSpecificOutput"]["updatedInput"]["command"]
    assert rewritten.startswith("cd src && ")  # the directory change stays in the host's shell
    ran = _shell(rewritten, project, host_env)
    assert ran.returncode == 3  # the command's own exit status
    out = ran.stdout
    assert out.startswith("Exit code: 3\n")
    assert len(out) <= 8_000 and "done: 3 errors" in out  # cut, with stderr merged
    # the hint names a command the model can run, and it gives the cut lines back exactly
    assert "get_artifact" not in out and "artifact_grep(" not in out
    assert "undefined reference" in _read_back(out, project, host_env)


def test_control_the_same_command_unwrapped_floods_the_model(tmp_path: Path,
                                                             host_env: dict[str, str]) -> None:
    (tmp_path / "build.log").write_text(LOG)
    ran = _shell("cat build.log; exit 3", tmp_path, host_env)
    assert ran.returncode == 3 and len(ran.stdout) == len(LOG)


def test_a_command_out_of_time_still_gives_its_cut(run_hook: Callable[..., Any],
                                                   tmp_path: Path,
                                                   host_env: dict[str, str]) -> None:
    sent = payload("claude_code_pre_tool_use_bash",
                   tool_input={"command": "echo started; sleep 30", "timeout": 2_000})
    rewritten = run_hook("claude-code", sent)["hookSpecificOutput"]["updatedInput"]["command"]
    started = time.monotonic()
    ran = _shell(rewritten, tmp_path / "project", host_env)
    assert time.monotonic() - started < 25  # trunc run ended it, before the host would
    assert ran.returncode == 124 and "started" in ran.stdout


@pytest.mark.parametrize("command", [
    "cd /tmp", "make && cd dist && ls", "pushd src", "npm run dev &",
    "trunc artifacts show art_1_00000000000000000000000000000000"])
def test_commands_that_change_the_shell_or_background_are_left_alone(
        run_hook: Callable[..., Any], command: str) -> None:
    sent = payload("claude_code_pre_tool_use_bash", tool_input={"command": command})
    assert run_hook("claude-code", sent) is None


def test_a_large_mcp_result_is_replaced_by_its_cut(run_hook: Callable[..., Any],
                                                   tmp_path: Path,
                                                   host_env: dict[str, str]) -> None:
    sent = payload("claude_code_post_tool_use_mcp")
    sent["tool_response"][0]["text"] = LOG
    answer = run_hook("claude-code", sent)
    _valid(answer)
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == "PostToolUse"
    replaced = specific["updatedMCPToolOutput"]
    jsonschema.validate(replaced, MCP_CONTENT)  # the shape it came in
    text, image = replaced
    assert image == sent["tool_response"][1]  # kept as it was
    assert text["type"] == "text" and len(text["text"]) <= 8_000
    assert text["text"].startswith("[Artifact: art_")
    back = _read_back(text["text"], tmp_path / "project", host_env)
    assert "undefined reference to `frobnicate'" in back
    # the artifact is the call's: trunc artifacts finds it with the tool_use_id
    listed = _shell(f"{TRUNC} artifacts list --json", tmp_path / "project", host_env)
    assert sent["tool_use_id"] in listed.stdout


def test_a_small_mcp_result_and_a_result_object(run_hook: Callable[..., Any]) -> None:
    assert run_hook("claude-code", payload("claude_code_post_tool_use_mcp")) is None
    sent = payload("claude_code_post_tool_use_mcp",
                   tool_response={"content": [{"type": "text", "text": LOG}],
                                  "structuredContent": {"result": LOG}, "isError": False})
    replaced = run_hook("claude-code", sent)["hookSpecificOutput"]["updatedMCPToolOutput"]
    assert set(replaced) == {"content", "isError"} and replaced["isError"] is False
    assert replaced["content"][0]["text"].startswith("[Artifact: art_")


def test_a_bad_payload_is_a_clear_error(tmp_path: Path, host_env: dict[str, str]) -> None:
    done = subprocess.run([str(TRUNC), "hook", "claude-code"], input=b"not json",
                          capture_output=True, cwd=tmp_path, env=host_env, timeout=60,
                          check=False)
    assert done.returncode == 1 and done.stdout == b""  # not 2: that would block the call
    assert b"not JSON" in done.stderr
