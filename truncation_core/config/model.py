"""Configuration: the settings, their defaults, and the effective policy for one tool.

A :class:`Config` holds global settings at the top level and per-tool overrides under
``tools``. :meth:`Config.policy_for` merges, for one tool: the global settings, then the
built-in tool policy (seed 000, FR-071..075), then the tool's own overrides. The result is the
:class:`Policy` that hooks receive.

Where configuration comes from (code, environment, files) is :mod:`truncation_core.config.sources`.
The reference for every key is docs/configuration.md.
"""

from __future__ import annotations

import os
import string
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, NewType

import attrs

from truncation_core.hooks.models import Budget, frozen_mapping

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
Ratio = NewType("Ratio", float)
Direction = NewType("Direction", str)
NonNegativeInt = NewType("NonNegativeInt", int)
DirectoryPath = NewType("DirectoryPath", str)
SessionName = NewType("SessionName", str)
KeyPath = NewType("KeyPath", str)

DIRECTIONS = ("head", "tail")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_positive_int(value: object) -> PositiveInt:
    if not _is_int(value) or value <= 0:  # type: ignore[operator]
        raise ValueError(f"must be a positive integer, got {value!r}")
    return value  # type: ignore[return-value]


def check_ratio(value: object) -> Ratio:
    if not (_is_int(value) or isinstance(value, float)) or not 0 <= value <= 1:  # type: ignore[operator]
        raise ValueError(f"must be a number from 0 to 1, got {value!r}")
    return Ratio(float(value))  # type: ignore[arg-type]


def check_direction(value: object) -> Direction:
    if value not in DIRECTIONS:
        raise ValueError(f"must be one of {', '.join(DIRECTIONS)}, got {value!r}")
    return value  # type: ignore[return-value]


def check_non_negative_int(value: object) -> NonNegativeInt:
    if not _is_int(value) or value < 0:  # type: ignore[operator]
        raise ValueError(f"must be an integer of 0 or more, got {value!r}")
    return value  # type: ignore[return-value]


def check_directory_path(value: object) -> DirectoryPath:
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        raise ValueError(f"must be a directory path (a non-empty string), got {value!r}")
    return DirectoryPath(value)


def check_session_name(value: object) -> SessionName:
    from truncation_core.artifacts.model import validate_session_id
    from truncation_core.errors import InvalidSessionId

    try:
        return SessionName(validate_session_id(value))
    except InvalidSessionId:
        raise ValueError("must be 1 to 64 lowercase ASCII letters, digits, '-' or '_', "
                         f"starting with a letter or digit, got {value!r}") from None


