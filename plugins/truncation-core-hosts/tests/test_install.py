"""``trunc hook HOST --install``: the hook's entries added to the host's settings, keeping
what is there."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from host_testing import TRUNC
from truncation_core_hosts.settings import install

#: Each test starts `trunc` (and a shell): left out of `make test-fast`.
pytestmark = pytest.mark.slow

#: A project's settings with hooks and other keys of its own.
EXISTING = {
    "permissions": {"allow": ["Bash(npm test:*)"]},
    "hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [
        {"type": "command", "command": "./format.sh"}]}]},
    "model": "opus",
}


def _install(host: str, cwd: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run([str(TRUNC), "hook", host, "--install", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_claude_code_project_settings_keep_what_is_there(tmp_path: Path,
                                                         host_env: dict[str, str]) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(EXISTING))
    assert "added the hook for PreToolUse, PostToolUse" in _install("claude-code", tmp_path,
                                                                    host_env)
    data = json.loads(settings.read_text())
    assert data["permissions"] == EXISTING["permissions"] and data["model"] == "opus"
    pre, post = data["hooks"]["PreToolUse"], data["hooks"]["PostToolUse"]
    assert pre[0] == EXISTING["hooks"]["PreToolUse"][0]
    command = f"{TRUNC} hook claude-code"
    assert pre[1] == {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
    assert post == [{"matcher": "mcp__.*", "hooks": [{"type": "command",
                                                       "command": command}]}]
    # a second install adds nothing
    assert "already" in _install("claude-code", tmp_path, host_env)
    assert json.loads(settings.read_text()) == data
    # the installed command answers as the hook
    entry = subprocess.run(["bash", "-c", command], input='{"hook_event_name": "Stop"}',
                           capture_output=True, text=True, cwd=tmp_path, env=host_env,
                           timeout=60, check=False)
    assert entry.returncode == 0 and entry.stdout == ""


def test_user_settings_and_the_permission(tmp_path: Path, host_env: dict[str, str]) -> None:
    _install("claude-code", tmp_path, host_env, "--user", "--permission", "allow")
    data = json.loads((Path(host_env["HOME"]) / ".claude" / "settings.json").read_text())
    assert data["hooks"]["PreToolUse"][0]["hooks"][0]["command"] == \
        f"{TRUNC} hook claude-code --permission allow"
    assert not (tmp_path / ".claude").exists()


def test_gemini_cli_settings(tmp_path: Path, host_env: dict[str, str]) -> None:
    settings = tmp_path / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"theme": "GitHub", "hooks": {}}))
    _install("gemini-cli", tmp_path, host_env)
    data = json.loads(settings.read_text())
    assert data["theme"] == "GitHub"
    assert data["hooks"] == {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [
        {"type": "command", "command": f"{TRUNC} hook gemini-cli"}]}]}


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", '{"hooks": []}'])
def test_a_settings_file_that_is_not_an_object_is_left_alone(
        tmp_path: Path, host_env: dict[str, str], text: str) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(text)
    done = subprocess.run([str(TRUNC), "hook", "claude-code", "--install"], cwd=tmp_path,
                          env=host_env, capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 1 and "left as it is" in done.stderr
    assert settings.read_text() == text


def test_a_settings_file_that_is_a_symlink_stays_one(tmp_path: Path) -> None:
    """Settings kept in a dotfiles repository and linked into place (GNU Stow, chezmoi,
    home-manager): the hook goes into the file the link names, and the link stays."""
    kept = tmp_path / "dotfiles" / "claude" / "settings.json"
    kept.parent.mkdir(parents=True)
    kept.write_text(json.dumps(EXISTING))
    kept.chmod(0o600)
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.symlink_to(Path("..") / "dotfiles" / "claude" / "settings.json")
    assert install(settings, [("PreToolUse", "Bash", "trunc hook claude-code")]) == \
        ["PreToolUse"]
    assert settings.is_symlink()
    assert os.readlink(settings) == str(Path("..") / "dotfiles" / "claude" / "settings.json")
    data = json.loads(kept.read_text())
    assert data["model"] == "opus" and len(data["hooks"]["PreToolUse"]) == 2
    assert kept.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in kept.parent.iterdir()) == ["settings.json"]  # no leftovers
