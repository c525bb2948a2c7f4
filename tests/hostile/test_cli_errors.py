"""The CLI answers with messages, never tracebacks: a missing directory, a read-only
filesystem or a full disk for an export, an executable without a ``#!`` line, a closed
standard output, an environment value of more than 4,300 digits, ``[[tool.truncation_core]]``
in pyproject.toml, ``--timeout nan``.

Commands run for real, in a subprocess (``python -m truncation_core``); the read-only and
full filesystems are tmpfs mounts in a user and mount namespace, which needs no root (the
test skips, saying why, where namespaces are not available). The negative controls run the
same commands through naive code: click's plain group, which lets an OSError out as a
traceback, and the parts the checks replaced.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from namespaces import MS_RDONLY, mount_private_tmpfs

TRUNC = [sys.executable, "-m", "truncation_core"]


def trunc(*args: str, cwd: Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNCATION_CORE_")}
    env.update(kwargs.pop("env", {}))
    return subprocess.run([*TRUNC, *args], capture_output=True, text=True, timeout=120,
                          cwd=cwd, env=env, **kwargs)


def clean(done: subprocess.CompletedProcess[str]) -> str:
    """The error output, asserting that it is a message, not a traceback."""
    assert "Traceback" not in done.stderr, done.stderr
    return done.stderr


@pytest.fixture
def workspace(tmp_path: Path) -> tuple[Path, str]:
    """A workspace with one session holding one artifact of 200 kB of random text."""
    import secrets

    text = "\n".join(secrets.token_hex(50) for _ in range(2000))
    done = subprocess.run([*TRUNC, "apply", "--tool", "x", "--json"], input=text,
                          capture_output=True, text=True, cwd=tmp_path, check=True)
    import json

    session = json.loads(done.stdout)["artifact"]["session"]
    return tmp_path, session


# -- export ---------------------------------------------------------------------------------


def test_export_into_a_missing_directory_is_a_message(workspace: tuple[Path, str]) -> None:
    cwd, session = workspace
    done = trunc("artifacts", "export", "--session", session, "-o", "no/such/dir/x.tar.gz",
                 cwd=cwd)
    assert done.returncode == 1
    assert "no/such/dir/x.tar.gz: cannot write the archive: No such file or directory" in \
        clean(done)


def test_negative_control_a_plain_click_group_prints_a_traceback(
        workspace: tuple[Path, str]) -> None:
    """The library error alone is not enough: an OSError from anywhere else (here, the
    archive error taken away) reaches the user as a traceback through click's own group."""
    cwd, session = workspace
    code = ("import sys, click\n"
            "from truncation_core.artifacts import archive\n"
            "archive._export_error = lambda target, exc: exc\n"
            "from truncation_core import cli\n"
            "{patch}"
            "cli.cli(prog_name='trunc')\n")
    args = ["artifacts", "export", "--session", session, "-o", "no/such/dir/x.tar.gz"]
    naive = subprocess.run([sys.executable, "-c", code.format(
        patch="cli.TruncGroup.invoke = click.Group.invoke\n"), *args], capture_output=True,
        text=True, cwd=cwd, timeout=120)
    assert "Traceback" in naive.stderr and "FileNotFoundError" in naive.stderr
    ours = subprocess.run([sys.executable, "-c", code.format(patch=""), *args],
                          capture_output=True, text=True, cwd=cwd, timeout=120)
    assert ours.returncode == 1 and "No such file or directory" in clean(ours)


def _in_namespace(q: Any, mount: str, options: str, flags: int, argv: list[str],
                  cwd: str) -> None:
    try:
        mount_private_tmpfs(mount, options, flags)
        env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNCATION_CORE_")}
        done = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=env,
                              timeout=120)
        q.put(("ok", done.returncode, done.stderr, sorted(os.listdir(mount))))
    except OSError as exc:
        q.put(("oserror", exc.errno, str(exc)))
    except BaseException as exc:
        q.put(("error", repr(exc)))


def run_with_mount(mount: Path, argv: list[str], cwd: Path, *, options: str = "size=1m",
                   flags: int = 0) -> tuple[int, str, list[str]]:
    """Run *argv* with a tmpfs mounted at *mount*, in a user and mount namespace."""
    import errno

    mount.mkdir(parents=True, exist_ok=True)
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_in_namespace, args=(q, str(mount), options, flags, argv,
                                                str(cwd)))
    p.start()
    result = q.get(timeout=180)
    p.join(30)
    if result[0] == "oserror" and result[1] in (errno.EPERM, errno.EACCES, errno.EINVAL):
        pytest.skip(f"user and mount namespaces are not available here: {result[2]}")
    assert result[0] == "ok", result
    return result[1], result[2], result[3]