def check_key_path(value: object) -> KeyPath:
    """A dotted path of keys into a JSON object: ``score`` or ``metadata.similarity_score``."""
    if not isinstance(value, str) or not value or any(
            not part or part != part.strip() for part in value.split(".")):
        raise ValueError("must be a dotted path of keys such as 'score' or "
                         f"'metadata.similarity_score', got {value!r}")
    return KeyPath(value)


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
_ratio = _validator(check_ratio)
_direction = _validator(check_direction)
_non_negative = _validator(check_non_negative_int)
_directory = _validator(check_directory_path)
_session_name = _validator(check_session_name)
_key_path = _validator(check_key_path)


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
    #: The reference when the artifact itself is cut (the output exceeded
    #: ``max_artifact_size``): it must not claim the artifact holds everything.
    reference_cut: str = (
        "[Artifact: {artifact_id}] {summary} ({size} kept of {original_size})\n"
        "The output ({original_lines:,} lines) is larger than max_artifact_size: the artifact "
        "keeps its first {head_lines:,} and last {tail_lines:,} lines; original lines "
        "{cut_first_line:,}-{cut_last_line:,} were not kept. Read what is kept with "
        'get_artifact(artifact_id="{artifact_id}", start_line=1, end_line=100), artifact_tail '
        "or artifact_grep. Preview:\n"
    )
    #: Fills ``{hint}`` when the omitted part is only partly in a cut artifact; the line
    #: numbers are the artifact's (``hint_bytes`` follows, with the artifact's bytes).
    hint_cut: str = (
        "; partly kept (the artifact is itself cut: original lines "
        "{cut_first_line:,}-{cut_last_line:,} were not kept): "
        'get_artifact(artifact_id="{artifact_id}", start_line={start_line}, end_line={end_line})'
    )
    #: Fills ``{hint}`` when the omitted part is not in the (cut) artifact at all.
    hint_not_kept: str = (
        "; not kept: the output is larger than max_artifact_size and the artifact keeps "
        "only its first and last lines"
    )
    # Notes that structured strategies (element, ranked) put in place of what they leave out.
    # Each is inserted where the omitted part stood, escaped so that the output stays valid
    # JSON (a string) or XML (a comment). See docs/structured.md.
    #: An array item standing for the items left out of the middle of an array (seed 000).
    json_items: str = "... {count:,} items omitted ..."
    #: The value of the member standing for the members left out of an object.
    json_keys: str = "{count:,} keys omitted"
    #: The key of that member.
    json_key: str = "..."
    #: Inserted into a shortened string, between its kept beginning and end.
    json_string: str = " ... [{count:,} chars omitted] ... "
    #: The only item (or member value) of an array or object nested deeper than the limit.
    json_depth: str = "... {count:,} {unit} omitted (nested too deep) ..."
    #: A line (a JSON string, so the output stays JSON Lines) for records left out.
    jsonl_records: str = "... {count:,} records omitted ..."
    #: The last item of a ranked result list, for the lower-scored results left out.
    ranked_results: str = "... {count:,} lower-scored results omitted ..."
    #: The text of an XML comment standing for child elements left out.
    xml_elements: str = " {count:,} elements omitted "
    #: Inserted into shortened XML text, between its kept beginning and end.
    xml_text: str = " ... [{count:,} chars omitted] ... "
    #: Follows ``hint`` when the omitted region's byte range in the artifact is known: the
    #: omitted part is ``artifact[start_byte:end_byte]``.
    hint_bytes: str = "; bytes {start_byte}:{end_byte}"
    #: First line of the highlights block: salient lines lifted from the omitted part.
    highlights: str = (
        "... [highlights from the omitted part: {shown} of {found} matching lines] ..."
    )
    #: One line of the highlights block; ``{line}`` is the line's number in the artifact.
    highlight: str = "line {line}: {text}"
    #: One line of the highlights block that the artifact does not keep (it is itself cut,
    #: over ``max_artifact_size``): no line number would read it back.
    highlight_not_kept: str = "not kept: {text}"


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
        "reference_cut": ("artifact_id", "summary", "size", "original_size", "original_lines",
                          "original_bytes", "head_lines", "tail_lines", "cut_first_line",
                          "cut_last_line", "cut_bytes", "tool"),
        "hint_cut": ("artifact_id", "start_line", "end_line", "lines", "chars",
                     "cut_first_line", "cut_last_line"),
        "hint_not_kept": ("lines", "chars", "cut_first_line", "cut_last_line"),
        **dict.fromkeys(
            ("json_items", "json_keys", "json_key", "json_string", "json_depth",
             "jsonl_records", "ranked_results", "xml_elements", "xml_text"),
            ("count", "total", "kept", "unit", "path", "artifact_id", "strategy", "tool")),
        "highlights": ("shown", "found"),
        "highlight": ("line", "text", "pattern", "original_line"),
        "highlight_not_kept": ("text", "pattern", "original_line"),
    }
)

