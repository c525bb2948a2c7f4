"""Cutting text to a budget: the engine every text strategy is built on.

:func:`cut_text` keeps a head and a tail (head_tail, head, tail, lines) that fit the budget
marker included, snapped to line boundaries, and describes what it left out as
:class:`~truncation_core.types.cuts.Omission` objects. The fitting helpers
(:func:`fit_prefix`, :func:`fit_suffix`, :func:`snap_prefix`, :func:`snap_suffix`) and
:func:`omission` are for plugin strategies too. What a character, a byte and a line are is
:mod:`truncation_core.text.measure`.

Cuts made here never split a ``"\\r\\n"`` pair, nor a surrogate pair, and never split a UTF-8
sequence under a byte limit (cutting happens on code points, bytes are only measured).
Everything here works on the kept regions, which are no larger than the budget.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable
from typing import Protocol

from truncation_core.text.measure import (
    ends_with_terminator,
    has_cr,
    is_line_start,
    is_unsplittable,
    line_index,
    measure,
    straddles_crlf,
)
from truncation_core.types.cuts import ContentFacts, Cut, MarkerPosition, Omission
from truncation_core.types.models import Budget, Size

__all__ = [
    "FALLBACK_MARKER",
    "cut_points",
    "cut_text",
    "fit_prefix",
    "fit_suffix",
    "omission",
    "snap_prefix",
    "snap_suffix",
]

_ENCODING_ERRORS = "surrogatepass"


def _end_after_nth_terminator(text: str, n: int, start: int, stop: int) -> int | None:
    """Position just after the *n*-th terminator found from *start*, if it ends before *stop*."""
    pos = start
    any_cr = has_cr(text, start, stop)
    for _ in range(n):
        nl = text.find("\n", pos, stop)
        if any_cr:
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
    any_cr = has_cr(text, floor, stop)
    found_end = None
    for _ in range(n):
        nl = text.rfind("\n", floor, pos)
        if any_cr:
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
    while k > start and is_unsplittable(text, k):
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
    while z < n and is_unsplittable(text, z):
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
    stop = end - 1 if straddles_crlf(text, end) else end
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
    :meth:`ContentFacts.byte_offset <truncation_core.types.cuts.ContentFacts.byte_offset>`),
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
    """What cut_text needs from :class:`truncation_core.types.markers.MarkerRenderer`."""

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
