"""The plain forms of ``trunc apply`` and ``trunc run`` run without click, and give what
click gives: the same stdout, stderr and exit status, on real processes.

Each case runs twice as the ``trunc`` script runs (``truncation_core.cli.main``): as it is,
and with the plain parser turned off, so that click parses the same command line. A probe
reports whether click was imported, so a case that silently went to click cannot pass for a
plain one (and the controls show that what is not plain does go to click).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from truncation_core.cli.plain import parse

# -- the parser -----------------------------------------------------------------------------


@pytest.mark.parametrize(("argv", "expected"), [
    (["apply"], ("apply", {}, [])),
    (["apply", "-"], ("apply", {"source": "-"}, [])),
    (["apply", "--tool", "read_file", "--json"],
     ("apply", {"tool": "read_file", "as_json": True}, [])),
    (["apply", "--tool=x", "--limit=100", "--max-lines", "5", "--strategy", "head"],
     ("apply", {"tool": "x", "limit": 100, "max_lines": 5, "strategy": "head"}, [])),
    (["apply", "--tool", "a", "--tool", "b"], ("apply", {"tool": "b"}, [])),  # the last wins
    (["apply", "--tool", ""], ("apply", {"tool": ""}, [])),
    (["apply", "--limit", "007"], ("apply", {"limit": 7}, [])),
    (["run", "--", "echo", "hi"], ("run", {}, ["echo", "hi"])),
    (["run", "echo", "--json"], ("run", {}, ["echo", "--json"])),
    (["run", "--json", "--timeout", "0.5", "--", "--help"],
     ("run", {"as_json": True, "timeout": 0.5}, ["--help"])),
    (["run", "--timeout=600", "--session", "s1", "pytest", "-x"],
     ("run", {"timeout": 600.0, "session": "s1"}, ["pytest", "-x"])),
])
def test_plain_forms_are_parsed(argv: list[str], expected: tuple[object, ...]) -> None:
    assert parse(argv) == expected


@pytest.mark.parametrize("argv", [
    [], ["--help"], ["--version"], ["--config", "x.yaml", "apply"], ["artifacts", "list"],
    ["apply", "--help"], ["apply", "-h"], ["apply", "file.txt"], ["apply", "-", "-"],
    ["apply", "--", "-"], ["apply", "--limit", "0"], ["apply", "--limit", "-5"],
    ["apply", "--limit", "1e3"], ["apply", "--limit", "٣"], ["apply", "--limit", "9" * 5000],
    ["apply", "--limit"], ["apply", "--tool", "--json"], ["apply", "--json=1"],
    ["apply", "--timeout", "5"], ["apply", "--nosuch"], ["apply", "--too", "x"],
    ["run"], ["run", "--"], ["run", "--tool", "x"], ["run", "--help", "--", "x"],
    ["run", "-", "x"], ["run", "--strategy", "head", "--", "x"], ["run", "--timeout", "0", "x"],
    ["run", "--timeout", "nan", "x"], ["run", "--timeout", "1e3", "x"],
    ["run", "--timeout", ".5", "x"], ["run", "--unknown", "x"],
])
def test_everything_else_is_left_to_click(argv: list[str]) -> None:
    assert parse(argv) is None


# -- the same output as click ---------------------------------------------------------------

_PROBE = """\
import atexit, sys
atexit.register(lambda: sys.stderr.write("\\n[click imported: %s]\\n" % ("click" in sys.modules)))
sys.argv = ["trunc", *{args!r}]
{patch}from truncation_core.cli import main
main()
"""
_CLICK_ONLY = "from truncation_core.cli import plain\nplain.parse = lambda argv: None\n"

_VOLATILE = [
    (re.compile(r"art_\d+_[0-9a-f]{32}"), "ART"),
    (re.compile(r"s\d{10}-[0-9a-f]{16}"), "SESSION"),
    (re.compile(r'"created_at": [0-9.]+'), '"created_at": T'),
    (re.compile(r"Wall time: [0-9.]+ s"), "Wall time: T s"),
    (re.compile(r'"duration_seconds": [0-9.e-]+'), '"duration_seconds": T'),
    # a token estimate of a cut counts the artifact id in its marker
    (re.compile(r"[0-9,]+ tokens by"), "N tokens by"),
    (re.compile(r'"estimated_tokens": \d+'), '"estimated_tokens": N'),
]


def both(args: list[str], cwd: Path, stdin: bytes) -> tuple[tuple[str, str, int, bool], ...]:
    """:func:`trunc` as it is and with click parsing, run at the same time."""
    with ThreadPoolExecutor(2) as pool:
        runs = [pool.submit(trunc, args, cwd, stdin, plain=plain) for plain in (True, False)]
        return tuple(run.result() for run in runs)


def trunc(args: list[str], cwd: Path, stdin: bytes, *, plain: bool) -> tuple[str, str, int, bool]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNCATION_CORE_")}
    env["TRUNCATION_CORE_PLUGINS"] = "example"
    code = _PROBE.format(args=args, patch="" if plain else _CLICK_ONLY)
    done = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True,
                          cwd=cwd, env=env, timeout=120)
    stdout, stderr = done.stdout.decode(), done.stderr.decode()
    stderr, _, probe = stderr.rpartition("\n[click imported: ")
    for pattern, replacement in _VOLATILE:
        stdout = pattern.sub(replacement, stdout)
        stderr = pattern.sub(replacement, stderr)
    return stdout, stderr, done.returncode, probe.startswith("True")


LOG = b"".join(b"line %d ok\n" % i for i in range(3000)) + b"ERROR: it broke\n" + \
    b"".join(b"line %d ok\n" % i for i in range(3000))
PRINTS = [sys.executable, "-c", "import sys; sys.stdout.write('x\\n' * 4000); "
          "sys.stderr.write('error: failed\\n'); sys.exit(3)"]

CASES = {
    "apply, small": (["apply"], b"hi\n"),
    "apply -, json": (["apply", "-", "--json"], b"hi\n"),
    "apply, cut": (["apply", "--limit", "500"], LOG),
    "apply, cut, json": (["apply", "--json", "--limit=500", "--tool", "read_file"], LOG),
    "apply, lines and tokens": (["apply", "--max-lines", "7", "--max-tokens", "300"], LOG),
    "apply, strategy": (["apply", "--strategy", "tail", "--max-bytes", "400"], LOG),
    "apply, session": (["apply", "--session", "plain-test", "--limit", "300"], LOG),
    "apply, invalid UTF-8": (["apply", "--limit", "100"], b"\xff\xfe" * 500 + b"\n"),
    "apply, unknown strategy": (["apply", "--strategy", "nosuch"], b"hi\n"),
    "apply, unknown strategy for a tool": (["apply", "--tool", "t", "--strategy", "no"], b"x"),
    "apply, bad session": (["apply", "--session", "BAD ID"], b"hi\n"),
    "apply, unknown tokenizer": (["apply", "--tokenizer", "nosuch", "--max-tokens", "9"], b"x"),
    "run": (["run", "--", sys.executable, "-c", "print('hi')"], b""),
    "run, no --": (["run", sys.executable, "-c", "print('hi')"], b""),
    "run, cut, exit status": (["run", "--limit", "400", "--", *PRINTS], b""),
    "run, cut, json": (["run", "--json", "--limit", "400", "--tool", "t", "--", *PRINTS], b""),
    "run, timeout": (["run", "--timeout", "0.3", "--", "sleep", "30"], b""),
    "run, not found": (["run", "--", "no-such-command-here"], b""),
    "run, not executable": (["run", "--", "/etc/hostname"], b""),
    "run, bad session": (["run", "--session", "BAD ID", "--", "true"], b""),
}


@pytest.mark.parametrize("case", CASES)
def test_a_plain_form_gives_what_click_gives_without_importing_it(tmp_path: Path,
                                                                   case: str) -> None:
    args, stdin = CASES[case]
    (*ours, ours_imported), (*clicks, clicks_imported) = both(args, tmp_path, stdin)
    assert clicks_imported  # control: the probe sees click
    assert ours == clicks
    # a value the configuration rejects is reported by click's usage error (exit status 2)
    assert ours_imported == (ours[2] == 2)


def test_the_configurations_warnings_are_the_same(tmp_path: Path) -> None:
    """A config file skipped as untrusted is announced once, as click's path announces it;
    with a rejected option too."""
    (tmp_path / ".truncation.yaml").write_text("inline_limit: 50\n")
    (tmp_path / ".truncation.yaml").chmod(0o666)
    for args in (["apply"], ["apply", "--strategy", "nosuch"]):
        (*ours, _), (*clicks, _) = both(args, tmp_path, b"hi\n")
        assert ours == clicks
        assert str(ours[1]).count("warning: config file") == 1


@pytest.mark.parametrize("args", [["apply", "--help"], ["apply", "--limit", "0"],
                                  ["run", "--timeout", "nan", "--", "true"], ["--version"]])
def test_control_what_is_not_plain_goes_to_click(tmp_path: Path, args: list[str]) -> None:
    (*ours, imported), (*clicks, _) = both(args, tmp_path, b"")
    assert imported
    assert ours == clicks


def test_control_the_comparison_sees_a_difference(tmp_path: Path) -> None:
    """The two runs are compared on what differs: another limit gives another output."""
    first = trunc(["apply", "--limit", "500"], tmp_path, LOG, plain=True)
    second = trunc(["apply", "--limit", "1500"], tmp_path, LOG, plain=False)
    assert first[:3] != second[:3]
