"""`trunc apply` shows a plugin strategy's own cut, shell completion of strategy and tool
names, and --json for `artifacts export` and `artifacts import`; run as real subprocesses."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from distributions import SiteDir

from truncation_core.cli import actions

TEXT = "".join(f"{i:05d} some log line\n" for i in range(1, 5001))


def run(trunc_exe: str, env: dict[str, str], cwd: Path, *args: str,
        extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([trunc_exe, *args], capture_output=True, text=True, timeout=60,
                          env={**env, **(extra or {})}, cwd=cwd)


def test_apply_with_a_plugin_strategy_shows_its_cut(trunc_exe: str, trunc_env: dict[str, str],
                                                    tmp_path: Path,
                                                    example_plugin: SiteDir) -> None:
    source = tmp_path / "in.txt"
    source.write_text(TEXT)
    done = run(trunc_exe, trunc_env, tmp_path, "apply", "--strategy", "sample", "--limit",
               "1500", "--json", str(source), extra={"TRUNCATION_CORE_PLUGINS": "example",
                                                      "PYTHONPATH": str(example_plugin.root)})
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["metadata"]["strategy_used"] == "sample"
    # sample keeps lines from the middle too: more than one marker
    assert document["content"].count("omitted") >= 2
    assert not any("cannot cut a stream" in note for note in document["metadata"]["notes"])


def test_control_streamed_the_plugin_strategy_falls_back_to_head_tail(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, example_plugin: SiteDir) -> None:
    """Over the whole-input cap the input streams, and the stream cuts with head_tail (what
    `trunc apply --strategy sample` always did)."""
    from click.testing import CliRunner

    from truncation_core.cli import cli

    monkeypatch.setattr(actions, "WHOLE_INPUT_BYTES", 1000)
    monkeypatch.setenv("TRUNCATION_CORE_PLUGINS", "example")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["apply", "--strategy", "sample", "--limit", "1500",
                                      "--json", "-"], input=TEXT)
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["metadata"]["strategy_used"] == "head_tail"
    assert any("cannot cut a stream" in note for note in document["metadata"]["notes"])


def test_shell_completion_of_strategies_and_tools(trunc_exe: str, trunc_env: dict[str, str],
                                                  tmp_path: Path,
                                                  example_plugin: SiteDir) -> None:
    (tmp_path / ".truncation.yaml").write_text("tools:\n  my_search: {strategy: ranked}\n")
    env = {"TRUNCATION_CORE_PLUGINS": "example", "_TRUNC_COMPLETE": "bash_complete",
           "PYTHONPATH": str(example_plugin.root)}
    done = run(trunc_exe, trunc_env, tmp_path, extra={
        **env, "COMP_WORDS": "trunc apply --strategy s", "COMP_CWORD": "3"})
    assert done.stdout.split() == ["plain,sample"]
    done = run(trunc_exe, trunc_env, tmp_path, extra={
        **env, "COMP_WORDS": "trunc apply --strategy ", "COMP_CWORD": "3"})
    names = {line.split(",")[1] for line in done.stdout.split()}
    assert {"head", "tail", "head_tail", "lines", "element", "ranked", "sample"} <= names
    done = run(trunc_exe, trunc_env, tmp_path, extra={
        **env, "COMP_WORDS": "trunc run --tool m", "COMP_CWORD": "3"})
    assert done.stdout.split() == ["plain,my_search"]
    done = run(trunc_exe, trunc_env, tmp_path, extra={"_TRUNC_COMPLETE": "bash_source"})
    assert "_trunc_completion" in done.stdout  # the script docs/cli.md says to source


def test_export_and_import_as_json(trunc_exe: str, trunc_env: dict[str, str],
                                   tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text(TEXT)
    done = run(trunc_exe, trunc_env, tmp_path, "apply", "--session", "s1", "in.txt")
    assert done.returncode == 0, done.stderr
    done = run(trunc_exe, trunc_env, tmp_path, "artifacts", "export", "--session", "s1",
               "-o", "s1.tar.gz", "--json")
    assert done.returncode == 0, done.stderr
    exported = json.loads(done.stdout)
    assert exported["session"] == "s1" and exported["artifacts"] == 1
    assert Path(exported["path"]).name == "s1.tar.gz"
    done = run(trunc_exe, trunc_env, tmp_path, "artifacts", "import", "s1.tar.gz",
               "--session", "s2", "--json")
    assert done.returncode == 0, done.stderr
    imported = json.loads(done.stdout)
    assert imported["session"] == "s2" and len(imported["imported"]) == 1
    assert imported["skipped"] == [] and imported["bytes"] == len(TEXT)
