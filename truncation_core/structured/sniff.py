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
    "SNIFF_CHARS",
    "Parsed",
    "RawNumber",
    "looks_like_json",
    "looks_like_xml",
    "parse",
    "parse_prefix",
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


def _loads(text: str) -> Any:
    try:
        return json.loads(text, **_LOADS)  # type: ignore[arg-type]
    except _NotStrict:
        raise
    except json.JSONDecodeError:
        raise
    except ValueError:  # an integer over the digit limit
        return json.loads(text, parse_int=RawNumber, **_LOADS)  # type: ignore[arg-type]


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
    matching ``}`` or ``]``.

    It reads only the first and last *sniff* characters, so a stream's two ends answer it as
    the whole text would. A top-level JSON string or number is not sniffed: text in quotes
    (quoted CSV) or starting with a digit (logs) would look like one, and a string is one
    token, which the event parser would hold whole.
    """
    head = text[:sniff].lstrip(BOM + " \t\r\n")
    tail = text[-sniff:].rstrip(" \t\r\n")
    return bool(head) and bool(tail) and (
        (head[0] == "{" and tail[-1] == "}") or (head[0] == "[" and tail[-1] == "]"))


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
