"""Configuration: the settings, their defaults, and the effective policy for one tool.

A :class:`Config` holds global settings at the top level and per-tool overrides under
``tools``. :meth:`Config.policy_for` merges, for one tool: the global settings, then the
built-in tool policy (seed 000, FR-071..075), then the tool's own overrides. The result is the
:class:`Policy` that hooks receive.

Where configuration comes from (code, environment, files) is :mod:`truncation_core.config_sources`.
The reference for every key is docs/configuration.md.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NewType

import attrs

from truncation_core.models import Budget

__all__ = [
    "BUILTIN_TOOL_POLICIES",
    "Config",
    "MarkerConfig",
    "PluginsConfig",
    "Policy",
    "StoreConfig",
    "ToolConfig",
    "config_from_mapping",
]

MIB = 1024 * 1024


PositiveInt = NewType("PositiveInt", int)
Count = NewType("Count", int)
Ratio = NewType("Ratio", float)
Direction = NewType("Direction", str)

DIRECTIONS = ("head", "tail")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_positive_int(value: object) -> PositiveInt:
    if not _is_int(value) or value <= 0:  # type: ignore[operator]
        raise ValueError(f"must be a positive integer, got {value!r}")
    return value  # type: ignore[return-value]


def check_count(value: object) -> Count:
    if not _is_int(value) or value < 0:  # type: ignore[operator]
        raise ValueError(f"must be a whole number, 0 or more, got {value!r}")
    return value  # type: ignore[return-value]


def check_ratio(value: object) -> Ratio:
    if not (_is_int(value) or isinstance(value, float)) or not 0 <= value <= 1:  # type: ignore[operator]
        raise ValueError(f"must be a number from 0 to 1, got {value!r}")
    return Ratio(float(value))  # type: ignore[arg-type]


def check_direction(value: object) -> Direction:
    if value not in DIRECTIONS:
        raise ValueError(f"must be one of {', '.join(DIRECTIONS)}, got {value!r}")
    return value  # type: ignore[return-value]


# The converter runs these checks while structuring, so errors carry their path; the attrs
# validators below repeat them for objects built directly in code.
def _validator(check: Any) -> Any:
    def validate(_inst: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if value is None and attribute.default is None:
            return
        try:
            check(value)
        except ValueError as exc:
            from truncation_core.errors import ConfigError

            raise ConfigError([f"{attribute.name}: {exc}"]) from None

    return validate


_positive = _validator(check_positive_int)
_count = _validator(check_count)
_ratio = _validator(check_ratio)
_direction = _validator(check_direction)


def _readonly(value: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(value or {}))


def _str_tuple(value: Any) -> tuple[str, ...]:
    return tuple(value)


def _optional_str_tuple(value: Any) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


@attrs.frozen(kw_only=True)
class MarkerConfig:
    """Templates for markers, in :meth:`str.format` syntax (``{lines:,}`` writes ``12,340``).

    Placeholders: see :data:`MARKER_PLACEHOLDERS`. A template may also be restyled wholesale by
    a ``format_marker`` plugin.
    """

    #: Between a kept head and a kept tail (head_tail). FR-043's format.
    middle: str = "\n... [{lines:,} lines / {chars:,} chars omitted{hint}] ...\n"
    #: Before a kept tail (tail, lines from the tail).
    beginning: str = "... [Beginning omitted: {lines:,} lines / {chars:,} chars{hint}] ...\n"
    #: After a kept head (head, lines from the head).
    end: str = "\n... [Remainder omitted: {lines:,} lines / {chars:,} chars{hint}] ..."
    #: Fills ``{hint}`` when the omitted part is kept as an artifact.
    hint: str = (
        '; get_artifact(artifact_id="{artifact_id}", start_line={start_line}, end_line={end_line})'
    )
    #: Fills ``{hint}`` when spilling was on but the artifact could not be stored.
    unavailable: str = "; the full output could not be kept: {reason}"
    #: The artifact reference shown above a short preview, for content over
    #: ``artifact_threshold``. FR-059's format on its first line.
    reference: str = (
        "[Artifact: {artifact_id}] {summary} ({size})\n"
        "{lines:,} lines / {chars:,} chars are stored in full. "
        'Read them with get_artifact(artifact_id="{artifact_id}", start_line=1, end_line=100) '
        "and other line ranges, artifact_tail or artifact_grep. Preview:\n"
    )
    #: Follows ``hint`` when the omitted region's byte range in the artifact is known: the
    #: omitted part is ``artifact[start_byte:end_byte]``.
    hint_bytes: str = "; bytes {start_byte}:{end_byte}"
    #: First line of the highlights block: salient lines lifted from the omitted part.
    highlights: str = (
        "... [highlights from the omitted part: {shown} of {found} matching lines] ..."
    )
    #: One line of the highlights block.
    highlight: str = "line {line}: {text}"


#: The placeholders each marker template may use.
MARKER_PLACEHOLDERS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "middle": ("lines", "chars", "first_line", "last_line", "hint",
                   "original_lines", "original_chars", "strategy", "tool"),
        "beginning": ("lines", "chars", "first_line", "last_line", "hint",
                      "original_lines", "original_chars", "strategy", "tool"),
        "end": ("lines", "chars", "first_line", "last_line", "hint",
                "original_lines", "original_chars", "strategy", "tool"),
        "hint": ("artifact_id", "start_line", "end_line", "lines", "chars"),
        "hint_bytes": ("start_byte", "end_byte", "bytes"),
        "unavailable": ("reason",),
        "reference": ("artifact_id", "summary", "size", "chars", "lines", "bytes", "tool"),
        "highlights": ("shown", "found"),
        "highlight": ("line", "text", "pattern"),
    }
)

_SAMPLE_VALUES: Mapping[str, Any] = MappingProxyType(
    {
        "lines": 150, "chars": 12340, "first_line": 10, "last_line": 159, "hint": "",
        "original_lines": 300, "original_chars": 24000, "strategy": "head_tail",
        "tool": "read_file", "artifact_id": "art_1_" + "0" * 32, "start_line": 10,
        "end_line": 159, "reason": "disk full", "summary": "read_file output",
        "size": "2.3 MB", "bytes": 2300000, "start_byte": 1024, "end_byte": 3301024,
        "shown": 3, "found": 12, "line": 4242, "text": "error: it broke", "pattern": "error",
    }
)


def marker_template_problems(markers: MarkerConfig, path: str = "marker") -> list[str]:
    """One message per template that uses an unknown placeholder or does not format."""
    problems = []
    for name, allowed in MARKER_PLACEHOLDERS.items():
        template = getattr(markers, name)
        try:
            fields = {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}
        except ValueError as exc:
            problems.append(f"{path}.{name}: not a valid template: {exc}")
            continue
        unknown = sorted(f for f in fields if f.split(".")[0].split("[")[0] not in allowed)
        if unknown:
            problems.append(
                f"{path}.{name}: unknown placeholder {{{unknown[0]}}}; "
                f"available: {', '.join('{' + a + '}' for a in allowed)}"
            )
            continue
        try:
            template.format(**_SAMPLE_VALUES)
        except (ValueError, KeyError, IndexError, AttributeError, TypeError) as exc:
            problems.append(f"{path}.{name}: not a valid template: {exc}")
    return problems


@attrs.frozen(kw_only=True)
class StoreConfig:
    """Where artifacts are kept."""

    #: Name of the storage backend (``memory``, or one a plugin provides).
    backend: str = "memory"


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
    #: Raise instead of warning when a plugin fails to load.
    strict: bool = False


@attrs.frozen(kw_only=True)
class ToolConfig:
    """Per-tool overrides. A setting left unset (None) inherits the global value."""

    strategy: str | None = None
    inline_limit: PositiveInt | None = attrs.field(default=None, validator=_positive)
    artifact_threshold: PositiveInt | None = attrs.field(default=None, validator=_positive)
    max_artifact_size: PositiveInt | None = attrs.field(default=None, validator=_positive)
    max_bytes: PositiveInt | None = attrs.field(default=None, validator=_positive)
    max_lines: PositiveInt | None = attrs.field(default=None, validator=_positive)
    head_ratio: Ratio | None = attrs.field(default=None, validator=_ratio)
    direction: Direction | None = attrs.field(default=None, validator=_direction)
    spill: bool | None = None
    preview_limit: PositiveInt | None = attrs.field(default=None, validator=_positive)
    highlights: Count | None = attrs.field(default=None, validator=_count)


#: FR-071..075: the strategies seed 000 assigns to common agent tools. Configuration under
#: ``tools`` overrides these key by key.
BUILTIN_TOOL_POLICIES: Mapping[str, ToolConfig] = MappingProxyType(
    {
        "read_file": ToolConfig(strategy="head_tail"),
        "execute_command": ToolConfig(strategy="tail", highlights=Count(8)),
        "list_directory": ToolConfig(strategy="element"),
        "search_files": ToolConfig(strategy="element"),
        "git_diff": ToolConfig(strategy="head_tail"),
    }
)

#: The settings a ToolConfig can override, in the order they are documented.
POLICY_KEYS = tuple(a.name for a in attrs.fields(ToolConfig))


@attrs.frozen(kw_only=True)
class Policy:
    """The effective settings for one tool: what every hook sees as ``policy``."""

    tool: str | None
    strategy: str
    inline_limit: int
    artifact_threshold: int
    max_artifact_size: int
    max_bytes: int | None
    max_lines: int | None
    head_ratio: float
    direction: str
    spill: bool
    preview_limit: int
    marker: MarkerConfig
    highlights: int = 0

    @property
    def budget(self) -> Budget:
        """The inline limits as a budget: chars, and optional bytes and lines."""
        return Budget(chars=self.inline_limit, bytes=self.max_bytes, lines=self.max_lines)


@attrs.frozen(kw_only=True)
class Config:
    """All of truncation-core's settings. Build it in code, or from a mapping with the same
    keys as the config file (:func:`config_from_mapping`)."""

    #: Content up to this many characters is returned unchanged (FR-007).
    inline_limit: PositiveInt = attrs.field(default=PositiveInt(8000), validator=_positive)
    #: Content over this many characters is shown as an artifact reference plus a short
    #: preview instead of an inline truncation (FR-008).
    artifact_threshold: PositiveInt = attrs.field(default=PositiveInt(50_000), validator=_positive)
    #: Artifacts keep at most this many bytes; beyond it the artifact keeps head and tail
    #: and says it is cut (FR-009).
    max_artifact_size: PositiveInt = attrs.field(default=PositiveInt(10 * MIB), validator=_positive)
    #: Strategy for tools without a policy of their own (FR-023).
    default_strategy: str = "head_tail"
    #: Share of the budget given to the head by head_tail (FR-028).
    head_ratio: Ratio = attrs.field(default=Ratio(0.6), validator=_ratio)
    #: Optional limit in UTF-8 bytes; the stricter of all limits wins.
    max_bytes: PositiveInt | None = attrs.field(default=None, validator=_positive)
    #: Optional limit in lines; the stricter of all limits wins.
    max_lines: PositiveInt | None = attrs.field(default=None, validator=_positive)
    #: Which end the ``lines`` strategy keeps: ``head`` or ``tail``.
    direction: Direction = attrs.field(default=Direction("head"), validator=_direction)
    #: Keep whatever is cut as an artifact, so that nothing is lost.
    spill: bool = True
    #: Size in characters of the preview under an artifact reference.
    preview_limit: PositiveInt = attrs.field(default=PositiveInt(2000), validator=_positive)
    #: Up to this many salient lines (errors, failures, summaries) from the omitted part are
    #: shown in a highlights block; 0 turns highlights off. On for ``execute_command``.
    highlights: Count = attrs.field(default=Count(0), validator=_count)
    marker: MarkerConfig = attrs.field(factory=MarkerConfig)
    store: StoreConfig = attrs.field(factory=StoreConfig)
    plugins: PluginsConfig = attrs.field(factory=PluginsConfig)
    #: Per-tool overrides, keyed by tool name.
    tools: Mapping[str, ToolConfig] = attrs.field(factory=dict, converter=_readonly)

    def policy_for(self, tool: str | None) -> Policy:
        """The effective policy for *tool*: globals, then built-in policy, then overrides."""
        values: dict[str, Any] = {key: getattr(self, key) for key in POLICY_KEYS
                                  if key != "strategy"}
        values["strategy"] = self.default_strategy
        for layer in (BUILTIN_TOOL_POLICIES.get(tool or ""), self.tools.get(tool or "")):
            if layer is not None:
                for key in POLICY_KEYS:
                    value = getattr(layer, key)
                    if value is not None:
                        values[key] = value
        return Policy(tool=tool, marker=self.marker, **values)

    def strategy_names(self) -> dict[str, str]:
        """Every strategy name the configuration asks for, keyed by its config path."""
        names = {"default_strategy": self.default_strategy}
        for tool, override in self.tools.items():
            if override.strategy is not None:
                names[f"tools.{tool}.strategy"] = override.strategy
        return names


def config_from_mapping(data: Mapping[str, Any], *, source: str | None = None) -> Config:
    """Build a :class:`Config` from a mapping with the config file's keys.

    Raises :class:`~truncation_core.errors.ConfigError` with one message per problem.
    """
    from truncation_core.converter import problems_from, structure
    from truncation_core.errors import ConfigError

    try:
        config = structure(data, Config)
    except ConfigError:
        raise
    except (TypeError, ValueError) as exc:
        # ValueError covers cattrs' exception groups and our checks; TypeError a non-mapping.
        raise ConfigError(problems_from(exc) or [str(exc)], source=source) from None
    problems = marker_template_problems(config.marker)
    if problems:
        raise ConfigError(problems, source=source)
    return config
