"""Configuration: defaults, per-tool policies, and one clear message per problem."""

from __future__ import annotations

import os
from typing import Any

import attrs
import pytest

from truncation_core import Config, ConfigError, Policy, ToolConfig, Truncator
from truncation_core.config.converter import config_from_mapping
from truncation_core.config.model import BUILTIN_TOOL_POLICIES
from truncation_core.types.policy import StoreConfig
from truncation_core.types.settings import OVERRIDE_NAMES, SETTING_NAMES, Settings
from truncation_core.types.templates import MarkerConfig, plurals


def problems(data: Any) -> tuple[str, ...]:
    """The problems reported for *data*, through the public constructor."""
    with pytest.raises(ConfigError) as info:
        Truncator(data, load_entrypoints=False)
    return info.value.problems


# -- defaults ------------------------------------------------------------------------------


def test_defaults_are_seed_000s() -> None:
    config = Config()
    assert config.inline_limit == 8000
    assert config.artifact_threshold == 50_000
    assert config.max_artifact_size == 10 * 1024 * 1024
    assert config.default_strategy == "head_tail"
    assert config.head_ratio == 0.6
    assert config.spill is True
    assert config.max_bytes is None and config.max_lines is None
    assert config.plugins.autoload is True and config.plugins.strict is False
    assert config_from_mapping({}) == config


def test_default_markers_are_seed_000s() -> None:
    """FR-043's format, and the size of the whole output (FR-041)."""
    marker = MarkerConfig()
    fmt = {"lines": 12340, "chars": 1234567, "hint": "", "original_lines": 20000,
           "original_chars": 2000000}
    fmt.update(plurals(fmt))
    assert marker.middle.format(**fmt) == ("\n... [12,340 lines / 1,234,567 chars omitted of "
                                           "20,000 lines / 2,000,000 chars] ...\n")
    assert marker.beginning.format(**fmt) == ("... [Beginning omitted: 12,340 lines / "
                                              "1,234,567 chars of 20,000 lines / 2,000,000 "
                                              "chars] ...\n")
    assert marker.end.format(**fmt) == ("\n... [Remainder omitted: 12,340 lines / 1,234,567 "
                                        "chars of 20,000 lines / 2,000,000 chars] ...")
    one = {"lines": 1, "chars": 1, "hint": "", "original_lines": 1, "original_chars": 1}
    assert marker.middle.format(**one, **plurals(one)) == (
        "\n... [1 line / 1 char omitted of 1 line / 1 char] ...\n")


def test_builtin_tool_policies_are_fr_071_to_075() -> None:
    assert {tool: p.strategy for tool, p in BUILTIN_TOOL_POLICIES.items()} == {
        "read_file": "outline",  # head_tail with an outline of the omitted part (issue 28)
        "execute_command": "adaptive",  # the split where the failures are (issue 28)
        "list_directory": "element",
        "search_files": "element",
        "git_diff": "head_tail",
    }


# -- the effective policy --------------------------------------------------------------------


def test_per_tool_overrides_merge_key_by_key_with_builtin_policies() -> None:
    config = config_from_mapping({
        "inline_limit": 3000,
        "head_ratio": 0.5,
        "tools": {
            "execute_command": {"inline_limit": 5000},  # keeps the built-in strategy
            "read_file": {"strategy": "head", "max_lines": 40},
            "my_tool": {"spill": False},
        },
    })
    command = config.policy_for("execute_command")
    assert (command.strategy, command.inline_limit, command.head_ratio) == (
        "adaptive", 5000, 0.5)
    read = config.policy_for("read_file")
    # the tool's own max_lines raises its inline_limit (40 lines x 200 characters) to bind
    assert (read.strategy, read.inline_limit, read.max_lines) == ("head", 8000, 40)
    mine = config.policy_for("my_tool")
    assert (mine.strategy, mine.spill, mine.inline_limit) == ("head_tail", False, 3000)
    untouched = config.policy_for("git_diff")
    assert (untouched.strategy, untouched.inline_limit) == ("head_tail", 3000)
    anonymous = config.policy_for(None)
    assert anonymous.tool is None and anonymous.strategy == "head_tail"


