"""A text too long to keep, of which only the first and the last characters are at hand.

A stream keeps the first and the last characters of what went through it, sized from the
budget, and exact counts of line terminators for the whole. :class:`KeptEnds` stands in
for the full ``str`` where the text strategies look at it: :func:`truncation_core.text.cut.cut_text`
and everything it calls only touch the first and the last budget-sized regions (to fit, snap
and render the cut) and count terminators between the cut points, which the totals answer.
So a stream runs the very same cutting code as :meth:`Truncator.process
<truncation_core.Truncator.process>`, and gets the very same result.

Anything that would need a character of the middle raises :class:`MiddleUnavailable`
instead of guessing: that is a bug in the caller, never a silent wrong answer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, overload

from truncation_core.structured import SNIFF_CHARS

if TYPE_CHECKING:
    from truncation_core.types.policy import Policy

__all__ = ["TERMINAL_WIDENING", "KeptEnds", "MiddleUnavailable", "window_for"]

#: Characters kept beyond the budget at each end: a cut reads a character or two past the
#: point it keeps (to avoid splitting "\r\n" or a surrogate pair, and to tell line starts).
_SLACK = 16
#: The most a view widens its budget to make up for the terminal control it removes from
#: what a cut keeps (:mod:`truncation_core.pipeline.plain`): output more than this many times
#: larger than what it shows is a display's redraws, not text.
TERMINAL_WIDENING = 8


def window_for(policy: Policy) -> int:
    """Characters a stream keeps at each end: the budget (as wide as a view without terminal
    control may make it), the JSON sniff, and some slack."""
    return max(policy.inline_limit * TERMINAL_WIDENING, SNIFF_CHARS) + _SLACK

_COUNTED = ("\n", "\r", "\r\n")


class MiddleUnavailable(LookupError):
    """An operation needed characters of the part of a stream that was not kept."""


class KeptEnds:
    """The first and last characters of a long text, plus exact totals.

    :param head: the first characters of the text.
    :param tail: the last characters of the text.
    :param length: the length of the whole text in characters.
    :param newlines: how many ``"\\n"`` the whole text holds; likewise *returns* (``"\\r"``)
        and *crlfs* (``"\\r\\n"``).
    :param ascii: whether the whole text is ASCII.
    """

    __slots__ = ("_ascii", "_head", "_length", "_tail", "_tail_start", "_totals")

    def __init__(self, head: str, tail: str, *, length: int, newlines: int, returns: int,
                 crlfs: int, ascii: bool) -> None:
        if len(head) + len(tail) >= length:
            raise ValueError("KeptEnds is for texts longer than their two windows")
        self._head = head
        self._tail = tail
        self._length = length
        self._tail_start = length - len(tail)
        self._totals = {"\n": newlines, "\r": returns, "\r\n": crlfs}
        self._ascii = ascii

    def __repr__(self) -> str:  # never the content
        return (f"KeptEnds(length={self._length}, head={len(self._head)}, "
                f"tail={len(self._tail)})")

    def __len__(self) -> int:
        return self._length

    def isascii(self) -> bool:
        return self._ascii

    # -- positions ---------------------------------------------------------------------------

    def _bounds(self, start: int | None, end: int | None) -> tuple[int, int]:
        return slice(start, end).indices(self._length)[:2]

    def _piece(self, start: int, end: int) -> str:
        """``text[start:end]`` when the range lies inside one window."""
        if end <= start:
            return ""
        if end <= len(self._head):
            return self._head[start:end]
        if start >= self._tail_start:
            return self._tail[start - self._tail_start:end - self._tail_start]
        raise MiddleUnavailable(f"characters {start}..{end} of {self._length} were not kept")

    @overload
    def __getitem__(self, key: int) -> str: ...

    @overload
    def __getitem__(self, key: slice) -> str: ...

    def __getitem__(self, key: int | slice) -> str:
        if isinstance(key, slice):
            if key.step not in (None, 1):
                raise ValueError("KeptEnds slices take no step")
            start, end = self._bounds(key.start, key.stop)
            return self._piece(start, end)
        index = key + self._length if key < 0 else key
        if not 0 <= index < self._length:
            raise IndexError("string index out of range")
        return self._piece(index, index + 1)

    # -- searching ---------------------------------------------------------------------------

    def find(self, sub: str, start: int | None = None, end: int | None = None) -> int:
        start, end = self._bounds(start, end)
        if end <= len(self._head):
            return self._head.find(sub, start, end)
        if start >= self._tail_start:
            found = self._tail.find(sub, start - self._tail_start, end - self._tail_start)
            return found if found == -1 else found + self._tail_start
        raise MiddleUnavailable("find() across the part of a stream that was not kept")

    def rfind(self, sub: str, start: int | None = None, end: int | None = None) -> int:
        start, end = self._bounds(start, end)
        if end <= len(self._head):
            return self._head.rfind(sub, start, end)
        if start >= self._tail_start:
            found = self._tail.rfind(sub, start - self._tail_start, end - self._tail_start)
            return found if found == -1 else found + self._tail_start
        raise MiddleUnavailable("rfind() across the part of a stream that was not kept")

    def count(self, sub: str, start: int | None = None, end: int | None = None) -> int:
        """Occurrences of *sub* inside ``text[start:end]``.

        Exact over any range for line terminators (``"\\n"``, ``"\\r"``, ``"\\r\\n"``),
        whose totals are known; other substrings only inside one window.
        """
        start, end = self._bounds(start, end)
        if end <= start:
            return 0
        if end <= len(self._head):
            return self._head.count(sub, start, end)
        if start >= self._tail_start:
            return self._tail.count(sub, start - self._tail_start, end - self._tail_start)
        if sub not in _COUNTED:
            raise MiddleUnavailable("count() across the part of a stream that was not kept")
        straddles = 1 if sub == "\r\n" and self._straddles_crlf(start) else 0
        return self._before(sub, end) - self._before(sub, start) - straddles

    def _before(self, sub: str, pos: int) -> int:
        """Occurrences of *sub* lying entirely inside ``text[:pos]``."""
        if pos <= len(self._head):
            return self._head.count(sub, 0, pos)
        if pos < self._tail_start:
            raise MiddleUnavailable(f"position {pos} of {self._length} was not kept")
        after = self._tail.count(sub, pos - self._tail_start)
        straddles = 1 if sub == "\r\n" and self._straddles_crlf(pos) else 0
        return self._totals[sub] - after - straddles

    def _straddles_crlf(self, pos: int) -> bool:
        return 0 < pos < self._length and self[pos - 1] == "\r" and self[pos] == "\n"
