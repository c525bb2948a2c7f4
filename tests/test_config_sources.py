"""Where configuration comes from: real files in temporary directories, environment
variables, code; the precedence between them; and the source recorded for each value."""

from __future__ import annotations

import errno
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest

from truncation_core import ConfigError, Truncator
from truncation_core.config.sources import find_config_file, load_config
from truncation_core.errors import UntrustedConfigWarning


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with a .truncation.yaml at its root and a nested working directory."""
    root = tmp_path / "project"
    write(root / ".truncation.yaml", "inline_limit: 1000\nhead_ratio: 0.7\n"
                                     "tools:\n  execute_command:\n    inline_limit: 500\n")
    (root / "src" / "pkg").mkdir(parents=True)
    return root


# -- precedence ------------------------------------------------------------------------------


def test_precedence_is_code_then_environment_then_file_then_defaults(project: Path) -> None:
    start = project / "src" / "pkg"
    env = {"TRUNCATION_CORE_INLINE_LIMIT": "2000", "TRUNCATION_CORE_SPILL": "false"}
    code = {"inline_limit": 3000}

    assert load_config(start=start, environ={}).config.inline_limit == 1000  # file
    assert load_config(start=start, environ=env).config.inline_limit == 2000  # env > file
    loaded = load_config(start=start, environ=env, overrides=code)
    assert loaded.config.inline_limit == 3000  # code > env
    assert loaded.config.head_ratio == 0.7  # file, untouched by the others
    assert loaded.config.spill is False  # env
    assert loaded.config.artifact_threshold == 50_000  # default
    assert dict(loaded.sources) == {
        "inline_limit": "code",
        "spill": "environment variable TRUNCATION_CORE_SPILL",
        "head_ratio": str(project / ".truncation.yaml"),
        "tools.execute_command.inline_limit": str(project / ".truncation.yaml"),
    }
    assert loaded.source_of("artifact_threshold") == "default"
    assert loaded.source_of("tools.execute_command.strategy") == "built-in tool policy"


def test_layers_merge_key_by_key_inside_tools(project: Path) -> None:
    env = {"TRUNCATION_CORE_TOOLS__EXECUTE_COMMAND__MAX_LINES": "40",
           "TRUNCATION_CORE_TOOLS__READ_FILE__STRATEGY": "head"}
    code = {"tools": {"execute_command": {"head_ratio": 0.1}}}
    config = load_config(start=project, environ=env, overrides=code).config
    policy = config.policy_for("execute_command")
    assert (policy.strategy, policy.inline_limit, policy.max_lines, policy.head_ratio) == (
        "adaptive", 500, 40, 0.1)
    assert config.policy_for("read_file").strategy == "head"


def test_from_config_applies_the_same_precedence(project: Path) -> None:
    truncator = Truncator.from_config(start=project / "src",
                                      environ={"TRUNCATION_CORE_HEAD_RATIO": "0.25"},
                                      overrides={"max_lines": 10}, load_entrypoints=False)
    policy = truncator.policy("execute_command")
    assert (policy.inline_limit, policy.head_ratio, policy.max_lines, policy.strategy) == (
        500, 0.25, 10, "adaptive")


def test_the_constructor_reads_no_files_and_no_environment(
        isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(isolated_env / ".truncation.yaml", "inline_limit: 10\n")
    monkeypatch.setenv("TRUNCATION_CORE_INLINE_LIMIT", "20")
    assert Truncator(load_entrypoints=False).config.inline_limit == 8000
    # Control: from_config does read both.
    assert Truncator.from_config(load_entrypoints=False).config.inline_limit == 20
    monkeypatch.delenv("TRUNCATION_CORE_INLINE_LIMIT")
    assert Truncator.from_config(load_entrypoints=False).config.inline_limit == 10


# -- discovery -------------------------------------------------------------------------------


def test_discovery_walks_up_from_the_start_directory(project: Path) -> None:
    deep = project / "src" / "pkg"
    assert find_config_file(deep) == project / ".truncation.yaml"
    assert load_config(start=deep, environ={}).path == project / ".truncation.yaml"


def test_discovery_from_the_working_directory_is_discovery_from_its_path(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a start, the search walks up from the working directory on strings (no
    pathlib at start-up): it finds what a search from ``Path.cwd()`` finds, a pyproject
    table included."""
    monkeypatch.chdir(project / "src" / "pkg")
    assert find_config_file() == find_config_file(Path.cwd()) == project / ".truncation.yaml"
    assert load_config(environ={}).path == project / ".truncation.yaml"
    nearer = write(project / "src" / "pyproject.toml", "[tool.truncation_core]\nmax_lines = 7\n")
    assert find_config_file() == find_config_file(Path.cwd()) == nearer
    assert isinstance(find_config_file(), Path)