def test_policy_budget_has_every_limit() -> None:
    policy = config_from_mapping({"inline_limit": 100, "max_bytes": 90,
                                  "max_lines": 5}).policy_for("x")
    assert (policy.budget.chars, policy.budget.bytes, policy.budget.lines) == (100, 90, 5)


def test_policy_covers_every_tool_setting() -> None:
    """Every per-tool setting reaches the Policy that hooks see, with the tool's value."""
    policy_keys = {a.name for a in attrs.fields(Policy)}
    assert set(OVERRIDE_NAMES) <= policy_keys
    samples = {"strategy": "lines", "inline_limit": 123, "max_bytes": 456, "max_lines": 7,
               "artifact_threshold": 999, "reference_preview": "short",
               "preview_limit": 55, "max_artifact_size": 4096,
               "head_ratio": 0.25, "direction": "tail", "spill": False,
               "detect_structure": False, "json_records": False, "stream_threshold": 77,
               "max_depth": 3,
               "score_key": "meta.rank", "highlights": 4, "max_tokens": 900,
               "tokenizer": "cl100k_base", "log_utilization_above": 0.75}
    assert set(samples) == set(OVERRIDE_NAMES), "a new setting needs a sample here"
    policy = config_from_mapping({"tools": {"t": samples}}).policy_for("t")
    assert {key: getattr(policy, key) for key in samples} == samples
    assert policy.tool_strategy and policy.explicit_strategy


def test_every_setting_is_declared_once_and_derived() -> None:
    """Config and Policy take the settings from the one declaration; ToolConfig accepts
    exactly them (and strategy), each checked as the global setting is."""
    assert [a.name for a in attrs.fields(Settings)] == list(SETTING_NAMES)
    for cls in (Config, Policy):
        names = [a.name for a in attrs.fields(cls)]
        assert names[:len(SETTING_NAMES)] == list(SETTING_NAMES)
    with pytest.raises(ConfigError, match=r"inline_limit: must be a positive integer"):
        ToolConfig(inline_limit=0)
    with pytest.raises(ConfigError, match=r"inline_limt: unknown key; did you mean "
                                          r"'inline_limit'"):
        ToolConfig(inline_limt=5)
    assert ToolConfig(max_lines=3).overrides == {"max_lines": 3}
    assert ToolConfig(max_lines=3).inline_limit is None


def test_default_strategy_applies_to_tools_without_a_policy() -> None:
    config = config_from_mapping({"default_strategy": "tail"})
    assert config.policy_for("unknown_tool").strategy == "tail"
    assert config.policy_for("read_file").strategy == "outline"  # built-in policy wins


# -- errors ----------------------------------------------------------------------------------


def test_errors_name_the_path_and_the_expected_form() -> None:
    assert problems({"tools": {"execute_command": {"inline_limit": -5}}}) == (
        "tools.execute_command.inline_limit: must be a positive integer, got -5",)


def test_config_error_is_raised_from_a_plain_mapping() -> None:
    with pytest.raises(ConfigError) as info:
        config_from_mapping({"inline_limit": -1})
    assert isinstance(info.value, ValueError)  # callers may catch ValueError
    assert str(info.value) == "invalid configuration:\n  inline_limit: must be a positive " \
                              "integer, got -1"


