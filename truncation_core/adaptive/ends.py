"""Where a command's failure lines are, at its two ends, and the head share that follows.

The sniff reads only the first and the last :func:`window` characters of the text (whole
lines in them), which a stream keeps too (:func:`truncation_core.pipeline.ends.window_for`
is wider): ``process()`` and a stream of the same content decide alike. In each window the
lines holding a keyword of the tool's salient patterns are matched
(:class:`~truncation_core.highlights.patterns.Matcher`, the same patterns as the
highlights); a **failure line** is one of rank 1 (an error, an exception, a failed test, a
crash). A status line (rank 0: a summary, an exit status) says how it ended, wherever it is;
a warning (rank 2) is no failure.

* More than twice as many failure lines at the end as at the start (a status line at the
  end counting as one): a **failure log**, whose end says what went wrong: it keeps its
  tail, as ``tail`` would (:data:`FAILURE_SHARE`).
* Otherwise (failure lines at the start, all through, or none: search hits, a listing, a
  file, a log of commits; a failure section printed first, stderr before stdout): both
  ends matter, and the head gets ``head_ratio``: the start is kept whole where a failure
  section opens the output.

Lines of the middle are not read: they are the highlights' (lifted from whatever the cut
leaves out) and the outline's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from truncation_core.highlights.patterns import Matcher

__all__ = ["FAILURE_SHARE", "Ends", "head_share", "salient_ends"]

#: The head's share of the budget for a failure log: none, its tail is what matters (as for
#: ``tail``; a fifth of the budget to the head did no better on the corpora).
FAILURE_SHARE = 0.0
#: The rank of the lines that count as failures (and those under it: statuses).
FAILURE_RANK = 1


@attrs.frozen
class Ends:
    """The failure lines found in the first and last window of a text."""

    #: Failure lines (rank 1) among the first window's whole lines.
    head: int
    #: Failure lines among the last window's whole lines.
    tail: int
    #: Status lines (rank 0: a summary, an exit status) among the last window's lines.
    status: int = 0

    @property
    def failure_at_end(self) -> bool:
        """More than twice as many failure lines at the end as at the start (a status line
        at the end counting as one): the end is where it went wrong. A file that mentions
        errors all through, or a log failing from start to end, has them at both ends."""
        return self.tail + min(self.status, 1) > 2 * self.head


def _whole_lines(piece: str, *, at_start: bool) -> str:
    """The whole lines of *piece*: without the partial line it ends with (*at_start*: the
    first window) or starts with (the last window)."""
    if at_start:
        cut = max(piece.rfind("\n"), piece.rfind("\r"))
        return piece[:cut + 1] if cut >= 0 else ""
    cut = min((i for i in (piece.find("\n"), piece.find("\r")) if i >= 0), default=-1)
    if cut < 0:
        return ""
    if piece.startswith("\r\n", cut):
        cut += 1
    return piece[cut + 1:]


def _ranks(piece: str, matcher: Matcher) -> list[int]:
    """The rank of each salient line of *piece*."""
    from truncation_core.highlights.patterns import PROBE_CHARS, scan_lines

    found: list[int] = []

    def visit(_index: int, start: int, end: int, _after: int) -> None:
        hit = matcher.match(piece[start:min(end, start + PROBE_CHARS)], end - start)
        if hit is not None:
            found.append(hit.rank)

    scan_lines(matcher.engine(), piece, 0, len(piece), line_index=0, visit=visit)
    return found


def salient_ends(text: str, chars: int, matcher: Matcher) -> Ends:
    """The failure lines among the whole lines of the first and the last *chars*
    characters of *text* (a ``str``, or a stream's kept ends: only they are read)."""
    if not matcher:
        return Ends(head=0, tail=0)
    n = len(text)
    first = text[:min(n, chars)]
    last = text[max(0, n - chars):]
    whole = n <= chars
    head = first if whole else _whole_lines(first, at_start=True)
    tail = last if whole else _whole_lines(last, at_start=False)
    at_start, at_end = _ranks(head, matcher), _ranks(tail, matcher)
    return Ends(head=at_start.count(FAILURE_RANK), tail=at_end.count(FAILURE_RANK),
                status=sum(1 for rank in at_end if rank < FAILURE_RANK))


def head_share(ends: Ends, head_ratio: float) -> float:
    """The head's share of the budget for a text whose ends hold *ends*."""
    return FAILURE_SHARE if ends.failure_at_end else head_ratio
