"""Which structured algorithm handles a content, and the fall back to text when none can.

``element`` sees JSON, JSON Lines, XML, or none of them:

* JSON up to ``stream_threshold`` characters is parsed whole (once, shared through
  :attr:`ContentFacts.parsed <truncation_core.types.cuts.ContentFacts.parsed>`) and fitted by
  :mod:`~truncation_core.structured.json_element`;
* larger JSON, and JSON nested too deep for the recursive parser, is fed to the streaming
  truncator of :mod:`~truncation_core.structured.json_stream`, in chunks;
* JSON Lines go to :mod:`~truncation_core.structured.jsonl`, XML to
  :mod:`~truncation_core.structured.xml_element`;
* anything else (malformed JSON or XML, NaN, a budget too small for any valid output) is cut
  by a text strategy, and the metadata says why (:func:`text_fallback`).

Nothing here raises on content.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from truncation_core.errors import log
from truncation_core.structured.json_element import detect_style, fit
from truncation_core.structured.json_stream import JsonStreamTruncator
from truncation_core.structured.jsonl import fit_records
from truncation_core.structured.notes import NoteCache, structured_details
from truncation_core.structured.rest import MIN_ROOM_CHARS, rest_cost, with_rest
from truncation_core.structured.sniff import NOT_PARSED, Parsed, looks_like_xml, parse
from truncation_core.structured.xml_element import fit_xml
from truncation_core.text.cut import cut_text
from truncation_core.text.measure import count_lines
from truncation_core.types.cuts import ContentFacts, Cut
from truncation_core.types.markers import MarkerRenderer
from truncation_core.types.models import Budget
from truncation_core.types.policy import Policy

if TYPE_CHECKING:
    from truncation_core.structured.json_stream import JsonStreamTruncator

__all__ = [
    "element_cut",
    "guarded",
    "new_json_stream",
    "starts_like_json",
    "text_fallback",
]


#: The text strategies a fallback can use, and how each keeps the text.
_TEXT_STRATEGIES = ("head_tail", "head", "tail", "lines")
#: Chunk size when feeding in-memory text to the streaming truncator.
STREAM_CHUNK_CHARS = 1 << 20


def text_fallback(text: str, *, budget: Budget, facts: ContentFacts, policy: Policy,
                  markers: MarkerRenderer, reason: str) -> Cut:
    """Cut *text* with the text strategy the policy implies, saying why in the metadata.

    The tool's own strategy when it is a text strategy; ``outline`` when the tool's own
    policy says ``element`` (a listing, a search, whose text result gets head and tail with
    the outline of what lies between: :mod:`truncation_core.outline`); else ``head_tail``.
    """
    name = (policy.strategy if policy.strategy in _TEXT_STRATEGIES
            else "outline" if policy.tool_strategy else "head_tail")
    share = {"head": 1.0, "tail": 0.0}.get(name, policy.head_ratio)
    if name == "lines":
        share = 1.0 if policy.direction == "head" else 0.0
    named = attrs.evolve(markers, strategy=name)
    if name == "outline":
        from truncation_core.outline.cut import outline_cut

        cut = outline_cut(text, budget=budget, facts=facts, markers=named, head_share=share)
        if "outline" not in cut.details:  # nothing to outline, or no room: head_tail's cut
            name = "head_tail"
            cut = cut_text(text, budget=budget, facts=facts,
                           markers=attrs.evolve(markers, strategy=name), head_share=share)
    else:
        cut = cut_text(text, budget=budget, facts=facts, markers=named, head_share=share,
                       whole_lines=name == "lines")
    log.debug("element fell back to %s: %s", name, reason)
    return attrs.evolve(cut, strategy=name, notes=(*cut.notes, f"element: {reason}; cut as text"),
                        details={**cut.details, "fallback": name, "reason": reason})


def _size_cut(text: str, out: str, facts: ContentFacts, **kwargs: Any) -> Cut:
    """A Cut whose omitted sizes are the difference between original and output.

    Structured output is re-serialized, so "characters not in the output" is the size
    difference; exact counts of what was left out are in ``details``.
    """
    return Cut(text=out, omitted_chars=max(0, facts.chars - len(out)),
               omitted_lines=max(0, facts.lines - count_lines(out)), **kwargs)


def guarded(cut: Callable[..., Cut], text: str, *, budget: Budget, facts: ContentFacts,
            policy: Policy, markers: MarkerRenderer, **extra: Any) -> Cut:
    """Run a structured *cut*; if it raises anyway, cut as text rather than lose the result.

    Nothing in the structured package is meant to raise on content; this is the last line
    (for example a ``max_depth`` configured deeper than Python's recursion limit allows).

    When the content is kept as an artifact and no artifact reference stands above the
    output, the cut says how to read the rest (:mod:`~truncation_core.structured.rest`).
    """
    # Text that cannot be JSON or XML is cut as text, whose markers say how to read the
    # rest: the note would never be added, and the room kept for it would go unused (about
    # 250 characters of every search or listing cut as text).
    note, key, room = (_rest_note(budget, facts, policy, markers)
                       if _may_be_structured(text, facts) else ("", "", budget))
    try:
        result = cut(text, budget=room, facts=facts, policy=policy, markers=markers, **extra)
    except (RecursionError, MemoryError, Exception) as exc:
        log.warning("structured truncation failed (%s); cut as text", type(exc).__name__)
        return text_fallback(text, budget=budget, facts=facts, policy=policy, markers=markers,
                             reason=f"structured truncation failed ({type(exc).__name__})")
    if note:
        result = with_rest(result, note, key, budget)
    return result


_LITERAL = re.compile(r"(?:true|false|null)(?!\w)")


def _may_be_structured(text: str, facts: ContentFacts) -> bool:
    """*text* may be cut as JSON, JSON Lines or XML (else :func:`element_cut` and the
    ``ranked`` strategy fall back to a text cut)."""
    if facts.looks_like_json or facts.looks_like_xml or looks_like_xml(text):
        return True
    if not starts_like_json(text):
        return False
    # A letter starts JSON only as a literal: "test_x.py:12: ..." is no JSON document.
    head = text[:64].lstrip("\ufeff \t\r\n")
    return not head[0].isalpha() or _LITERAL.match(head) is not None


def _rest_note(budget: Budget, facts: ContentFacts, policy: Policy,
               markers: MarkerRenderer) -> tuple[str, str, Budget]:
    """The "how to read the rest" note and its key, and the budget left for the cut."""
    if markers.artifact is None or facts.chars > policy.artifact_threshold:
        return "", "", budget  # nothing kept, or the reference above says it

    try:
        note, key = markers.rest()
    except Exception as exc:  # a format_marker plugin that does not know the kind
        log.warning("format_marker failed on the rest note (%s); left out",
                    type(exc).__name__)
        return "", "", budget
    if not note:
        return "", "", budget
    room = budget.minus(rest_cost(note, key))
    # In every unit: a byte budget a little over the note's cost left the cut almost no
    # bytes, and valid JSON fell back to an empty text cut.
    if (room is None or room.chars < MIN_ROOM_CHARS
            or (room.bytes is not None and room.bytes < MIN_ROOM_CHARS)):
        return "", "", budget
    return note, key, room


def element_cut(text: str, *, budget: Budget, facts: ContentFacts, policy: Policy,
                markers: MarkerRenderer, prefed: JsonStreamTruncator | None = None) -> Cut:
    """The ``element`` strategy: JSON, JSON Lines or XML, else a text strategy.

    *prefed* is a streaming truncator already fed the whole content, for JSON larger than
    ``stream_threshold``: a stream has no whole text to feed it from, only its two ends
    (:mod:`truncation_core.structured.stream_cut`). Every other decision needs only *text*'s
    ends, so a stream's windows can stand for it.
    """
    note = NoteCache(markers)
    fallback: Callable[[str], Cut] = lambda reason: text_fallback(  # noqa: E731
        text, budget=budget, facts=facts, policy=policy, markers=markers, reason=reason)
    if facts.looks_like_json or starts_like_json(text):
        if facts.chars > policy.stream_threshold:
            return _streamed(text, budget=budget, facts=facts, policy=policy, markers=markers,
                             why="larger than stream_threshold", prefed=prefed)
        parsed: Parsed = facts.parsed
        if parsed is NOT_PARSED:  # facts built without a parser (by a plugin or a test)
            parsed = parse(text)
        if parsed.deep:
            return _streamed(text, budget=budget, facts=facts, policy=policy, markers=markers,
                             why="nested too deep to parse recursively")
        if parsed.format == "json":
            # Record stubs name lines of the artifact: none when nothing is kept (spill off,
            # or the store failed), nor when the artifact is itself cut (it numbers its
            # lines apart from the output).
            numbered = markers.artifact is not None and markers.artifact.cut is None
            return _fit_json(text, parsed, budget=budget, facts=facts, policy=policy, note=note,
                             fallback=fallback, numbered=numbered)
        if parsed.format == "jsonl":
            out = fit_records(parsed.value, budget=budget, policy=policy, note=note)
            if out is None:
                return fallback("the budget is too small for any whole JSON Lines record")
            return _size_cut(text, out.text, facts, details=out.details)
        return fallback(parsed.error or "not JSON")
    if facts.looks_like_xml or looks_like_xml(text):
        result = fit_xml(text, budget=budget, policy=policy, note=note)
        if isinstance(result, str):
            return fallback(result)
        return _size_cut(text, result.text, facts, details=result.details)
    return fallback("not JSON, JSON Lines or XML")


def starts_like_json(text: str) -> bool:
    """Could be JSON: starts (after a BOM and blanks) with what a JSON value starts with."""
    head = text[:64].lstrip("\ufeff \t\r\n")
    return bool(head) and head[0] in '{["-0123456789tfn'


def _fit_json(text: str, parsed: Parsed, *, budget: Budget, facts: ContentFacts, policy: Policy,
              note: NoteCache, fallback: Callable[[str], Cut], numbered: bool = True) -> Cut:
    style = detect_style(text)
    fitted = fit(parsed.value, budget=budget, style=style, note=note,
                 head_ratio=policy.head_ratio, max_depth=policy.max_depth)
    if fitted is None:
        return fallback("the budget is too small for valid JSON")
    out, extra = fitted.text, {}
    if policy.json_records and any(c["path"] == "$" and c["kind"] == "json_items"
                                   for c in fitted.cuts):
        records = _records(parsed.value, budget=budget, style=style, note=note, policy=policy,
                           text=text if numbered else None)
        if records is not None:
            out, fitted, fields = records
            extra = {"records": fields}
    notes = ("element: a BOM was removed",) if parsed.bom else ()
    return _size_cut(text, out, facts, notes=notes,
                     details=structured_details("json", fitted, **extra))


def _records(value: Any, *, budget: Budget, style: Any, note: NoteCache,
             policy: Policy, text: str | None = None) -> tuple[str, Any, list[str]] | None:
    """A top-level array of records cut with a stub of every item left out
    (:mod:`~truncation_core.structured.records`): the text, its fit and the fields shown.
    Each stub names its item's lines in *text* (the output as the artifact holds it) when
    *text* prints one item a line apart."""
    from truncation_core.structured.records import item_lines, with_records
    from truncation_core.text.measure import measure

    fits: dict[str, Any] = {}

    def fit_text(chars: int) -> str | None:
        if chars <= 0:
            return None
        fitted = fit(value, budget=budget.capped(chars), style=style, note=note,
                     head_ratio=policy.head_ratio, max_depth=policy.max_depth)
        if fitted is None:
            return None
        fits[fitted.text] = fitted
        return str(fitted.text)

    shown: list[str] = []

    def header(count: int, fields: list[str], in_runs: bool) -> str:
        shown[:] = fields
        template = policy.marker.json_record_runs if in_runs else policy.marker.json_records
        return template.format(count=count, fields=", ".join(fields),
                               count_s="" if count == 1 else "s")

    spans = (item_lines(text, style.indent, len(value))
             if text is not None and isinstance(value, list) else None)
    template = policy.marker.json_record_lines

    def place(first: int, last: int) -> str:
        return template.format(first_line=first, last_line=last)

    out = with_records(value, fit_text, budget.chars, header, key_sep=style.key_sep,
                       item_sep=style.item_sep, indent=style.indent, spans=spans, place=place)
    if out is None or not budget.admits(measure(out)):
        return None
    base = next((t for t in fits if out.startswith(t[:64]) and len(t) <= len(out)), None)
    chosen = max((t for t in fits if _stubbed_from(out, t)), key=len, default=base)
    if chosen is None:
        return None
    return out, fits[chosen], list(shown)


def _stubbed_from(out: str, text: str) -> bool:
    """Whether *out* is *text* with something inserted once (the stubs)."""
    for i, (a, b) in enumerate(zip(out, text, strict=False)):
        if a != b:
            return out.endswith(text[i:])
    return True


def new_json_stream(policy: Policy, markers: MarkerRenderer | None) -> JsonStreamTruncator:
    """A streaming truncator sized from the policy's inline budget.

    ``process`` and streams both build theirs here, so that both keep the same skeleton of a
    large document (a stream does not know its final budget when it starts). Both give the
    text fallback to ``finish`` (``_streamed``), and have the text's ends themselves (the whole
    text, or the stream's windows): the truncator need not keep them too.
    """
    return JsonStreamTruncator(budget=policy.budget, policy=policy, markers=markers,
                               keep_ends=False)


def _streamed(text: str, *, budget: Budget, facts: ContentFacts, policy: Policy,
              markers: MarkerRenderer, why: str,
              prefed: JsonStreamTruncator | None = None) -> Cut:
    """Element-truncate *text* through the streaming truncator (fed here, chunk by chunk,
    unless *prefed* already has the whole content)."""
    stream = prefed
    if stream is None:
        stream = new_json_stream(policy, markers)
        for start in range(0, len(text), STREAM_CHUNK_CHARS):
            stream.feed(text[start:start + STREAM_CHUNK_CHARS])
            if stream.failed:
                break
    cut = stream.finish(budget=budget, markers=markers, fallback_text=lambda reason: (
        text_fallback(text, budget=budget, facts=facts, policy=policy, markers=markers,
                      reason=reason)))
    if cut.strategy is None:  # not a fallback: sizes against the whole original
        cut = attrs.evolve(_size_cut(text, cut.text, facts, notes=cut.notes, details=cut.details),
                           notes=(*cut.notes, f"element: parsed from events ({why})"))
    return cut