def test_one_message_per_problem() -> None:
    found = problems({"inline_limit": -1, "head_ratio": 2,
                      "tools": {"x": {"strategy": 5, "inline_limit": 0}}})
    assert sorted(found) == sorted([
        "inline_limit: must be a positive integer, got -1",
        "head_ratio: must be a number from 0 to 1, got 2",
        "tools.x.strategy: must be a string, got 5",
        "tools.x.inline_limit: must be a positive integer, got 0",
    ])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"inline_limit": "12"}, "inline_limit: must be a positive integer, got '12'"),
        ({"inline_limit": 3.9}, "inline_limit: must be a positive integer, got 3.9"),
        ({"inline_limit": 12.0}, "inline_limit: must be a positive integer, got 12.0"),
        ({"inline_limit": True}, "inline_limit: must be a positive integer, got True"),
        ({"inline_limit": 0}, "inline_limit: must be a positive integer, got 0"),
        ({"max_bytes": "1k"}, "max_bytes: must be a positive integer, got '1k'"),
        ({"head_ratio": 1.5}, "head_ratio: must be a number from 0 to 1, got 1.5"),
        ({"head_ratio": True}, "head_ratio: must be a number from 0 to 1, got True"),
        ({"head_ratio": "0.5"}, "head_ratio: must be a number from 0 to 1, got '0.5'"),
        ({"spill": "yes"}, "spill: must be true or false, got 'yes'"),
        ({"spill": 1}, "spill: must be true or false, got 1"),
        ({"direction": "up"}, "direction: must be one of head, tail, got 'up'"),
        ({"store": {"backend": 3}}, "store.backend: must be a string, got 3"),
        ({"default_strategy": None}, "default_strategy: must be a string, got None"),
        ({"plugins": {"modules": "abc"}}, "plugins.modules: must be a list of strings, got 'abc'"),
        ({"plugins": {"enable": [1]}}, "plugins.enable: must be a list of strings, got an item 1"),
        ({"plugins": {"autoload": "no"}}, "plugins.autoload: must be true or false, got 'no'"),
        ({"tools": {"my-tool": {"max_lines": "x"}}},
         "tools['my-tool'].max_lines: must be a positive integer, got 'x'"),
        ({"tools": {1: {}}}, "tools[1]: must be a string, got 1"),
    ],
)
def test_scalars_are_strict(data: dict[str, Any], message: str) -> None:
    assert problems(data) == (message,)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"tools": [1]}, "tools: must be a mapping of keys to values"),
        ({"tools": None}, "tools: must be a mapping of keys to values"),
        ({"tools": {"x": None}}, "tools.x: must be a mapping of keys to values, got None"),
        ({"tools": {"x": "tail"}}, "tools.x: must be a mapping of keys to values, got 'tail'"),
        ({"tools": {"x": 5}}, "tools.x: must be a mapping of keys to values, got 5"),
        ({"marker": None}, "marker: must be a mapping of keys to values, got None"),
        ({"store": []}, "store: must be a mapping of keys to values, got a list"),
        ({"plugins": 3}, "plugins: must be a mapping of keys to values, got 3"),
    ],
)
def test_sections_must_be_mappings(data: dict[str, Any], message: str) -> None:
    assert problems(data) == (message,)


@pytest.mark.parametrize("data", [[1, 2], "inline_limit: 5", 42])
def test_the_whole_config_must_be_a_mapping(data: Any) -> None:
    (message,) = problems(data)
    assert message.startswith("<top level>: must be a mapping of keys to values, got ")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"inline_limt": 5}, "inline_limt: unknown key; did you mean 'inline_limit'?"),
        ({"tools": {"execute_command": {"inline_limt": 5}}},
         "tools.execute_command.inline_limt: unknown key; did you mean 'inline_limit'?"),
        ({"marker": {"middl": "x"}}, "marker.middl: unknown key; did you mean 'middle'?"),
        ({"plugins": {"disabled": ["x"]}}, "plugins.disabled: unknown key; did you mean "
                                           "'disable'?"),
        ({"zzz": 1}, "zzz: unknown key"),
        ({"store": {"retension_days": 3}},
         "store.retension_days: unknown key; did you mean 'retention_days'?"),
        ({"store": {"backend": "memory", "url": "redis://localhost"}}, "store.url: unknown key"),
        ({"store": {"backend": "filesystem", "options": {"url": "x"}}},
         "store.options: unknown key"),
    ],
)
def test_unknown_keys_are_errors_with_a_suggestion(data: dict[str, Any], message: str) -> None:
    (found,) = problems(data)
    assert found.endswith(message)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"default_strategy": "tial"},
         "default_strategy: unknown strategy 'tial'; did you mean 'tail'? "
         "(available: {strategies})"),
        ({"tools": {"x": {"strategy": "hed"}}},
         "tools.x.strategy: unknown strategy 'hed'; did you mean 'head'? "
         "(available: {strategies})"),
        ({"default_strategy": "zzzzzz"},
         "default_strategy: unknown strategy 'zzzzzz' (available: {strategies})"),
        ({"store": {"backend": "memroy"}},
         "store.backend: unknown backend 'memroy'; did you mean 'memory'? "
         "(available: {backends})"),
    ],
)
def test_unknown_strategy_and_backend_names_are_errors_with_a_suggestion(
        data: dict[str, Any], message: str) -> None:
    plugins = Truncator(load_entrypoints=False).plugins
    assert {"element", "head", "head_tail", "lines", "tail"} <= set(plugins.strategies)
    assert "memory" in plugins.backends
    assert problems(data) == (message.format(strategies=", ".join(sorted(plugins.strategies)),
                                             backends=", ".join(sorted(plugins.backends))),)


