"""Salient records: the lines of a JSON Lines log that report an error, judged as records.

In a structured log, every line is a JSON object and the words that make a line salient in
text (``error``, ``ERROR``) are field names and values anywhere in it: ``"level":"error"``,
pino's ``"level":50``, ``"severity":"ERROR"``, an ``"err": {...}`` object, sometimes after a
long stack trace. A :class:`SalientRecord` (of a ``salient_detector``) judges the
parsed record instead: ``test(record)`` returns whether it is worth showing.

A line is tried as a record when, after leading blanks, it starts with ``{``, holds one of
the records' ``keywords`` and is at most :data:`RECORD_CHARS` characters long. If it parses
as a JSON object, the records decide (the first whose keyword it holds and whose ``test``
accepts it, in rank order), and the patterns are not tried: a record whose ``msg`` happens
to say "error" is not an error. If it does not parse, the patterns are tried as for any
line.

A record is shown cut as a record: each string value longer than :data:`STRING_CHARS`
characters (a stack trace, a payload) keeps its start and its end, with the cut marked
inside the string, and the longest ones are cut further while the record is too long
(:func:`record_json`), so that it stays JSON; only a record that does not fit even so is
clipped like a line (:func:`record_text`). So the model sees the level, the message and the
error's type and message of the record, in its own field order. When the ``element``
strategy cuts a JSON Lines text, the salient records it leaves out come back as records,
after its note (:func:`truncation_core.highlights.block.lift_records`), so that the output
stays JSON Lines.
"""

from __future__ import annotations

import json
import re
from typing import Any

from truncation_core.highlights.lines import CLIP_MARK, clip

__all__ = ["RECORD_CHARS", "STRING_CHARS", "parse_record", "record_json",
           "record_text"]

#: Longer lines are not parsed as records (their first characters are matched as text).
RECORD_CHARS = 64 * 1024
#: String values longer than this are cut inside the string when a record is shown.
STRING_CHARS = 120
_STRING = re.compile(r'"(?:[^"\\\r\n]|\\.)*"')


def parse_record(line: str) -> dict[str, Any] | None:
    """The JSON object *line* holds, or None (not JSON, not an object, too long)."""
    if len(line) > RECORD_CHARS:
        return None
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _cut_string(literal: str, keep: int) -> str:
    """The JSON string *literal* keeping about *keep* characters: its start (four fifths)
    and its end, with the cut marked inside the string."""
    keep_head, keep_tail = keep * 4 // 5, keep // 5
    head = literal[1:1 + keep_head]
    if (len(head) - len(head.rstrip("\\"))) % 2:  # never end on half an escape
        head = head[:-1]
    start = len(literal) - 1 - keep_tail
    while literal[start - 1] == "\\" and start < len(literal) - 1:  # nor start on half one
        start += 1
    return f'"{head}{CLIP_MARK.strip()}{literal[start:-1]}"'


#: A string value is not cut shorter than this.
_SHORTEST = 24


def record_json(line: str, limit: int) -> str | None:
    """The record on *line* within *limit* characters, as JSON still: the longest string
    value cut inside, then the next longest, as long as needed (strings over
    :data:`STRING_CHARS` are cut in any case); None if that is not enough."""
    line = line.strip()
    literals = [m for m in _STRING.finditer(line) if len(m.group()) > STRING_CHARS + 2]
    for found in reversed(literals):  # from the end: earlier offsets stay right
        line = line[:found.start()] + _cut_string(found.group(), STRING_CHARS) + \
            line[found.end():]
    for _ in range(64):
        if len(line) <= limit:
            return line
        longest = max(_STRING.finditer(line), key=lambda m: len(m.group()), default=None)
        if longest is None or len(longest.group()) <= _SHORTEST + 2:
            return None
        keep = max(_SHORTEST, len(longest.group()) - 2 - (len(line) - limit) - 3)
        line = line[:longest.start()] + _cut_string(longest.group(), keep) + \
            line[longest.end():]
    return line if len(line) <= limit else None


def record_text(line: str, limit: int) -> str:
    """A record's line for the block: long strings cut inside (it stays JSON), or, when
    that is not enough, clipped in the middle to *limit*."""
    shortened = record_json(line, limit)
    if shortened is not None:
        return shortened
    return clip(line.strip(), limit)