def test_a_directory_it_may_not_look_into_is_passed_and_said(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A command run as another user from under a private directory: the search cannot
    look into it, says so, and goes on above it instead of failing every Truncator. Run as
    root the permission bits deny nothing, so the denial is injected into ``os.stat``."""
    denied = str(project / "src")
    real_stat = os.stat

    def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if os.fspath(path).startswith(denied + os.sep):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    start = project / "src" / "pkg"
    with pytest.warns(UntrustedConfigWarning) as caught:
        loaded = load_config(start=start, environ={})
    assert loaded.path == project / ".truncation.yaml"
    assert loaded.config.inline_limit == 1000
    assert loaded.skipped == (f"config search skipped {start}: permission denied",
                              f"config search skipped {denied}: permission denied")
    assert [str(w.message) for w in caught] == list(loaded.skipped)
    # Negative control: asking as pathlib does (Path.is_file, which the search used to
    # answer as) lets the denial out.
    with pytest.raises(PermissionError):
        (start / ".truncation.yaml").is_file()


def test_the_string_walk_tells_files_as_pathlib_does(tmp_path: Path) -> None:
    """``_is_file`` answers as ``Path.is_file``: a file, a directory, nothing there, a path
    through a file, a symlink loop, a NUL in the path."""
    from truncation_core.config.sources import _is_file

    write(tmp_path / "file", "x")
    (tmp_path / "directory").mkdir()
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    cases = ["file", "directory", "missing", "file/below", "loop", "nul\0byte"]
    assert [_is_file(str(tmp_path / name)) for name in cases] == [
        (tmp_path / name).is_file() for name in cases] == [True, False, False, False, False,
                                                            False]


def test_the_nearest_file_wins_and_files_are_not_merged(project: Path) -> None:
    nearer = write(project / "src" / "pyproject.toml",
                   '[project]\nname = "x"\n\n[tool.truncation_core]\nmax_lines = 7\n')
    loaded = load_config(start=project / "src" / "pkg", environ={})
    assert loaded.path == nearer
    assert loaded.config.max_lines == 7
    assert loaded.config.inline_limit == 8000  # the outer file is not read


@pytest.mark.parametrize("text", ["inline_limit = 1234\n[tools.read_file]\nmax_lines = 9\n",
                                  "[tool.truncation_core]\ninline_limit = 1234\n"
                                  "[tool.truncation_core.tools.read_file]\nmax_lines = 9\n"])
def test_a_named_toml_file_is_read_as_toml(tmp_path: Path, text: str) -> None:
    path = write(tmp_path / "team.toml", text)
    loaded = load_config(path, environ={})
    assert loaded.config.inline_limit == 1234
    assert loaded.config.tools["read_file"].max_lines == 9
    broken = write(tmp_path / "broken.toml", "inline_limit = \n")
    with pytest.raises(ConfigError, match=r"broken.toml: not valid TOML"):
        load_config(broken, environ={})


def test_a_pyproject_without_our_table_is_skipped(project: Path) -> None:
    write(project / "src" / "pyproject.toml", '[project]\nname = "x"\n[tool.ruff]\nx = 1\n')
    assert find_config_file(project / "src" / "pkg") == project / ".truncation.yaml"


def test_truncation_yaml_wins_over_pyproject_in_the_same_directory(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.truncation_core]\ninline_limit = 1\n")
    yaml_file = write(tmp_path / ".truncation.yaml", "inline_limit: 2\n")
    assert find_config_file(tmp_path) == yaml_file


def test_yml_extension_is_found(tmp_path: Path) -> None:
    yml = write(tmp_path / ".truncation.yml", "spill: false\n")
    assert load_config(start=tmp_path, environ={}).path == yml


def test_pyproject_table_with_tools(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml",
          "[tool.truncation_core]\ndefault_strategy = 'tail'\n"
          "[tool.truncation_core.tools.read_file]\nmax_bytes = 4096\n")
    config = load_config(start=tmp_path / "missing-is-fine", environ={}).config
    assert config.default_strategy == "tail"
    assert config.policy_for("read_file").max_bytes == 4096


def test_no_file_means_defaults(tmp_path: Path) -> None:
    loaded = load_config(start=tmp_path, environ={})
    if loaded.path is not None:  # a stray file above the temp dir would make this moot
        pytest.fail(f"unexpected config file above {tmp_path}: {loaded.path}")
    assert loaded.config.inline_limit == 8000 and dict(loaded.sources) == {}


def test_truncation_core_config_names_the_file(project: Path, tmp_path: Path) -> None:
    elsewhere = write(tmp_path / "elsewhere" / "conf.yaml", "inline_limit: 4242\n")
    loaded = load_config(start=project, environ={"TRUNCATION_CORE_CONFIG": str(elsewhere)})
    assert loaded.path == elsewhere and loaded.config.inline_limit == 4242


def test_truncation_core_config_relative_to_the_working_directory(isolated_env: Path) -> None:
    write(isolated_env / "conf" / "t.yaml", "inline_limit: 77\n")
    loaded = load_config(environ={"TRUNCATION_CORE_CONFIG": os.path.join("conf", "t.yaml")})
    assert loaded.config.inline_limit == 77


def test_a_missing_named_file_is_an_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ConfigError, match=f"{missing}: no such config file"):
        load_config(environ={"TRUNCATION_CORE_CONFIG": str(missing)})
    with pytest.raises(ConfigError, match=f"{missing}: no such config file"):
        load_config(missing, environ={})
    with pytest.raises(ConfigError, match=f"{tmp_path}: is a directory, not a config file"):
        load_config(environ={"TRUNCATION_CORE_CONFIG": str(tmp_path)})


# -- environment variables -------------------------------------------------------------------


def test_environment_values_are_yaml_scalars(tmp_path: Path) -> None:
    env = {
        "TRUNCATION_CORE_INLINE_LIMIT": "1234",
        "TRUNCATION_CORE_HEAD_RATIO": "0.5",
        "TRUNCATION_CORE_SPILL": "false",
        "TRUNCATION_CORE_DEFAULT_STRATEGY": "tail",
        "TRUNCATION_CORE_STORE__BACKEND": "memory",
        "TRUNCATION_CORE_MARKER__MIDDLE": "'\\n[cut]\\n'",
        "UNRELATED": "ignored",
    }
    config = load_config(start=tmp_path, environ=env).config
    assert (config.inline_limit, config.head_ratio, config.spill, config.default_strategy) == (
        1234, 0.5, False, "tail")
    assert config.marker.middle == "\\n[cut]\\n"  # single-quoted YAML: no escapes


def test_plugin_switches_from_the_environment(tmp_path: Path) -> None:
    env = {
        "TRUNCATION_CORE_PLUGINS": "example, other",
        "TRUNCATION_CORE_DISABLE_PLUGINS": "bad,",
        "TRUNCATION_CORE_DISABLE_PLUGIN_AUTOLOAD": "1",
        "TRUNCATION_CORE_STRICT_PLUGINS": "yes",
    }
    plugins = load_config(start=tmp_path, environ=env).config.plugins
    assert plugins.enable == ("example", "other")
    assert plugins.disable == ("bad",)
    assert plugins.autoload is False
    assert plugins.strict is True
    off = load_config(start=tmp_path, environ={"TRUNCATION_CORE_STRICT_PLUGINS": "0",
                                               "TRUNCATION_CORE_DISABLE_PLUGIN_AUTOLOAD": "no"})
    assert off.config.plugins.strict is False and off.config.plugins.autoload is True


def test_environment_overrides_the_file_allowlist(tmp_path: Path) -> None:
    write(tmp_path / ".truncation.yaml", "plugins:\n  enable: [a]\n  disable: [b]\n")
    plugins = load_config(start=tmp_path,
                          environ={"TRUNCATION_CORE_DISABLE_PLUGINS": "c"}).config.plugins
    assert plugins.enable == ("a",) and plugins.disable == ("c",)


@pytest.mark.parametrize("data", [
    {},
    {"plugins": {"enable": ["example", "other"]}},
    {"plugins": {"enable": []}},
    {"plugins": {"disable": ["bad"], "autoload": False, "strict": True}},
    {"plugins": {"enable": ["a"], "disable": ["b"], "autoload": True, "strict": False}},
])
def test_plugin_switches_alone_are_built_as_the_converter_builds_them(data: dict) -> None:
    """Plugin switches alone (what the environment gives on every start-up) are built
    without cattrs: the same Config the converter builds."""
    from truncation_core.config.converter import config_from_mapping
    from truncation_core.config.sources import _without_converter

    assert _without_converter(data) == config_from_mapping(data)


@pytest.mark.parametrize("data", [
    {"plugins": {"enable": "example"}},  # a string, not a list
    {"plugins": {"enable": ["a", 3]}},
    {"plugins": {"strict": "yes"}},
    {"plugins": {"modules": ["pkg.hooks"]}},
    {"plugins": {"unknown": True}},
    {"plugins": ["example"]},
    {"plugins": {}, "inline_limit": 5},
    {"inline_limit": 5},
])
def test_anything_else_goes_to_the_converter(data: dict) -> None:
    """Anything beyond well-formed switches is left to the converter, which checks it
    (negative control for the shortcut above: it must not accept what the converter refuses)."""
    from truncation_core.config.sources import _without_converter

    assert _without_converter(data) is None


def test_a_bad_switch_in_a_file_is_still_an_error(tmp_path: Path) -> None:
    write(tmp_path / ".truncation.yaml", "plugins:\n  strict: 'yes'\n")
    with pytest.raises(ConfigError, match=r"plugins\.strict"):
        load_config(start=tmp_path, environ={})


# -- errors carry their source ---------------------------------------------------------------


def test_errors_say_which_source_set_the_bad_value(project: Path) -> None:
    write(project / ".truncation.yaml", "tools:\n  execute_command:\n    inline_limit: -5\n")
    with pytest.raises(ConfigError) as info:
        load_config(start=project, environ={"TRUNCATION_CORE_HEAD_RATIO": "2"},
                    overrides={"max_lines": 0})
    assert sorted(info.value.problems) == sorted([
        f"tools.execute_command.inline_limit: must be a positive integer, got -5 "
        f"(from {project / '.truncation.yaml'})",
        "head_ratio: must be a number from 0 to 1, got 2 "
        "(from environment variable TRUNCATION_CORE_HEAD_RATIO)",
        "max_lines: must be a positive integer, got 0 (from code)",
    ])


def test_unknown_keys_say_where_they_came_from(tmp_path: Path) -> None:
    conf = write(tmp_path / ".truncation.yaml", "tools:\n  read_file:\n    max_line: 5\n")
    with pytest.raises(ConfigError) as info:
        load_config(start=tmp_path, environ={"TRUNCATION_CORE_INLINE_LIMT": "5"})
    assert sorted(info.value.problems) == sorted([
        "inline_limt: unknown key; did you mean 'inline_limit'? "
        "(from environment variable TRUNCATION_CORE_INLINE_LIMT)",
        f"tools.read_file.max_line: unknown key; did you mean 'max_lines'? (from {conf})",
    ])


def test_invalid_yaml_names_the_file_line_and_column(tmp_path: Path) -> None:
    conf = write(tmp_path / ".truncation.yaml", "inline_limit: 5\ntools: [\n  oops: {\n")
    with pytest.raises(ConfigError) as info:
        load_config(start=tmp_path, environ={})
    (problem,) = info.value.problems
    assert problem.startswith(f"{conf}:")
    assert "not valid YAML" in problem
    line = int(problem[len(str(conf)) + 1:].split(":")[0])
    assert 2 <= line <= 4


def test_invalid_toml_names_the_file(tmp_path: Path) -> None:
    conf = write(tmp_path / "pyproject.toml", "[tool.truncation_core\ninline_limit = 5\n")
    with pytest.raises(ConfigError, match=f"{conf}: not valid TOML"):
        load_config(start=tmp_path, environ={})


def test_a_pyproject_that_is_not_utf8_is_a_config_error(tmp_path: Path) -> None:
    """Regression: any pyproject.toml up the tree that is not UTF-8 crashed every command
    with a UnicodeDecodeError traceback."""
    conf = tmp_path / "pyproject.toml"
    conf.write_bytes(b'[tool.other]\nname = "caf\xe9"\n')  # Latin-1
    with pytest.raises(UnicodeDecodeError), conf.open("rb") as f:  # control: tomllib's error
        tomllib.load(f)
    with pytest.raises(ConfigError, match=f"{conf}: not valid TOML"):
        load_config(start=tmp_path, environ={})


@pytest.mark.parametrize("text", ["- a\n- b\n", "just a string\n", "42\n"])
def test_a_file_must_hold_a_mapping(tmp_path: Path, text: str) -> None:
    conf = write(tmp_path / ".truncation.yaml", text)
    with pytest.raises(ConfigError,
                       match=f"{conf}: must be a mapping of keys to values at the top level"):
        load_config(start=tmp_path, environ={})


def test_an_empty_file_means_defaults(tmp_path: Path) -> None:
    write(tmp_path / ".truncation.yaml", "# nothing yet\n")
    assert load_config(start=tmp_path, environ={}).config.inline_limit == 8000
