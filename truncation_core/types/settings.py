"""The settings a tool's policy is made of, each declared once.

:class:`Settings` declares every setting that can be set globally and overridden per tool:
its type (a checked type from :mod:`truncation_core.types.checks`), its default, its check
and its one-line doc. Everything else is derived from it:

* :class:`~truncation_core.config.model.Config` (the global values) and
  :class:`~truncation_core.types.policy.Policy` (the resolved values for one tool, what hooks
  see) inherit its fields;
* :class:`ToolConfig`, the per-tool override, accepts any of them (and ``strategy``), each
  unset by default;
* the settings table of docs/configuration.md is rendered from it (:func:`settings_table`),
  and a test fails when the page and the code differ.

To add a setting, add one field here with :func:`setting`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

import attrs

from truncation_core.errors import ConfigError, did_you_mean
from truncation_core.types.checks import (
    Direction,
    KeyPath,
    NonNegativeInt,
    PositiveInt,
    PreviewForm,
    Ratio,
    TokenizerName,
    check_direction,
    check_key_path,
    check_non_negative_int,
    check_positive_int,
    check_preview_form,
    check_ratio,
    check_tokenizer_name,
    validator,
)

__all__ = ["SETTING_NAMES", "Settings", "ToolConfig", "setting", "settings_table"]

MIB = 1024 * 1024


def _check_bool(value: object) -> bool:
    if type(value) is not bool:
        raise ValueError(f"must be true or false, got {value!r}")
    return value


def _check_str(value: object) -> str:
    if type(value) is not str:
        raise ValueError(f"must be a string, got {value!r}")
    return value


def setting(default: Any, check: Callable[[object], Any], doc: str, *,
            shown: str | None = None) -> Any:
    """One setting: its *default*, the *check* its values pass, and a one-line *doc*.

    *shown* is how the docs table writes the default, when the value alone would not say it
    (``10485760 (10 MiB)``).
    """
    return attrs.field(default=default, validator=validator(check),
                       metadata={"check": check, "doc": doc, "shown": shown})


# Only a declaration: Config and Policy inherit these fields and generate their own methods,
# so none is generated here (each costs a compile at every start-up). attrs still makes an
# ``__attrs_init__``; ``Settings`` itself is never made.
@attrs.frozen(kw_only=True, init=False, repr=False, eq=False)
class Settings:
    """The per-tool settings, with their global defaults."""

    inline_limit: PositiveInt = setting(
        PositiveInt(8000), check_positive_int,
        "Characters the model sees at most. Content within every limit is returned unchanged.")
    max_bytes: PositiveInt | None = setting(
        None, check_positive_int,
        "Optional limit in UTF-8 bytes. Where several limits apply, the stricter wins.")
    max_lines: PositiveInt | None = setting(
        None, check_positive_int,
        "Optional limit in lines. Where several limits apply, the stricter wins.")
    max_tokens: PositiveInt | None = setting(
        None, check_positive_int,
        "Optional limit in tokens, counted by `tokenizer`: what the model sees (markers, "
        "reference, highlights and notes included) never counts more. Where several limits "
        "apply, the stricter wins.")
    tokenizer: TokenizerName = setting(
        TokenizerName("estimate"), check_tokenizer_name,
        "How tokens are counted, for `max_tokens` and `estimated_tokens`: `estimate` (built "
        "in, never fewer than cl100k_base or o200k_base count), or a name a plugin provides "
        "(`cl100k_base`, `o200k_base` with truncation-core-tiktoken).")
    artifact_threshold: PositiveInt = setting(
        PositiveInt(50_000), check_positive_int,
        "Content over this many characters is shown under an artifact reference, a line "
        "naming the stored output and the tools that read it (needs `spill`).")
    reference_preview: PreviewForm = setting(
        PreviewForm("full"), check_preview_form,
        "What stands under an artifact reference: `full`, the same cut as inline content "
        "gets, in the rest of the budget; `short`, a preview of at most `preview_limit` "
        "characters under a longer reference (`marker.reference_short`).")
    preview_limit: PositiveInt = setting(
        PositiveInt(2000), check_positive_int,
        "Characters of the preview under an artifact reference, with "
        "`reference_preview: short`.")
    max_artifact_size: PositiveInt = setting(
        PositiveInt(10 * MIB), check_positive_int,
        "Bytes one artifact keeps at most; beyond it the artifact keeps the head and the tail "
        "and says it is cut.", shown="10485760 (10 MiB)")
    head_ratio: Ratio = setting(
        Ratio(0.6), check_ratio,
        "Share of the budget given to the head by `head_tail`, from 0 to 1.")
    direction: Direction = setting(
        Direction("head"), check_direction,
        "Which end the `lines` strategy keeps: `head` or `tail`.")
    spill: bool = setting(
        True, _check_bool,
        "Keep whatever is cut as an artifact, for the agent to read back: all of it up to "
        "`max_artifact_size`, the head and the tail beyond.")
    detect_structure: bool = setting(
        True, _check_bool,
        "Send content that looks like JSON or XML to `element`, unless the tool's own policy "
        "names a strategy.")
    stream_threshold: PositiveInt = setting(
        PositiveInt(16 * MIB), check_positive_int,
        "`element` cuts JSON larger than this many characters from a stream of parse events, "
        "in memory bounded by the budget.", shown="16777216 (16 MiB)")
    json_records: bool = setting(
        True, _check_bool,
        "When `element` leaves whole items of a top-level array of objects out, name each "
        "of them by its identifying fields (short members most items hold, with many "
        "distinct values), in stubs after the note.")
    max_depth: PositiveInt = setting(
        PositiveInt(32), check_positive_int,
        "`element` collapses arrays and objects nested deeper than this into a note.")
    score_key: KeyPath = setting(
        KeyPath("score"), check_key_path,
        "Dotted key path of the score in each result, for `ranked`.")
    highlights: NonNegativeInt = setting(
        NonNegativeInt(8), check_non_negative_int,
        "Up to this many salient lines (errors, failures, summaries, each with the lines "
        "that go with it) from the omitted part are shown in a highlights block, for output "
        "cut as text; 0 turns highlights off.")
    log_utilization_above: Ratio | None = setting(
        None, check_ratio,
        "Log at INFO (sizes and limits, never content) every result that uses more than this "
        "share of its tightest limit, from 0 to 1; unset, nothing is logged.")


#: Every setting's name, in the order they are declared (and documented).
SETTING_NAMES: tuple[str, ...] = tuple(a.name for a in attrs.fields(Settings))
_SETTINGS: Mapping[str, attrs.Attribute[Any]] = MappingProxyType(
    {a.name: a for a in attrs.fields(Settings)})
#: What a tool's overrides may name: ``strategy`` (the tool's own strategy; globally it is
#: ``default_strategy``) and every setting.
OVERRIDE_NAMES: tuple[str, ...] = ("strategy", *SETTING_NAMES)


def check_override(name: str, value: object) -> Any:
    """*value* for override *name* once checked; ``ValueError`` says what is expected."""
    if name == "strategy":
        return _check_str(value)
    return _SETTINGS[name].metadata["check"](value)


class ToolConfig:
    """One tool's overrides: ``strategy`` and any :class:`Settings` field. A setting left unset
    (None) inherits the global value.

    ``ToolConfig(strategy="tail", inline_limit=5000)``; read back as attributes
    (``tool.inline_limit``, None when unset) or as :attr:`overrides` (only what is set).
    Immutable and hashable, like the other configuration classes.
    """

    __slots__ = ("_values",)
    _values: Mapping[str, Any]

    def __init__(self, **overrides: Any) -> None:
        values: dict[str, Any] = {}
        problems = []
        for name, value in overrides.items():
            if name not in OVERRIDE_NAMES:
                problems.append(f"{name}: unknown key{did_you_mean(name, OVERRIDE_NAMES)}")
            elif value is not None:
                try:
                    values[name] = check_override(name, value)
                except ValueError as exc:
                    problems.append(f"{name}: {exc}")
        if problems:
            raise ConfigError(problems)
        object.__setattr__(self, "_values", MappingProxyType(
            {name: values[name] for name in OVERRIDE_NAMES if name in values}))

    @property
    def overrides(self) -> Mapping[str, Any]:
        """The settings this tool sets, in declaration order."""
        return self._values

    def replace(self, **changes: Any) -> ToolConfig:
        """A copy with *changes* (checked as the constructor checks them); None unsets a
        setting, so that the tool inherits it again."""
        return ToolConfig(**{**self._values, **changes})

    def __getattr__(self, name: str) -> Any:
        if name in OVERRIDE_NAMES:
            return self._values.get(name)
        raise AttributeError(f"ToolConfig has no setting {name!r}"
                             f"{did_you_mean(name, OVERRIDE_NAMES)}")

    def __setattr__(self, name: str, value: object) -> None:
        raise attrs.exceptions.FrozenInstanceError()

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        return iter(self._values.items())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolConfig) and dict(self._values) == dict(other._values)

    def __hash__(self) -> int:
        return hash(tuple(self._values.items()))

    def __repr__(self) -> str:
        return f"ToolConfig({', '.join(f'{k}={v!r}' for k, v in self._values.items())})"


def _shown_default(attribute: attrs.Attribute[Any]) -> str:
    shown = attribute.metadata.get("shown")
    if shown is not None:
        number, _, rest = shown.partition(" ")
        return f"`{number}` {rest}".rstrip()
    if attribute.default is None:
        return "none"
    if isinstance(attribute.default, bool):
        return f"`{str(attribute.default).lower()}`"
    return f"`{attribute.default}`"


def settings_table() -> str:
    """The table of per-tool settings in docs/configuration.md, rendered from
    :class:`Settings` (``docs/generate.py`` writes it; a test checks the page)."""
    rows = ["| key | default | meaning |", "| --- | --- | --- |"]
    for attribute in attrs.fields(Settings):
        rows.append(f"| `{attribute.name}` | {_shown_default(attribute)} | "
                    f"{attribute.metadata['doc']} |")
    return "\n".join(rows) + "\n"
