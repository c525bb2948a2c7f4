"""``trunc artifacts``: what a newcomer does from the command line, in a real subprocess
for the first run and through click's runner for the rest."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from terminal import run_with_stderr_on_a_terminal

from truncation_core.cli import cli


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("TRUNCATION_CORE_"):
            monkeypatch.delenv(name)
    return tmp_path


def trunc(*args: str, input: str | bytes | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def make_artifact(workspace: Path) -> str:
    log = "".join(f"step {i}: ok\n" for i in range(1, 5001)) + "ERROR: boom\n"
    proc = subprocess.run([sys.executable, "-m", "truncation_core", "apply", "--tool",
                           "execute_command", "--json"], input=log.encode(),
                          capture_output=True, cwd=workspace, check=True)
    return json.loads(proc.stdout)["artifact"]["id"]


def test_list_prints_summaries_literally(workspace: Path) -> None:
    """A command line with ``[/x]`` in it made rich raise a MarkupError on every listing."""
    from truncation_core import Truncator

    text = "".join(f"line {i}\n" for i in range(20_000))

    truncator = Truncator.from_config(start=workspace)
    truncator.process(text, tool="execute_command", command='grep "[/a-z]" [bold]x')
    proc = subprocess.run([sys.executable, "-m", "truncation_core", "artifacts", "list"],
                          capture_output=True, text=True, cwd=workspace)
    assert proc.returncode == 0, proc.stderr
    assert 'grep "[/a-z]" [bold]x' in proc.stdout


def test_list_show_head_tail_grep(workspace: Path) -> None:
    artifact_id = make_artifact(workspace)
    proc = subprocess.run([sys.executable, "-m", "truncation_core", "artifacts", "list"],
                          capture_output=True, text=True, cwd=workspace, check=True)
    assert artifact_id in proc.stdout and "execute_command" in proc.stdout
    for column in ("ID", "Size", "Source", "Age"):
        assert column in proc.stdout
    code, out, _ = trunc("artifacts", "list", "--json")
    listed = json.loads(out)
    assert code == 0 and listed[0]["id"] == artifact_id and listed[0]["lines"] == 5001
    code, out, _ = trunc("artifacts", "show", artifact_id, "--lines", "2-3")
    assert out == "step 2: ok\nstep 3: ok\n"
    code, out, _ = trunc("artifacts", "show", artifact_id)
    assert out.count("\n") == 5001 and out.endswith("ERROR: boom\n")
    code, out, _ = trunc("artifacts", "show", artifact_id, "--lines", "5000-", "--json")
    doc = json.loads(out)
    assert doc["text"] == "step 5000: ok\nERROR: boom\n" and len(doc["artifact"]["sha256"]) == 64
    assert trunc("artifacts", "head", artifact_id, "-n", "1")[1] == "step 1: ok\n"
    assert trunc("artifacts", "tail", artifact_id, "-n", "1")[1] == "ERROR: boom\n"
    code, out, _ = trunc("artifacts", "grep", artifact_id, "boom")
    assert (code, out) == (0, "5001:ERROR: boom\n")
    code, out, _ = trunc("artifacts", "grep", artifact_id, "^step 4999", "-E", "-C", "1")
    assert out == "4998-step 4998: ok\n4999:step 4999: ok\n5000-step 5000: ok\n"
    assert trunc("artifacts", "grep", artifact_id, "nothing like this")[0] == 1


def test_errors_are_one_clear_line(workspace: Path) -> None:
    make_artifact(workspace)
    result = CliRunner().invoke(cli, ["artifacts", "show", "../../etc/passwd"])
    assert result.exit_code != 0 and "artifact_id: expected an artifact id (art_" in result.output
    result = CliRunner().invoke(cli, ["artifacts", "show", "art_1_" + "0" * 32])
    assert result.exit_code != 0 and "not found" in result.output
    result = CliRunner().invoke(cli, ["artifacts", "clean", "--older-than", "7x"])
    assert result.exit_code == 2 and "--older-than" in result.output
    result = CliRunner().invoke(cli, ["artifacts", "show", "art_1_" + "0" * 32, "--lines", "9-3"])
    assert result.exit_code == 2 and "--lines" in result.output


def test_exit_codes_and_names_nothing_has_are_errors(workspace: Path) -> None:
    artifact_id = make_artifact(workspace)  # 5,001 lines
    result = CliRunner().invoke(cli, ["artifacts", "show", artifact_id, "--lines", "6000-"])
    assert result.exit_code == 2
    assert "'--lines': line 6,000 is past the end; the artifact has 5,001 lines" in result.output
    assert trunc("artifacts", "show", artifact_id, "--lines", "5001-")[1] == "ERROR: boom\n"
    # grep: 0 matched, 1 none matched, 2 an error (as grep)
    assert trunc("artifacts", "grep", artifact_id, "boom")[0] == 0
    assert trunc("artifacts", "grep", artifact_id, "no such text")[0] == 1
    for args in ([artifact_id, "(", "-E"], ["art_bad", "x"], ["art_1_" + "0" * 32, "x"]):
        result = CliRunner().invoke(cli, ["artifacts", "grep", *args])
        assert result.exit_code == 2, (args, result.output)
        assert "Error: " in result.output
    # a session nothing has, or a malformed one, is an error rather than an empty listing
    result = CliRunner().invoke(cli, ["artifacts", "list", "--session", "nosuch"])
    assert result.exit_code == 1 and "no session 'nosuch'" in result.output
    result = CliRunner().invoke(cli, ["artifacts", "list", "--session", "BAD/x"])
    assert result.exit_code == 1 and "session: expected" in result.output
    session = json.loads(trunc("artifacts", "list", "--json")[1])[0]["session"]
    assert trunc("artifacts", "list", "--session", session)[0] == 0
    trunc("artifacts", "clean")
    result = CliRunner().invoke(cli, ["artifacts", "export"])
    assert result.exit_code == 1 and "nothing to export: there are no sessions" in result.output


def test_clean_export_import(workspace: Path) -> None:
    artifact_id = make_artifact(workspace)
    session = json.loads(trunc("artifacts", "list", "--json")[1])[0]["session"]
    code, out, _ = trunc("artifacts", "export", "--session", session, "-o", "s.tar.gz")
    assert code == 0 and "exported 1 artifact of session" in out
    with tarfile.open(workspace / "s.tar.gz") as tar:
        assert "manifest.json" in tar.getnames()
    code, out, _ = trunc("artifacts", "clean", "--older-than", "1d")
    assert "deleted 0 sessions" in out
    code, out, _ = trunc("artifacts", "clean", "--session", session, "--json")
    assert json.loads(out)["sessions"] == [session]
    assert json.loads(trunc("artifacts", "list", "--json")[1]) == []
    code, out, _ = trunc("artifacts", "import", "s.tar.gz")
    assert code == 0 and "imported 1 artifact into session" in out
    assert trunc("artifacts", "tail", artifact_id, "-n", "1")[1] == "ERROR: boom\n"
    code, out, _ = trunc("artifacts", "clean")
    assert "deleted 1 session, 1 artifact" in out


ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def terminal_env(**extra: str) -> dict[str, str]:
    """The test's environment (TRUNCATION_CORE_* already removed by ``workspace``) without the
    variables that change how rich sees a terminal, plus *extra*."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE",
                        "COLUMNS", "LINES")}
    env["TERM"] = "xterm-256color"
    return {**env, **extra}


