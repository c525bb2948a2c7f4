"""``trunc hook`` under attack: payloads a host would pass on from a hostile tool or model,
commands crafted to escape the rewriting or to change what it means, configuration planted by
another user where the host runs, and settings files that are links, not JSON, or written by
the host at the same moment.

The hook runs as the host runs it (the real ``trunc``, the payload on stdin); rewritten
commands run in a real ``bash``. The cases are listed in ``tests/hostile/README.md`` (class
"trunc hook").
"""

from __future__ import annotations

import json
import os
import pwd
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from host_testing import TRUNC, payload
from truncation_core_hosts import settings as settings_module
from truncation_core_hosts import shell
from truncation_core_hosts.claude_code import answer as claude_code_answer
from truncation_core_hosts.settings import SettingsError, install
from truncation_core_hosts.shell import wrapped

#: Each test of this file starts `trunc` or a shell, or writes settings files.
pytestmark = pytest.mark.slow

COMMAND = f"{TRUNC} hook claude-code"
ENTRIES = [("PreToolUse", "Bash", COMMAND), ("PostToolUse", "mcp__.*", COMMAND)]


def _hook(args: list[str], data: bytes, cwd: Path, env: dict[str, str]
          ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([str(TRUNC), "hook", *args], input=data, capture_output=True,
                          cwd=cwd, env=env, timeout=60, check=False)


# -- payloads ------------------------------------------------------------------------------------


def test_an_mcp_result_with_lone_surrogates_is_cut(run_hook: Callable[..., Any]) -> None:
    """An MCP tool's text holding ``\\ud800`` escapes (JSON carries them; UTF-8 cannot): the
    hook cut it, then failed to write its answer (a UnicodeEncodeError traceback), and the
    whole result went to the model. The answer is JSON with the escape kept."""
    sent = payload("claude_code_post_tool_use_mcp")
    sent["tool_response"][0]["text"] = "".join(f"line {n} \ud800 of the log\n"
                                               for n in range(20_000))
    replaced = run_hook("claude-code", sent)["hookSpecificOutput"]["updatedMCPToolOutput"]
    text = replaced[0]["text"]
    assert len(text) <= 8_000 and "\ud800" in text


BAD_PAYLOADS = {
    "nested 100,000 deep": (b'{"hook_event_name":"PostToolUse","tool_response":'
                            + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
    "a 5,000-digit number": (b'{"tool_input":{"timeout":' + b"9" * 5000 + b"}}",
                             "not JSON: Exceeds the limit"),
    "not UTF-8": (b'{"tool_input":{"command":"\xff\xfe"}}', "not JSON"),
    "a list": (b"[1, 2]", "not a JSON object"),
}


@pytest.mark.parametrize("case", BAD_PAYLOADS.values(), ids=BAD_PAYLOADS.keys())
def test_a_payload_the_hook_cannot_read_is_a_message(tmp_path: Path, host_env: dict[str, str],
                                                     case: tuple[bytes, str]) -> None:
    """A structured MCP result nested thousands deep, or a number past Python's digit
    limit, printed a RecursionError or ValueError traceback. Exit 1 (not 2: that would
    block the call) with a one-line message, nothing on stdout."""
    data, message = case
    done = _hook(["claude-code"], data, tmp_path, host_env)
    assert done.returncode == 1 and done.stdout == b""
    assert message in done.stderr.decode() and b"Traceback" not in done.stderr


def test_a_payloads_cwd_cannot_inject_into_the_rewritten_command(
        run_hook: Callable[..., Any], tmp_path: Path, host_env: dict[str, str]) -> None:
    """The payload's ``cwd`` (the host's, but a path may hold anything) reaches the
    rewritten command only as quoted values."""
    flag = tmp_path / "injected"
    cwd = str(tmp_path / f"it's \"q\" `touch {flag}`\n$(touch {flag})")
    os.makedirs(cwd)
    sent = payload("claude_code_pre_tool_use_bash", tool_input={"command": "pwd"})
    out = claude_code_answer({**sent, "cwd": cwd}, trunc=[str(TRUNC)])
    assert out is not None
    rewritten = out["hookSpecificOutput"]["updatedInput"]["command"]
    ran = subprocess.run(["bash", "-c", rewritten], capture_output=True, text=True, cwd=cwd,
                         env=host_env, timeout=60, check=False)
    assert ran.returncode == 0, ran.stderr
    assert not flag.exists()


# -- commands ------------------------------------------------------------------------------------


HOSTILE_COMMANDS = [
    "echo 'a'\"b\"$'c\\td'`echo e`$(echo f)", "echo 'unbalanced", 'echo "unbalanced',
    "echo one\necho two\r\necho three", "echo trailing \\", "printf '%s' \"$(printf '\\0x')\"",
    "-n", "--", "echo $'\\x27; touch /tmp/x; \\x27'", "echo ü 日本 \U0001F600",
    "echo 'x'; exit 7", "cat <<'EOF'\n' \" ` $( \nEOF", "echo " + "y" * 100_000,
    "cd 'a b' && echo \"$PWD\"", "cd . && cd .. && pwd",
]


@pytest.mark.parametrize("command", HOSTILE_COMMANDS, ids=range(len(HOSTILE_COMMANDS)))
def test_trunc_run_gets_the_command_as_it_was_written(command: str) -> None:
    """Whatever the command holds (quotes of every kind, unbalanced ones, substitutions,
    NULs escaped, CRLF, a leading ``-``, 100 kB), ``trunc run`` gets it as one word, byte
    for byte, after ``-- bash -c``; a leading ``cd DIR &&`` stays outside, as written. A
    real ``bash`` expands the rewritten command; ``printf`` stands in for ``trunc`` to show
    the words it would get."""
    rewritten = wrapped(command, ["printf", "%s\\0"], timeout=9, env={"A": "x'y"})
    assert rewritten is not None
    prefix = ""
    while (m := shell._LEADING_CD.match(command, len(prefix))) is not None:
        prefix = command[:m.end()]
    assert rewritten.startswith(prefix.strip())
    words = subprocess.run(["bash", "-c", "cd() { :; }; " + rewritten], capture_output=True,
                           timeout=60, check=True).stdout.decode().split("\0")[:-1]
    # trunc's own settings are unset again for the command (``env -u A``).
    assert words == ["run", "--timeout", "9", "--", "env", "-u", "A", "bash", "-c",
                     command[len(prefix):].strip()]


CHANGES_DIRECTORY = ["if [ -d /tmp ]; then cd /tmp; fi", "for d in /tmp; do cd $d; done",
                     "command cd /tmp", "builtin cd /tmp", "! cd /tmp", "time cd /tmp",
                     "CDPATH=/ cd tmp", "test -d /tmp && { cd /tmp; }",
                     "if cd /tmp; then ls; fi", "x=1 y=2 pushd /tmp"]


@pytest.mark.parametrize("command", CHANGES_DIRECTORY)
def test_a_command_that_changes_the_hosts_directory_is_left_alone(command: str) -> None:
    """Claude Code keeps the directory a command leaves its shell in. A ``cd`` after
    ``then``, ``do``, ``!``, ``time``, ``command``, ``builtin`` or an assignment went
    unnoticed: the command ran in ``trunc run``'s child shell and the change was lost."""
    assert wrapped(command, [str(TRUNC)]) is None
    sent = payload("claude_code_pre_tool_use_bash", tool_input={"command": command})
    assert claude_code_answer(sent, trunc=[str(TRUNC)]) is None


@pytest.mark.parametrize("command", ["echo cd", "grep -rn 'cd' .", "make cd-image",
                                     "cdk deploy", "source .venv/bin/activate && pytest"])
def test_a_cd_that_is_no_command_does_not_stop_the_cut(command: str) -> None:
    assert wrapped(command, [str(TRUNC)]) is not None


def test_control_wrapped_the_directory_change_is_lost(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       host_env: dict[str, str]) -> None:
    """Negative control: with the test as it was, ``if ...; then cd DIR; fi`` is rewritten,
    and the shell the host keeps is still where it was afterwards."""
    monkeypatch.setattr(shell, "_CHANGES_DIRECTORY",
                        re.compile(r"(?:^|[;&|(){}\n`]|\$\()\s*(?:cd|pushd|popd)\b"))
    target = tmp_path / "elsewhere"
    target.mkdir()
    command = f"if true; then cd {target}; fi"
    rewritten = wrapped(command, [str(TRUNC)])
    assert rewritten is not None
    plain, through = (subprocess.run(["bash", "-c", f"{c}\npwd"], capture_output=True,
                                     text=True, cwd=tmp_path, env=host_env, timeout=60,
                                     check=False).stdout.splitlines()[-1]
                      for c in (command, rewritten))
    assert plain == str(target) and through == str(tmp_path)


# -- configuration planted where the host runs ---------------------------------------------------


def test_a_config_planted_by_another_user_where_the_host_runs_is_not_used(
        run_hook: Callable[..., Any], tmp_path: Path, host_env: dict[str, str]) -> None:
    """The host runs in a shared sticky directory where ``nobody`` planted a
    ``.truncation.yaml`` that names a plugin module and a store root. Neither the rewritten
    command's settings nor the MCP cut use it: the module never runs."""
    try:
        uid = pwd.getpwnam("nobody").pw_uid
    except KeyError:
        pytest.skip("no user 'nobody' on this machine to plant files as")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    ran, evil_root = tmp_path / "plugin-ran", tmp_path / "evil-root"
    config = shared / ".truncation.yaml"
    config.write_text(f"store:\n  root: {evil_root}\nplugins:\n  modules: [evil]\n")
    module = shared / "evil.py"
    module.write_text(f"open({str(ran)!r}, 'w').write('ran')\n")
    for path in (config, module):
        try:
            os.chown(path, uid, uid)
        except PermissionError:
            pytest.skip("planting a file owned by another user needs root (CI runs as root)")
    bash = payload("claude_code_pre_tool_use_bash", tool_input={"command": "seq 1 50000"},
                   cwd=str(shared))
    done = _hook(["claude-code"], json.dumps(bash).encode(), shared, host_env)
    assert done.returncode == 0, done.stderr.decode()
    rewritten = json.loads(done.stdout)["hookSpecificOutput"]["updatedInput"]["command"]
    assert str(evil_root) not in rewritten
    subprocess.run(["bash", "-c", rewritten], capture_output=True, cwd=shared, env=host_env,
                   timeout=60, check=False)
    mcp = payload("claude_code_post_tool_use_mcp", cwd=str(shared))
    mcp["tool_response"][0]["text"] = "".join(f"row {n}\n" for n in range(50_000))
    done = _hook(["claude-code"], json.dumps(mcp).encode(), shared, host_env)
    assert done.returncode == 0 and b"art_" in done.stdout
    assert not ran.exists() and not evil_root.exists()


# -- settings files ------------------------------------------------------------------------------


def test_a_settings_file_that_is_a_link_is_written_where_it_points(
        tmp_path: Path, host_env: dict[str, str]) -> None:
    """``.claude/settings.json`` a link into a dotfiles repository: the install replaced the
    link by a file, and the repository's copy never got the hook. The file the link points
    to gets it, with its mode; the link stays."""
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "settings.json").write_text('{"model": "opus"}\n')
    (dotfiles / "settings.json").chmod(0o600)
    project = tmp_path / "project"
    (project / ".claude").mkdir(parents=True)
    link = project / ".claude" / "settings.json"
    link.symlink_to("../../dotfiles/settings.json")
    done = _hook(["claude-code", "--install"], b"", project, host_env)
    assert done.returncode == 0, done.stderr.decode()
    assert link.is_symlink() and os.readlink(link) == "../../dotfiles/settings.json"
    data = json.loads((dotfiles / "settings.json").read_text())
    assert data["model"] == "opus" and set(data["hooks"]) == {"PreToolUse", "PostToolUse"}
    assert (dotfiles / "settings.json").stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in dotfiles.iterdir()) == ["settings.json"]


