"""Marker templates: what the markers and notes the model sees say, restyled by configuration.

:class:`MarkerConfig` holds the templates (``marker:`` in the config file), in
:meth:`str.format` syntax; :data:`MARKER_PLACEHOLDERS` says which placeholders each may use,
and :func:`marker_template_problems` checks a configuration's templates against them.
Rendering a template for one marker is :mod:`truncation_core.types.markers`.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import attrs

from truncation_core.errors import ConfigError

__all__ = ["COUNT_PLACEHOLDERS", "MARKER_PLACEHOLDERS", "MAX_FORMAT_WIDTH", "TOOL_PLACEHOLDERS",
           "MarkerConfig", "marker_template_problems", "plurals", "template_problem"]


@attrs.frozen(kw_only=True)
class MarkerConfig:
    """Templates for markers, in :meth:`str.format` syntax (``{lines:,}`` writes ``12,340``).

    Placeholders: see :data:`MARKER_PLACEHOLDERS`. A template may also be restyled wholesale by
    a ``format_marker`` plugin.
    """

    #: Between a kept head and a kept tail (head_tail), with the size of the whole output.
    middle: str = ("\n... [{lines:,} line{lines_s} / {chars:,} char{chars_s} omitted of "
                   "{original_lines:,} line{original_lines_s} / {original_chars:,} "
                   "char{original_chars_s}{hint}] ...\n")
    #: Before a kept tail (tail, lines from the tail).
    beginning: str = ("... [Beginning omitted: {lines:,} line{lines_s} / {chars:,} "
                      "char{chars_s} of {original_lines:,} line{original_lines_s} / "
                      "{original_chars:,} char{original_chars_s}{hint}] ...\n")
    #: After a kept head (head, lines from the head).
    end: str = ("\n... [Remainder omitted: {lines:,} line{lines_s} / {chars:,} char{chars_s} "
                "of {original_lines:,} line{original_lines_s} / {original_chars:,} "
                "char{original_chars_s}{hint}] ...")
    #: Fills ``{hint}`` when the omitted part is kept as an artifact.
    hint: str = (
        '; {get_artifact}(artifact_id="{artifact_id}", start_line={start_line}, '
        'end_line={end_line})'
        "{tool_call}"
    )
    #: Fills ``{hint}`` in place of ``hint`` (or ``hint_cut``) when that names an artifact
    #: tool the model is not given (``artifact_tools.published``): where the part is kept,
    #: naming no tool.
    hint_no_tool: str = "; kept in {artifact_id}, lines {start_line}-{end_line}"
    #: Fills ``{tool_call}`` when the call that produced the output has an id (the
    #: ``tool_call_id`` given to ``process``), which the artifact tools accept in place of the
    #: artifact id.
    tool_call: str = " (tool call {tool_call_id})"
    #: Fills ``{hint}`` when spilling was on but the artifact could not be stored.
    unavailable: str = "; the full output could not be kept: {reason}"
    #: The artifact reference, for content over ``artifact_threshold``: above the cut (with
    #: ``reference_preview: full``, the default), whose markers say how to read back what
    #: they replace, so this line names the artifact (the artifact reference format) and the
    #: other ways to read it.
    reference: str = (
        "[Artifact: {artifact_id}] {summary} ({size}), {lines:,} line{lines_s}: search it "
        "with "
        "{artifact_grep}, read lines with {get_artifact} or {artifact_tail}\n"
    )
    #: The reference in place of any other when that names an artifact tool the model is not
    #: given (``artifact_tools.published``): the artifact, naming no tool.
    reference_no_tool: str = ("[Artifact: {artifact_id}] {summary} ({size}), {lines:,} "
                              "line{lines_s}\n")
    #: The reference when the artifact itself is cut (the output exceeded
    #: ``max_artifact_size``): it must not claim the artifact holds everything.
    reference_cut: str = (
        "[Artifact: {artifact_id}] {summary} ({size} kept of {original_size}), original "
        "lines {cut_first_line:,}-{cut_last_line:,} of {original_lines:,} not kept (over "
        "max_artifact_size): search it with {artifact_grep}, read lines with {get_artifact} "
        "or {artifact_tail}\n"
    )
    #: The reference above a short preview (``reference_preview: short``): it says how to
    #: start reading, since the preview shows little.
    reference_short: str = (
        "[Artifact: {artifact_id}] {summary} ({size})\n"
        "{lines:,} line{lines_s} / {chars:,} char{chars_s} are stored in full. "
        'Read them with {get_artifact}(artifact_id="{artifact_id}", start_line=1, '
        'end_line=100) and other line ranges, {artifact_tail} or {artifact_grep}. Preview:\n'
    )
    #: ``reference_cut`` above a short preview.
    reference_cut_short: str = (
        "[Artifact: {artifact_id}] {summary} ({size} kept of {original_size})\n"
        "The output ({original_lines:,} line{original_lines_s}) is larger than "
        "max_artifact_size: the artifact keeps its first {head_lines:,} line{head_lines_s} and "
        "last {tail_lines:,} line{tail_lines_s}; original lines "
        "{cut_first_line:,}-{cut_last_line:,} were not kept. Read what is kept with "
        '{get_artifact}(artifact_id="{artifact_id}", start_line=1, end_line=100), '
        "{artifact_tail} or {artifact_grep}. Preview:\n"
    )
    #: Fills ``{hint}`` when the omitted part is only partly in a cut artifact; the line
    #: numbers are the artifact's (``hint_bytes`` follows, with the artifact's bytes).
    hint_cut: str = (
        "; partly kept (the artifact is itself cut: original lines "
        "{cut_first_line:,}-{cut_last_line:,} were not kept): "
        '{get_artifact}(artifact_id="{artifact_id}", start_line={start_line}, '
        'end_line={end_line})'
    )
    #: Fills ``{hint}`` when the omitted part is not in the (cut) artifact at all.
    hint_not_kept: str = (
        "; not kept: the output is larger than max_artifact_size and the artifact keeps "
        "only its first and last lines"
    )
    # Notes that structured strategies (element, ranked) put in place of what they leave out.
    # Each is inserted where the omitted part stood, escaped so that the output stays valid
    # JSON (a string) or XML (a comment). See docs/structured.md.
    #: An array item standing for the items left out of the middle of an array.
    json_items: str = "... {count:,} item{count_s} omitted ..."
    #: The value of the member standing for the members left out of an object.
    json_keys: str = "{count:,} key{count_s} omitted"
    #: The key of that member.
    json_key: str = "..."
    #: Inserted into a shortened string, between its kept beginning and end.
    json_string: str = " ... [{count:,} char{count_s} omitted] ... "
    #: The only item (or member value) of an array or object nested deeper than the limit.
    json_depth: str = "... {count:,} {unit} omitted (nested too deep) ..."
    #: The array item before the stubs of the records left out of a top-level array (each
    #: by its identifying fields: see docs/structured.md).
    json_records: str = "... the {count:,} item{count_s} omitted, by {fields} ..."
    #: The value of the member (key ``"..."``) that ends a record's stub when the output
    #: prints one item a line apart: the lines of the output (and the artifact) it spans.
    json_record_lines: str = "lines {first_line}-{last_line}"
    #: ``json_records`` when there is no room for a stub of every record: one stub stands
    #: for each run of records (within 100 lines), by its first record, with the run's lines.
    json_record_runs: str = (
        "... the {count:,} item{count_s} omitted, in runs: each stub names a run's first "
        "item by {fields}, and the lines of the run ..."
    )
    #: A line (a JSON string, so the output stays JSON Lines) for records left out.
    jsonl_records: str = "... {count:,} record{count_s} omitted ..."
    #: The last item of a ranked result list, for the lower-scored results left out.
    ranked_results: str = "... {count:,} lower-scored result{count_s} omitted ..."
    #: The text of an XML comment standing for child elements left out.
    xml_elements: str = " {count:,} element{count_s} omitted "
    #: Inserted into shortened XML text, between its kept beginning and end.
    xml_text: str = " ... [{count:,} char{count_s} omitted] ... "
    #: The note a structured cut (JSON, JSON Lines, XML, ranked) adds when what it left out
    #: is kept: an array's last item, an object's last member (under ``rest_key``), a JSON
    #: Lines record or an XML comment, so that the model knows how to read the rest.
    rest: str = (
        'Omitted parts are kept: {get_artifact}(artifact_id="{artifact_id}", start_line=1, '
        "end_line=100) reads the full output ({size}), {artifact_grep} searches it"
    )
    #: ``rest`` when that names an artifact tool the model is not given
    #: (``artifact_tools.published``): where the omitted parts are, naming no tool.
    rest_no_tool: str = "Omitted parts are kept in {artifact_id} ({size})"
    #: The key of the member that holds ``rest`` in a JSON object.
    rest_key: str = "[truncated]"
    #: Follows ``hint`` when the omitted region's byte range in the artifact is known: the
    #: omitted part is ``artifact[start_byte:end_byte]``.
    hint_bytes: str = "; bytes {start_byte}:{end_byte}"
    #: First line of the highlights block: salient lines lifted from the omitted part.
    highlights: str = (
        "... [highlights from the omitted part: {shown} of {found} matching line{found_s}] ..."
    )
    #: One line of the highlights block; ``{line}`` is the line's number in the artifact.
    highlight: str = "line {line}: {text}"
    #: One line of the highlights block that the artifact does not keep (it is itself cut,
    #: over ``max_artifact_size``): no line number would read it back.
    highlight_not_kept: str = "not kept: {text}"
    #: Follows a line of the highlights block that stands for several: the lines of the
    #: omitted part that say the same thing (numbers, addresses and paths aside).
    highlight_count: str = " [{count} like this]"
    #: All the model sees of binary content (bytes with a NUL, mostly not UTF-8, or with a
    #: binary format's magic number) that is kept as an artifact.
    binary: str = ("[Binary content, not shown: {kind}, {size} ({bytes:,} byte{bytes_s}), "
                   "sha256 {sha256}; kept as artifact {artifact_id}{tool_call}]")
    #: The same, when the artifact does not hold all of it: it was not kept (``spill`` is
    #: off, the store failed), or it is cut over ``max_artifact_size``.
    binary_unkept: str = ("[Binary content, not shown: {kind}, {size} ({bytes:,} byte{bytes_s}), "
                          "sha256 {sha256}; {reason}]")
    #: First line of an outline (the ``outline`` strategy): where the sections of the
    #: omitted part start.
    outline: str = "... [outline of the omitted part: the line each section starts at] ..."
    #: One line of an outline: ``{line}`` is the line's number in the output (and the
    #: artifact), ``{indent}`` two spaces per level of nesting, ``{file_line}`` the file's
    #: own number in brackets when the output numbers its lines differently (a view from an
    #: offset), ``{title}`` the heading, definition or first line of the section.
    outline_entry: str = "{line}: {indent}{file_line}{title}"

    def __attrs_post_init__(self) -> None:
        # Templates set in code are checked as the config file's are (a template is
        # formatted for every marker: a huge padding would allocate gigabytes each time).
        for field in attrs.fields(type(self)):
            if getattr(self, field.name) is not field.default:
                problems = marker_template_problems(self)
                if problems:
                    raise ConfigError(problems)
                return


#: Placeholders that name the artifact tools as the model sees them (``artifact_tools:``).
TOOL_PLACEHOLDERS = ("get_artifact", "artifact_head", "artifact_tail", "artifact_grep")

#: Placeholders that count something. Each has a companion ``{<name>_s}``: ``"s"``, or ``""``
#: when the count is 1, for the noun that follows (``{lines:,} line{lines_s}``: ``1 line``,
#: ``12,340 lines``).
COUNT_PLACEHOLDERS = ("lines", "chars", "bytes", "original_lines", "original_chars",
                      "head_lines", "tail_lines", "count", "total", "kept", "shown", "found")


def plurals(values: Mapping[str, Any]) -> dict[str, str]:
    """The ``_s`` companions of the counts among *values* (see :data:`COUNT_PLACEHOLDERS`)."""
    return {f"{name}_s": "" if values[name] == 1 else "s"
            for name in COUNT_PLACEHOLDERS if name in values}


def _with_plurals(placeholders: Mapping[str, tuple[str, ...]]
                  ) -> Mapping[str, tuple[str, ...]]:
    return MappingProxyType({
        name: (*allowed, *(f"{p}_s" for p in allowed if p in COUNT_PLACEHOLDERS))
        for name, allowed in placeholders.items()})


#: The placeholders each marker template may use.
MARKER_PLACEHOLDERS: Mapping[str, tuple[str, ...]] = _with_plurals(
    {
        "middle": ("lines", "chars", "first_line", "last_line", "hint",
                   "original_lines", "original_chars", "strategy", "tool"),
        "beginning": ("lines", "chars", "first_line", "last_line", "hint",
                      "original_lines", "original_chars", "strategy", "tool"),
        "end": ("lines", "chars", "first_line", "last_line", "hint",
                "original_lines", "original_chars", "strategy", "tool"),
        "hint": ("artifact_id", "start_line", "end_line", "lines", "chars", "tool_call",
                 "tool_call_id", *TOOL_PLACEHOLDERS),
        "hint_no_tool": ("artifact_id", "start_line", "end_line", "lines", "chars",
                         "tool_call", "tool_call_id"),
        "tool_call": ("tool_call_id",),
        "hint_bytes": ("start_byte", "end_byte", "bytes"),
        "unavailable": ("reason",),
        **dict.fromkeys(("reference", "reference_short"), (
            "artifact_id", "summary", "size", "chars", "lines", "bytes", "tool", "tool_call",
            "tool_call_id", *TOOL_PLACEHOLDERS)),
        "reference_no_tool": ("artifact_id", "summary", "size", "chars", "lines", "bytes",
                              "tool", "tool_call", "tool_call_id"),
        **dict.fromkeys(("reference_cut", "reference_cut_short"), (
            "artifact_id", "summary", "size", "original_size", "original_lines",
            "original_bytes", "head_lines", "tail_lines", "cut_first_line", "cut_last_line",
            "cut_bytes", "tool", "tool_call", "tool_call_id", *TOOL_PLACEHOLDERS)),
        "hint_cut": ("artifact_id", "start_line", "end_line", "lines", "chars",
                     "cut_first_line", "cut_last_line", "tool_call", "tool_call_id",
                     *TOOL_PLACEHOLDERS),
        "hint_not_kept": ("lines", "chars", "cut_first_line", "cut_last_line"),
        **dict.fromkeys(
            ("json_items", "json_keys", "json_key", "json_string", "json_depth",
             "jsonl_records", "ranked_results", "xml_elements", "xml_text"),
            ("count", "total", "kept", "unit", "units", "path", "artifact_id", "strategy",
             "tool")),
        "rest": ("artifact_id", "lines", "chars", "bytes", "size", "strategy", "tool",
                 *TOOL_PLACEHOLDERS),
        "rest_no_tool": ("artifact_id", "lines", "chars", "bytes", "size", "strategy", "tool"),
        "rest_key": ("artifact_id", "strategy", "tool"),
        "highlights": ("shown", "found"),
        "highlight": ("line", "text", "pattern", "original_line"),
        "highlight_not_kept": ("text", "pattern", "original_line"),
        "highlight_count": ("count",),
        "binary": ("kind", "media_type", "size", "bytes", "sha256", "artifact_id", "tool",
                   "tool_call", "tool_call_id"),
        "binary_unkept": ("kind", "media_type", "size", "bytes", "sha256", "reason", "tool"),
        "json_records": ("count", "fields"),
        "json_record_lines": ("first_line", "last_line"),
        "json_record_runs": ("count", "fields"),
        "outline": (),
        "outline_entry": ("line", "indent", "file_line", "title"),
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
        "count": 45, "total": 50, "kept": 5, "unit": "items", "units": "items",
        "path": "$.results",
        "start_byte": 1024, "end_byte": 3301024,
        "shown": 3, "found": 12, "line": 4242, "text": "error: it broke", "pattern": "error",
        "original_line": 4242, "tool_call": " (tool call call_abc123)",
        "tool_call_id": "call_abc123", "kind": "PNG image", "media_type": "image/png",
        "sha256": "0" * 64, "indent": "  ", "file_line": "[4243] ", "title": "def main():",
        "fields": "id, name",
        **{name: name for name in TOOL_PLACEHOLDERS},
        **{f"{name}_s": "s" for name in COUNT_PLACEHOLDERS},
    }
)


#: The widest padding and the largest precision a format spec may ask for: markers are one
#: line, and ``{lines:>999999999}`` would allocate a gigabyte for each marker.
MAX_FORMAT_WIDTH = 100


@functools.cache
def _format_spec() -> re.Pattern[str]:
    """A format spec as :meth:`str.format` reads it. Compiled on first use, once: only
    templates set in configuration or code are checked, not the defaults every start-up
    makes."""
    return re.compile(r"(?:.?[<>=^])?[-+ ]?z?#?0?(?P<width>[0-9]*)[,_]?"
                      r"(?:\.(?P<precision>[0-9]+))?[bcdeEfFgGnosxX%]?", re.DOTALL)


def template_problem(name: str, template: object, allowed: tuple[str, ...],
                     path: str = "marker") -> str | None:
    """Why *template* is not a valid template for marker *name*, or None.

    A template uses only *allowed* placeholders, by name: no attribute access or indexing
    (``{lines.real}``, ``{hint[0]}``), no positional ``{}``, no placeholder inside a format
    spec, and no width or precision over :data:`MAX_FORMAT_WIDTH`. It is then formatted
    once with sample values.
    """
    key = f"{path}.{name}"
    if not isinstance(template, str):
        return f"{key}: must be a string, got {type(template).__name__}"
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError as exc:
        return f"{key}: not a valid template: {exc}"
    available = ", ".join("{" + a + "}" for a in allowed)
    for _, field, spec, conversion in fields:
        if field is None:
            continue
        if field not in allowed:
            shown = field if len(field) <= 40 and field.isprintable() else field[:40] + "…"
            base = re.split(r"[.\[]", field, maxsplit=1)[0]
            if base in allowed:
                return (f"{key}: {{{shown}}}: placeholders are used by name only, without "
                        f"attributes or indexes; available: {available}")
            return f"{key}: unknown placeholder {{{shown}}}; available: {available}"
        if conversion not in (None, "s", "r", "a"):
            return f"{key}: not a valid template: {{{field}!{conversion}}}: unknown conversion"
        spec = spec or ""
        if "{" in spec or "}" in spec:
            return (f"{key}: not a valid template: {{{field}}}: a format spec cannot hold a "
                    "placeholder")
        m = _format_spec().fullmatch(spec)
        if m is None:
            return f"{key}: not a valid template: {{{field}:{spec[:40]}}}: unknown format spec"
        for part in ("width", "precision"):
            digits = m.group(part)
            if digits and (len(digits) > 3 or int(digits) > MAX_FORMAT_WIDTH):
                return (f"{key}: not a valid template: {{{field}:{spec[:40]}}}: the {part} "
                        f"can be at most {MAX_FORMAT_WIDTH}")
    try:
        template.format(**_SAMPLE_VALUES)
    except (ValueError, KeyError, IndexError, AttributeError, TypeError) as exc:
        return f"{key}: not a valid template: {exc}"
    return None


def marker_template_problems(markers: MarkerConfig, path: str = "marker") -> list[str]:
    """One message per template that uses an unknown placeholder or does not format."""
    problems = []
    for name, allowed in MARKER_PLACEHOLDERS.items():
        problem = template_problem(name, getattr(markers, name), allowed, path)
        if problem is not None:
            problems.append(problem)
    return problems