def test_export_and_import_draw_a_progress_bar_on_a_terminal(workspace: Path) -> None:
    make_artifact(workspace)
    exported = [sys.executable, "-m", "truncation_core", "artifacts", "export", "-o", "s.tar.gz"]
    code, out, screen = run_with_stderr_on_a_terminal(exported, cwd=workspace,
                                                      env=terminal_env())
    assert code == 0
    assert out.startswith("exported 1 artifact of session") and out.count("\n") == 1
    drawn = ANSI_ESCAPE.sub("", screen)
    assert re.search(r"export ━+ 0\.0/[\d.]+ kB", drawn), screen  # drawn when it starts...
    done = re.search(r"export ━+ ([\d.]+)/\1 kB", drawn)  # ...and full when it ends
    assert done, screen
    imported = [sys.executable, "-m", "truncation_core", "artifacts", "import", "s.tar.gz",
                "--session", "imported"]
    code, out, screen = run_with_stderr_on_a_terminal(imported, cwd=workspace,
                                                      env=terminal_env())
    assert (code, out) == (0, "imported 1 artifact into session imported\n")
    drawn = ANSI_ESCAPE.sub("", screen)
    assert re.search(rf"import ━+ {re.escape(done.group(1))}/\? kB", drawn), screen


def test_export_and_import_draw_nothing_when_stderr_is_piped(workspace: Path) -> None:
    """Not even with FORCE_COLOR, which CI services set for colored logs: a progress bar
    there would fill the log with cursor movements."""
    make_artifact(workspace)
    for argv, line in ((["export", "-o", "s.tar.gz"], "exported 1 artifact of session"),
                       (["import", "s.tar.gz", "--session", "imported"],
                        "imported 1 artifact into session imported")):
        done = subprocess.run([sys.executable, "-m", "truncation_core", "artifacts", *argv],
                              capture_output=True, text=True, cwd=workspace,
                              env=terminal_env(FORCE_COLOR="1"), timeout=120)
        assert done.returncode == 0
        assert done.stdout.startswith(line) and done.stdout.count("\n") == 1
        assert done.stderr == ""


