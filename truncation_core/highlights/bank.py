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
from typing import TYPE_CHECKING, NamedTuple

import attrs

from truncation_core.errors import log
from truncation_core.highlights.lines import clean
from truncation_core.highlights.patterns import PROBE_CHARS, Hit, Matcher, scan_lines
from truncation_core.highlights.records import RECORD_CHARS
from truncation_core.text.measure import count_terminators
from truncation_core.text.terminal import ESC
from truncation_core.types.salient import UnitLines

if TYPE_CHECKING:
    from truncation_core.types.cuts import Omission

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
#: The most distinct short lines whose match is remembered while scanning one text or
#: stream (at most PROBE_CHARS characters each: some 2 MB at worst).
_KNOWN_LINES = 2048
_UNKNOWN = Hit("", 0, "", "", "")
#: What a line that may be a record starts with (see :meth:`Matcher.wants_whole`).
_RECORD_START = frozenset("{ \t")


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
    #: :func:`truncation_core.types.resume.artifact_line`).
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


class _Line(NamedTuple):
    """A line near a match, before any unit keeps it (a :class:`UnitLine` once one does): a
    tuple, as there are many more of these than of lines kept."""

    line: int
    start: int
    end: int
    text: str


def _kept(line: _Line, unit: str) -> UnitLine:
    return UnitLine(line=line.line, start=line.start, end=line.end, unit=unit, text=line.text)


class _Pending(NamedTuple):
    """A match of a text fed whole, before selection asks for it (then it becomes a
    :class:`Highlight`): what keeping and grouping it needs, and what its units need."""

    line: int
    start: int
    end: int
    rank: int
    key: str
    hit: Hit
    #: Where the line starts and ends in the text; how many lines above and below its units
    #: look at (none when they do not run for it).
    local_start: int
    local_after: int
    reach_up: int
    need: int

    def inside(self, region: Omission) -> bool:
        return region.start <= self.start and self.end <= region.end


class _Group:
    """A group's matches outside both windows (which every cut omits), and how many of its
    matches outside the first window were seen (the first ``keep`` get their units)."""

    __slots__ = ("count", "members", "rank", "seen")

    def __init__(self, rank: int) -> None:
        self.rank = rank
        self.seen = 0
        self.count = 0
        self.members: list[Highlight | _Pending] = []


class _Waiting:
    """A match whose units need lines below it that have not arrived yet."""

    __slots__ = ("above", "after", "below", "hit", "index", "need", "start")

    def __init__(self, hit: Hit, index: int, start: int, after: int,
                 above: list[_Line], below: list[_Line], need: int) -> None:
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

    def lines(self, after: int, most: int) -> list[_Line]:
        """Up to *most* of its whole lines, nearest first, starting at *after* or later."""
        text = self.text
        lo = 0 if self.whole_first else min(len(text), max(text.find("\n"), text.find("\r"),
                                                            -1) + 1)
        return _lines_up(text, lo, len(text), self.base, self.last_line, most,
                         floor=after - self.base)


def _lines_up(text: str, lo: int, pos: int, base: int, number: int, most: int,
              floor: int = 0) -> list[_Line]:
    """Up to *most* whole lines of ``text[lo:pos]`` (*pos* a line start), nearest first,
    starting at *floor* or later; the nearest is line *number*."""
    floor = max(floor, lo)
    if most <= 0 or pos <= floor:
        return []
    spans: list[tuple[int, int, int]] = []  # start, content end, end: nearest first
    if text.find("\r", max(lo, floor - 1), pos) == -1:
        # Lines ending with "\n" only: the nearest ones split off at once, in C.
        stop = pos - 1 if text[pos - 1] == "\n" else pos
        # Lines are short, mostly: look in a few hundred characters each before taking all
        # that may hold them (up to ABOVE_CHARS).
        near = max(floor, stop - most * 160)
        parts = text[near:stop].rsplit("\n", most)
        if len(parts) <= most and near > floor:
            parts = text[floor:stop].rsplit("\n", most)
        if len(parts) > most or (floor > lo and text[floor - 1] != "\n"):
            del parts[0]  # what is left above them, or a line that starts above floor
        end = pos
        for part in reversed(parts):
            start = stop - len(part)
            spans.append((start, stop, end))
            end, stop = start, start - 1
    else:
        rfind, end = text.rfind, pos
        while len(spans) < most and end > floor:
            stop = _content_end(text, end, lo)
            start = max(rfind("\n", lo, stop), rfind("\r", lo, stop), lo - 1) + 1
            if start < floor:
                break
            spans.append((start, stop, end))
            end = start
    texts = _cleaned([text[start:min(stop, start + PROBE_CHARS)] for start, stop, _ in spans])
    return [_Line(number - k, base + start, base + end, shown)
            for k, ((start, _, end), shown) in enumerate(zip(spans, texts, strict=True))]


