"""The ``trunc`` command line, run as a real subprocess (the installed console script)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from distributions import SiteDir
from reference import REFERENCE_FIRST_LINE, line_count


def log_lines(count: int) -> str:
    return "".join(f"[{i:07d}] building target_{i % 97} ... ok\n" for i in range(count))


@pytest.fixture(scope="module")
def big_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 1 MB build log whose last line is the one that matters."""
    path = tmp_path_factory.mktemp("logs") / "build.log"
    text = log_lines(28_500) + "ERROR: link failed: undefined reference to `main'\n"
    assert len(text) > 1_000_000
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def trunc(trunc_exe: str, trunc_env: dict[str, str], tmp_path: Path,  # type: ignore[no-untyped-def]
          example_plugin: SiteDir):
    """Run ``trunc`` in a directory with no config file above it (unless the test writes one),
    with the example plugin installed (its strategy ``sample``)."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    trunc_env = {**trunc_env, "PYTHONPATH": str(example_plugin.root)}

    def run(*args: str, stdin: str | bytes | None = None, env: dict[str, str] | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        data = stdin.encode("utf-8", "surrogatepass") if isinstance(stdin, str) else stdin
        done = subprocess.run([trunc_exe, *args], input=data, capture_output=True, timeout=60,
                              env={**trunc_env, **(env or {})}, cwd=cwd or workdir)
        return subprocess.CompletedProcess(done.args, done.returncode,
                                           done.stdout.decode("utf-8"),
                                           done.stderr.decode("utf-8"))

    run.workdir = workdir  # type: ignore[attr-defined]
    return run


def assert_clean_user_error(done: subprocess.CompletedProcess[str], code: int = 1) -> None:
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert "Error: " in done.stderr


# -- trunc apply -----------------------------------------------------------------------------


def test_apply_a_1mb_log_as_execute_command_shows_the_tail_within_budget(
        trunc, big_log: Path) -> None:  # type: ignore[no-untyped-def]
    done = trunc("apply", str(big_log), "--tool", "execute_command")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    original = big_log.read_text(encoding="utf-8")
    assert len(out) <= 8000
    # Over the artifact threshold: the reference, then the tail with its marker, in the rest
    # of the budget (the log fails at its end: adaptive keeps its tail).
    first = REFERENCE_FIRST_LINE.match(out)
    assert first is not None and first.group("summary") == "execute_command output"
    view = out[first.end():]
    assert view.startswith("... [Beginning omitted: ")
    kept = view.split(" (shown below)\n", 1)[1]  # after the outline of the omitted part
    assert len(out) > 8000 - 200  # the tail fills the budget, to within one line
    assert kept and original.endswith(kept) and len(kept) > 4000
    assert kept.endswith("ERROR: link failed: undefined reference to `main'\n")
    # Metadata goes to stderr.
    assert done.stderr.startswith(f"truncated with adaptive: {len(original):,} chars, "
                                  f"{line_count(original):,} lines -> {len(out):,} chars")
    assert re.search(r"^artifact: art_[0-9]+_[0-9a-f]{32} \(1\.0 MB, \w+ store\)$",
                     done.stderr, re.M)


def test_apply_with_a_limit_below_the_artifact_threshold(trunc) -> None:  # type: ignore[no-untyped-def]
    text = log_lines(1000)  # 36 kB: under the 50 kB artifact threshold
    done = trunc("apply", "--tool", "execute_command", "--limit", "1000", stdin=text)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) <= 1000
    # A log that never fails: its beginning and its end (head_ratio to the head).
    head, _, _ = done.stdout.partition("\n... [")
    assert head and text.startswith(head)
    assert done.stdout.endswith(text[-200:])


@pytest.mark.parametrize("source", [None, "-"])
def test_apply_reads_standard_input(trunc, source: str | None) -> None:  # type: ignore[no-untyped-def]
    args = ["apply", "--limit", "500"] + ([source] if source else [])
    text = log_lines(300)
    done = trunc(*args, stdin=text)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) <= 500
    assert done.stdout.startswith(text[:150])  # head_tail by default
    assert text.endswith(done.stdout[-100:])


def test_apply_leaves_small_input_unchanged(trunc) -> None:  # type: ignore[no-untyped-def]
    done = trunc("apply", stdin="hello\nworld")
    assert done.returncode == 0
    assert done.stdout == "hello\nworld"
    assert done.stderr.strip() == "unchanged: 11 chars, 2 lines"
    assert trunc("apply", stdin="x").stderr.strip() == "unchanged: 1 char, 1 line"


def test_apply_json_is_one_document(trunc) -> None:  # type: ignore[no-untyped-def]
    text = log_lines(300)
    done = trunc("apply", "--json", "--limit", "400", "--tool", "git_diff", stdin=text)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    document = json.loads(done.stdout)
    assert set(document) == {"content", "metadata", "artifact"}
    assert len(document["content"]) <= 400
    meta = document["metadata"]
    assert meta["was_truncated"] is True and meta["strategy_used"] == "head_tail"
    assert meta["tool"] == "git_diff"
    assert meta["original_size"] == len(text) and meta["original_lines"] == 300
    assert meta["truncated_size"] == len(document["content"])
    assert meta["artifact_id"] == document["artifact"]["id"]
    assert document["artifact"]["bytes"] == len(text)
    assert meta["limits"] == {"chars": 400, "bytes": None, "lines": None}


def test_apply_strategy_option(trunc) -> None:  # type: ignore[no-untyped-def]
    text = log_lines(300)
    done = trunc("apply", "--strategy", "head", "--limit", "500", "--json", stdin=text)
    document = json.loads(done.stdout)
    assert document["metadata"]["strategy_used"] == "head"
    assert document["content"].startswith(text[:200])
    assert "Remainder omitted" in document["content"]
    tool = trunc("apply", "--tool", "read_file", "--strategy", "tail", "--limit", "400",
                 "--json", stdin=text)
    assert json.loads(tool.stdout)["metadata"]["strategy_used"] == "tail"


def test_apply_strategy_option_applies_to_json_too(trunc) -> None:  # type: ignore[no-untyped-def]
    """Without --tool, --strategy must not be overridden by the JSON sniff."""
    document = json.dumps([{"id": i} for i in range(2000)])
    done = trunc("apply", "--strategy", "tail", "--limit", "400", "--json", stdin=document)
    assert json.loads(done.stdout)["metadata"]["strategy_used"] == "tail"
    plain = trunc("apply", "--limit", "400", "--json", stdin=document)
    assert json.loads(plain.stdout)["metadata"]["strategy_used"] == "element"


def test_apply_streams_a_large_file_with_the_result_process_gives(
        trunc, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from truncation_core import Truncator

    path = tmp_path / "big.json"
    document = json.dumps({"rows": [{"id": i, "name": f"row {i}"} for i in range(200_000)]})
    path.write_text(document)
    done = trunc("apply", str(path), "--tool", "search_files", "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    expected = Truncator({"store": {"backend": "memory"}}).process(document,
                                                                   tool="search_files")
    assert expected.artifact is not None
    assert (shown["content"].replace(shown["artifact"]["id"], "ID")
            == expected.content.replace(expected.artifact.id, "ID"))
    assert shown["metadata"]["strategy_used"] == expected.metadata.strategy_used == "element"
    assert shown["artifact"]["bytes"] == len(document)


def test_apply_and_run_take_every_limit(trunc) -> None:  # type: ignore[no-untyped-def]
    """--max-lines, --max-bytes, --max-tokens and --tokenizer, each the stricter limit."""
    text = log_lines(300)
    lines = trunc("apply", "--max-lines", "5", "--json", stdin=text)
    assert lines.returncode == 0, lines.stderr
    document = json.loads(lines.stdout)
    assert line_count(document["content"]) <= 5
    assert document["metadata"]["limits"]["lines"] == 5
    by_bytes = json.loads(trunc("apply", "--max-bytes", "700", "--json", stdin=text).stdout)
    assert len(by_bytes["content"].encode()) <= 700
    # (A plugin's tokenizer: the tiktoken plugin's tests/test_tiktoken_plugin.py.)
    tokens = trunc("apply", "--max-tokens", "120", "--tokenizer", "estimate", "--tool",
                   "read_file", "--json", stdin=text)
    meta = json.loads(tokens.stdout)["metadata"]
    assert meta["max_tokens"] == 120 and meta["tokenizer"] == "estimate"
    assert meta["estimated_tokens"] <= 120
    human = trunc("apply", "--max-tokens", "120", stdin=text)
    assert re.search(r"\([0-9]+ tokens by estimate, limit 120\)", human.stderr), human.stderr
    run = trunc("run", "--max-tokens", "100", "--max-lines", "12", "--json", "--",
                sys.executable, "-c", "for i in range(500): print('line', i)")
    assert run.returncode == 0, run.stderr
    shown = json.loads(run.stdout)
    assert line_count(shown["content"]) <= 12
    assert shown["metadata"]["max_tokens"] == 100
    assert shown["content"].endswith("line 499\n")


def test_a_bad_limit_option_is_named(trunc) -> None:  # type: ignore[no-untyped-def]
    typo = trunc("apply", "--tokenizer", "estimat", stdin="x" * 10_000)
    assert_clean_user_error(typo, code=2)
    assert "Invalid value for '--tokenizer': unknown tokenizer 'estimat'; did you mean " \
           "'estimate'?" in typo.stderr
    for args in (("--max-tokens", "0"), ("--max-lines", "-1"), ("--max-bytes", "x")):
        done = trunc("apply", *args, stdin="x")
        assert_clean_user_error(done, code=2)
        assert args[0] in done.stderr


def test_a_bad_value_in_the_config_file_is_not_blamed_on_an_option(trunc) -> None:  # type: ignore[no-untyped-def]
    (trunc.workdir / ".truncation.yaml").write_text("tools:\n  t:\n    strategy: nope\n")
    done = trunc("apply", "--tool", "t", stdin="x" * 10_000)
    assert_clean_user_error(done)
    assert "tools.t.strategy: unknown strategy 'nope'" in done.stderr
    assert "--strategy" not in done.stderr


def test_apply_keeps_invalid_utf8_visible_as_replacement_characters(trunc) -> None:  # type: ignore[no-untyped-def]
    data = b"ok \xff\xfe bad bytes\n" * 400
    done = trunc("apply", "--limit", "300", "--json", stdin=data)
    document = json.loads(done.stdout)
    assert "\ufffd" in document["content"]
    assert document["artifact"]["bytes"] == len(data)


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["apply", "--strategy", "tial"], 2,
         "Invalid value for '--strategy': unknown strategy 'tial'; did you mean 'tail'?"),
        (["apply", "--tool", "read_file", "--strategy", "hed"], 2,
         "Invalid value for '--strategy': unknown strategy 'hed'; did you mean 'head'?"),
        (["apply", "no-such-file.log"], 2, "No such file or directory"),
        (["apply", "--limit", "0"], 2, "Invalid value for '--limit'"),
        (["apply", "--limit", "many"], 2, "Invalid value for '--limit'"),
        (["--config", "missing.yaml", "apply"], 2, "'missing.yaml' does not exist"),
        (["frobnicate"], 2, "No such command 'frobnicate'"),
    ],
)
def test_user_errors_go_to_stderr_without_a_traceback(
        trunc, args: list[str], code: int, message: str) -> None:  # type: ignore[no-untyped-def]
    done = trunc(*args, stdin="x" * 10_000)
    assert_clean_user_error(done, code)
    assert message in done.stderr


def test_invalid_config_file_is_a_clean_error(trunc) -> None:  # type: ignore[no-untyped-def]
    (trunc.workdir / ".truncation.yaml").write_text(
        "inline_limit: -5\ntools:\n  execute_command:\n    strategy: 7\n")
    done = trunc("apply", stdin="hello")
    assert_clean_user_error(done)
    conf = trunc.workdir / ".truncation.yaml"
    assert f"inline_limit: must be a positive integer, got -5 (from {conf})" in done.stderr
    assert f"tools.execute_command.strategy: must be a string, got 7 (from {conf})" in done.stderr


def test_invalid_environment_is_a_clean_error(trunc) -> None:  # type: ignore[no-untyped-def]
    done = trunc("apply", stdin="hello", env={"TRUNCATION_CORE_INLINE_LIMIT": "lots"})
    assert_clean_user_error(done)
    assert ("inline_limit: must be a positive integer, got 'lots' "
            "(from environment variable TRUNCATION_CORE_INLINE_LIMIT)") in done.stderr


def test_broken_yaml_is_a_clean_error(trunc) -> None:  # type: ignore[no-untyped-def]
    (trunc.workdir / ".truncation.yaml").write_text("tools: [\n")
    done = trunc("config", "show")
    assert_clean_user_error(done)
    assert "not valid YAML" in done.stderr


# -- trunc plugins ---------------------------------------------------------------------------


def test_plugins_lists_the_builtins_and_the_example_plugin(trunc) -> None:  # type: ignore[no-untyped-def]
    done = trunc("plugins", "--json")
    assert done.returncode == 0, done.stderr
    plugins = {p["name"]: p for p in json.loads(done.stdout)}
    for builtin in ("pipeline", "strategies", "element", "ranked", "memory_store"):
        assert plugins[f"builtin.{builtin}"]["kind"] == "builtin"
        assert plugins[f"builtin.{builtin}"]["status"] == "loaded"
    assert plugins["builtin.strategies"]["strategies"] == ["adaptive", "head", "head_tail",
                                                         "lines", "outline", "tail"]
    assert plugins["builtin.memory_store"]["backends"] == ["memory"]
    example = plugins["example"]
    assert (example["kind"], example["distribution"], example["status"]) == (
        "entrypoint", "truncation-core-example", "loaded")
    assert example["version"] == "0.1.0"
    assert example["strategies"] == ["sample"]
    assert example["hooks"] == ["provides"]

    assert plugins["builtin.estimate_tokenizer"]["tokenizers"] == ["estimate"]

    table = trunc("plugins")
    assert table.returncode == 0
    for text in ("builtin.strategies", "example", "truncation-core-example 0.1.0", "sample",
                 "memory (store)", "estimate (tokenizer)"):
        assert text in table.stdout


def test_plugins_filtered_by_hook(trunc) -> None:  # type: ignore[no-untyped-def]
    done = trunc("plugins", "--json", "--hook", "format_marker")
    assert [p["name"] for p in json.loads(done.stdout)] == ["builtin.pipeline"]


def test_plugins_respects_the_allowlist(trunc) -> None:  # type: ignore[no-untyped-def]
    done = trunc("plugins", "--json", env={"TRUNCATION_CORE_PLUGINS": "none-of-them"})
    assert {p["name"]: p["status"] for p in json.loads(done.stdout)}["example"] == "disabled"


# -- trunc config ----------------------------------------------------------------------------


def test_config_show_says_where_each_value_came_from(trunc) -> None:  # type: ignore[no-untyped-def]
    project = trunc.workdir
    (project / "pyproject.toml").write_text(
        "[tool.truncation_core]\ninline_limit = 4000\n"
        "[tool.truncation_core.tools.read_file]\nmax_lines = 9\n")
    (project / "sub").mkdir()
    done = trunc("config", "show", "--json", cwd=project / "sub",
                 env={"TRUNCATION_CORE_HEAD_RATIO": "0.5"})
    assert done.returncode == 0, done.stderr
    rows = {row["key"]: (row["value"], row["source"]) for row in json.loads(done.stdout)}
    pyproject = str(project / "pyproject.toml")
    assert rows["inline_limit"] == (4000, pyproject)
    assert rows["head_ratio"] == (0.5, "environment variable TRUNCATION_CORE_HEAD_RATIO")
    assert rows["artifact_threshold"] == (50_000, "default")
    assert rows["tools.read_file.max_lines"] == (9, pyproject)
    assert rows["tools.execute_command.strategy"] == ("adaptive", "built-in tool policy")
    assert rows["marker.middle"][1] == "default"

    table = trunc("config", "show", cwd=project / "sub",
                  env={"TRUNCATION_CORE_HEAD_RATIO": "0.5"})
    assert table.returncode == 0
    assert f"config file: {pyproject}" in table.stdout
    assert "environment variable TRUNCATION_CORE_HEAD_RATIO" in table.stdout


def test_config_show_for_one_tool(trunc) -> None:  # type: ignore[no-untyped-def]
    (trunc.workdir / ".truncation.yaml").write_text(
        "tools:\n  execute_command:\n    inline_limit: 3000\n")
    done = trunc("config", "show", "--tool", "execute_command", "--json")
    rows = {row["key"]: (row["value"], row["source"]) for row in json.loads(done.stdout)}
    conf = str(trunc.workdir / ".truncation.yaml")
    assert rows["strategy"] == ("adaptive", "built-in tool policy")
    assert rows["inline_limit"] == (3000, conf)
    assert rows["head_ratio"] == (0.6, "default")


def test_config_validate(trunc) -> None:  # type: ignore[no-untyped-def]
    ok = trunc("config", "validate")
    assert ok.returncode == 0
    assert ok.stdout.startswith("configuration is valid (defaults only)")
    good = trunc.workdir / "good.yaml"
    good.write_text("default_strategy: sample\n")  # a strategy the example plugin provides
    assert trunc("config", "validate", str(good)).returncode == 0
    bad = trunc.workdir / "bad.yaml"
    bad.write_text("default_strategy: smaple\ninline_limt: 5\n")
    done = trunc("config", "validate", str(bad))
    assert_clean_user_error(done)
    assert "inline_limt: unknown key; did you mean 'inline_limit'?" in done.stderr


def test_config_validate_fails_when_a_plugin_it_names_does_not_load(trunc) -> None:  # type: ignore[no-untyped-def]
    (trunc.workdir / ".truncation.yaml").write_text("plugins:\n  modules: [no_such_module]\n")
    done = trunc("config", "validate")
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "error: plugin 'no_such_module' failed to load: ModuleNotFoundError" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    # Other commands keep working, with a warning.
    assert trunc("apply", "--limit", "50", stdin="y" * 500).returncode == 0


@pytest.mark.parametrize("variable", ["TRUNCATION_CORE_PLUGINS",
                                      "TRUNCATION_CORE_DISABLE_PLUGINS"])
def test_an_allow_or_deny_listed_name_nothing_installed_has_is_reported(
        trunc, variable: str) -> None:  # type: ignore[no-untyped-def]
    field = "enable" if variable == "TRUNCATION_CORE_PLUGINS" else "disable"
    listed = trunc("plugins", "--json", env={variable: "exmple"})
    assert listed.returncode == 0
    assert (f"warning: plugins.{field} names 'exmple', but no installed plugin has that "
            "entry-point name; did you mean 'example'?") in listed.stderr
    done = trunc("config", "validate", env={variable: "exmple"})
    assert done.returncode == 1
    assert f"error: plugins.{field} names 'exmple'" in done.stderr
    assert trunc("config", "validate", env={variable: "example"}).returncode == 0


@pytest.mark.parametrize("args", [["apply", "--strategy", "sample"],
                                  ["apply", "--tool", "t", "--strategy", "sample", "-"],
                                  ["apply", "--json", "--strategy", "sample"]])
def test_an_option_naming_a_disabled_plugins_strategy_is_a_usage_error(
        trunc, args: list[str]) -> None:  # type: ignore[no-untyped-def]
    """The user's explicit word is not replaced by head_tail, as a configuration's is."""
    disabled = {"TRUNCATION_CORE_DISABLE_PLUGINS": "example"}
    done = trunc(*args, stdin="x\n" * 10_000, env=disabled)
    assert_clean_user_error(done, 2)
    assert ("Invalid value for '--strategy': strategy 'sample' is not loaded; disabled plugin "
            "'example' (TRUNCATION_CORE_DISABLE_PLUGINS) may provide it (available: ") \
        in done.stderr
    assert "using head_tail" not in done.stderr
    assert trunc(*args, stdin="x\n" * 10_000).returncode == 0  # loaded, it cuts
    # Named by a configuration file, the same name still gets head_tail in its place.
    (trunc.workdir / ".truncation.yaml").write_text("default_strategy: sample\n")
    kept = trunc("apply", stdin="x\n" * 10_000, env=disabled)
    assert kept.returncode == 0
    assert "warning: default_strategy names 'sample', which no loaded plugin provides" \
        in kept.stderr


def test_run_refuses_an_option_it_does_not_know_instead_of_running_it(trunc) -> None:  # type: ignore[no-untyped-def]
    """Unknown options go to the command (`trunc run pytest -x`), so one before the command
    was taken for it, and the run failed as "command not found: --tiemout"."""
    done = trunc("run", "--tiemout", "3", "--", "echo", "hi")
    assert_clean_user_error(done, 2)
    assert "No such option '--tiemout'. (Did you mean one of: '--limit', '--timeout'?)" \
        in done.stderr
    assert trunc("run", "echo", "-x").stdout.rstrip().endswith("-x")


def test_config_show_names_the_same_source_in_the_table_and_per_tool(trunc) -> None:  # type: ignore[no-untyped-def]
    every = {r["key"]: r["source"] for r in json.loads(trunc("config", "show", "--json").stdout)}
    tool = {r["key"]: r["source"]
            for r in json.loads(trunc("config", "show", "--tool", "execute_command",
                                      "--json").stdout)}
    assert every["highlights"] == tool["highlights"] == "default"
    assert every["tools.execute_command.strategy"] == tool["strategy"] == "built-in tool policy"


def test_tables_print_values_literally_never_as_rich_markup(trunc) -> None:  # type: ignore[no-untyped-def]
    """Square brackets in data (a command line, a marker template) are not styling: an
    unmatched ``[/x]`` made rich raise, and ``[bold]`` vanished."""
    (trunc.workdir / ".truncation.yaml").write_text(
        'marker:\n  end: "\\n[/cut {lines} lines{hint}] [bold]x :smile:"\n')
    done = trunc("config", "show")
    assert done.returncode == 0, done.stderr
    assert "[/cut {lines} lines{hint}] [bold]x :smile:" in done.stdout.replace("\n", "")


def test_version_and_module_entry_point(trunc, trunc_env: dict[str, str]) -> None:  # type: ignore[no-untyped-def]
    done = trunc("--version")
    assert done.returncode == 0 and "0.1.0.dev0" in done.stdout
    module = subprocess.run([sys.executable, "-m", "truncation_core", "apply", "--limit", "50"],
                            input="y" * 500, capture_output=True, text=True, timeout=60,
                            env=trunc_env, cwd=trunc.workdir)
    assert module.returncode == 0, module.stderr
    assert len(module.stdout) <= 50


# -- trunc apply on a terminal ------------------------------------------------------------------


def apply_on_a_terminal(trunc_exe: str, env: dict[str, str], cwd: Path, *args: str
                        ) -> tuple[int, str, str]:
    """``trunc apply`` with its stdin on a real pseudo-terminal: waits until stderr says
    something (or 10 s), then types ``hello`` and Ctrl-D."""
    import os
    import pty
    import select

    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen([trunc_exe, "apply", *args], stdin=follower,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                cwd=cwd)
        os.close(follower)
        assert proc.stderr is not None
        said = b""
        ready, _, _ = select.select([proc.stderr], [], [], 10)
        if ready:
            said = os.read(proc.stderr.fileno(), 4096)
        os.write(leader, b"hello\n")
        # Ctrl-D at the start of a line: the end of the input. Twice: a buffered reader
        # that got a short read reads again, and a terminal's end of input is not sticky
        # (the second is left unread when the first ends it).
        os.write(leader, b"\x04")
        os.write(leader, b"\x04")
        out, err = proc.communicate(timeout=60)
    finally:
        os.close(leader)
    return proc.returncode, out.decode(), (said + err).decode()


def test_apply_on_a_terminal_says_it_reads_stdin(trunc_exe: str, trunc_env: dict[str, str],
                                                 tmp_path: Path) -> None:
    """Typed ``trunc apply`` with nothing piped in: it says it reads stdin, on stderr, before
    the input ends (it waited silently), and reads it."""
    code, out, err = apply_on_a_terminal(trunc_exe, trunc_env, tmp_path)
    assert code == 0, err
    assert err.startswith("trunc apply: reading stdin (Ctrl-D to end)…")
    assert out == "hello\n"
    # With --json too: the note is on stderr, stdout stays one JSON document.
    code, out, err = apply_on_a_terminal(trunc_exe, trunc_env, tmp_path, "--json")
    assert code == 0 and "reading stdin" in err and json.loads(out)["content"] == "hello\n"


def test_apply_on_a_pipe_or_a_file_says_nothing_of_stdin(trunc) -> None:  # type: ignore[no-untyped-def]
    """Negative control: piped input, or a file, is not announced."""
    assert "reading stdin" not in trunc("apply", stdin="hello\n").stderr
    (trunc.workdir / "in.txt").write_text("hello\n")
    assert "reading stdin" not in trunc("apply", "in.txt").stderr
