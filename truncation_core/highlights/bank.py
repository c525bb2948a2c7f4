"""Keeping the salient lines of a text or a stream: the first and last matches of each rank,
in memory bounded by the number shown, so that any region a cut omits can be asked for its
matches afterwards.

A :class:`StreamHighlights` is fed text as it goes by (the whole text for ``process``, the
chunks of a stream) and answers :meth:`StreamHighlights.pools` for an omitted region;
:func:`select` picks what to show from those pools: rank 0 first (test summaries, exit
statuses), then rank 1 (error headers) and so on, and within a rank the earliest and the
latest matches.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

import attrs

from truncation_core.highlights.patterns import PROBE_CHARS, Highlight, Matcher, _clip, scan_lines
from truncation_core.text.measure import count_terminators

if TYPE_CHECKING:
    from truncation_core.hooks.models import Omission

__all__ = ["Pools", "StreamHighlights", "select"]

#: Pieces of a stream are scanned once this many characters have gathered.
_BATCH_CHARS = 64 * 1024



@attrs.frozen(kw_only=True)
class _Pool:
    """The matches of one rank in an omitted region: the first and the last few (as many as
    selection can show), and how many there are."""

    first: list[Highlight]
    last: list[Highlight]
    count: int


Pools = dict[int, _Pool]


def select(pools: Pools, limit: int) -> list[Highlight]:
    """At most *limit* highlights: by rank, then the earliest and the latest of each rank."""
    chosen: list[Highlight] = []
    for rank in sorted(pools):
        pool = pools[rank]
        room = limit - len(chosen)
        if room <= 0:
            break
        if pool.count <= room:
            chosen.extend(pool.first[:pool.count])
        else:
            early = (room + 1) // 2
            late = pool.last[len(pool.last) - (room - early):] if room > early else []
            chosen.extend(pool.first[:early] + late)
    return sorted(chosen, key=lambda h: h.line)


# -- streams ---------------------------------------------------------------------------------


class StreamHighlights:
    """Finds salient lines as text goes by, keeping only what selection can need.

    Streams feed it chunk by chunk; ``process`` feeds it the whole text at once. Either way,
    :meth:`pools` then gives, for any region a cut of the text omits, what :func:`select`
    needs, so both paths share one implementation (the tests check it against the definition
    above, applied line by line).

    Lines are assembled across chunks: a partial last line waits for the next chunk, with only
    its first :data:`PROBE_CHARS` characters held, and a ``"\\r"`` at the end of a chunk waits
    to see whether a ``"\\n"`` follows. For a stream whose windows are *window* characters at
    each end, what is kept is:

    * every match that starts in the first *window* characters (a cut may keep it or not);
    * every match that ends in the last *window* characters (likewise);
    * of the others, which any cut omits, the first and the last *keep* of each rank, and
      how many there are.

    That is all :func:`select` can use for any omitted region a cut of those windows makes, so
    a stream's highlights equal those of ``process``.
    """

    def __init__(self, matcher: Matcher, *, keep: int, window: int) -> None:
        self._matcher = matcher
        self._searches = matcher.searches()
        self._keep = keep
        self._window = window
        self._offset = 0  # characters fed (a held "\r" included)
        self._held_cr = False
        self._line_start = 0  # the pending line: where it starts, its index, its first chars
        self._line_index = 0
        self._pending = ""
        self._pending_len = 0
        self._batch: list[str] = []  # small pieces not scanned yet
        self._batched = 0
        self._batch_chars = _BATCH_CHARS
        self._head: list[Highlight] = []
        self._first: dict[int, list[Highlight]] = {}  # the first matches of each rank
        self._recent: dict[int, deque[Highlight]] = {}
        self._counts: dict[int, int] = {}

    def _emit(self, item: Highlight) -> None:
        if item.start < self._window:
            self._head.append(item)
            return
        rank = item.rank
        self._counts[rank] = self._counts.get(rank, 0) + 1
        first = self._first.setdefault(rank, [])
        if len(first) < self._keep:
            first.append(item)
        recent = self._recent.setdefault(rank, deque())
        recent.append(item)
        # Matches ending before the last `window` characters seen end before the final tail
        # window too: of those, the last `keep` are enough.
        cutoff = self._offset - self._window
        while len(recent) > self._keep and recent[self._keep].end <= cutoff:
            recent.popleft()

    def feed(self, text: str, *, final: bool = False) -> None:
        """Take the next piece of the stream's text. Small pieces are gathered and scanned
        together: a scan costs some 20 µs however short the piece (one search per literal),
        and streams are often written a line at a time."""
        if final or (not self._batched and len(text) >= self._batch_chars):
            self._flush()
            self._scan(text, final=final)
            return
        self._batch.append(text)
        self._batched += len(text)
        if self._batched >= self._batch_chars:
            self._flush()

    def _flush(self) -> None:
        if self._batch:
            text = "".join(self._batch)
            self._batch, self._batched = [], 0
            self._scan(text)

    def _scan(self, text: str, *, final: bool = False) -> None:
        if self._held_cr:
            text = "\r" + text
            self._offset -= 1
            self._held_cr = False
        if text.endswith("\r") and not final:  # maybe half a "\r\n": see the next piece
            text = text[:-1]
            self._held_cr = True
        base = self._offset
        self._offset += len(text) + (1 if self._held_cr else 0)
        if not text:
            return
        last = max(text.rfind("\n"), text.rfind("\r"))
        if last < 0:  # no line ends here
            self._extend(text, 0, len(text))
            return
        cut = last + 1
        lo = 0
        if self._pending_len:  # the line begun in an earlier piece ends here
            nl = text.find("\n", 0, cut)
            cr = text.find("\r", 0, nl if nl >= 0 else cut)
            end = cr if cr >= 0 else nl
            lo = end + (2 if text.startswith("\r\n", end) else 1)
            self._extend(text, 0, end)
            self._classify_pending(end=base + lo)
            self._line_index += 1
        # The rest is scanned where it lies: a chunk is never copied.
        scan_lines(self._matcher, text, lo, cut, line_index=self._line_index, offset=base,
                   emit=self._emit, searches=self._searches)
        self._line_index += count_terminators(text, lo, cut)
        self._line_start = base + cut
        self._pending, self._pending_len = "", 0
        self._extend(text, cut, len(text))

    def _extend(self, text: str, start: int, end: int) -> None:
        """The pending line goes on with ``text[start:end]``; only its probe is kept."""
        room = PROBE_CHARS - self._pending_len
        if room > 0:
            self._pending += text[start:min(end, start + room)]
        self._pending_len += end - start

    def _classify_pending(self, *, end: int) -> None:
        probe = self._pending
        pattern = self._matcher.classify(probe)
        if pattern is not None:
            self._emit(Highlight(line=self._line_index + 1, start=self._line_start, end=end,
                                 pattern=pattern.name, rank=pattern.rank, text=_clip(probe)))

    def close(self) -> None:
        """The stream ended: a held ``"\\r"`` ends a line, and the last line is complete."""
        self._flush()
        if self._held_cr:
            self._held_cr = False
            self._offset -= 1
            self._scan("\r", final=True)
        if self._pending_len:
            self._classify_pending(end=self._offset)
            self._pending, self._pending_len = "", 0

    def pools(self, region: Omission, total: int) -> Pools:
        """What selection needs for *region* of the finished stream of *total* characters."""
        tail_from = total - self._window
        pools: Pools = {}
        ranks = sorted({*self._counts, *(h.rank for h in self._head)})
        for rank in ranks:
            inside = [h for h in self._head if h.rank == rank and h.inside(region)]
            recent = self._recent.get(rank, deque())
            tail = [h for h in recent if h.end > tail_from]
            edge_tail = [h for h in tail if h.inside(region)]
            middle_count = self._counts.get(rank, 0) - len(tail)
            first = [h for h in self._first.get(rank, ()) if h.end <= tail_from]
            last = [h for h in recent if h.end <= tail_from]
            count = len(inside) + middle_count + len(edge_tail)
            if count:
                pools[rank] = _Pool(first=(inside + first + edge_tail)[:self._keep],
                                    last=(inside + last + edge_tail)[-self._keep:],
                                    count=count)
        return pools