@pytest.mark.parametrize(
    ("template", "message"),
    [
        ({"middle": "{nope}"}, "marker.middle: unknown placeholder {nope}; available: {lines}, "
                               "{chars}, {first_line}, {last_line}, {hint}, {original_lines}, "
                               "{original_chars}, {strategy}, {tool}"),
        ({"middle": "{0}"}, "marker.middle: unknown placeholder {0}"),
        ({"hint": "{reason}"}, "marker.hint: unknown placeholder {reason}"),
        ({"reference": "[{artifact_id}] {chars:,} {preview}"},
         "marker.reference: unknown placeholder {preview}"),
        ({"middle": "{"}, "marker.middle: not a valid template: Single '{' encountered"),
        ({"end": "{lines:%}x{chars:q}"}, "marker.end: not a valid template"),
    ],
)
def test_marker_templates_with_unknown_placeholders_are_rejected(
        template: dict[str, str], message: str) -> None:
    (found,) = problems({"marker": template})
    assert found.startswith(message)


def test_valid_marker_templates_are_used() -> None:
    truncator = Truncator({"inline_limit": 200, "spill": False,
                           "marker": {"middle": "\n<<{lines} lines cut ({strategy}, {tool})>>\n"}},
                          load_entrypoints=False)
    text = "".join(f"{i}\n" for i in range(500))
    result = truncator.process(text, tool="read_file")
    region = result.metadata.omissions[0]
    assert f"\n<<{region.lines} lines cut (outline, read_file)>>\n" in result.content


def test_config_built_in_code_is_validated() -> None:
    with pytest.raises(ConfigError, match="inline_limit: must be a positive integer, got -5"):
        ToolConfig(inline_limit=-5)
    with pytest.raises(ConfigError, match="head_ratio: must be a number from 0 to 1, got 2"):
        Config(head_ratio=2)
    with pytest.raises(ConfigError, match="direction: must be one of head, tail"):
        Config(direction="sideways")  # type: ignore[arg-type]


def test_the_converter_float_hook_is_strict() -> None:
    from truncation_core.config.converter import converter

    assert converter.structure(1, float) == 1.0
    assert converter.structure(0.5, float) == 0.5
    for bad in (True, "0.5", None):
        with pytest.raises(TypeError, match="must be a number"):
            converter.structure(bad, float)


# -- a backend's own settings (store.options) ----------------------------------------------


def test_other_store_keys_are_the_backends_options() -> None:
    """A backend from a plugin has settings of its own: the keys of ``store`` the core does
    not know are kept, as written, for its factory to check."""
    config = config_from_mapping({"store": {"backend": "kv", "url": "kv://host/0",
                                            "prefix": "agents", "quota": 1000}})
    assert config.store.quota == 1000
    assert dict(config.store.options) == {"url": "kv://host/0", "prefix": "agents"}
    assert dict(config.store.resolved().options) == dict(config.store.options)
    with pytest.raises(TypeError):
        config.store.options["url"] = "changed"  # type: ignore[index]
    assert config_from_mapping({"store": {"backend": "kv"}}).store.options == {}


