"""``trunc apply`` and ``trunc run`` on real processes: what each form of the command line
prints, and its exit status. (click parses every command line; these were the plain forms
once parsed without it, and compared with click's output.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

LOG = b"".join(b"line %d ok\n" % i for i in range(3000)) + b"ERROR: it broke\n" + \
    b"".join(b"line %d ok\n" % i for i in range(3000))
PRINTS = [sys.executable, "-c", "import sys; sys.stdout.write('x\\n' * 4000); "
          "sys.stderr.write('error: failed\\n'); sys.exit(3)"]

#: name -> (arguments, standard input, exit status, in stdout, in stderr)
CASES: dict[str, tuple[list[str], bytes, int, list[str], list[str]]] = {
    "apply, small": (["apply"], b"hi\n", 0, ["hi\n"], ["unchanged: 3 chars, 1 line"]),
    "apply, cut": (["apply", "--limit", "500"], LOG, 0,
                   ["[Artifact: ", "lines / ", "get_artifact(artifact_id="],
                   ["truncated with head_tail", "artifact: art_"]),
    "apply, lines and tokens": (["apply", "--max-lines", "7", "--max-tokens", "300"], LOG, 0,
                                ["line 0 ok\n"], ["limit 300"]),
    "apply, strategy": (["apply", "--strategy", "tail", "--max-bytes", "400"], LOG, 0,
                        ["Beginning omitted", "line 2999 ok\n"], ["truncated with tail"]),
    "apply, invalid UTF-8": (["apply", "--limit", "100"], b"line \xff ok\n" * 500, 0,
                             ["line \ufffd ok\n"], ["truncated with head_tail"]),
    "apply, unknown strategy": (["apply", "--strategy", "nosuch"], b"hi\n", 2, [],
                                ["Invalid value for '--strategy'", "'nosuch'"]),
    "apply, unknown strategy for a tool": (["apply", "--tool", "t", "--strategy", "no"], b"x",
                                           2, [], ["Invalid value for '--strategy'"]),
    "apply, bad session": (["apply", "--session", "BAD ID"], b"hi\n", 2, [],
                           ["Invalid value for '--session'", "got 'BAD ID'"]),
    "apply, unknown tokenizer": (["apply", "--tokenizer", "nosuch", "--max-tokens", "9"],
                                 b"x", 2, [], ["Invalid value for '--tokenizer'"]),
    "run": (["run", "--", sys.executable, "-c", "print('hi')"], b"", 0,
            ["Exit code: 0\n", "Output:\nhi\n"], ["unchanged: 3 chars, 1 line"]),
    "run, no --": (["run", sys.executable, "-c", "print('hi')"], b"", 0,
                   ["Exit code: 0\n", "Output:\nhi\n"], []),
    "run, cut, exit status": (["run", "--limit", "400", "--", *PRINTS], b"", 3,
                              ["Exit code: 3\n", "Total output lines: 4,001", "omitted"],
                              ["truncated with adaptive"]),
    "run, timeout": (["run", "--timeout", "0.3", "--", "sleep", "30"], b"", 124,
                     ["Timed out after 0.3 s"], []),
    "run, not found": (["run", "--", "no-such-command-here"], b"", 127, [],
                       ["trunc run: command not found: no-such-command-here"]),
    "run, not executable": (["run", "--", "/etc/hostname"], b"", 126, [],
                            ["trunc run: cannot execute /etc/hostname"]),
    "run, bad session": (["run", "--session", "BAD ID", "--", "true"], b"", 2, [],
                         ["Invalid value for '--session'"]),
}


def trunc(trunc_exe: str, env: dict[str, str], cwd: Path, args: list[str],
          stdin: bytes) -> subprocess.CompletedProcess[str]:
    return subprocess.run([trunc_exe, *args], input=stdin, capture_output=True, cwd=cwd,
                          env={**env, "TRUNCATION_CORE_PLUGINS": "example"}, timeout=120,
                          check=False, text=False)  # type: ignore[call-overload]


@pytest.mark.parametrize("case", CASES)
def test_each_form_prints_what_it_says(trunc_exe: str, trunc_env: dict[str, str],
                                       tmp_path: Path, case: str) -> None:
    args, stdin, status, out, err = CASES[case]
    done = trunc(trunc_exe, trunc_env, tmp_path, args, stdin)
    stdout, stderr = done.stdout.decode(), done.stderr.decode()
    assert done.returncode == status, stderr
    for text in out:
        assert text in stdout, (text, stdout[:500])
    for text in err:
        assert text in stderr, (text, stderr)
    if status == 2:  # a usage error: click's, with no traceback
        assert stderr.startswith(f"Usage: trunc {args[0]} ") and "Traceback" not in stderr


def test_the_limits_hold(trunc_exe: str, trunc_env: dict[str, str], tmp_path: Path) -> None:
    for args, fits in ((["apply", "--limit", "500"], lambda out: len(out) <= 500),
                       (["apply", "--max-bytes", "400", "--strategy", "tail"],
                        lambda out: len(out.encode()) <= 400),
                       (["apply", "--max-lines", "7"], lambda out: out.count("\n") <= 7)):
        done = trunc(trunc_exe, trunc_env, tmp_path, args, LOG)
        assert done.returncode == 0 and fits(done.stdout.decode()), args


def test_json_gives_content_metadata_and_artifact(trunc_exe: str, trunc_env: dict[str, str],
                                                   tmp_path: Path) -> None:
    small = json.loads(trunc(trunc_exe, trunc_env, tmp_path, ["apply", "-", "--json"],
                             b"hi\n").stdout)
    assert small["content"] == "hi\n" and small["metadata"]["was_truncated"] is False
    assert small["artifact"] is None
    cut = json.loads(trunc(trunc_exe, trunc_env, tmp_path,
                           ["apply", "--json", "--limit=500", "--tool", "read_file"], LOG).stdout)
    meta = cut["metadata"]
    assert (meta["tool"], meta["strategy_used"], meta["strategy_chosen_by"]) == (
        "read_file", "outline", "default")  # read_file: an outline of a long file
    assert cut["artifact"]["id"] == meta["artifact_id"]
    done = trunc(trunc_exe, trunc_env, tmp_path,
                 ["run", "--json", "--limit", "400", "--tool", "t", "--", *PRINTS], b"")
    assert done.returncode == 3
    ran = json.loads(done.stdout)
    assert ran["content"].startswith("Exit code: 3\n")
    assert ran["metadata"]["command"]["exit_code"] == 3 and ran["metadata"]["tool"] == "t"


def test_a_session_keeps_the_artifact_where_another_process_finds_it(
        trunc_exe: str, trunc_env: dict[str, str], tmp_path: Path) -> None:
    done = trunc(trunc_exe, trunc_env, tmp_path,
                 ["apply", "--session", "cli-test", "--limit", "300", "--json"], LOG)
    artifact = json.loads(done.stdout)["artifact"]["id"]
    listed = trunc(trunc_exe, trunc_env, tmp_path,
                   ["artifacts", "list", "--session", "cli-test", "--json"], b"")
    assert artifact in listed.stdout.decode()


def test_an_untrusted_configuration_is_announced_once(trunc_exe: str, trunc_env: dict[str, str],
                                                     tmp_path: Path) -> None:
    """A config file skipped as untrusted is announced once; with a rejected option too."""
    (tmp_path / ".truncation.yaml").write_text("inline_limit: 50\n")
    (tmp_path / ".truncation.yaml").chmod(0o666)
    for args in (["apply"], ["apply", "--strategy", "nosuch"]):
        done = trunc(trunc_exe, trunc_env, tmp_path, args, b"hi\n")
        assert done.stderr.decode().count("warning: config file") == 1, args