def _lines_down(text: str, pos: int, hi: int, base: int, number: int, most: int, *,
                cr: bool) -> list[_Line]:
    """Up to *most* complete lines of ``text[pos:hi]`` (*pos* a line start), the first of
    which is line *number*; *cr*: whether the text may hold a ``"\\r"``."""
    spans: list[tuple[int, int, int]] = []  # start, content end, end
    find, start = text.find, pos
    while len(spans) < most and start < hi:
        nl = find("\n", start, hi)
        end = find("\r", start, nl if nl >= 0 else hi) if cr else -1
        if end < 0:
            end = nl
        if end < 0:
            end = after = hi
        else:
            after = end + (2 if cr and text.startswith("\r\n", end) else 1)
        spans.append((start, end, after))
        start = after
    texts = _cleaned([text[start:min(end, start + PROBE_CHARS)] for start, end, _ in spans])
    return [_Line(number + k, base + start, base + after, shown) for k, ((start, _, after),
            shown) in enumerate(zip(spans, texts, strict=True))]


def _cleaned(texts: list[str]) -> list[str]:
    """Each of *texts* (lines' contents) :func:`clean`, with one pass for them all: no
    sequence :func:`clean` removes holds a line terminator, so joined by ``"\\n"`` they clean
    to the same lines."""
    joined = "\n".join(texts)
    if joined.find(ESC) == -1:
        return texts
    return clean(joined).split("\n")


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
        self._head: list[Highlight | _Pending] = []
        self._recent: deque[Highlight | _Pending] = deque()
        self._groups: dict[str, _Group] = {}
        self._per_rank: dict[int, int] = {}
        self._overflow = 0
        #: What came before the piece being scanned, nearest first, for the units of its
        #: first lines: the tails of earlier pieces and the lines completed between them.
        self._prior: deque[_Tail | _Line] = deque()
        self._terminators: int | None = None  # the caller's count, for the batch
        self._waiting: list[_Waiting] = []
        self._failed_units: set[str] = set()
        # The piece being scanned: its text, where it starts in the whole, and its end.
        self._text = ""
        self._base = 0
        self._lo = 0
        self._hi = 0
        self._final = False
        self._has_cr: bool | None = None
        #: What the short lines seen so far matched, by their text (at most _KNOWN_LINES).
        self._known: dict[str, Hit | None] = {}
        #: The short lines whose group has all the members it can show: only counted.
        self._full: dict[str, _Group] = {}
        self._records = bool(matcher.records)
        #: The text, when it was fed whole at once (process()): then a match is kept as a
        #: _Pending, and its units run only when :meth:`pools` gives it (most matches in
        #: the windows never are); those it gave, by their start.
        self._whole: str | None = None
        self._resolved_at: dict[int, Highlight] = {}
        #: Whether that text holds a "\r", looked for once (a search of the whole text for
        #: each match resolved took seconds on 10 MB).
        self._whole_has_cr: bool | None = None

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
            if final and not self._offset and not self._batched:
                self._whole = text
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
        # A character is 1 to 4 bytes: text that is not ASCII (mostly ASCII, as a rule) is
        # tried with a little more room than ASCII needs, then with all it may need.
        for room in ((ABOVE_CHARS + 1,) if chars == len(raw)
                     else ((ABOVE_CHARS + 1) * 5 // 4, 4 * (ABOVE_CHARS + 1))):
            suffix = raw.rfind(b"\n", 0, max(0, cut - room)) + 1
            tail = raw[suffix:].decode("utf-8")
            if suffix == 0 or tail.rfind("\n") >= ABOVE_CHARS:
                break
        # The prefix ends the pending line, and the lines waiting matches may still need.
        prefix = 0
        for _ in range(self._matcher.below + 2):
            prefix = raw.find(b"\n", prefix) + 1
            if prefix == 0:
                return False
        if prefix >= suffix:
            return False
        head = raw[:prefix].decode("utf-8")
        # No keyword occurs in the piece: its complete lines need no search (the line the
        # head completes is matched whole, from what was held of it).
        self._scan(head, searched=False)
        skipped = chars - len(head) - len(tail)
        self._offset += skipped
        self._line_start = self._offset
        # (The lines skipped are no match's lines below: the prefix gave those. The piece
        # holds no "\r": its terminators are its "\n".)
        self._line_index = terminators - raw.count(b"\n", suffix)
        self._scan(tail, terminators=terminators, searched=False)
        return True

    def _flush(self) -> None:
        if self._batch:
            text = "".join(self._batch)
            self._batch, self._batched = [], 0
            self._scan(text, terminators=self._terminators)

    def _scan(self, text: str, final: bool = False, raw: bytes | None = None,
              terminators: int | None = None, searched: bool = True) -> None:
        """Take *text*, the next piece (*raw*: its UTF-8 bytes, if at hand); *searched*
        False when no keyword occurs in it, so that its complete lines need no search."""
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
        self._has_cr = None  # whether the piece holds a "\r": found when needed
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
        if searched:
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
        line = _Line(index + 1, start, self._base + after, clean(held[:PROBE_CHARS]))
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
        text, base, length = self._text, self._base, end - start
        if length <= PROBE_CHARS:
            line = text[start:end]
            if self._records and line[:1] in _RECORD_START and self._matcher.wants_whole(line):
                hit = self._matcher.match(line, length)
            else:
                # A short line that is no record: what it matches depends on its text
                # alone, and logs repeat lines (warnings per unit, retries, progress).
                group = self._full.get(line)
                if group is not None and self._only_counted(base + start, base + after):
                    group.seen += 1  # as _matched would, without classifying it again
                    group.count += 1
                    return
                known = self._known
                hit = known.get(line, _UNKNOWN)
                if hit is _UNKNOWN:
                    hit = self._matcher.match(line, length)
                    if len(known) < _KNOWN_LINES:
                        known[line] = hit
                if hit is not None:
                    self._matched(hit, index, base + start, base + after, local=(start, after))
                    group = self._groups.get(hit.key)
                    if group is not None and group.seen > self._keep and \
                            len(group.members) >= self._keep and len(self._full) < \
                            _KNOWN_LINES and hit.name not in self._matcher.headers:
                        self._full[line] = group  # counted from now on (see _matched)
                return
        elif self._records and length <= RECORD_CHARS and text[start:start + 1] in \
                _RECORD_START and self._matcher.wants_whole(text[start:start + PROBE_CHARS]):
            hit = self._matcher.match(text[start:end], length)
        else:
            hit = self._matcher.match(text[start:start + PROBE_CHARS], length)
        if hit is not None:
            self._matched(hit, index, base + start, base + after, local=(start, after))

    def _only_counted(self, start: int, after: int) -> bool:
        """Whether a match ``[start, after)`` of a group that has all the members it can
        show need only be counted: it lies outside both windows, and no recent match or
        match waiting for lines below may take it as a line of its units."""
        return (start >= self._window and after <= self._offset - self._window
                and not self._recent and not self._waiting)

    def _matched(self, hit: Hit, index: int, start: int, after: int,
                 local: tuple[int | None, int]) -> None:
        """Note a match at line *index* (0-based), ``[start, after)`` in the whole; *local*
        is where it starts and ends in the piece being scanned (it starts in an earlier piece
        when that is None)."""
        if hit.name not in self._matcher.headers and self._only_counted(start, after):
            group = self._groups.get(hit.key)
            if group is not None and group.seen >= self._keep and \
                    len(group.members) >= self._keep:
                # The commonest case in a log dense with matches, first: outside both
                # windows, and its group has all the members it can show (as below).
                group.seen += 1
                group.count += 1
                return
        units = self._matcher.units.get(hit.name, ())
        reach_up = max((u.above for u in units), default=0)
        first_below: list[_Line] = []
        if hit.name in self._matcher.headers:  # the salient line is the one above
            found = self._above(local[0], index, 1 + reach_up)
            headed = self._matcher.headed(hit, found[0].text) if found else None
            if headed is None:
                return
            first_below = [_Line(index + 1, start, after, hit.probe)]
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
        if self._whole is not None and local[0] is not None and above_found is None and \
                not self._waiting:
            # The whole text is at hand: the match becomes a Highlight, and its units run,
            # only if selection asks for it.
            units_run = bool(units) and resolve
            self._emit(_Pending(index + 1, start, after, hit.rank, hit.key, hit, local[0],
                                local[1], reach_up if units_run else 0,
                                max(u.below for u in units) if units_run else 0))
            return
        above: list[_Line] = []
        below: list[_Line] = []
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

    def _above(self, pos: int | None, index: int, most: int) -> list[_Line]:
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
            if isinstance(earlier, _Line):
                if earlier.start < floor:
                    break
                found.append(earlier)
            else:
                found.extend(earlier.lines(floor, most - len(found)))
                if earlier.base > floor and not earlier.whole_first:
                    break  # the line before its first whole one is not all there
        return found

    def _lines_below(self, pos: int, index: int, most: int) -> list[_Line]:
        """Up to *most* complete lines from *pos* in the piece being scanned, the first of
        which is below line *index* (0-based)."""
        if self._has_cr is None:
            self._has_cr = self._text.find("\r") != -1
        return _lines_down(self._text, pos, len(self._text) if self._final else self._hi,
                           self._base, index + 2, most, cr=self._has_cr)

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
                    above.append(_kept(waiting.above[-offset - 1], unit.name))
                else:
                    below.append(_kept(waiting.below[offset - 1], unit.name))
        return Highlight(line=waiting.index + 1, start=waiting.start, end=waiting.after,
                         pattern=hit.name, rank=hit.rank, text=hit.text, key=hit.key,
                         above=_unique(above), below=_unique(below))

    # -- keeping -----------------------------------------------------------------------------

    def _emit(self, item: Highlight | _Pending) -> None:
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

    def _aggregate(self, item: Highlight | _Pending) -> None:
        group = self._groups.get(item.key)
        if group is None:
            self._overflow += 1
            return
        group.count += 1
        if len(group.members) < self._keep:
            group.members.append(item)

    def _resolved(self, item: Highlight | _Pending) -> Highlight:
        """*item* as a Highlight, with the lines its units keep, if it was put off."""
        if isinstance(item, Highlight):
            return item
        done = self._resolved_at.get(item.start)
        if done is not None:
            return done
        text, index, pos = self._whole, item.line - 1, item.local_start
        assert text is not None
        above = _lines_up(text, 0, pos, 0, index, item.reach_up, floor=pos - ABOVE_CHARS)
        if self._whole_has_cr is None:
            self._whole_has_cr = text.find("\r") != -1
        below = _lines_down(text, item.local_after, len(text), 0, index + 2, item.need,
                            cr=self._whole_has_cr)
        done = self._finish(_Waiting(item.hit, index, item.start, item.end, above, below,
                                     item.need))
        self._resolved_at[item.start] = done
        return done

    def pools(self, region: Omission, total: int) -> Pools:
        """What selection needs for *region* of the finished stream of *total* characters."""
        tail_from = total - self._window
        keep = self._keep
        counts: dict[str, int] = {}
        members: dict[str, list[Highlight | _Pending]] = {}
        ranks: dict[str, int] = {}
        found = self._overflow

        def add(item: Highlight | _Pending) -> None:
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
        resolved = self._resolved
        groups = tuple(Pool(key=key, rank=ranks[key], count=counts[key],
                            members=tuple(sorted(map(resolved, members[key]),
                                                 key=lambda h: h.line)))
                       for key in counts)
        return Pools(groups=groups, found=found)


def _end_of(earlier: _Tail | _Line) -> int:
    return earlier.end


def _unique(lines: list[UnitLine]) -> tuple[UnitLine, ...]:
    seen: dict[int, UnitLine] = {}
    for line in lines:
        seen.setdefault(line.line, line)
    return tuple(seen[n] for n in sorted(seen))
