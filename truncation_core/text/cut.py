"""Measuring and cutting text: the primitives every text strategy is built on.

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
result (see :class:`truncation_core.hooks.models.ContentFacts`). Everything else here works on the
kept regions, which are no larger than the budget.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from typing import Protocol

from truncation_core.hooks.models import Budget, ContentFacts, Cut, MarkerPosition, Omission, Size

__all__ = [
    "FALLBACK_MARKER",
    "count_lines",
    "count_terminators",
    "cut_points",
    "cut_text",
    "fit_prefix",
    "fit_suffix",
    "is_line_start",
    "line_index",
    "measure",
    "omission",
    "snap_prefix",
    "snap_suffix",
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
    if _has_cr(text, start, end):
        count += text.count("\r", start, end) - text.count("\r\n", start, end)
    return count


def _has_cr(text: str, start: int, end: int) -> bool:
    if type(text) is str:
        return text.find("\r", start, end) != -1  # memchr-fast; most text has no "\r" at all
    # A stream's TextWindows (truncation_core.streaming.ends) counts across the part it did not
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


def _straddles_crlf(text: str, pos: int) -> bool:
    """True when *pos* falls between the two characters of a ``"\\r\\n"`` pair."""
    return 0 < pos < len(text) and text[pos - 1] == "\r" and text[pos] == "\n"


def _straddles_surrogate_pair(text: str, pos: int) -> bool:
    return (
        0 < pos < len(text)
        and "\ud800" <= text[pos - 1] <= "\udbff"
        and "\udc00" <= text[pos] <= "\udfff"
    )


def _unsplittable(text: str, pos: int) -> bool:
    return _straddles_crlf(text, pos) or _straddles_surrogate_pair(text, pos)


def is_line_start(text: str, pos: int) -> bool:
    """True when *pos* is 0, ``len(text)``, or just after a complete line terminator."""
    if pos <= 0 or pos >= len(text):
        return True
    return text[pos - 1] in "\r\n" and not _straddles_crlf(text, pos)


def line_index(text: str, pos: int, *, total_terminators: int | None = None) -> int:
    """The 0-based index of the line holding the character at *pos*.

    With *total_terminators* given, the count is taken over ``text[pos:]`` instead of
    ``text[:pos]``, so positions near the end cost as little as positions near the start.
    """
    if total_terminators is not None:
        # Terminators ending after pos are exactly those counted in text[pos:]; a "\r\n" that
        # straddles pos is counted there by its "\n".
        return total_terminators - count_terminators(text, pos)
    return count_terminators(text, 0, pos) - (1 if _straddles_crlf(text, pos) else 0)


def measure(text: str) -> Size:
    """The size of *text* in every unit a budget can use."""
    return Size(chars=len(text), bytes=utf8_size(text), lines=count_lines(text))


def _end_after_nth_terminator(text: str, n: int, start: int, stop: int) -> int | None:
    """Position just after the *n*-th terminator found from *start*, if it ends before *stop*."""
    pos = start
    has_cr = _has_cr(text, start, stop)
    for _ in range(n):
        nl = text.find("\n", pos, stop)
        if has_cr:
            cr = text.find("\r", pos, stop)
            if cr != -1 and (nl == -1 or cr < nl):
                nl = cr + 1 if cr + 1 < len(text) and text[cr + 1] == "\n" else cr
        if nl == -1:
            return None
        pos = nl + 1
    return pos


def _start_before_nth_terminator(text: str, n: int, stop: int, floor: int) -> int | None:
    """Position just after the *n*-th terminator found scanning back from *stop*.

    Returns None when fewer than *n* terminators lie in ``text[floor:stop]``.
    """
    pos = stop
    has_cr = _has_cr(text, floor, stop)
    found_end = None
    for _ in range(n):
        nl = text.rfind("\n", floor, pos)
        if has_cr:
            cr = text.rfind("\r", floor, pos)
            nl = max(nl, cr)
        if nl == -1:
            return None
        found_end = nl + 1
        pos = nl - 1 if text[nl] == "\n" and nl > floor and text[nl - 1] == "\r" else nl
    return found_end


def _decoded_prefix_length(data: bytes) -> int:
    """How many characters the complete UTF-8 sequences at the start of *data* decode to."""
    decoder = codecs.getincrementaldecoder("utf-8")(_ENCODING_ERRORS)
    return len(decoder.decode(data, final=False))


def fit_prefix(text: str, limit: Budget, *, start: int = 0) -> int:
    """The largest end ``k`` such that ``text[start:k]`` fits *limit* in every unit."""
    k = min(len(text), start + max(limit.chars, 0))
    if k <= start:
        return start
    if limit.lines is not None:
        if limit.lines <= 0:
            return start
        end = _end_after_nth_terminator(text, limit.lines, start, k)
        if end is not None:
            k = min(k, end)
    if limit.bytes is not None:
        head = text[start:k]
        if not head.isascii():
            encoded = head.encode("utf-8", _ENCODING_ERRORS)
            if len(encoded) > limit.bytes:
                k = start + _decoded_prefix_length(encoded[: max(limit.bytes, 0)])
        elif k - start > limit.bytes:
            k = start + max(limit.bytes, 0)
    while k > start and _unsplittable(text, k):
        k -= 1
    return k


def fit_suffix(text: str, limit: Budget, *, floor: int = 0) -> int:
    """The smallest start ``z >= floor`` such that ``text[z:]`` fits *limit* in every unit."""
    n = len(text)
    z = max(floor, n - max(limit.chars, 0))
    if z >= n:
        return n
    if limit.lines is not None:
        # text[z:] has terminators(text[z:]) lines, plus one if the text ends mid-line.
        allowed = limit.lines - (0 if ends_with_terminator(text) else 1)
        if allowed < 0:
            return n
        begin = _start_before_nth_terminator(text, allowed + 1, n, z)
        if begin is not None:
            z = max(z, begin)
    if limit.bytes is not None:
        tail = text[z:]
        if not tail.isascii():
            encoded = tail.encode("utf-8", _ENCODING_ERRORS)
            if len(encoded) > limit.bytes:
                kept = encoded[len(encoded) - max(limit.bytes, 0) :]
                skip = 0
                while skip < len(kept) and 0x80 <= kept[skip] < 0xC0:  # continuation bytes
                    skip += 1
                z = n - len(kept[skip:].decode("utf-8", _ENCODING_ERRORS))
        elif n - z > limit.bytes:
            z = n - max(limit.bytes, 0)
    while z < n and _unsplittable(text, z):
        z += 1
    return z


def snap_prefix(text: str, end: int, window: int, *, floor: int = 0) -> int:
    """Move a head cut back to the nearest line boundary at most *window* characters earlier.

    The kept head never becomes empty: a cut with no boundary in reach stays where it is.
    """
    if end <= floor or is_line_start(text, end) or window <= 0:
        return end
    lo = max(floor, end - window)
    # Inside a "\r\n" pair, its "\r" is not a boundary: look before it.
    stop = end - 1 if _straddles_crlf(text, end) else end
    i = max(text.rfind("\n", lo, stop), text.rfind("\r", lo, stop))
    return i + 1 if i >= 0 else end


def snap_suffix(text: str, begin: int, window: int) -> int:
    """Move a tail cut forward to the nearest line start at most *window* characters later.

    The kept tail never becomes empty: a cut with no boundary in reach stays where it is.
    """
    n = len(text)
    if begin >= n or is_line_start(text, begin) or window <= 0:
        return begin
    hi = min(n, begin + window)
    nl, cr = text.find("\n", begin, hi), text.find("\r", begin, hi)
    hits = [i for i in (nl, cr) if i != -1]
    if not hits:
        return begin
    i = min(hits)
    after = i + 2 if text[i] == "\r" and i + 1 < n and text[i + 1] == "\n" else i + 1
    return after if after < n else begin


def omission(
    text: str,
    start: int,
    end: int,
    *,
    total_terminators: int,
    position: MarkerPosition,
    byte_offset: Callable[[int], int | None] | None = None,
) -> Omission:
    """Describe the omitted region ``text[start:end]``, with exact line numbers.

    ``lines`` counts the lines that lie entirely inside the region; a line that is cut keeps
    some of its characters in the output and so is not counted as omitted. ``first_line`` and
    ``last_line`` (1-based, inclusive) are the lines the region touches: asking for them
    retrieves everything that was left out. With *byte_offset* (usually
    :meth:`ContentFacts.byte_offset <truncation_core.hooks.models.ContentFacts.byte_offset>`),
    ``start_byte`` and ``end_byte`` give the same region in the original bytes.
    """
    n = len(text)
    if end <= start:
        return Omission(position=position, start=start, end=start, lines=0,
                        first_line=0, last_line=0)
    start_byte = end_byte = None
    if byte_offset is not None:
        start_byte, end_byte = byte_offset(start), byte_offset(end)
    # Count from whichever end is nearer: the kept regions are small, the omitted one is not.
    first = (line_index(text, start) if start <= n - start
             else line_index(text, start, total_terminators=total_terminators))
    last = (line_index(text, end - 1, total_terminators=total_terminators) if end > n - end
            else line_index(text, end - 1))
    touched = last - first + 1
    whole = touched - (0 if is_line_start(text, start) else 1) - (
        0 if is_line_start(text, end) else 1)
    return Omission(
        position=position,
        start=start,
        end=end,
        lines=max(whole, 0),
        first_line=first + 1,
        last_line=last + 1,
        start_byte=start_byte,
        end_byte=end_byte,
    )


#: How often cut_text re-fits when a rendered marker turns out larger than reserved for.
_FIT_ATTEMPTS = 4
#: The marker used when the configured one does not fit the budget.
FALLBACK_MARKER = "…"


class RendersMarkers(Protocol):
    """What cut_text needs from :class:`truncation_core.pipeline.markers.MarkerRenderer`."""

    def render(self, omission: Omission) -> str: ...

    def worst_case(self, position: MarkerPosition) -> str: ...


def _overshoot(size: Size, budget: Budget) -> Size:
    return Size(
        chars=max(0, size.chars - budget.chars),
        bytes=0 if budget.bytes is None else max(0, size.bytes - budget.bytes),
        lines=0 if budget.lines is None else max(0, size.lines - budget.lines),
    )


def _snap_head(text: str, end: int, whole_lines: bool) -> int:
    return snap_prefix(text, end, end if whole_lines else end // 4)


def _snap_tail(text: str, begin: int, whole_lines: bool) -> int:
    kept = len(text) - begin
    return snap_suffix(text, begin, kept if whole_lines else kept // 4)


def cut_points(text: str, room: Budget, head_share: float, *, whole_lines: bool) -> tuple[int, int]:
    """Where to cut: keep ``text[:start]`` and ``text[end:]`` within *room*.

    The head gets *head_share* of the room in every unit; the tail gets what the head leaves.
    Cuts snap to line boundaries: the nearest one within a quarter of the kept part, or, with
    *whole_lines*, any one (a line at the kept end that is longer than the room is still cut,
    so that the preview is never empty).
    """
    n = len(text)
    if head_share >= 1:
        return _snap_head(text, fit_prefix(text, room), whole_lines), n
    if head_share <= 0:
        return 0, _snap_tail(text, fit_suffix(text, room), whole_lines)
    start = _snap_head(text, fit_prefix(text, room.scaled(head_share)), whole_lines)
    tail_room = room.minus(measure(text[:start]))
    if tail_room is None:  # unreachable: the head fits a share of the room
        return start, n
    end = _snap_tail(text, fit_suffix(text, tail_room, floor=start), whole_lines)
    return start, max(start, end)


def cut_text(
    text: str,
    *,
    budget: Budget,
    facts: ContentFacts,
    markers: RendersMarkers,
    head_share: float,
    whole_lines: bool = False,
) -> Cut:
    """Cut *text* to *budget*, keeping a head and/or a tail, with one omission marker.

    ``head_share`` 1 keeps the head only, 0 the tail only, anything between both (head_tail).
    The output, marker included, always fits *budget*. When the rendered marker does not fit,
    the documented fallback applies: first the one-character marker ``…``, then a plain cut
    with no marker (a budget smaller than any marker); the notes say which.
    """
    n = len(text)
    position: MarkerPosition = (
        "end" if head_share >= 1 else "beginning" if head_share <= 0 else "middle"
    )
    notes: list[str] = []
    reserve = measure(markers.worst_case(position))
    if not budget.admits(reserve):
        # The worst case is a bound: the marker of a real region has smaller numbers, and
        # may fit. Start from no reserve and grow it by what each attempt overshoots.
        reserve = Size(chars=0, bytes=0, lines=0)
    for _ in range(_FIT_ATTEMPTS):
        room = budget.minus(reserve)
        if room is None:
            break
        start, end = cut_points(text, room, head_share, whole_lines=whole_lines)
        region = omission(text, start, end, total_terminators=facts.terminators,
                          position=position, byte_offset=facts.byte_offset)
        marker = markers.render(region)
        out = text[:start] + marker + text[end:]
        size = measure(out)
        if budget.admits(size):
            return _cut(out, text, region, whole_lines, notes, marker)
        reserve = reserve + _overshoot(size, budget)

    for fallback, note in ((FALLBACK_MARKER, "marker did not fit the budget; used '…'"),
                           ("", "budget too small for any marker; cut without one")):
        room = budget.minus(measure(fallback))
        if room is None:
            continue
        start, end = cut_points(text, room, head_share, whole_lines=whole_lines)
        out = text[:start] + fallback + text[end:]
        if budget.admits(measure(out)):
            region = omission(text, start, end, total_terminators=facts.terminators,
                              position=position, byte_offset=facts.byte_offset)
            return _cut(out, text, region, whole_lines, [*notes, note], fallback)
    # Only reachable if measuring disagrees with fitting; an empty output always fits.
    region = omission(text, 0, n, total_terminators=facts.terminators, position=position,
                      byte_offset=facts.byte_offset)
    return _cut("", text, region, whole_lines, [*notes, "nothing fits the budget"], "")


def _mid_line_note(position: MarkerPosition, marker: str) -> str:
    """Why a cut that keeps whole lines splits one: the line at the kept end does not fit
    the room the budget leaves (beside the marker, when there is one)."""
    line = {"end": "the first line", "beginning": "the last line"}.get(position, "a line")
    beside = " next to the marker" if marker else ""
    return f"{line} does not fit the budget{beside}; it is cut mid-line"


def _cut(out: str, text: str, region: Omission, whole_lines: bool, notes: list[str],
         marker: str) -> Cut:
    if whole_lines and not (is_line_start(text, region.start) and is_line_start(text, region.end)):
        notes = [*notes, _mid_line_note(region.position, marker)]
    return Cut(
        text=out,
        omitted_chars=region.chars,
        omitted_lines=region.lines,
        omissions=(region,) if region.chars else (),
        notes=tuple(notes),
    )
