"""What structured format a content is in, and the JSON parse that proves it.

The parse never raises on content. It keeps what :func:`json.loads` would lose or choke on:

* objects become tuples of ``(key, value)`` pairs, so duplicate keys and key order survive
  (``json.loads`` keeps only the last of duplicate keys);
* numbers with a fraction or exponent stay as their source text (:class:`RawNumber`), so
  ``1e999`` is not turned into ``Infinity`` and ``0.10000000000000000001`` keeps its digits;
  integers longer than Python's 4300-digit limit too;
* a leading BOM is skipped (and noted);
* ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON (RFC 8259): such content is reported
  as not JSON, with the reason, and goes to a text strategy;
* nesting too deep for the recursive parser (``RecursionError``) is reported as ``deep``: the
  caller truncates it from ijson parse events, which need no recursion.

Arrays are lists, objects tuples of pairs, strings ``str``; the cyclic garbage collector is
paused during the parse (:mod:`truncation_core.structured.gc_pause`).
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

import attrs

from truncation_core.structured import SNIFF_CHARS
from truncation_core.structured.gc_pause import paused_gc
from truncation_core.types.cuts import NOT_PARSED, Parsed

__all__ = [
    "NOT_PARSED",
    "SCALAR_STARTS",
    "SNIFF_CHARS",
    "Parsed",
    "RawNumber",
    "looks_like_json",
    "looks_like_xml",
    "parse",
    "parse_prefix",
    "starts_like_scalars",
]

BOM = "\ufeff"


class RawNumber(str):
    """A JSON number kept as its source text, written back verbatim."""

    __slots__ = ()


class _NotStrict(ValueError):
    pass


def _reject_constant(name: str) -> Any:
    raise _NotStrict(name)



_LOADS = dict(object_pairs_hook=tuple, parse_float=RawNumber, parse_constant=_reject_constant)
# One decoder each, made once: json.loads with arguments makes a new decoder per call, which
# was half the cost of checking JSON Lines line by line (100,000 lines of strings through
# process(): 317 ms -> 148 ms).
_DECODER = json.JSONDecoder(**_LOADS)  # type: ignore[arg-type]
_WIDE_DECODER = json.JSONDecoder(parse_int=RawNumber, **_LOADS)  # type: ignore[arg-type]


def _loads(text: str) -> Any:
    if text.startswith("\ufeff"):  # as json.loads says it
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    try:
        return _DECODER.decode(text)
    except _NotStrict:
        raise
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer over the digit limit
        return _WIDE_DECODER.decode(text)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, _NotStrict):
        return f"not strict JSON: {exc.args[0]} is not a JSON value"
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
    return f"not valid JSON: {type(exc).__name__}"


def _jsonl(text: str) -> Parsed | None:
    """One JSON value per line (``\\n`` or ``\\r\\n``; blank lines are skipped), or None."""
    records = []
    for number, line in enumerate(text.split("\n"), 1):
        record = line.strip(" \t\r")
        if not record:
            continue
        try:
            _loads(record)
        except (ValueError, RecursionError) as exc:
            return Parsed(format=None, error=f"not JSON Lines: line {number}: {_reason(exc)}")
        records.append(record)
    return Parsed(format="jsonl", value=records)


def parse_in(text: str, scope: contextlib.ExitStack | None) -> Parsed:
    """:func:`parse`; with *scope*, the cyclic GC stays paused from the parse until *scope*
    closes: the parsed document lives as long as the scope's owner keeps it, and a collection
    would traverse its objects for nothing (see :mod:`truncation_core.structured.gc_pause`)."""
    if scope is not None:
        scope.enter_context(paused_gc())
    return parse(text)


def parse(text: str) -> Parsed:
    """Parse *text* as JSON, or as JSON Lines when it holds one value per line."""
    bom = text.startswith(BOM)
    body = text[1:] if bom else text
    try:
        with paused_gc():
            value = _loads(body)
    except RecursionError:
        return Parsed(format="json", deep=True, bom=bom)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data" and _newline_before(body, exc.pos):
            with paused_gc():
                lines = _jsonl(body)
            if lines is not None:
                return attrs.evolve(lines, bom=bom)
        return Parsed(format=None, error=_reason(exc), bom=bom)
    except ValueError as exc:
        return Parsed(format=None, error=_reason(exc), bom=bom)
    return Parsed(format="json", value=value, bom=bom)


#: An error this close to the end of a prefix may come from the prefix being cut short (a
#: constant such as ``-Infinity`` split in two, a number cut after its dot).
_LOOKAHEAD = 64


def parse_prefix(prefix: str) -> Parsed | None:
    """What :func:`parse` gives for any text that starts with *prefix*, when the prefix alone
    decides it: JSON broken well before the prefix ends. None otherwise (valid so far, cut
    short, or possibly JSON Lines).

    The parser reads left to right and stops at the first error, so an error that does not
    depend on what follows is the error of every text with this prefix.
    """
    bom = prefix.startswith(BOM)
    body = prefix[1:] if bom else prefix
    try:
        with paused_gc():
            _loads(body)
    except _NotStrict as exc:  # a whole NaN or Infinity, before any other error
        return Parsed(format=None, error=_reason(exc), bom=bom)
    except json.JSONDecodeError as exc:
        if (exc.pos >= len(body) - _LOOKAHEAD or exc.msg.startswith("Unterminated string")
                or (exc.msg == "Extra data" and _newline_before(body, exc.pos))):
            return None
        return Parsed(format=None, error=_reason(exc), bom=bom)
    except (ValueError, RecursionError):  # an integer over the digit limit; nesting
        return None
    return None


def _newline_before(text: str, pos: int) -> bool:
    """True when the whitespace just before *pos* holds a line break."""
    i = pos - 1
    while i >= 0 and text[i] in " \t\r\n":
        if text[i] == "\n":
            return True
        i -= 1
    return False


def looks_like_json(text: str, sniff: int = SNIFF_CHARS) -> bool:
    """A cheap sniff: after a BOM and blanks, starts with ``{`` or ``[`` and ends with the
    matching ``}`` or ``]``; or is a JSON document of scalars (:func:`_scalar_document`).

    It reads only the first and last *sniff* characters, so a stream's two ends answer it as
    the whole text would.
    """
    head = text[:sniff].lstrip(BOM + " \t\r\n")
    tail = text[-sniff:].rstrip(" \t\r\n")
    if not head or not tail:
        return False
    if (head[0] == "{" and tail[-1] == "}") or (head[0] == "[" and tail[-1] == "]"):
        return True
    return (head[0] in SCALAR_STARTS and tail[-1] in _SCALAR_ENDS
            and _scalar_document(head, tail, whole=len(text) <= sniff))


#: What a JSON scalar (a string, a number, ``true``, ``false``, ``null``) starts with.
SCALAR_STARTS = '"-0123456789tfn'
#: What one ends with.
_SCALAR_ENDS = '"0123456789el'
#: Whole lines read at each end of a text that may be JSON Lines of scalars.
_SNIFF_LINES = 8


def _scalar_document(head: str, tail: str, *, whole: bool) -> bool:
    """Whether *head* and *tail*, the two ends of a text, look like JSON Lines whose values
    are scalars (one number or string a line), or like one long JSON string.

    Text in quotes (quoted CSV) or starting with a digit (a log's timestamps) starts as
    these do, so the whole lines at each end must each be a JSON value; a line longer than
    the ends (a top-level string) must open a string that the head does not close. The
    ``element`` strategy parses the whole text, and cuts it as text if it is not JSON.
    """
    tails = tail.split("\n")
    if not whole:
        tails = tails[1:]  # the piece cut at the tail's edge
    return starts_like_scalars(head, whole=whole) and _all_values(tails[-_SNIFF_LINES:])


def starts_like_scalars(head: str, *, whole: bool = False) -> bool:
    """*head*, the start of a text (after a BOM and blanks), may be JSON Lines of scalars
    or one long JSON string: its whole lines are JSON values, one a string at least (lines
    of numbers alone are text as much as JSON: they stay text), or it opens a string that
    goes on past it."""
    heads = head.split("\n")
    if not whole:
        heads = heads[:-1]  # the piece cut at the head's edge
    lines = [line.strip(" \t\r") for line in heads[:_SNIFF_LINES]]
    lines = [line for line in lines if line]
    if not lines:
        return not whole and _opens_a_long_string(head)
    if not any(line[:1] == '"' for line in lines):
        return False  # numbers, true, false or null alone: `seq 100000` is text as well
    if len(lines) == 1 and not whole:
        return False
    return _all_values(lines)


def _all_values(lines: list[str]) -> bool:
    stripped = [line.strip(" \t\r") for line in lines]
    return all(_is_json_value(line) for line in stripped if line)


def _opens_a_long_string(head: str) -> bool:
    """*head* (no line break in it) starts a JSON string that goes on past it."""
    if head[:1] != '"':
        return False
    start = head[:-6]
    escape = start.find("\\", len(start) - 6)
    # Closed here, it is one string: a quote earlier (quoted CSV on one line) is extra data.
    # An escape the edge may have cut (\u12..., or one of an escaped backslash's two) is
    # left out: closed before each of the last backslashes in turn.
    while escape >= 0:
        if len(start[:escape]) > 1 and _is_json_value(start[:escape] + '"'):
            return True
        escape = start.find("\\", escape + 1)
    return len(start) > 1 and _is_json_value(start + '"')


def _is_json_value(line: str) -> bool:
    try:
        _loads(line)
    except (ValueError, RecursionError):
        return False
    return True


def looks_like_xml(text: str, sniff: int = SNIFF_CHARS) -> bool:
    """A cheap sniff: starts with ``<`` (after a BOM and blanks) and ends with ``>``.

    HTML pages (``<!DOCTYPE html``, ``<html``) are not taken for XML: they are rarely
    well-formed, and a text strategy shows them better.
    """
    head = text[:sniff].lstrip(BOM + " \t\r\n")
    if not head.startswith("<") or not text[-sniff:].rstrip().endswith(">"):
        return False
    lowered = head[:16].lower()
    return not (lowered.startswith("<!doctype html") or lowered.startswith("<html"))