_SAMPLE_VALUES: Mapping[str, Any] = MappingProxyType(
    {
        "lines": 150, "chars": 12340, "first_line": 10, "last_line": 159, "hint": "",
        "original_lines": 300, "original_chars": 24000, "strategy": "head_tail",
        "tool": "read_file", "artifact_id": "art_1_" + "0" * 32, "start_line": 10,
        "end_line": 159, "reason": "disk full", "summary": "read_file output",
        "size": "2.3 MB", "bytes": 2300000, "original_size": "23.0 MB",
        "original_bytes": 23000000, "head_lines": 6000, "tail_lines": 4000,
        "cut_first_line": 6001, "cut_last_line": 90000, "cut_bytes": 12000000,
        "count": 45, "total": 50, "kept": 5, "unit": "items", "path": "$.results",
        "start_byte": 1024, "end_byte": 3301024,
        "shown": 3, "found": 12, "line": 4242, "text": "error: it broke", "pattern": "error",
        "original_line": 4242,
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


#: Where the filesystem backend keeps artifacts, relative to the workspace (the directory of
#: the config file, or the working directory).
DEFAULT_STORE_ROOT = ".truncation/artifacts"
#: The backends built into the core: they take no settings beyond :class:`StoreConfig`'s own,
#: so any other key under ``store`` is an error when one of them is selected.
BUILTIN_BACKENDS = frozenset({"filesystem", "memory"})


def _check_options(instance: StoreConfig, _attribute: attrs.Attribute[Any],
                   value: Mapping[str, Any]) -> None:
    if value and instance.backend in BUILTIN_BACKENDS:
        from truncation_core.errors import ConfigError, did_you_mean

        known = [a.name for a in attrs.fields(StoreConfig) if a.name != "options"]
        raise ConfigError([f"{key}: unknown key{did_you_mean(str(key), known)} (the "
                           f"{instance.backend} backend has no such setting)"
                           for key in sorted(value, key=str)])


@attrs.frozen(kw_only=True)
class StoreConfig:
    """Where and how artifacts are kept. docs/artifacts.md describes each key."""

    #: Name of the storage backend: ``filesystem`` (the default), ``memory``, or one a plugin
    #: provides.
    backend: str = "filesystem"
    #: The filesystem backend's directory; sessions are subdirectories. A relative path is
    #: taken from the workspace.
    root: DirectoryPath = attrs.field(default=DirectoryPath(DEFAULT_STORE_ROOT),
                                      validator=_directory)
    #: The session artifacts go to outside ``Truncator.session()``; None starts a new one per
    #: Truncator. Name one to share artifacts between processes.
    session: SessionName | None = attrs.field(default=None, validator=_session_name)
    #: Sessions untouched for this many days are deleted, lazily, once per process (0: never).
    retention_days: NonNegativeInt = attrs.field(default=NonNegativeInt(7),
                                                 validator=_non_negative)
    #: fsync artifacts and their directory before reporting them stored (power-loss
    #: durability). Off by default: artifacts are ephemeral, and fsync costs milliseconds.
    fsync: bool = False
    #: Bytes one session may hold; storing more evicts its oldest artifacts. None: no quota.
    quota: PositiveInt | None = attrs.field(default=None, validator=_positive)
    #: The backend's own settings: every other key under ``store`` (``url`` and ``prefix``
    #: for ``redis``), as written. The backend's factory checks them and raises
    #: :class:`~truncation_core.errors.ConfigError` naming ``store.<key>``. The built-in
    #: backends take none.
    options: Mapping[str, Any] = attrs.field(factory=dict, converter=frozen_mapping,
                                             validator=_check_options)

    def resolved(self, workspace: Path | None = None) -> StoreConfig:
        """This config with ``root`` made absolute against *workspace* (default: the working
        directory), so that a later ``chdir`` does not move the store."""
        root = Path(self.root).expanduser()
        if not root.is_absolute():
            root = (workspace if workspace is not None else Path.cwd()) / root
        return attrs.evolve(self, root=DirectoryPath(os.path.abspath(root)))


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
    detect_structure: bool | None = None
    stream_threshold: PositiveInt | None = attrs.field(default=None, validator=_positive)
    max_depth: PositiveInt | None = attrs.field(default=None, validator=_positive)
    score_key: KeyPath | None = attrs.field(default=None, validator=_key_path)
    highlights: NonNegativeInt | None = attrs.field(default=None, validator=_non_negative)


#: FR-071..075: the strategies seed 000 assigns to common agent tools. Configuration under
#: ``tools`` overrides these key by key.
BUILTIN_TOOL_POLICIES: Mapping[str, ToolConfig] = MappingProxyType(
    {
        "read_file": ToolConfig(strategy="head_tail"),
        "execute_command": ToolConfig(strategy="tail", highlights=NonNegativeInt(8)),
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
    #: Content that parses as JSON (or XML) goes to ``element`` unless the tool's own policy
    #: names a strategy (see :attr:`tool_strategy`).
    detect_structure: bool = True
    #: ``element`` truncates content larger than this (characters) from parse events.
    stream_threshold: int = 16 * MIB
    #: ``element`` collapses containers nested deeper than this.
    max_depth: int = 32
    #: Dotted key path of the score in each result, for ``ranked``.
    score_key: str = "score"
    #: True when the strategy comes from the tool's own policy (a built-in tool policy or
    #: ``tools.<name>.strategy``) rather than ``default_strategy``.
    tool_strategy: bool = False
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
    #: Send content that parses as JSON (or XML) to ``element``, unless the tool's own policy
    #: names a strategy. See docs/structured.md.
    detect_structure: bool = True
    #: ``element`` truncates content larger than this many characters from a stream of parse
    #: events (ijson) instead of parsing it whole, in memory bounded by the budget.
    stream_threshold: PositiveInt = attrs.field(default=PositiveInt(16 * MIB),
                                                validator=_positive)
    #: ``element`` collapses arrays and objects nested deeper than this into a note (FR-039).
    max_depth: PositiveInt = attrs.field(default=PositiveInt(32), validator=_positive)
    #: Dotted key path of the score in each result, for the ``ranked`` strategy.
    score_key: KeyPath = attrs.field(default=KeyPath("score"), validator=_key_path)
    #: Up to this many salient lines (errors, failures, summaries) from the omitted part are
    #: shown in a highlights block; 0 turns highlights off. On for ``execute_command``.
    highlights: NonNegativeInt = attrs.field(default=NonNegativeInt(0), validator=_non_negative)
    marker: MarkerConfig = attrs.field(factory=MarkerConfig)
    store: StoreConfig = attrs.field(factory=StoreConfig)
    plugins: PluginsConfig = attrs.field(factory=PluginsConfig)
    #: Per-tool overrides, keyed by tool name.
    tools: Mapping[str, ToolConfig] = attrs.field(factory=dict, converter=frozen_mapping)

    def policy_for(self, tool: str | None) -> Policy:
        """The effective policy for *tool*: globals, then built-in policy, then overrides."""
        values: dict[str, Any] = {key: getattr(self, key) for key in POLICY_KEYS
                                  if key != "strategy"}
        values["strategy"] = self.default_strategy
        values["tool_strategy"] = False
        for layer in (BUILTIN_TOOL_POLICIES.get(tool or ""), self.tools.get(tool or "")):
            if layer is not None:
                for key in POLICY_KEYS:
                    value = getattr(layer, key)
                    if value is not None:
                        values[key] = value
                values["tool_strategy"] |= layer.strategy is not None
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
    from truncation_core.config.converter import STRUCTURE_ERRORS, problems_from, structure
    from truncation_core.errors import ConfigError

    try:
        config = structure(data, Config)
    except ConfigError:
        raise
    except STRUCTURE_ERRORS as exc:
        # cattrs' exception groups, our checks (ValueError), a non-mapping (TypeError).
        raise ConfigError(problems_from(exc) or [str(exc)], source=source) from None
    problems = marker_template_problems(config.marker)
    if problems:
        raise ConfigError(problems, source=source)
    return config