def _host_writes_meanwhile(monkeypatch: pytest.MonkeyPatch, path: Path, times: int) -> None:
    """Fault: the host rewrites *path* (a key of its own added) while the hook's copy is being
    written, the first *times* times."""
    real = tempfile.mkstemp
    count = [0]

    def mkstemp(*args: Any, **kwargs: Any) -> tuple[int, str]:
        if count[0] < times:
            count[0] += 1
            data = json.loads(path.read_text())
            data[f"hostKey{count[0]}"] = True
            path.write_text(json.dumps(data))
        return real(*args, **kwargs)

    monkeypatch.setattr(settings_module.tempfile, "mkstemp", mkstemp)


def test_what_the_host_writes_while_the_hook_is_installed_is_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"model": "opus"}')
    _host_writes_meanwhile(monkeypatch, path, 2)
    assert install(path, ENTRIES) == ["PreToolUse", "PostToolUse"]
    data = json.loads(path.read_text())
    assert data["hostKey1"] is True and data["hostKey2"] is True
    assert data["model"] == "opus" and set(data["hooks"]) == {"PreToolUse", "PostToolUse"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]


def test_a_file_the_host_never_stops_writing_is_left_as_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"model": "opus"}')
    _host_writes_meanwhile(monkeypatch, path, 1000)
    with pytest.raises(SettingsError, match="kept changing it"):
        install(path, ENTRIES)
    assert "hooks" not in json.loads(path.read_text())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]