def test_export_onto_a_read_only_filesystem_is_a_message(workspace: tuple[Path, str]) -> None:
    cwd, session = workspace
    mount = cwd / "ro"
    code, stderr, left = run_with_mount(mount, [*TRUNC, "artifacts", "export", "--session",
                                                session, "-o", str(mount / "x.tar.gz")],
                                        cwd, flags=MS_RDONLY)
    assert code == 1 and "Traceback" not in stderr, stderr
    assert "cannot write the archive: Read-only file system" in stderr
    assert left == []


def test_export_onto_a_full_disk_is_a_message_and_leaves_nothing(
        workspace: tuple[Path, str]) -> None:
    cwd, session = workspace
    mount = cwd / "full"
    code, stderr, left = run_with_mount(mount, [*TRUNC, "artifacts", "export", "--session",
                                                session, "-o", str(mount / "x.tar.gz")],
                                        cwd, options="size=32k")
    assert code == 1 and "Traceback" not in stderr, stderr
    assert "cannot write the archive: No space left on device" in stderr
    assert left == []  # the partial archive was removed


def test_negative_control_the_naive_cli_on_a_full_disk_prints_a_traceback(
        workspace: tuple[Path, str]) -> None:
    cwd, session = workspace
    mount = cwd / "full"
    naive = [sys.executable, "-c",
             "import click\nfrom truncation_core.artifacts import archive\n"
             "archive._export_error = lambda target, exc: exc\n"
             "from truncation_core import cli\ncli.TruncGroup.invoke = click.Group.invoke\n"
             "cli.cli(prog_name='trunc')\n",
             "artifacts", "export", "--session", session, "-o", str(mount / "x.tar.gz")]
    code, stderr, _ = run_with_mount(mount, naive, cwd, options="size=32k")
    assert code == 1 and "Traceback" in stderr and "No space left on device" in stderr


# -- trunc run ------------------------------------------------------------------------------


def test_an_executable_without_a_shebang_exits_126_with_a_message(tmp_path: Path) -> None:
    script = tmp_path / "script"
    script.write_text("echo hi\n")
    script.chmod(0o755)
    done = trunc("run", "--", str(script), cwd=tmp_path)
    assert done.returncode == 126
    assert "cannot execute" in clean(done) and "without a '#!' line" in done.stderr


def test_negative_control_popen_raises_exec_format_error(tmp_path: Path) -> None:
    import errno

    script = tmp_path / "script"
    script.write_text("echo hi\n")
    script.chmod(0o755)
    with pytest.raises(OSError) as caught:
        subprocess.Popen([str(script)])
    assert caught.value.errno == errno.ENOEXEC


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN"])
def test_a_timeout_that_is_not_a_finite_number_is_refused(tmp_path: Path, value: str) -> None:
    done = trunc("run", "--timeout", value, "--", "true", cwd=tmp_path)
    assert done.returncode == 2 and "--timeout" in clean(done)


def test_negative_control_click_accepts_nan_as_a_positive_float() -> None:
    import math

    value = click.FloatRange(min=0, min_open=True).convert("nan", None, None)
    assert math.isnan(value)


# -- standard output closed -----------------------------------------------------------------


@pytest.mark.parametrize("args", [["artifacts", "list"], ["config", "show"],
                                  ["run", "--", "echo", "hi"], ["apply"]])
def test_a_closed_standard_output_is_a_message(tmp_path: Path, args: list[str]) -> None:
    done = subprocess.run([*TRUNC, *args], input="x\n" * 10, stderr=subprocess.PIPE,
                          text=True, timeout=120, cwd=tmp_path,
                          preexec_fn=lambda: os.close(1))
    assert done.returncode == 1
    assert "standard output is closed" in clean(done)


def test_negative_control_naive_output_with_stdout_closed_prints_a_traceback(
        tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", "import sys; sys.stdout.write('x')"],
                          capture_output=False, stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: os.close(1), timeout=60)
    assert "Traceback" in done.stderr


# -- configuration --------------------------------------------------------------------------


def test_an_environment_value_of_5000_digits_is_a_message(tmp_path: Path) -> None:
    done = trunc("config", "show", cwd=tmp_path,
                 env={"TRUNCATION_CORE_INLINE_LIMIT": "9" * 5000})
    assert done.returncode == 1
    assert "TRUNCATION_CORE_INLINE_LIMIT: an integer with more than 4,300 digits" in \
        clean(done)


def test_an_array_of_tables_in_pyproject_is_a_message(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[[tool.truncation_core]]\ninline_limit = 5\n")
    done = trunc("config", "show", cwd=tmp_path)
    assert done.returncode == 1
    assert "must be a table ([tool.truncation_core]), not an array of tables" in clean(done)


def test_negative_control_the_array_of_tables_is_a_list_to_naive_code(tmp_path: Path) -> None:
    import tomllib

    data = tomllib.loads("[[tool.truncation_core]]\ninline_limit = 5\n")
    table = data["tool"]["truncation_core"]
    assert isinstance(table, list)  # what a Mapping-expecting loader then crashed on
    with pytest.raises(AttributeError):
        table.items()  # type: ignore[attr-defined]
