"""Keeping the salient lines of a text or a stream, grouped, in memory bounded by what can be
shown, so that any region a cut omits can be asked for its matches afterwards.

A :class:`StreamHighlights` is fed text as it goes by (the whole text for ``process``, the
chunks of a stream). Each line holding a keyword is matched (:meth:`Matcher.match`); a
match becomes a :class:`Highlight`, with the lines its units keep around it
(:class:`UnitLine`), and joins the **group** of the matches that say the same thing (same
pattern, same text once digits, hexadecimal numbers and paths are folded:
:func:`~truncation_core.highlights.lines.fold`). :meth:`StreamHighlights.pools` then gives,
for an omitted region, each group's count and its first matches in the region
(:class:`Pools`); :mod:`~truncation_core.highlights.choice` picks what to show.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

import attrs

from truncation_core.errors import log
from truncation_core.highlights.lines import clean
from truncation_core.highlights.patterns import PROBE_CHARS, Hit, Matcher, scan_lines
from truncation_core.highlights.records import RECORD_CHARS
from truncation_core.highlights.units import UnitLines
from truncation_core.text.measure import count_terminators

if TYPE_CHECKING:
    from truncation_core.hooks.models import Omission

__all__ = ["ABOVE_CHARS", "MAX_GROUPS", "Highlight", "Pool", "Pools", "StreamHighlights",
           "UnitLine"]


#: Pieces of a stream are scanned once this many characters have gathered.
_BATCH_CHARS = 64 * 1024
#: Pieces shorter than this are scanned whole (see :meth:`StreamHighlights.skim`).
_SKIM_BYTES = 256 * 1024
#: A unit sees the lines above its line that start at most this many characters before it
#: (so that a stream remembers a bounded tail of what it scanned).
ABOVE_CHARS = 32 * 1024
#: The most groups kept per rank. Matches of a group that did not fit are counted (they are
#: in ``found``) but never shown: only a text with more distinct failures than this loses any.
MAX_GROUPS = 1024


@attrs.frozen(kw_only=True)
class UnitLine:
    """A line shown with a highlight because one of its units keeps it."""

    #: 1-based line number in the original output.
    line: int
    #: Character offsets of the line, terminator included, in the original.
    start: int
    end: int
    #: The unit that keeps it.
    unit: str
    #: The line's probe, cleaned (content: not in the repr).
    text: str = attrs.field(repr=False)

    def inside(self, region: Omission) -> bool:
        """True when the whole line lies in *region*."""
        return region.start <= self.start and self.end <= region.end


@attrs.frozen(kw_only=True)
class Highlight:
    """One line lifted from the omitted part, with the lines its units keep around it."""

    #: 1-based line number in the original output. The block shows the artifact's number
    #: for it, which differs when the artifact is itself cut (see
    #: :func:`truncation_core.pipeline.resume.artifact_line`).
    line: int
    #: Character offsets of the line, terminator included, in the original.
    start: int
    end: int
    #: The pattern (or record) that matched, and its rank.
    pattern: str
    rank: int
    #: The line's text as the block shows it: cleaned, and clipped in the middle to
    #: :data:`~truncation_core.highlights.patterns.LINE_CHARS` (content: not in the repr).
    text: str = attrs.field(repr=False)
    #: What groups it with the matches that say the same thing.
    key: str = attrs.field(repr=False)
    #: Lines its units keep above and below it, in line order.
    above: tuple[UnitLine, ...] = ()
    below: tuple[UnitLine, ...] = ()

    def inside(self, region: Omission) -> bool:
        """True when the whole line lies in *region*."""
        return region.start <= self.start and self.end <= region.end


@attrs.frozen(kw_only=True)
class Pool:
    """The matches of one group in an omitted region."""

    key: str = attrs.field(repr=False)
    rank: int
    #: How many matches of the group lie in the region.
    count: int
    #: The first of them (at most as many as a block can show), in line order.
    members: tuple[Highlight, ...]


@attrs.frozen(kw_only=True)
class Pools:
    """The matches of an omitted region, by group (in the order groups first appear)."""

    groups: tuple[Pool, ...]
    #: Every match in the region, those of groups over :data:`MAX_GROUPS` included.
    found: int


class _Group:
    """A group's matches outside both windows (which every cut omits), and how many of its
    matches outside the first window were seen (the first ``keep`` get their units)."""

    __slots__ = ("count", "members", "rank", "seen")

    def __init__(self, rank: int) -> None:
        self.rank = rank
        self.seen = 0
        self.count = 0
        self.members: list[Highlight] = []


class _Waiting:
    """A match whose units need lines below it that have not arrived yet."""

    __slots__ = ("above", "after", "below", "hit", "index", "need", "start")

    def __init__(self, hit: Hit, index: int, start: int, after: int,
                 above: list[UnitLine], below: list[UnitLine], need: int) -> None:
        self.hit, self.index, self.start, self.after = hit, index, start, after
        self.above, self.below, self.need = above, below, need


class _Tail:
    """The last characters of a scanned piece (at most :data:`ABOVE_CHARS`), for the lines
    above the first lines of the next pieces, made into lines only when asked."""

    __slots__ = ("base", "last_line", "text", "whole_first")

    def __init__(self, text: str, base: int, last_line: int, whole_first: bool) -> None:
        self.text, self.base, self.last_line = text, base, last_line
        #: Whether the text starts at a line start (else its first line is not whole).
        self.whole_first = whole_first

    @property
    def end(self) -> int:
        return self.base + len(self.text)

    def lines(self, after: int, most: int) -> list[UnitLine]:
        """Up to *most* of its whole lines, nearest first, starting at *after* or later."""
        text = self.text
        lo = 0 if self.whole_first else min(len(text), max(text.find("\n"), text.find("\r"),
                                                            -1) + 1)
        return _lines_up(text, lo, len(text), self.base, self.last_line, most,
                         floor=after - self.base)


def _lines_up(text: str, lo: int, pos: int, base: int, number: int, most: int,
              floor: int = 0) -> list[UnitLine]:
    """Up to *most* whole lines of ``text[lo:pos]`` (*pos* a line start), nearest first,
    starting at *floor* or later; the nearest is line *number*."""
    out: list[UnitLine] = []
    rfind, end = text.rfind, pos
    cr = text.find("\r", lo, pos) != -1
    floor = max(floor, lo)
    while len(out) < most and end > floor:
        stop = _content_end(text, end, lo)
        start = max(rfind("\n", lo, stop), rfind("\r", lo, stop) if cr else -1, lo - 1) + 1
        if start < floor:
            break
        out.append(UnitLine(line=number - len(out), start=base + start, end=base + end,
                            unit="", text=clean(text[start:min(stop, start + PROBE_CHARS)])))
        end = start
    return out


def _content_end(text: str, end: int, lo: int) -> int:
    """Where the content of the line whose terminator ends at *end* ends."""
    if end - 2 >= lo and text.startswith("\r\n", end - 2):
        return end - 2
    if end - 1 >= lo and text[end - 1] in "\r\n":
        return end - 1
    return end


class StreamHighlights:
    """Finds salient lines as text goes by, keeping only what selection can need.

    Streams feed it chunk by chunk; ``process`` feeds it the whole text at once. Either way,
    :meth:`pools` then gives, for any region a cut of the text omits, what selection needs,
    so both paths share one implementation (the tests check it against the definition,
    applied line by line).

    Lines are assembled across chunks: a partial last line waits for the next chunk, with only
    its first :data:`PROBE_CHARS` characters held (up to ``RECORD_CHARS`` when records may
    need it whole), and a ``"\\r"`` at the end of a chunk waits to see whether a ``"\\n"``
    follows. A match whose units need lines below it waits for them too, and the last lines
    of each chunk are remembered for the units of the next one's first lines. For a stream
    whose windows are *window* characters at each end, what is kept is:

    * every match that starts in the first *window* characters (a cut may keep it or not);
    * every match that ends in the last *window* characters (likewise);
    * of the others, which any cut omits, per group: how many there are, and the first
      *keep*.

    That is all selection can use for any omitted region a cut of those windows makes, so a
    stream's highlights equal those of ``process``.
    """

    def __init__(self, matcher: Matcher, *, keep: int, window: int) -> None:
        self._matcher = matcher
        self._engine = matcher.engine()
        self._keep = keep
        self._window = window
        self._remembered = matcher.above  # lines remembered from piece to piece
        self._offset = 0  # characters fed (a held "\r" included)
        self._held_cr = False
        self._line_start = 0  # the pending line: where it starts, its index, its first chars
        self._line_index = 0
        self._pending = ""
        self._pending_len = 0
        self._hold = RECORD_CHARS if matcher.records else PROBE_CHARS
        self._batch: list[str] = []  # small pieces not scanned yet
        self._batched = 0
        self._batch_chars = _BATCH_CHARS
        self._head: list[Highlight] = []
        self._recent: deque[Highlight] = deque()
        self._groups: dict[str, _Group] = {}
        self._per_rank: dict[int, int] = {}
        self._overflow = 0
        #: What came before the piece being scanned, nearest first, for the units of its
        #: first lines: the tails of earlier pieces and the lines completed between them.
        self._prior: deque[_Tail | UnitLine] = deque()
        self._terminators: int | None = None  # the caller's count, for the batch
        self._waiting: list[_Waiting] = []
        self._failed_units: set[str] = set()
        # The piece being scanned: its text, where it starts in the whole, and its end.
        self._text = ""
        self._base = 0
        self._lo = 0
        self._hi = 0
        self._final = False
        self._has_cr = False

    # -- feeding -------------------------------------------------------------------------------

    def feed(self, text: str, *, final: bool = False, raw: bytes | None = None,
             terminators: int | None = None) -> None:
        """Take the next piece of the stream's text. Small pieces are gathered and scanned
        together: a scan costs some 20 µs however short the piece (one search per literal),
        and streams are often written a line at a time.

        Two hints spare a pass over the text: *raw*, the piece's UTF-8 bytes when they decode
        to exactly *text* (the engine scans them as they are, instead of encoding the text
        again), and *terminators*, the number of line terminators in everything fed so far,
        this piece included (the caller counted them anyway)."""
        if final or (not self._batched and len(text) >= self._batch_chars):
            self._flush()
            self._scan(text, final=final, raw=raw, terminators=terminators)
            return
        self._batch.append(text)
        self._batched += len(text)
        self._terminators = terminators
        if self._batched >= self._batch_chars:
            self._flush()

    def skim(self, raw: bytes, *, chars: int, terminators: int) -> bool:
        """Take the next piece as its UTF-8 bytes *raw*, valid and holding no ``"\\r"``,
        that decode to *chars* characters (*terminators*: as for :meth:`feed`), if no
        keyword occurs in it: then only its first lines (which end a line begun earlier and
        may be below earlier matches) and its last characters (which may be above later
        ones) are decoded and scanned; of the lines between, only their number and length
        count. False, having taken nothing, when a keyword occurs (or the engine cannot tell
        without the text, or the piece is too short to gain): feed the text then.

        The result is the same as :meth:`feed` of the text: a piece's lines are found the
        same however the stream is cut into pieces, and the lines skipped hold no keyword."""
        if len(raw) < _SKIM_BYTES:
            return False
        self._flush()
        if self._held_cr or self._engine.occurs(raw) is not False:
            return False
        # The suffix starts at a line start, more than ABOVE_CHARS characters before its last
        # line end, so that what it leaves remembered is what the whole piece would.
        cut = raw.rfind(b"\n") + 1
        room = ABOVE_CHARS + 1 if chars == len(raw) else 4 * (ABOVE_CHARS + 1)
        suffix = raw.rfind(b"\n", 0, max(0, cut - room)) + 1
        # The prefix ends the pending line, and the lines waiting matches may still need.
        prefix = 0
        for _ in range(self._matcher.below + 2):
            prefix = raw.find(b"\n", prefix) + 1
            if prefix == 0:
                return False
        if prefix >= suffix:
            return False
        head = raw[:prefix].decode("utf-8")
        tail = raw[suffix:].decode("utf-8")
        self._scan(head)
        skipped = chars - len(head) - len(tail)
        self._offset += skipped
        self._line_start = self._offset
        # (The lines skipped are no match's lines below: the prefix gave those.)
        self._line_index = terminators - count_terminators(tail)
        self._scan(tail, terminators=terminators)
        return True

    def _flush(self) -> None:
        if self._batch:
            text = "".join(self._batch)
            self._batch, self._batched = [], 0
            self._scan(text, terminators=self._terminators)

    def _scan(self, text: str, final: bool = False, raw: bytes | None = None,
              terminators: int | None = None) -> None:
        if self._held_cr:
            text = "\r" + text
            self._offset -= 1
            self._held_cr = False
            raw = None
        if text.endswith("\r") and not final:  # maybe half a "\r\n": see the next piece
            text = text[:-1]
            self._held_cr = True
            raw = raw[:-1] if raw is not None else None
        base = self._offset
        self._offset += len(text) + (1 if self._held_cr else 0)
        if not text:
            return
        last = text.rfind("\n")
        last = max(last, text.rfind("\r", last + 1))  # (not a second pass over the piece)
        if last < 0:  # no line ends here
            self._extend(text, 0, len(text))
            return
        cut = last + 1
        self._text, self._base, self._hi, self._final = text, base, cut, final
        lo = 0
        if self._pending_len:  # the line begun in an earlier piece ends here
            nl = text.find("\n", 0, cut)
            cr = text.find("\r", 0, nl if nl >= 0 else cut)
            end = cr if cr >= 0 else nl
            lo = end + (2 if text.startswith("\r\n", end) else 1)
            self._extend(text, 0, end)
            self._lo = lo
            self._complete_pending(after=lo)
            self._line_index += 1
        else:
            self._lo = lo
            if self._waiting:
                self._feed_waiting(lo, self._line_index - 1)
        # The rest is scanned where it lies: a chunk is never copied.
        scan_lines(self._engine, text, lo, cut, line_index=self._line_index,
                   visit=self._visit, raw=raw)
        if terminators is not None:  # everything fed so far, but a "\r" held back
            self._line_index = terminators - (1 if self._held_cr else 0)
        else:
            self._line_index += count_terminators(text, lo, cut)
        if self._remembered:
            self._remember(lo, cut)
        self._release()
        self._line_start = base + cut
        self._pending, self._pending_len = "", 0
        self._text = ""
        self._extend(text, cut, len(text))

    def _extend(self, text: str, start: int, end: int) -> None:
        """The pending line goes on with ``text[start:end]``; only its start is kept."""
        room = self._hold - len(self._pending)
        if room > 0:
            self._pending += text[start:min(end, start + room)]
        self._pending_len += end - start

    def _complete_pending(self, *, after: int) -> None:
        """The pending line ended at *after* (in the piece being scanned, whose lines from
        there are complete): it is a line below the matches waiting, and so are the lines
        that follow it; then it is matched, and it is a line above the next ones."""
        held, index, start = self._pending, self._line_index, self._line_start
        line = UnitLine(line=index + 1, start=start, end=self._base + after, unit="",
                        text=clean(held[:PROBE_CHARS]))
        if self._waiting:
            for waiting in self._waiting:
                if len(waiting.below) < waiting.need:
                    waiting.below.append(line)
            self._feed_waiting(after, index)
        hit = self._matcher.match(held, self._pending_len)
        if hit is not None:
            self._matched(hit, index, start, line.end, local=(None, after))
        if self._remembered:
            self._prior.appendleft(line)

    def close(self) -> None:
        """The stream ended: a held ``"\\r"`` ends a line, and the last line is complete."""
        self._flush()
        if self._held_cr:
            self._held_cr = False
            self._offset -= 1
            self._scan("\r", final=True)
        self._final = True
        if self._pending_len:
            self._text, self._base, self._lo, self._hi = "", self._offset, 0, 0
            self._complete_pending(after=0)
            self._pending, self._pending_len = "", 0
        self._release()

    # -- matching --------------------------------------------------------------------------

    def _visit(self, index: int, start: int, end: int, after: int) -> None:
        text = self._text
        if end - start <= RECORD_CHARS and self._matcher.wants_whole(
                text[start:start + PROBE_CHARS]):
            line = text[start:end]
        else:
            line = text[start:min(end, start + PROBE_CHARS)]
        hit = self._matcher.match(line, end - start)
        if hit is not None:
            base = self._base
            self._matched(hit, index, base + start, base + after, local=(start, after))

    def _matched(self, hit: Hit, index: int, start: int, after: int,
                 local: tuple[int | None, int]) -> None:
        """Note a match at line *index* (0-based), ``[start, after)`` in the whole; *local*
        is where it starts and ends in the piece being scanned (it starts in an earlier piece
        when that is None)."""
        units = self._matcher.units.get(hit.name, ())
        reach_up = max((u.above for u in units), default=0)
        first_below: list[UnitLine] = []
        if hit.name in self._matcher.headers:  # the salient line is the one above
            found = self._above(local[0], index, 1 + reach_up)
            headed = self._matcher.headed(hit, found[0].text) if found else None
            if headed is None:
                return
            first_below = [UnitLine(line=index + 1, start=start, end=after, unit="",
                                    text=hit.probe)]
            line = found[0]
            hit, index, start, after = headed, line.line - 1, line.start, line.end
            above_found = found[1:]
        else:
            above_found = None
        resolve = start < self._window
        if not resolve:
            group = self._groups.get(hit.key)
            if group is None and self._per_rank.get(hit.rank, 0) < MAX_GROUPS:
                group = self._groups[hit.key] = _Group(hit.rank)
                self._per_rank[hit.rank] = self._per_rank.get(hit.rank, 0) + 1
            if group is not None:
                resolve = group.seen < self._keep
                group.seen += 1
                if not resolve and not self._recent and not self._waiting and \
                        after <= self._offset - self._window and \
                        len(group.members) >= self._keep:
                    # Outside both windows for sure, and its group has all the members it
                    # can show: only its count is kept (as _aggregate would).
                    group.count += 1
                    return
        above: list[UnitLine] = []
        below: list[UnitLine] = []
        need = 0
        if units and resolve:
            need = max(u.below for u in units)
            if reach_up:
                above = (above_found if above_found is not None
                         else self._above(local[0], index, reach_up))
            if need:
                below = first_below + self._lines_below(local[1], index + len(first_below),
                                                        need - len(first_below))
        waiting = _Waiting(hit, index, start, after, above, below, need)
        if self._waiting or (len(below) < need and not self._final):
            self._waiting.append(waiting)
        else:
            self._emit(self._finish(waiting))

    def _above(self, pos: int | None, index: int, most: int) -> list[UnitLine]:
        """Up to *most* lines above line *index* (0-based), nearest first, starting at most
        :data:`ABOVE_CHARS` characters before it: those of the piece being scanned, above
        *pos* (None: the line starts in an earlier piece), then the remembered ones."""
        if pos is not None:
            floor = self._base + pos - ABOVE_CHARS
            found = _lines_up(self._text, self._lo, pos, self._base, index, most,
                              floor=pos - ABOVE_CHARS)
        else:
            floor = self._line_start - ABOVE_CHARS
            found = []
        for earlier in self._prior:
            if len(found) >= most:
                break
            if isinstance(earlier, UnitLine):
                if earlier.start < floor:
                    break
                found.append(earlier)
            else:
                found.extend(earlier.lines(floor, most - len(found)))
                if earlier.base > floor and not earlier.whole_first:
                    break  # the line before its first whole one is not all there
        return found

    def _lines_below(self, pos: int, index: int, most: int) -> list[UnitLine]:
        """Up to *most* complete lines from *pos* in the piece being scanned, the first of
        which is below line *index* (0-based)."""
        out: list[UnitLine] = []
        text, base, hi = self._text, self._base, self._hi
        if self._final:
            hi = len(text)
        start = pos
        while len(out) < most and start < hi:
            nl = text.find("\n", start, hi)
            cr = text.find("\r", start, nl if nl >= 0 else hi)
            end = cr if cr >= 0 else nl
            if end < 0:
                end = after = hi
            else:
                after = end + (2 if text.startswith("\r\n", end) else 1)
            out.append(UnitLine(line=index + 2 + len(out), start=base + start,
                                end=base + after, unit="",
                                text=clean(text[start:min(end, start + PROBE_CHARS)])))
            start = after
        return out

    def _remember(self, lo: int, hi: int) -> None:
        """Keep the end of ``text[lo:hi]`` (whole lines) for the units of the next pieces,
        and forget what is now too far back for any."""
        if hi <= lo:
            return
        start = max(lo, hi - ABOVE_CHARS)
        whole = start == lo or self._text[start - 1] in "\r\n"
        self._prior.appendleft(_Tail(self._text[start:hi], self._base + start,
                                     self._line_index, whole))
        floor = self._base + hi - ABOVE_CHARS
        while len(self._prior) > 1 and _end_of(self._prior[-1]) <= floor:
            self._prior.pop()

    def _feed_waiting(self, pos: int, index: int) -> None:
        """The lines from *pos* in the piece being scanned (the first below line *index*,
        0-based) are below the matches waiting."""
        need = max(w.need - len(w.below) for w in self._waiting)
        if need <= 0:
            return
        lines = self._lines_below(pos, index, need)
        for waiting in self._waiting:
            missing = waiting.need - len(waiting.below)
            if missing > 0:
                waiting.below.extend(lines[:missing])

    def _release(self) -> None:
        """Emit, in order, the waiting matches whose lines are all there (all at the end)."""
        done = 0
        for waiting in self._waiting:
            if len(waiting.below) < waiting.need and not self._final:
                break
            self._emit(self._finish(waiting))
            done += 1
        if done:
            del self._waiting[:done]

    def _finish(self, waiting: _Waiting) -> Highlight:
        hit = waiting.hit
        above: list[UnitLine] = []
        below: list[UnitLine] = []
        for unit in self._matcher.units.get(hit.name, ()) if waiting.need or waiting.above \
                else ():
            view = UnitLines(line=hit.probe,
                             above=tuple(u.text for u in waiting.above[:unit.above]),
                             below=tuple(u.text for u in waiting.below[:unit.below]))
            try:
                offsets = unit.offsets(view)
            except Exception as exc:
                if unit.name not in self._failed_units:
                    self._failed_units.add(unit.name)
                    log.warning("salient unit %r raised %s; it adds no lines",
                                unit.name, type(exc).__name__)
                continue
            for offset in offsets:
                if offset < 0:
                    above.append(attrs.evolve(waiting.above[-offset - 1], unit=unit.name))
                else:
                    below.append(attrs.evolve(waiting.below[offset - 1], unit=unit.name))
        return Highlight(line=waiting.index + 1, start=waiting.start, end=waiting.after,
                         pattern=hit.name, rank=hit.rank, text=hit.text, key=hit.key,
                         above=_unique(above), below=_unique(below))

    # -- keeping -----------------------------------------------------------------------------

    def _emit(self, item: Highlight) -> None:
        if item.start < self._window:
            self._head.append(item)
            return
        self._recent.append(item)
        # Matches ending before the last `window` characters seen end before the final tail
        # window too: they join their group's count (and its first members).
        cutoff = self._offset - self._window
        recent = self._recent
        while recent and recent[0].end <= cutoff:
            self._aggregate(recent.popleft())

    def _aggregate(self, item: Highlight) -> None:
        group = self._groups.get(item.key)
        if group is None:
            self._overflow += 1
            return
        group.count += 1
        if len(group.members) < self._keep:
            group.members.append(item)

    def pools(self, region: Omission, total: int) -> Pools:
        """What selection needs for *region* of the finished stream of *total* characters."""
        tail_from = total - self._window
        keep = self._keep
        counts: dict[str, int] = {}
        members: dict[str, list[Highlight]] = {}
        ranks: dict[str, int] = {}
        found = self._overflow

        def add(item: Highlight) -> None:
            key = item.key
            counts[key] = counts.get(key, 0) + 1
            ranks.setdefault(key, item.rank)
            kept = members.setdefault(key, [])
            if len(kept) < keep:
                kept.append(item)

        for item in self._head:
            if item.inside(region):
                add(item)
        for key, group in self._groups.items():
            if group.count:
                counts[key] = counts.get(key, 0) + group.count
                ranks.setdefault(key, group.rank)
                kept = members.setdefault(key, [])
                kept.extend(group.members[:keep - len(kept)])
        for item in self._recent:
            in_tail = item.end > tail_from
            if in_tail and not item.inside(region):
                continue
            if item.key in self._groups:
                add(item)
            else:
                found += 1
        found += sum(counts.values())
        groups = tuple(Pool(key=key, rank=ranks[key], count=counts[key],
                            members=tuple(sorted(members[key], key=lambda h: h.line)))
                       for key in counts)
        return Pools(groups=groups, found=found)


def _end_of(earlier: _Tail | UnitLine) -> int:
    return earlier.end


def _unique(lines: list[UnitLine]) -> tuple[UnitLine, ...]:
    seen: dict[int, UnitLine] = {}
    for line in lines:
        seen.setdefault(line.line, line)
    return tuple(seen[n] for n in sorted(seen))