def test_control_a_plain_read_modify_replace_loses_the_hosts_write(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative control: written without looking again (as the install was), the file
    replaces what the host wrote meanwhile."""
    def naive(path: Path, data: bytes, before: bytes | None) -> bool:
        fd, tmp = tempfile.mkstemp(dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        return True

    path = tmp_path / "settings.json"
    path.write_text('{"model": "opus"}')
    monkeypatch.setattr(settings_module, "_write", naive)
    _host_writes_meanwhile(monkeypatch, path, 1)
    install(path, ENTRIES)
    assert "hostKey1" not in json.loads(path.read_text())


BAD_SETTINGS = {
    "nested 100,000 deep": ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "a 5,000-digit number": ('{"n": ' + "9" * 5000 + "}", "not valid JSON"),
    "not UTF-8": (b'{"a": "\xff"}', "not valid JSON"),
    "a directory": (None, "Is a directory"),
}


@pytest.mark.parametrize("case", BAD_SETTINGS.values(), ids=BAD_SETTINGS.keys())
def test_a_settings_file_the_hook_cannot_read_is_left_alone_with_a_message(
        tmp_path: Path, host_env: dict[str, str], case: tuple[str | bytes | None, str]
        ) -> None:
    content, message = case
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    if content is None:
        settings.mkdir()
    elif isinstance(content, bytes):
        settings.write_bytes(content)
    else:
        settings.write_text(content)
    before = settings.read_bytes() if content is not None else None
    done = _hook(["claude-code", "--install"], b"", tmp_path, host_env)
    assert done.returncode == 1, done.stderr.decode()
    assert message in done.stderr.decode() and b"Traceback" not in done.stderr
    if before is not None:
        assert settings.read_bytes() == before


def test_a_settings_file_holding_a_lone_surrogate_keeps_it(tmp_path: Path,
                                                            host_env: dict[str, str]) -> None:
    """``"\\ud800"`` in the file (JSON allows the escape): writing it back as UTF-8 raised a
    UnicodeEncodeError traceback. It is written with the escape kept."""
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"note": "a\\ud800b"}')
    done = _hook(["claude-code", "--install"], b"", tmp_path, host_env)
    assert done.returncode == 0, done.stderr.decode()
    data = json.loads(settings.read_text())
    assert data["note"] == "a\ud800b" and "PreToolUse" in data["hooks"]


# -- what the host reads of a rewritten command ---------------------------------------------------


def _merged(rewritten: str, cwd: Path, env: dict[str, str]) -> list[str]:
    """The rewritten command's output as a host reads it: stdout, then stderr."""
    ran = subprocess.run(["bash", "-c", rewritten], capture_output=True, text=True, cwd=cwd,
                         env=env, timeout=60, check=False)
    return (ran.stdout + ran.stderr).splitlines()


def test_an_output_without_a_final_newline_stays_apart_from_the_summary(
        tmp_path: Path, host_env: dict[str, str]) -> None:
    """``curl`` of a JSON API, ``printf``: output without a final newline. The host reads
    stdout then stderr, and the model saw ``{"ok":true}unchanged: 11 chars, 1 line``. Its
    last line is its own."""
    rewritten = wrapped("printf '{\"ok\":true}'", [str(TRUNC)])
    assert rewritten is not None
    lines = _merged(rewritten, tmp_path, host_env)
    assert '{"ok":true}' in lines
    assert any(line.startswith("unchanged: 11 chars") for line in lines)


def test_control_without_the_newline_the_output_runs_into_the_summary(
        tmp_path: Path, host_env: dict[str, str]) -> None:
    """Negative control: ``trunc run`` printing its view as it did (a newline only for a
    terminal)."""
    prelude = ("from truncation_core.cli import actions\n"
               "real = actions.print_content\n"
               "actions.print_content = lambda text, view=False: real(text)\n"
               "from truncation_core.cli import main\nmain()\n")
    rewritten = wrapped("printf '{\"ok\":true}'", [sys.executable, "-c", prelude])
    assert rewritten is not None
    assert '{"ok":true}unchanged: 11 chars, 1 line' in _merged(rewritten, tmp_path, host_env)
