"""Configuration: the global settings and the per-tool overrides, from which the effective
policy of a tool is resolved.

A :class:`Config` holds the global values of every setting (declared once, in
:mod:`truncation_core.types.settings`), ``default_strategy``, and the ``marker``, ``store``,
``plugins`` and ``tools`` sections. :meth:`Config.policy_for` merges, for one tool: the
global settings, then the built-in tool policy, then the tool's own overrides. The result is
the :class:`~truncation_core.types.policy.Policy` that hooks receive.

Where configuration comes from (code, environment, files) is
:mod:`truncation_core.config.sources`. The reference for every key is
docs/configuration.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import attrs

from truncation_core.types.converters import frozen_mapping
from truncation_core.types.policy import Policy, StoreConfig
from truncation_core.types.settings import SETTING_NAMES, Settings, ToolConfig
from truncation_core.types.templates import MarkerConfig
from truncation_core.types.tool_names import ArtifactToolNames

__all__ = [
    "BUILTIN_TOOL_POLICIES",
    "Config",
    "PluginsConfig",
    "limit_warnings",
    "raised_for_own_limits",
]


def _str_tuple(value: Any) -> tuple[str, ...]:
    return tuple(value)


def _optional_str_tuple(value: Any) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


@attrs.frozen(kw_only=True)
class PluginsConfig:
    """Which plugins load. Entry-point plugins are named by their entry-point name."""

    #: Project-local plugins, as importable module paths (``myproject.truncation_hooks``).
    modules: tuple[str, ...] = attrs.field(default=(), converter=_str_tuple)
    #: Entry-point plugins that must not load.
    disable: tuple[str, ...] = attrs.field(default=(), converter=_str_tuple)
    #: If set, only these entry-point plugins load (an empty list loads none).
    enable: tuple[str, ...] | None = attrs.field(default=None, converter=_optional_str_tuple)
    #: Discover installed plugins through the ``truncation_core`` entry-point group.
    autoload: bool = True
    #: Raise instead of warning when a plugin fails to load, and let a plugin's exception
    #: propagate instead of falling back (see :mod:`truncation_core.hooks.failures`).
    strict: bool = False


#: The strategies (and settings) common agent tools get unless configuration says otherwise.
#: Configuration under ``tools`` overrides these key by key. A file's or a diff's contents get
#: no highlights: in source code, lines that look like failures (an error message in a
#: string, a test count in a docstring) are not, and the block would spend the budget on them.
#: A file view keeps :data:`FILE_VIEW_HEAD_RATIO` of the budget at its head: agents read a
#: file from its top (imports, definitions, a document's opening sections), and the outline
#: names where the rest lies (measured on the dev half of ``bench/agent_corpus``: visible
#: recall of file views 0.594 at 0.6, 0.648 at 0.85; issue 28). A directory listing is read
#: the same way, from its top levels down (listings of the dev half: 0.750 at 0.6, 1.000 from
#: 0.7 to 0.9).
FILE_VIEW_HEAD_RATIO = 0.85
BUILTIN_TOOL_POLICIES: Mapping[str, ToolConfig] = MappingProxyType(
    {
        "read_file": ToolConfig(strategy="outline", highlights=0,
                                head_ratio=FILE_VIEW_HEAD_RATIO),
        "execute_command": ToolConfig(strategy="adaptive"),
        "list_directory": ToolConfig(strategy="element", head_ratio=FILE_VIEW_HEAD_RATIO),
        "search_files": ToolConfig(strategy="element"),
        "git_diff": ToolConfig(strategy="head_tail", highlights=0),
    }
)


@attrs.frozen(kw_only=True)
class Config(Settings):
    """All of truncation-core's settings. Build it in code, or from a mapping with the same
    keys as the config file (:func:`config_from_mapping`). The global value of each setting
    of :class:`~truncation_core.types.settings.Settings`, and:"""

    #: Strategy for tools without a policy of their own.
    default_strategy: str = "head_tail"
    marker: MarkerConfig = attrs.field(factory=MarkerConfig)
    store: StoreConfig = attrs.field(factory=StoreConfig)
    plugins: PluginsConfig = attrs.field(factory=PluginsConfig)
    #: The names the model sees for the artifact tools: a ``prefix``, or ``names`` per tool.
    artifact_tools: ArtifactToolNames = attrs.field(factory=ArtifactToolNames)
    #: Per-tool overrides, keyed by tool name.
    tools: Mapping[str, ToolConfig] = attrs.field(factory=dict, converter=frozen_mapping)

    def policy_for(self, tool: str | None) -> Policy:
        """The effective policy for *tool*: globals, then built-in policy, then overrides,
        then the limits the tool's own ``max_bytes`` / ``max_lines`` need
        (:func:`raised_for_own_limits`)."""
        values: dict[str, Any] = {key: getattr(self, key) for key in SETTING_NAMES}
        values["strategy"] = self.default_strategy
        values["tool_strategy"] = False
        own = self.tools.get(tool or "")
        for layer in (BUILTIN_TOOL_POLICIES.get(tool or ""), own):
            if layer is not None:
                values.update(layer.overrides)
                values["tool_strategy"] |= layer.strategy is not None
        values["explicit_strategy"] = own is not None and own.strategy is not None
        if own is not None:
            values.update(raised_for_own_limits(own, values))
        return Policy(tool=tool, marker=self.marker, artifact_tools=self.artifact_tools,
                      **values)

    def tokenizer_names(self) -> dict[str, str]:
        """Every tokenizer name the configuration asks for, keyed by its config path."""
        names = {"tokenizer": str(self.tokenizer)}
        for tool, override in self.tools.items():
            if override.tokenizer is not None:
                names[f"tools.{tool}.tokenizer"] = override.tokenizer
        return names

    def strategy_names(self) -> dict[str, str]:
        """Every strategy name the configuration asks for, keyed by its config path."""
        names = {"default_strategy": self.default_strategy}
        for tool, override in self.tools.items():
            if override.strategy is not None:
                names[f"tools.{tool}.strategy"] = override.strategy
        return names


#: Characters a line may take when a tool's own ``max_lines`` (without ``max_bytes``) raises
#: its ``inline_limit``: the limit becomes ``max_lines`` times this.
LINE_ALLOWANCE_CHARS = 200
#: A line of ordinary tool output is about this long: a line limit that needs shorter lines
#: to bind is reported by :func:`limit_warnings`.
_TYPICAL_LINE_CHARS = 80


def raised_for_own_limits(own: ToolConfig, values: Mapping[str, Any]) -> dict[str, int]:
    """What a tool's own ``max_bytes`` or ``max_lines`` raises, so that it is what the tool
    gets.

    A limit set under ``tools.<name>`` is the one the user expects to bind; the global
    ``inline_limit`` (8,000 characters) and ``preview_limit`` (2,000, under the artifact
    reference of content over ``artifact_threshold``) would otherwise win without a word
    (``max_lines: 2000`` giving a 46-line preview). So, unless the tool sets them itself: its
    ``inline_limit`` rises to ``max_bytes`` (a character is at least one byte), or else to
    ``max_lines`` x :data:`LINE_ALLOWANCE_CHARS`; and its ``preview_limit`` rises to that
    inline limit, so that content over ``artifact_threshold`` gets the artifact reference
    and, under it, a preview cut to the tool's own limits (``preview_limit`` binds only with
    ``reference_preview: short``; the default shows the full cut under the reference). Limits
    the tool sets itself are kept as set (``trunc config validate`` says which one wins).
    """
    if own.max_bytes is None and own.max_lines is None:
        return {}
    raised: dict[str, int] = {}
    inline = values["inline_limit"]
    if own.inline_limit is None:
        wanted = (own.max_bytes if own.max_bytes is not None
                  else own.max_lines * LINE_ALLOWANCE_CHARS)
        if wanted > inline:
            raised["inline_limit"] = inline = wanted
    if own.preview_limit is None and inline > values["preview_limit"]:
        raised["preview_limit"] = inline
    return raised


def limit_warnings(config: Config) -> list[str]:
    """Limits in *config* that never bind, each naming the key that wins instead."""
    warnings = []

    def check(prefix: str, chars: int, max_bytes: int | None, max_lines: int | None,
              chars_key: str) -> None:
        if max_bytes is not None and max_bytes > chars * 4:
            warnings.append(f"{prefix}max_bytes ({max_bytes:,}) never binds: {chars_key} "
                            f"({chars:,} characters, at most {chars * 4:,} bytes) wins")
        elif max_bytes is not None and max_bytes > chars:
            warnings.append(f"{prefix}max_bytes ({max_bytes:,}) binds only for text of more "
                            f"than {max_bytes / chars:.1f} bytes a character; {chars_key} "
                            f"({chars:,} characters) wins for ASCII")
        if max_lines is not None and chars // max_lines < _TYPICAL_LINE_CHARS:
            warnings.append(f"{prefix}max_lines ({max_lines:,}) binds only for lines "
                            f"averaging under {chars // max_lines:,} characters; {chars_key} "
                            f"({chars:,} characters) wins for longer ones")

    check("", config.inline_limit, config.max_bytes, config.max_lines, "inline_limit")
    for tool, own in config.tools.items():
        if own.max_bytes is None and own.max_lines is None:
            continue
        policy = config.policy_for(tool)
        if own.inline_limit is not None:
            check(f"tools.{tool}.", policy.inline_limit, own.max_bytes, own.max_lines,
                  f"tools.{tool}.inline_limit")
        if policy.reference_preview == "short" and policy.preview_limit < policy.inline_limit:
            key = (f"tools.{tool}.preview_limit" if own.preview_limit is not None
                   else "preview_limit")
            warnings.append(
                f"tools.{tool}: content over artifact_threshold "
                f"({policy.artifact_threshold:,} characters) shows a preview of "
                f"{policy.preview_limit:,} characters under its artifact reference, not the "
                f"tool's limits: {key} wins")
    return warnings
