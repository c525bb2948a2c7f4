"""Measuring text: what a character, a byte and a line are, and counting them.

Definitions used everywhere in truncation-core (see docs/strategies.md):

* A **character** is a Python code point. A lone surrogate counts as one character.
* A **byte** is a byte of the UTF-8 encoding. A lone surrogate counts as three bytes, the size of
  its ``surrogatepass`` encoding, so every ``str`` has a byte size and nothing raises.
* A **line terminator** is ``"\\r\\n"``, ``"\\n"`` or a lone ``"\\r"`` (universal newlines). Other
  Unicode separators (``\\x0b``, ``\\x85``, ``\\u2028`` ...) are ordinary characters, as they are
  for ``grep`` and ``wc -l``.
* The number of **lines** of a text is the number of terminators, plus one if the text is not
  empty and does not end with a terminator. The empty text has no lines.

Cuts made here never split a ``"\\r\\n"`` pair, nor a surrogate pair, and never split a UTF-8
sequence under a byte limit (cutting happens on code points, bytes are only measured).

Performance: the only pass over the whole input is one terminator count, done once per tool
result (see :class:`truncation_core.types.cuts.ContentFacts`).
"""

from __future__ import annotations

from truncation_core.types.models import Size

__all__ = [
    "count_lines",
    "count_terminators",
    "ends_with_terminator",
    "has_cr",
    "is_line_start",
    "is_unsplittable",
    "line_index",
    "measure",
    "straddles_crlf",
    "utf8_size",
]

_ENCODING_ERRORS = "surrogatepass"


def utf8_size(text: str) -> int:
    """The size of *text* in UTF-8 bytes, counting a lone surrogate as three bytes."""
    if text.isascii():  # O(1): CPython keeps the flag
        return len(text)
    return len(text.encode("utf-8", _ENCODING_ERRORS))


def count_terminators(text: str, start: int = 0, end: int | None = None) -> int:
    """Count line terminators that lie entirely inside ``text[start:end]``.

    A ``"\\r\\n"`` pair counts once. Counting is done in place, never on a slice (a slice of a
    large string costs a copy, up to 6x the count itself for UCS-4 text).
    """
    if end is None:
        end = len(text)
    count = text.count("\n", start, end)
    if has_cr(text, start, end):
        count += text.count("\r", start, end) - text.count("\r\n", start, end)
    return count


def has_cr(text: str, start: int, end: int) -> bool:
    if type(text) is str:
        return text.find("\r", start, end) != -1  # memchr-fast; most text has no "\r" at all
    # A stream's KeptEnds (truncation_core.pipeline.ends) counts across the part it did not
    # keep, but cannot say where in it a "\r" lies.
    return text.count("\r", start, end) > 0


def ends_with_terminator(text: str) -> bool:
    return bool(text) and text[-1] in "\r\n"


def count_lines(text: str, terminators: int | None = None) -> int:
    """The number of lines in *text*, as defined in this module's docstring.

    *terminators*, when already counted (:func:`count_terminators`), saves the pass.
    """
    if terminators is None:
        terminators = count_terminators(text)
    return terminators + (0 if not text or ends_with_terminator(text) else 1)


def straddles_crlf(text: str, pos: int) -> bool:
    """True when *pos* falls between the two characters of a ``"\\r\\n"`` pair."""
    return 0 < pos < len(text) and text[pos - 1] == "\r" and text[pos] == "\n"


def _straddles_surrogate_pair(text: str, pos: int) -> bool:
    return (
        0 < pos < len(text)
        and "\ud800" <= text[pos - 1] <= "\udbff"
        and "\udc00" <= text[pos] <= "\udfff"
    )


def is_unsplittable(text: str, pos: int) -> bool:
    return straddles_crlf(text, pos) or _straddles_surrogate_pair(text, pos)


def is_line_start(text: str, pos: int) -> bool:
    """True when *pos* is 0, ``len(text)``, or just after a complete line terminator."""
    if pos <= 0 or pos >= len(text):
        return True
    return text[pos - 1] in "\r\n" and not straddles_crlf(text, pos)


def line_index(text: str, pos: int, *, total_terminators: int | None = None) -> int:
    """The 0-based index of the line holding the character at *pos*.

    With *total_terminators* given, the count is taken over ``text[pos:]`` instead of
    ``text[:pos]``, so positions near the end cost as little as positions near the start.
    """
    if total_terminators is not None:
        # Terminators ending after pos are exactly those counted in text[pos:]; a "\r\n" that
        # straddles pos is counted there by its "\n".
        return total_terminators - count_terminators(text, pos)
    return count_terminators(text, 0, pos) - (1 if straddles_crlf(text, pos) else 0)


def measure(text: str) -> Size:
    """The size of *text* in every unit a budget can use."""
    return Size(chars=len(text), bytes=utf8_size(text), lines=count_lines(text))