def test_store_options_print_and_round_trip_where_they_were_written() -> None:
    from truncation_core.config.converter import converter

    config = config_from_mapping({"store": {"backend": "kv", "url": "kv://host/0"}})
    data = converter.unstructure(config)["store"]
    assert data["url"] == "kv://host/0" and "options" not in data
    assert config_from_mapping({"store": data}) == config.__class__(store=config.store)


def test_store_options_come_from_the_environment_too() -> None:
    from truncation_core.config.sources import load_config

    loaded = load_config(environ={"TRUNCATION_CORE_STORE__BACKEND": "kv",
                                  "TRUNCATION_CORE_STORE__URL": "kv://host/0",
                                  "TRUNCATION_CORE_STORE__SOCKET_TIMEOUT": "2.5"},
                         start="/")
    assert dict(loaded.config.store.options) == {"url": "kv://host/0", "socket_timeout": 2.5}


def test_store_options_keys_must_be_strings() -> None:
    assert problems({"store": {"backend": "kv", 1: "x"}}) == ("store[1]: unknown key",)


def test_the_backend_factory_gets_the_options_and_reports_bad_ones() -> None:
    from truncation_core.plugin import Provides, hookimpl
    from truncation_core.storage.memory import MemoryStore

    seen = []

    class KeyValuePlugin:
        @hookimpl
        def provides(self) -> Provides:
            def factory(config: Any) -> MemoryStore:
                seen.append(dict(config.options))
                bad = [f"store.{key}: unknown key for the kv backend"
                       for key in config.options if key != "url"]
                if bad:
                    raise ConfigError(bad)
                return MemoryStore(config.session)

            return Provides(backends={"kv": factory})

    Truncator({"store": {"backend": "kv", "url": "kv://h"}}, plugins=[KeyValuePlugin()],
              load_entrypoints=False)
    assert seen == [{"url": "kv://h"}]
    with pytest.raises(ConfigError) as info:
        Truncator({"store": {"backend": "kv", "ulr": "kv://h"}}, plugins=[KeyValuePlugin()],
                  load_entrypoints=False)
    assert info.value.problems == ("store.ulr: unknown key for the kv backend",)


def test_store_options_built_in_code_are_checked_for_builtin_backends() -> None:
    from truncation_core.types.policy import StoreConfig

    with pytest.raises(ConfigError, match=r"url: unknown key \(the filesystem backend has no "):
        StoreConfig(options={"url": "redis://localhost"})
    with pytest.raises(ConfigError, match="retension_days: unknown key; did you mean"):
        StoreConfig(backend="memory", options={"retension_days": 1})
    assert StoreConfig(backend="kv", options={"url": "x"}).options == {"url": "x"}


@pytest.mark.parametrize("root", ["rel", "rel/x/", "./a/../b", "a//b/./c", "/abs/x",
                                  "/abs/../y", ".", "..", "~", "~/x", "~//x", "~root/x"])
@pytest.mark.parametrize("workspace", [None, "/ws/p", "relws"])
def test_the_store_root_resolves_as_pathlib_resolves_it(root: str, workspace: str | None
                                                         ) -> None:
    """A plain root is joined on strings (no pathlib at start-up); the result is what
    pathlib's expanduser, is_absolute and ``/`` give."""
    from pathlib import Path

    ws = None if workspace is None else Path(workspace)
    expected = Path(root).expanduser()
    if not expected.is_absolute():
        expected = (ws if ws is not None else Path.cwd()) / expected
    assert StoreConfig(root=root).resolved(ws).root == os.path.abspath(expected)


def test_a_root_under_an_unknown_home_is_refused_naming_the_field() -> None:
    with pytest.raises(ConfigError, match=r"store\.root: '~no_such_user_here_zz/x' starts "
                       r"with the home directory of a user .* \(expected an absolute path"):
        StoreConfig(root="~no_such_user_here_zz/x").resolved()
    with pytest.raises(ConfigError, match=r"store\.root: "):
        Truncator({"store": {"root": "~no_such_user_here_zz/x"}}, load_entrypoints=False)