# A backend that a plugin provides, shared across the in-process CLI invocations of one test
# (the built-in memory backend starts empty in every process).
_SHELF_PLUGIN = """
from truncation_core.plugin import Provides, hookimpl
from truncation_core.storage.memory import MemoryBackend

SHELF = MemoryBackend()

@hookimpl
def provides():
    return Provides(backends={"shelf": lambda config: SHELF.session(config.session)})
"""


def test_every_command_works_on_a_backend_a_plugin_provides(
        workspace: Path, site_dir: object, unique_name: str) -> None:
    """``trunc artifacts`` reaches artifacts through the storage protocol only: a backend
    from a project plugin lists, shows, searches, exports, imports and cleans."""
    (workspace / f"{unique_name}.py").write_text(_SHELF_PLUGIN)
    (workspace / ".truncation.yaml").write_text(
        f"store:\n  backend: shelf\n  session: work\nplugins:\n  modules: [{unique_name}]\n"
        "  autoload: false\n")
    log = "".join(f"step {i}: ok\n" for i in range(1, 5001)) + "ERROR: boom\n"
    code, out, _ = trunc("apply", "--tool", "execute_command", "--json", input=log)
    assert code == 0
    artifact = json.loads(out)["artifact"]["id"]
    code, out, _ = trunc("artifacts", "list", "--json")
    assert code == 0 and [a["id"] for a in json.loads(out)] == [artifact]
    assert json.loads(out)[0]["backend"] == "memory"
    code, out, _ = trunc("artifacts", "tail", artifact, "-n", "1")
    assert code == 0 and out == "ERROR: boom\n"
    code, out, _ = trunc("artifacts", "grep", artifact, "boom")
    assert code == 0 and out == "5001:ERROR: boom\n"
    code, out, _ = trunc("artifacts", "export", "--session", "work", "-o", "work.tar.gz")
    assert code == 0 and (workspace / "work.tar.gz").exists()
    code, out, _ = trunc("artifacts", "clean", "--session", "work")
    assert code == 0 and out.startswith("deleted 1 session, 1 artifact")
    code, out, _ = trunc("artifacts", "list", "--json")
    assert code == 0 and json.loads(out) == []
    code, out, _ = trunc("artifacts", "import", "work.tar.gz")
    assert code == 0 and out.startswith("imported 1 artifact into session work")
    code, out, _ = trunc("artifacts", "show", artifact, "--lines", "5001")
    assert code == 0 and out == "ERROR: boom\n"


def test_show_from_a_subdirectory_reads_the_workspace_s_store(workspace: Path) -> None:
    """``trunc run`` (or apply) in the project's root, ``trunc artifacts show`` from a
    subdirectory: the store is found above, as git finds .git (it said "not found"). A run
    from the subdirectory stores there too, and Python finds it the same way."""
    artifact_id = make_artifact(workspace)
    sub = workspace / "src" / "pkg"
    sub.mkdir(parents=True)
    proc = subprocess.run([sys.executable, "-m", "truncation_core", "artifacts", "show",
                           artifact_id], capture_output=True, text=True, cwd=sub)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("step 1: ok\nstep 2: ok\n")
    second = make_artifact(sub)
    assert not (sub / ".truncation").exists()
    from truncation_core import Truncator

    os.chdir(sub)
    root = workspace / ".truncation" / "artifacts"
    assert Truncator().store.path.startswith(f"{root}/")  # type: ignore[attr-defined]
    assert second in {p.name.split(".")[0] for p in root.glob("*/art_*")}


def test_without_a_store_above_the_working_directory_is_the_workspace(workspace: Path
                                                                       ) -> None:
    """Negative control: nothing above, the store is made where the command runs."""
    sub = workspace / "a" / "b"
    sub.mkdir(parents=True)
    make_artifact(sub)
    assert (sub / ".truncation" / "artifacts").is_dir()
    assert not (workspace / ".truncation").exists()


def test_a_store_directory_of_another_user_is_not_taken(workspace: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """Another user's ``.truncation/artifacts`` above (planted in a shared directory) is
    passed over, as their config files are."""
    from truncation_core.config.sources import find_store_workspace

    (workspace / ".truncation" / "artifacts").mkdir(parents=True)
    sub = workspace / "x"
    sub.mkdir()
    assert find_store_workspace(".truncation/artifacts", str(sub)) == str(workspace)
    monkeypatch.setattr(os, "geteuid", lambda: os.getuid() + 12345)
    assert find_store_workspace(".truncation/artifacts", str(sub)) is None
    assert find_store_workspace("/abs/root", str(sub)) is None
