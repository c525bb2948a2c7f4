"""Config cannot blow up: aliases, deep nesting, huge integers and marker templates that
allocate gigabytes are refused with an error naming the key or the position.

Memory bombs run in a subprocess under ``RLIMIT_AS`` (:mod:`bounded`), so that a regression
fails the test instead of exhausting the machine.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bounded import run_bounded
from click.testing import CliRunner

from truncation_core import Truncator
from truncation_core.config.sources import load_config
from truncation_core.errors import ConfigError
from truncation_core.types.templates import MarkerConfig

#: 342 bytes that expand to 9**9 (387 million) strings once anything walks them.
LAUGHS = "a: &a [" + ", ".join(["lol"] * 9) + "]\n" + "".join(
    f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]\n"
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True))


def bomb_under(key_path: str) -> str:
    """A config document holding the alias bomb at *key_path* (``marker.middle``)."""
    keys = key_path.split(".")
    doc = "_laughs:\n" + "".join("  " + line + "\n" for line in LAUGHS.splitlines())
    nested = "".join("  " * depth + f"{key}:\n" for depth, key in enumerate(keys[:-1]))
    return doc + nested + "  " * (len(keys) - 1) + f"{keys[-1]}: *i\n"


def test_the_bomb_is_small_and_expands_to_gigabytes() -> None:
    """Negative control: PyYAML's safe_load (what discovery used) accepts the document, and
    what it returns stands for 387 million strings: anything that walks it (merging layers,
    an error message quoting the value, cattrs copying lists) expands them."""
    import yaml

    assert len(LAUGHS) < 400
    doc = yaml.safe_load(LAUGHS)
    counted: dict[int, int] = {}

    def strings(node: object) -> int:  # counted once per shared list, as aliases share them
        if not isinstance(node, list):
            return 1
        if id(node) not in counted:
            counted[id(node)] = sum(strings(child) for child in node)
        return counted[id(node)]

    assert strings(doc["i"]) == 9 ** 9  # 387,420,489 strings: over a gigabyte expanded


@pytest.mark.parametrize("key", ["marker.middle", "tools.read_file.strategy"])
def test_an_alias_bomb_in_a_config_file_is_refused(tmp_path: Path, key: str) -> None:
    config = tmp_path / ".truncation.yaml"
    config.write_text(bomb_under(key))
    outcome = run_bounded(f"""
        from truncation_core.config.sources import load_config
        from truncation_core.errors import ConfigError
        try:
            load_config(start={str(tmp_path)!r}, environ={{}})
        except ConfigError as exc:
            report(problems=list(exc.problems))
    """, limit=256 << 20)
    (problem,) = outcome.result["problems"]
    assert problem.startswith(f"{config}:")
    assert "aliases (*name) are not accepted in configuration" in problem


@pytest.mark.parametrize("key", ["marker.middle", "tools.read_file.strategy"])
def test_negative_control_quoting_the_bomb_in_an_error_runs_out_of_memory(tmp_path: Path,
                                                                          key: str) -> None:
    """What loading did with the bomb: PyYAML's safe_load, then an error quoting the value
    (``marker.middle: must be a string, got [[[...``), a repr of 2.8 billion characters.
    Under a 256 MiB cap, the repr runs out of memory."""
    config = tmp_path / ".truncation.yaml"
    config.write_text(bomb_under(key))
    outcome = run_bounded(f"""
        import yaml
        doc = yaml.safe_load(open({str(config)!r}))
        value = doc
        for part in {key!r}.split("."):
            value = value[part]
        try:
            report(quoted=len(f"must be a string, got {{value!r}}"))
        except MemoryError:
            report(memory_error=True)
    """, limit=256 << 20, timeout=120)
    assert outcome.result == {"memory_error": True}


def test_an_alias_bomb_in_an_environment_variable_is_refused() -> None:
    flow = "[" + ", ".join(["&x [lol, lol, lol]"] + ["*x"] * 8) + "]"
    with pytest.raises(ConfigError) as caught:
        load_config(environ={"TRUNCATION_CORE_MARKER__MIDDLE": flow})
    assert caught.value.problems == (
        "environment variable TRUNCATION_CORE_MARKER__MIDDLE: aliases (*name) are not "
        "accepted in configuration: write the value out",)


def test_an_anchor_alone_is_harmless_and_accepted(tmp_path: Path) -> None:
    (tmp_path / ".truncation.yaml").write_text("inline_limit: &n 500\n")
    assert load_config(start=tmp_path, environ={}).config.inline_limit == 500


def test_deep_nesting_is_a_clear_error_not_a_recursion_error(tmp_path: Path) -> None:
    config = tmp_path / ".truncation.yaml"
    config.write_text("marker: " + "[" * 50_000 + "]" * 50_000 + "\n")
    with pytest.raises(ConfigError) as caught:
        load_config(start=tmp_path, environ={})
    (problem,) = caught.value.problems
    assert problem.startswith(f"{config}:1:") and "nested more than 32 levels deep" in problem
    with pytest.raises(ConfigError, match="nested more than 32 levels"):
        load_config(environ={"TRUNCATION_CORE_MARKER": "[" * 50_000 + "]" * 50_000})


def test_deep_nesting_in_toml_is_a_clear_error(tmp_path: Path) -> None:
    config = tmp_path / "settings.toml"
    config.write_text("inline_limit = " + "[" * 50_000 + "]" * 50_000 + "\n")
    with pytest.raises(ConfigError, match="nested too deep"):
        load_config(config, environ={})


def test_negative_control_plain_parsers_raise_recursion_errors() -> None:
    import tomllib

    import yaml

    with pytest.raises(RecursionError):
        yaml.safe_load("a: " + "[" * 3000 + "]" * 3000)
    with pytest.raises(RecursionError):
        tomllib.loads("a = " + "[" * 3000 + "]" * 3000)


def test_an_integer_over_the_digit_limit_is_a_clear_error(tmp_path: Path) -> None:
    digits = "9" * 5000
    with pytest.raises(ConfigError) as caught:
        load_config(environ={"TRUNCATION_CORE_INLINE_LIMIT": digits})
    assert caught.value.problems == ("environment variable TRUNCATION_CORE_INLINE_LIMIT: an "
                                     "integer with more than 4,300 digits",)
    (tmp_path / ".truncation.yaml").write_text(f"inline_limit: {digits}\n")
    with pytest.raises(ConfigError, match=r"\.truncation\.yaml:1:15: .*more than 4,300 digits"):
        load_config(start=tmp_path, environ={})
    (tmp_path / "c.toml").write_text(f"inline_limit = {digits}\n")
    with pytest.raises(ConfigError, match="more than 4,300 digits"):
        load_config(tmp_path / "c.toml", environ={})


def test_negative_control_plain_yaml_raises_a_value_error() -> None:
    import yaml

    with pytest.raises(ValueError, match="4300"):
        yaml.safe_load("9" * 5000)


def test_an_array_of_tables_in_pyproject_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[[tool.truncation_core]]\ninline_limit = 5\n")
    with pytest.raises(ConfigError) as caught:
        load_config(start=tmp_path, environ={})
    assert caught.value.problems == (
        f"{tmp_path / 'pyproject.toml'}: tool.truncation_core must be a table "
        "([tool.truncation_core]), not an array of tables ([[tool.truncation_core]])",)


# -- marker templates ------------------------------------------------------------------------


@pytest.mark.parametrize(("template", "message"), [
    ("{lines:>999999999}", "{lines:>999999999}: the width can be at most 100"),
    ("{lines:0999999}", "the width can be at most 100"),
    ("{chars:.999999999f}", "the precision can be at most 100"),
    ("{lines:{chars}}", "a format spec cannot hold a placeholder"),
    ("{lines.__class__}", "placeholders are used by name only, without attributes or indexes"),
    ("{hint[0]}", "placeholders are used by name only, without attributes or indexes"),
    ("{}", "unknown placeholder {}"),
])
def test_marker_templates_that_reach_or_allocate_are_refused(template: str,
                                                             message: str) -> None:
    for build in (lambda: Truncator({"marker": {"middle": template}}, load_entrypoints=False),
                  lambda: MarkerConfig(middle=template)):
        with pytest.raises(ConfigError) as caught:
            build()
        (problem,) = caught.value.problems
        assert problem.startswith("marker.middle: ") and message in problem


def test_small_padding_and_the_documented_forms_still_work() -> None:
    truncator = Truncator({"inline_limit": 300, "spill": False,
                           "marker": {"middle": "\n[{lines:>8,} lines, {chars:_} chars, "
                                                "{strategy!s:^12}]\n"}},
                          load_entrypoints=False)
    result = truncator.process("".join(f"line {i}\n" for i in range(2000)))
    assert "lines," in result.content and "head_tail" in result.content


def test_negative_control_formatting_a_huge_padding_allocates_gigabytes() -> None:
    outcome = run_bounded("""
        text = "{lines:>999999999}".format(lines=1)
        report(chars=len(text))
    """, limit=256 << 20)
    assert outcome.memory_error, outcome.stderr[-500:]


def test_the_cli_reports_a_bad_template_as_a_message(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    from truncation_core.cli import cli

    (tmp_path / ".truncation.yaml").write_text("marker:\n  middle: '{lines:>999999999}'\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["config", "validate"])
    assert result.exit_code != 0
    assert "marker.middle" in result.output + result.stderr
    assert "Traceback" not in result.output + result.stderr


# -- deep keys: a dotted key in TOML, a variable's name, code ---------------------------------


def deep_pyproject(directory: Path, levels: int) -> Path:
    """A pyproject.toml whose table holds one dotted key *levels* keys deep: 2 kB for 1,000."""
    pyproject = directory / "pyproject.toml"
    pyproject.write_text("[tool.truncation_core]\n" + ".".join(["a"] * levels) + " = 1\n")
    return pyproject


def test_a_deep_dotted_key_in_pyproject_is_a_clear_error(tmp_path: Path) -> None:
    pyproject = deep_pyproject(tmp_path, 1000)
    assert pyproject.stat().st_size < 2100
    with pytest.raises(ConfigError) as caught:
        load_config(start=tmp_path, environ={})
    (problem,) = caught.value.problems
    assert problem.startswith(f"{pyproject}:2: a.a.a.…(29 more keys)….a.a.a: ")
    assert "a key of more than 34 parts (configuration nests at most 32 keys deep)" in problem
    assert len(problem) < 300


@pytest.mark.parametrize("levels", [33, 34])
def test_a_key_just_past_the_limit_is_refused_by_its_path(tmp_path: Path, levels: int) -> None:
    """Under the parser's own bound, over the configuration's: the parsed table says where."""
    deep_pyproject(tmp_path, levels)
    with pytest.raises(ConfigError) as caught:
        load_config(start=tmp_path, environ={})
    (problem,) = caught.value.problems
    assert "a.a.a.…(27 more keys)….a.a.a: nested more than 32 keys deep (configuration " \
           "nests at most 32)" in problem


def test_a_key_at_the_limit_is_not_refused_for_its_depth(tmp_path: Path) -> None:
    deep_pyproject(tmp_path, 32)
    with pytest.raises(ConfigError) as caught:
        load_config(start=tmp_path, environ={})
    assert caught.value.problems == (f"a: unknown key (from {tmp_path / 'pyproject.toml'})",)


def test_negative_control_listing_a_deep_key_recursively_overflows() -> None:
    """What loading did with the parsed table: list its keys recursively (``_leaves``), which
    1,000 levels take past Python's recursion limit."""
    import tomllib

    from truncation_core.config import sources

    table = tomllib.loads("[t]\n" + ".".join(["a"] * 1000) + " = 1\n")["t"]
    with pytest.raises(RecursionError):
        sources._leaves(table)


@pytest.mark.parametrize("command", [["config", "validate"], ["apply", "-"]])
def test_the_cli_reports_a_deep_key_as_a_message(tmp_path: Path, trunc_exe: str,
                                                  trunc_env: dict[str, str],
                                                  command: list[str]) -> None:
    import subprocess

    deep_pyproject(tmp_path, 1000)
    done = subprocess.run([trunc_exe, *command], input="x\n", capture_output=True, text=True,
                          cwd=tmp_path, env=trunc_env, timeout=60)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "RecursionError" not in done.stderr
    assert "nests at most 32 keys deep" in done.stderr


def test_ten_thousand_levels_are_refused_in_bounded_memory(tmp_path: Path) -> None:
    deep_pyproject(tmp_path, 10_000)
    outcome = run_bounded(f"""
        from truncation_core.config.sources import load_config
        from truncation_core.errors import ConfigError
        try:
            load_config(start={str(tmp_path)!r}, environ={{}})
        except ConfigError as exc:
            report(problems=list(exc.problems))
    """, limit=256 << 20)
    (problem,) = outcome.result["problems"]
    assert "a key of more than 34 parts" in problem


def test_negative_control_tomllib_takes_gigabytes_for_ten_thousand_levels(
        tmp_path: Path) -> None:
    """tomllib keeps every prefix of a dotted key: 10,000 levels (20 kB) take 600 MiB."""
    pyproject = deep_pyproject(tmp_path, 10_000)
    outcome = run_bounded(f"""
        import tomllib
        with open({str(pyproject)!r}, "rb") as f:
            tomllib.load(f)
        report(parsed=True)
    """, limit=256 << 20)
    assert outcome.memory_error, outcome.stderr[-500:]


def test_a_long_dotted_word_inside_a_value_is_within_the_scan(tmp_path: Path) -> None:
    """The scan looks at the text, strings included: a value of 35 dotted words is refused
    too (no setting holds one); 34 pass."""
    config = tmp_path / "c.toml"
    config.write_text("inline_limit = 100\nsummary = '" + ".".join(["w"] * 34) + "'\n")
    with pytest.raises(ConfigError, match="summary: unknown key"):
        load_config(config, environ={})
    config.write_text("inline_limit = 100\nsummary = '" + ".".join(["w"] * 35) + "'\n")
    with pytest.raises(ConfigError, match=r"c\.toml:2: .*a key of more than 34 parts"):
        load_config(config, environ={})


def test_a_deep_environment_variable_is_a_clear_error() -> None:
    name = "TRUNCATION_CORE_" + "__".join(["A"] * 1000)
    with pytest.raises(ConfigError) as caught:
        load_config(environ={name: "1"})
    (problem,) = caught.value.problems
    assert problem.startswith("environment variable TRUNCATION_CORE_A__A__")
    assert "…: a.a.a.…(994 more keys)….a.a.a: nested more than 32 keys deep" in problem
    assert len(problem) < 300
    value = "{a: " * 31 + "1" + "}" * 31  # within YAML's own bound, too deep under its name
    with pytest.raises(ConfigError, match="environment variable TRUNCATION_CORE_A__B: value "
                                          "nested more than 32 keys deep"):
        load_config(environ={"TRUNCATION_CORE_A__B": value})


def deep_mapping(levels: int) -> dict[str, object]:
    data: dict[str, object] = {}
    inner = data
    for _ in range(levels):
        inner["k"] = {}
        inner = inner["k"]  # type: ignore[assignment]
    return data


def test_deep_settings_from_code_are_a_clear_error() -> None:
    with pytest.raises(ConfigError, match=r"overrides \(from code\): k\.k\.k\.…\(27 more keys"
                                          r"\)…\.k\.k\.k: nested more than 32 keys deep"):
        load_config(environ={}, overrides=deep_mapping(5000))
    with pytest.raises(ConfigError, match="nested more than 32 keys deep"):
        Truncator(deep_mapping(5000), load_entrypoints=False)
    looped: dict[str, object] = {}
    looped["tools"] = looped  # a mapping that holds itself is just too deep
    with pytest.raises(ConfigError, match=r"tools\.tools\.tools\.…"):
        Truncator(looped, load_entrypoints=False)
