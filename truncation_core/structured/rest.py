"""The note that tells the model how to read what a structured cut left out.

A text strategy's markers carry the hint (``get_artifact(...)``) themselves. The notes of a
structured cut (JSON, JSON Lines, XML, ``ranked``) say how much was left out where, not how
to read it; so when the content was kept as an artifact, one more note says it, in the
format's own terms, where it keeps the output valid and of its type: the last member of a
JSON object (under ``marker.rest_key``), the last item of a JSON array, the end of a JSON
string, one more JSON Lines record, or an XML comment after the root element. Its text is
``marker.rest`` (rendered through ``format_marker``, kind ``rest``); for content over
``artifact_threshold``, the pipeline puts the artifact reference there instead (kind
``reference``), where text gets it above.

Room for the note is kept out of the budget before the cut, so the output with it still fits.
"""

from __future__ import annotations

import json
import re

import attrs

from truncation_core.text.measure import measure
from truncation_core.types.cuts import Cut
from truncation_core.types.models import Budget, Size

__all__ = ["MIN_ROOM_CHARS", "estimate_tokens", "rest_cost", "with_rest"]

#: Below this many characters (or bytes) left for the cut itself, the note is left out.
MIN_ROOM_CHARS = 400
#: The deepest indentation the note's member or item is given room for (the top level's).
_MAX_INDENT = " " * 8


def estimate_tokens(chars: int) -> int:
    """Characters / 4, rounded up: the ``truncation_info`` figure of (``ranked``).

    Not a token count (real ones are up to 3 times larger): the metadata's
    ``estimated_tokens`` is counted by the policy's tokenizer instead.
    """
    return (chars + 3) // 4


def _member(key: str, note: str, indent: str | None, compact: bool) -> str:
    pair = f"{json.dumps(key, ensure_ascii=False)}{':' if compact else ': '}" \
           f"{json.dumps(note, ensure_ascii=False)}"
    return f",\n{indent}{pair}" if indent is not None else ("," if compact else ", ") + pair


def _item(note: str, indent: str | None, compact: bool) -> str:
    item = json.dumps(note, ensure_ascii=False)
    return f",\n{indent}{item}" if indent is not None else ("," if compact else ", ") + item


def _comment(note: str) -> str:
    text = note.replace("--", "- -")
    if text.endswith("-"):
        text += " "
    return f"\n<!-- {text} -->"


def rest_cost(note: str, key: str) -> Size:
    """The most the note can add, in every unit, whatever the format and indentation."""
    pieces = [_member(key, note, _MAX_INDENT, False), _item(note, _MAX_INDENT, False),
              "\n" + json.dumps(note, ensure_ascii=False) + "\n", _comment(note)]
    sizes = [measure(piece) for piece in pieces]
    return Size(chars=max(s.chars for s in sizes), bytes=max(s.bytes for s in sizes),
                lines=max(s.lines for s in sizes))


_FIRST_LINE_INDENT = re.compile(r"[\[{]\n([ \t]*)\S")


def _json_with_rest(text: str, note: str, key: str) -> str | None:
    body = text.rstrip()
    trailing = text[len(body):]
    if body.lstrip()[:1] == '"' and body[-1:] == '"' and len(body.lstrip()) > 1:
        # A string (shortened): the note ends it, so that it stays one string.
        return body[:-1] + json.dumps(" " + note, ensure_ascii=False)[1:] + trailing
    if not body or body[-1] not in "}]":
        return None  # a number, true, false or null: nowhere to put a note
    opening = body.lstrip()[:1]
    if opening != {"}": "{", "]": "["}[body[-1]]:
        return None
    inner = body[:-1].rstrip()
    if inner.lstrip() == opening:
        return None  # an empty container: the cut left nothing to follow
    match = _FIRST_LINE_INDENT.match(body.lstrip())
    indent = match.group(1) if match and "\n" in body else None
    compact = ": " not in body[:400] and ", " not in body[:400]
    if body[-1] == "}":
        if f"{json.dumps(key, ensure_ascii=False)}:" in body:
            key = f"{key} (truncation-core)"
        piece = _member(key, note, indent, compact)
    else:
        piece = _item(note, indent, compact)
    closing = body[len(inner):]  # the closing bracket, with the newline and indent before it
    return inner + piece + closing + trailing


def _inserted(cut: Cut, note: str, key: str) -> str | None:
    fmt = cut.details.get("format")
    if fmt == "json":
        return _json_with_rest(cut.text, note, key)
    if fmt == "jsonl":
        line = json.dumps(note, ensure_ascii=False)
        return cut.text + line + "\n" if cut.text.endswith("\n") else cut.text + "\n" + line
    if fmt == "xml":
        body = cut.text.rstrip()
        return body + _comment(note) + cut.text[len(body):]
    return None


def with_rest(cut: Cut, note: str, key: str, budget: Budget) -> Cut:
    """*cut* with the note added, if it is a structured cut and the result still fits
    *budget*; otherwise *cut* as it is (a text fallback's markers carry their own hints)."""
    text = _inserted(cut, note, key)
    if text is None:
        return cut
    size = measure(text)
    if not budget.admits(size):
        return cut
    added = len(text) - len(cut.text)
    added_lines = text.count("\n") - cut.text.count("\n")
    details = dict(cut.details)
    info = details.get("truncation_info")
    if isinstance(info, dict) and "estimated_chars" in info:  # ranked's: the output's size

        limits = {"limit_chars": budget.chars, "limit_tokens": budget.chars // 4,
                  **({"limit_bytes": budget.bytes} if "limit_bytes" in info else {}),
                  **({"limit_lines": budget.lines} if "limit_lines" in info else {})}
        details["truncation_info"] = {**info, "estimated_chars": len(text),
                                      "estimated_tokens": estimate_tokens(len(text)), **limits}
    return attrs.evolve(cut, text=text, omitted_chars=max(0, cut.omitted_chars - added),
                        omitted_lines=max(0, cut.omitted_lines - added_lines), details=details)
