"""A tool's own max_bytes / max_lines is what it gets (the global inline_limit and
preview_limit rise to match), and `trunc config validate` names the key that wins where a
limit never binds. The two configurations from the issue, each with its negative control."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from truncation_core import Truncator
from truncation_core.config.converter import config_from_mapping
from truncation_core.config.model import LINE_ALLOWANCE_CHARS, limit_warnings

FILE = "".join(f"line {i:05d} " + "x" * 60 + "\n" for i in range(1, 5001))  # 345 kB
LOG = "".join(f"out {i:06d} " + "y" * 80 + "\n" for i in range(12_000))  # 1.1 MB


def make(tools: dict[str, Any]) -> Truncator:
    return Truncator({"store": {"backend": "memory"}, "tools": tools}, load_entrypoints=False)


def test_read_file_max_lines_2000_gives_2000_lines() -> None:
    t = make({"read_file": {"strategy": "head", "max_lines": 2000}})
    policy = t.policy("read_file")
    assert policy.inline_limit == 2000 * LINE_ALLOWANCE_CHARS and policy.max_lines == 2000
    result = t.process(FILE, tool="read_file")
    lines = result.content.splitlines()
    assert len(lines) == 2000  # reference, head, marker: within the tool's line limit
    shown = [line for line in lines if line.startswith("line ")]
    assert len(shown) > 1990 and shown[0] == "line 00001 " + "x" * 60  # the head, not 46 lines
    assert result.content.startswith("[Artifact: ")  # over artifact_threshold: referenced
    assert "get_artifact(" in lines[-1]


def test_control_an_explicit_inline_limit_wins_and_validate_says_so() -> None:
    tools = {"read_file": {"strategy": "head", "max_lines": 2000, "inline_limit": 8000}}
    result = make(tools).process(FILE, tool="read_file")
    assert len(result.content.splitlines()) < 130  # the 8,000-character limit binds
    warnings = limit_warnings(config_from_mapping({"tools": tools}))
    assert warnings == ["tools.read_file.max_lines (2,000) binds only for lines averaging "
                        "under 4 characters; tools.read_file.inline_limit (8,000 characters) "
                        "wins for longer ones"]


def test_bash_max_bytes_30000_gives_30_kb_of_tail() -> None:
    t = make({"bash": {"strategy": "tail", "max_bytes": 30_000}})
    result = t.process(LOG, tool="bash")
    size = len(result.content.encode())
    assert 28_000 < size <= 30_000  # not ~2.3 KB
    assert result.content.endswith("out 011999 " + "y" * 80 + "\n")
    assert result.metadata.strategy_used == "tail"
    inline = t.process(LOG[:200_000][-45_000:], tool="bash")  # under artifact_threshold
    assert 28_000 < len(inline.content.encode()) <= 30_000
    assert not inline.content.startswith("[Artifact")


def test_control_a_preview_limit_set_on_the_tool_wins_and_validate_says_so() -> None:
    tools: dict[str, Any] = {"bash": {"strategy": "tail", "max_bytes": 30_000,
                                      "preview_limit": 2000}}
    # Under the default reference_preview (full) the preview limit does not bind.
    assert len(make(tools).process(LOG, tool="bash").content) > 25_000
    assert limit_warnings(config_from_mapping({"tools": tools})) == []
    tools["bash"]["reference_preview"] = "short"
    assert len(make(tools).process(LOG, tool="bash").content) < 2600
    [warning] = limit_warnings(config_from_mapping({"tools": tools}))
    assert warning.startswith("tools.bash: content over artifact_threshold (50,000 characters)"
                              " shows a preview of 2,000 characters")
    assert warning.endswith("tools.bash.preview_limit wins")


def test_limits_the_tool_does_not_set_are_left_alone() -> None:
    t = make({"execute_command": {"highlights": 3}})
    assert t.policy("execute_command").inline_limit == 8000
    assert t.policy("read_file").preview_limit == 2000
    assert limit_warnings(config_from_mapping({"max_bytes": 100_000})) == [
        "max_bytes (100,000) never binds: inline_limit (8,000 characters, at most 32,000 "
        "bytes) wins"]


def test_config_validate_warns_and_says_it_as_json(trunc_exe: str, trunc_env: dict[str, str],
                                                   tmp_path: Path) -> None:
    config = tmp_path / ".truncation.yaml"
    config.write_text("tools:\n  bash:\n    max_bytes: 90000\n    inline_limit: 8000\n")
    done = subprocess.run([trunc_exe, "config", "validate"], capture_output=True, text=True,
                          env=trunc_env, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "warning: tools.bash.max_bytes (90,000) never binds: tools.bash.inline_limit" \
        in done.stderr
    done = subprocess.run([trunc_exe, "config", "validate", "--json"], capture_output=True,
                          text=True, env=trunc_env, cwd=tmp_path, timeout=60)
    verdict = json.loads(done.stdout)
    assert verdict["valid"] is True and verdict["problems"] == []
    assert verdict["warnings"][0].startswith("tools.bash.max_bytes (90,000) never binds")
    assert "head_tail" in verdict["strategies"]
    config.write_text("tools:\n  bash:\n    max_bytes: -1\n")
    done = subprocess.run([trunc_exe, "config", "validate", "--json"], capture_output=True,
                          text=True, env=trunc_env, cwd=tmp_path, timeout=60)
    assert done.returncode == 1
    verdict = json.loads(done.stdout)
    assert verdict["valid"] is False
    assert verdict["problems"][0].startswith("tools.bash.max_bytes: must be a positive")
