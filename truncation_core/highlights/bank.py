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

import functools
import itertools
from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple, overload

import attrs

from truncation_core.errors import log
from truncation_core.highlights.lines import clean, clip
from truncation_core.highlights.patterns import LINE_CHARS, PROBE_CHARS, Hit, Matcher, scan_lines
from truncation_core.highlights.records import RECORD_CHARS
from truncation_core.text.measure import count_terminators
from truncation_core.text.terminal import ESC
from truncation_core.types.salient import UnitLines

if TYPE_CHECKING:
    from truncation_core.types.cuts import Omission

__all__ = ["ABOVE_CHARS", "DENSE_MATCHES", "MAX_GROUPS", "RARE_LINES", "Highlight", "Pool",
           "Pools", "StreamHighlights", "UnitLine"]


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
#: The most shapes of short lines (:meth:`Matcher.shape`) whose match is remembered while
#: scanning one text or stream (at most PROBE_CHARS characters each: some 4 MB at worst).
_SHAPES = 4096
_UNKNOWN = Hit("", 0, "", "", "")
#: Matches classified one by one, in line order, before a text or stream this dense with
#: matches is counted instead: from then on, a line holding a keyword is classified only
#: while it holds one that fewer than :data:`RARE_LINES` lines have held since; the others
#: are counted, each as a matching line in no group (see :class:`StreamHighlights`). At
#: most some 0.2 s of classifying a build log of 2,000 kinds of warning on a busy 2-CPU
#: machine (a stream runs the units of each group's first members as it goes:
#: ``bench/bench_density.py``); more than twice the matches of any output in
#: ``tests/corpus``.
DENSE_MATCHES = 2048
#: Lines classified per keyword once counting began (a rare kind of line among many is
#: still found: a linker's error among 100,000 warnings).
RARE_LINES = 16
#: Bytes of a piece counted at a time (see :meth:`StreamHighlights._count_lines`): from the
#: first, doubling up to the most.
_FIRST_COUNT_BYTES = 1 << 16
_COUNT_BYTES = 1 << 20
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
    #: The first of them (at most as many as a block can show), in line order; the lines
    #: their units keep are found when a member is first asked for.
    members: Sequence[Highlight]
    #: The line of the first of them.
    first: int
    #: Whether lines counted without being classified may be of the group (see
    #: :data:`DENSE_MATCHES`): then it has at least *count* matches, maybe more.
    more: bool = False


@attrs.frozen(kw_only=True)
class Pools:
    """The matches of an omitted region, by group (in the order groups first appear)."""

    groups: tuple[Pool, ...]
    #: Every match in the region, those of groups over :data:`MAX_GROUPS` included, and the
    #: lines counted without being classified.
    found: int
    #: Lines of the region counted without being classified (see :data:`DENSE_MATCHES`):
    #: when there are any, a group may have more lines than its count.
    counted: int = 0


class _Members(Sequence[Highlight]):
    """A group's first members, each made a :class:`Highlight` (its units run) when it is
    first asked for: selection asks for a few of them, of a few groups."""

    __slots__ = ("_items", "_resolve")

    def __init__(self, items: list[Highlight | _Pending],
                 resolve: Callable[[Highlight | _Pending], Highlight]) -> None:
        self._items, self._resolve = items, resolve

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> Highlight: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Highlight]: ...

    def __getitem__(self, index: int | slice) -> Highlight | Sequence[Highlight]:
        if isinstance(index, slice):
            return [self._resolve(item) for item in self._items[index]]
        return self._resolve(self._items[index])


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


class _Tallied(NamedTuple):
    """Lines of a dense text counted without being classified that may end in the last
    window (where a cut may keep them or not): how many, and where the last of them ends.
    Where each starts and ends is found only if ever needed (most are soon outside both
    windows, and only counted)."""

    end: int
    lines: int
    spans: Callable[[], list[tuple[int, int]]]


class _Group:
    """A group's matches outside both windows (which every cut omits), and how many of its
    matches outside the first window were seen (the first ``keep`` get their units)."""

    __slots__ = ("count", "keywords", "members", "rank", "seen")

    def __init__(self, rank: int, keywords: tuple[str, ...]) -> None:
        self.rank = rank
        self.seen = 0
        self.count = 0
        self.members: list[Highlight | _Pending] = []
        #: The keywords its first line holds (see :meth:`StreamHighlights._more`).
        self.keywords = keywords


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
    if not cr and most > 0 and pos < hi:
        # Lines ending with "\n" only: split off at once, in C, from a few hundred
        # characters each (all that may hold them when they are longer).
        parts = text[pos:min(hi, pos + most * 160)].split("\n", most)
        if len(parts) <= most and pos + most * 160 < hi:
            parts = text[pos:hi].split("\n", most)
        if len(parts) > most or (parts and not parts[-1]):
            del parts[-1]  # what follows them, or nothing after the last "\n"
        start = pos
        for part in parts:
            end = start + len(part)
            after = min(end + 1, hi)
            spans.append((start, end, after))
            start = after
    find, start = text.find, pos if not spans else hi
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

    A text this dense with matches stops classifying every line after *dense* matches
    (:data:`DENSE_MATCHES`), so that its cost stays linear and small: from then on, a line
    is classified only while it holds a keyword that fewer than *rare* lines
    (:data:`RARE_LINES`) have held since, and the other lines holding a keyword in their
    first :data:`PROBE_CHARS` characters (as they are: escapes not removed) are counted, as
    matching lines of no group. Which lines are counted depends on the lines before them
    only, so that too is the same for ``process`` and streams.
    """

    def __init__(self, matcher: Matcher, *, keep: int, window: int, dense: int | None = None,
                 rare: int | None = None) -> None:
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
        # Dense texts (see DENSE_MATCHES): matches so far, whether lines are counted now, the
        # lines classified per keyword since, and the lines counted outside both windows.
        self._matches = 0
        self._dense = DENSE_MATCHES if dense is None else dense
        self._rare = RARE_LINES if rare is None else rare
        self._counting = False
        self._taken: dict[str, int] = {}
        self._commons = 0  # keywords no longer rare
        self._counted = 0
        # Lines counted where a cut may keep them or not: in the first window, (start, end);
        # in the last window of what was fed, tallied piece by piece.
        self._counted_head: list[tuple[int, int]] = []
        self._tallied: deque[_Tallied] = deque()
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
        #: What the short lines seen so far matched, by their shape (at most _SHAPES).
        self._shapes: dict[bytes | str, Hit | None] = {}
        self._records = bool(matcher.records)
        #: The text, when it was fed whole at once (process()): then a match is kept as a
        #: _Pending, and its units run only when :meth:`pools` gives it (most matches in
        #: the windows never are); those it gave, by their start.
        self._whole: str | None = None
        self._whole_cr: bool | None = None  # whether it holds a "\r": found when needed
        self._resolved_at: dict[int, Highlight] = {}

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
        count. Once the stream is dense (see :data:`DENSE_MATCHES`), likewise when no rare
        keyword occurs between its first lines and its last :attr:`_window` characters: the
        lines between that hold a keyword are counted, found in the bytes. False, having
        taken nothing, when a keyword occurs (or the engine cannot tell without the text, or
        the piece is too short to gain): feed the text then.

        The result is the same as :meth:`feed` of the text: a piece's lines are found the
        same however the stream is cut into pieces, and the lines skipped hold no keyword
        (or would be counted, outside both windows)."""
        if len(raw) < _SKIM_BYTES:
            return False
        self._flush()
        if self._held_cr:
            return False
        plain = self._engine.occurs(raw) is False
        if not plain and not (self._counting and self._offset >= self._window):
            return False
        # The suffix starts at a line start, more than ABOVE_CHARS characters before its last
        # line end, so that what it leaves remembered is what the whole piece would; when
        # counting, more than a window before it, so that the lines between lie outside both.
        reach = ABOVE_CHARS if plain else max(ABOVE_CHARS, self._window)
        cut = raw.rfind(b"\n") + 1
        # A character is 1 to 4 bytes: text that is not ASCII (mostly ASCII, as a rule) is
        # tried with a little more room than ASCII needs, then with all it may need.
        for room in ((reach + 1,) if chars == len(raw)
                     else ((reach + 1) * 5 // 4, 4 * (reach + 1))):
            suffix = raw.rfind(b"\n", 0, max(0, cut - room)) + 1
            tail = raw[suffix:].decode("utf-8")
            if suffix == 0 or tail.rfind("\n") >= reach:
                break
        # The prefix ends the pending line, and the lines waiting matches may still need.
        prefix = 0
        for _ in range(self._matcher.below + 2):
            prefix = raw.find(b"\n", prefix) + 1
            if prefix == 0:
                return False
        if prefix >= suffix:
            return False
        if not plain:
            taken, most = self._taken, self._rare
            found = self._engine.count_lines(
                raw[prefix:suffix], tuple(k for k in self._matcher.keywords
                                          if taken.get(k, 0) >= most),
                tuple(k for k in self._matcher.keywords if taken.get(k, 0) < most))
            if found is None:  # a long line, a rare keyword...: read it all
                return False
            self._counted += found  # (each line between holding a keyword)
        head = raw[:prefix].decode("utf-8")
        # No keyword occurs in the piece: its complete lines need no search (the line the
        # head completes is matched whole, from what was held of it).
        self._scan(head, searched=not plain)
        skipped = chars - len(head) - len(tail)
        self._offset += skipped
        self._line_start = self._offset
        # (The lines skipped are no match's lines below: the prefix gave those. The piece
        # holds no "\r": its terminators are its "\n".)
        self._line_index = terminators - raw.count(b"\n", suffix)
        self._scan(tail, terminators=terminators, searched=not plain)
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
            self._search(text, lo, cut, raw)
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
        takes = self._takes(held[:PROBE_CHARS]) if self._counting else True
        if takes:
            hit = self._matcher.match(held, self._pending_len)
            if hit is not None:
                self._matched(hit, index, start, line.end, local=(None, after))
        elif takes is False:
            self._count(start, line.end)
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

    def _search(self, text: str, lo: int, hi: int, raw: bytes | None) -> None:
        """Visit the lines of ``text[lo:hi]`` that hold a literal the engine looks for
        (:func:`scan_lines`): line by line until the text is dense (:data:`DENSE_MATCHES`),
        then counted; where its lines all end with ``"\\n"`` (most text), in a few steps of C
        each (whether one ends with ``"\\r"`` is asked only once a literal is found: a pass
        over the text where none is, most text too)."""
        pos, index = lo, self._line_index
        if not self._counting:
            batches = iter(self._engine.batches(text, lo, hi, raw))
            first = next((found for found in batches if found), None)
            if first is None:
                return
            if text.find("\r", lo, hi) != -1:
                scan_lines(self._engine, text, lo, hi, line_index=index, visit=self._visit,
                           raw=raw)
                return
            pos, index = self._lf_lines(text, lo, hi, itertools.chain([first], batches),
                                        index)
        if pos >= hi:
            return
        if text.find("\r", pos, hi) == -1:
            self._count_lines(text, pos, hi, index)
        else:  # (dense: each line as _visit decides)
            scan_lines(self._engine, text, pos, hi, line_index=index, visit=self._visit,
                       raw=None)

    def _lf_lines(self, text: str, lo: int, hi: int, batches: Iterable[list[int]],
                  index: int) -> tuple[int, int]:
        """Visit the lines of ``text[lo:hi]`` (ending with ``"\\n"``; the first is line
        *index*, 0-based) that hold a literal the engine looks for (*batches*: where the
        engine found them, :meth:`_HyperscanEngine.batches`), in order, with the
        commonest visit in a log dense with matches done here, in a few steps of C: a line
        whose shape is known (:meth:`_hit`), whose group has all the members it can show,
        outside both windows, is only counted (as :meth:`_matched` would count it). Stops
        after the line that makes the text dense: returns where the next line starts, and
        its index."""
        find, rfind, count = text.find, text.rfind, text.count
        shapes, shape_of, groups = self._shapes, self._matcher.shape, self._groups
        headers, keep, records, visit = self._matcher.headers, self._keep, self._records, \
            self._visit
        counting = self._counting
        # Where a line must start, and end by, to lie outside both windows (in the piece).
        first = self._window - self._base
        last = self._offset - self._window - self._base
        pos = counted = lo
        for found in batches:
            k, n = 0, len(found)
            while k < n:
                i = found[k]
                if i < pos:  # in a line visited already
                    k = bisect_left(found, pos, k + 1)
                    continue
                k += 1
                start = rfind("\n", pos, i) + 1 or pos
                end = find("\n", i, hi)
                if end < 0:
                    end = after = hi
                else:
                    after = end + 1
                index += count("\n", counted, start)
                counted = start
                pos = after
                if not counting and start >= first and after <= last and \
                        end - start <= PROBE_CHARS and not self._recent and \
                        not self._waiting and not (records and text[start] in _RECORD_START):
                    hit = shapes.get(shape_of(text[start:end]))
                    if hit is not None and hit.name not in headers:
                        group = groups.get(hit.key)
                        if group is not None and group.seen >= keep and \
                                len(group.members) >= keep:
                            group.seen += 1
                            group.count += 1
                            self._one_more()
                            if self._counting:
                                return pos, index + 1
                            continue
                visit(index, start, end, after)
                if self._counting and not counting:
                    return pos, index + 1
        return hi, index

    def _count_lines(self, text: str, lo: int, hi: int, index: int) -> None:
        """The lines of ``text[lo:hi]`` (ending with ``"\\n"``; the first is line *index*)
        of a dense text: with Hyperscan, a piece at a time, the lines holding a keyword are
        found in one pass, and only those holding a keyword still rare, or lying near either
        window, are visited (each as :meth:`_visit` decides); the others are counted at once.
        When a keyword stops being rare, the rest of the piece is scanned again (pieces start
        small, :data:`_FIRST_COUNT_BYTES`, and double). Without Hyperscan, or where a line
        is longer than :data:`PROBE_CHARS` bytes, every line holding a literal is visited."""
        keywords, taken, rare_lines = self._matcher.keywords, self._taken, self._rare
        first = self._window - self._base  # (as in _lf_lines)
        last = self._offset - self._window - self._base
        visit, rfind, count = self._visit, text.rfind, text.count
        a, size = lo, _FIRST_COUNT_BYTES
        while a < hi:
            b = text.find("\n", min(a + size, hi) - 1, hi) + 1 or hi
            size = min(2 * size, _COUNT_BYTES)
            data = text[a:b].encode("utf-8", "surrogatepass")
            rare = tuple(k for k in keywords if taken.get(k, 0) < rare_lines)
            found = self._engine.keyword_lines(data, rare)
            if found is None:
                self._lf_lines(text, a, b, self._engine.batches(text, a, b), index)
                index += count("\n", a, b)
                a = b
                continue
            ends, rare_ends = found
            plain = len(data) == b - a  # bytes and characters are one

            def at_byte(char: int, a: int = a, b: int = b, plain: bool = plain,
                        size: int = len(data)) -> int:
                if char <= a or char >= b:
                    return 0 if char <= a else size
                return char - a if plain else len(text[a:char].encode("utf-8", "surrogatepass"))

            # Lines to visit: those holding a rare keyword. Lines that may start in the first
            # window (and a line more) are counted one by one; lines that may end in the
            # last, tallied (see _Tallied); the others, counted at once.
            rare_at = set(map(bisect_left, [ends] * len(rare_ends), rare_ends))
            rare_at.discard(len(ends))
            heads = min(len(ends), bisect_left(ends, at_byte(first)) + 1)
            zone = max(heads, bisect_left(ends, at_byte(last)) - 1)
            tallied: list[int] = []

            def plainly(lo_j: int, hi_j: int, zone: int = zone, tallied: list[int] = tallied
                        ) -> None:
                """Lines *lo_j* to *hi_j* (excluded) of the piece's, neither rare nor first."""
                self._counted += max(0, min(hi_j, zone) - lo_j)
                tallied.extend(range(max(lo_j, zone), hi_j))

            commons = self._commons
            done_byte, done_char, counted, previous = 0, a, a, 0
            stop = b
            for j in sorted(rare_at.union(range(heads))):
                plainly(previous, j)
                previous = j + 1
                end_byte = ends[j]
                after = (a + end_byte if plain else done_char + len(
                    data[done_byte:end_byte].decode("utf-8", "surrogatepass")))
                done_byte, done_char = end_byte, after
                start = max(rfind("\n", a, after - 1) + 1, a)
                if j not in rare_at:  # (it holds no rare keyword: _visit would count it)
                    self._count(self._base + start, self._base + after)
                    continue
                index += count("\n", counted, start)
                counted = start
                visit(index, start, after - 1, after)
                if self._commons != commons:  # the rest, anew: fewer keywords are rare
                    stop = after
                    break
            else:
                plainly(previous, len(ends))
            if tallied:
                self._tally(_Tallied(self._base + stop, len(tallied), functools.partial(
                    _spans, data, [ends[j] for j in tallied], self._base + a, plain)))
            index += count("\n", counted, stop)
            if stop < b:
                a, size = stop, _FIRST_COUNT_BYTES
            else:
                a = b

    def _takes(self, probe: str) -> bool | None:
        """In a dense text: whether a line starting with *probe* (its first
        :data:`PROBE_CHARS` characters) is classified, as it holds a keyword still rare
        (True), or counted (False); None when it holds no keyword."""
        held = self._matcher.holds(probe)
        if not held:
            return None
        taken, rare = self._taken, self._rare
        if all(taken.get(k, 0) >= rare for k in held):
            return False
        for k in held:
            taken[k] = taken.get(k, 0) + 1
            if taken[k] == rare:
                self._commons += 1
        return True

    def _one_more(self) -> None:
        """One more match, in line order: once there are *dense* of them, lines are counted."""
        self._matches += 1
        if self._matches >= self._dense:
            self._counting = True

    def _visit(self, index: int, start: int, end: int, after: int) -> None:
        text, base, length = self._text, self._base, end - start
        if self._counting:
            takes = self._takes(text[start:min(end, start + PROBE_CHARS)])
            if not takes:
                if takes is False:
                    self._count(base + start, base + after)
                return
        if length <= PROBE_CHARS:
            line = text[start:end]
            if self._records and line[:1] in _RECORD_START and self._matcher.wants_whole(line):
                hit = self._matcher.match(line, length)
            else:
                hit = self._hit(line)
            if hit is not None:
                self._matched(hit, index, base + start, base + after, local=(start, after))
            return
        elif self._records and length <= RECORD_CHARS and text[start:start + 1] in \
                _RECORD_START and self._matcher.wants_whole(text[start:start + PROBE_CHARS]):
            hit = self._matcher.match(text[start:end], length)
        else:
            hit = self._matcher.match(text[start:start + PROBE_CHARS], length)
        if hit is not None:
            self._matched(hit, index, base + start, base + after, local=(start, after))

    def _hit(self, line: str) -> Hit | None:
        """What a short line that is no record matches: classified once per shape
        (:meth:`Matcher.shape`), as logs repeat what they say with other numbers and files
        (warnings per unit, retries, progress)."""
        shape = self._matcher.shape(line)
        hit = self._shapes.get(shape, _UNKNOWN)
        if hit is _UNKNOWN:
            hit = self._matcher.match(line, len(line))
            if len(self._shapes) < _SHAPES:
                self._shapes[shape] = hit
            return hit
        if hit is None or shape is line:  # (no match, or the very line)
            return hit
        # The line's own text, with its shape's pattern and group.
        return Hit(hit.name, hit.rank, clip(line, LINE_CHARS), hit.key, line)

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
                self._one_more()
                return
            if group is None and self._per_rank.get(hit.rank, 0) >= MAX_GROUPS:
                self._overflow += 1  # (a group that did not fit: as _aggregate would)
                self._one_more()
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
        self._one_more()
        resolve = start < self._window
        if not resolve:
            group = self._groups.get(hit.key)
            if group is None and self._per_rank.get(hit.rank, 0) < MAX_GROUPS:
                group = self._groups[hit.key] = _Group(hit.rank, self._matcher.holds(hit.probe))
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

    def _count(self, start: int, after: int) -> None:
        """Count the line ``[start, after)`` of a dense text, not classified: a matching
        line of no group (kept apart while a cut may keep it or not)."""
        if start < self._window:
            self._counted_head.append((start, after))
        elif after <= self._offset - self._window:
            self._counted += 1
        else:
            self._tally(_Tallied(after, 1, lambda: [(start, after)]))

    def _tally(self, tallied: _Tallied) -> None:
        """Keep *tallied*, and count those kept before that are now outside the last
        window of what was fed."""
        kept, cutoff = self._tallied, self._offset - self._window
        while kept and kept[0].end <= cutoff:
            self._counted += kept.popleft().lines
        kept.append(tallied)

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
        if self._whole_cr is None:
            self._whole_cr = text.find("\r") != -1
        above = _lines_up(text, 0, pos, 0, index, item.reach_up, floor=pos - ABOVE_CHARS)
        below = _lines_down(text, item.local_after, len(text), 0, index + 2, item.need,
                            cr=self._whole_cr)
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
        counted = self._counted

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
        counted += sum(region.start <= start and end <= region.end
                       for start, end in self._counted_head)
        for tallied in self._tallied:
            if tallied.end <= tail_from:
                counted += tallied.lines
            else:
                counted += sum(end <= tail_from or (region.start <= start and
                                                    end <= region.end)
                               for start, end in tallied.spans())
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
        found += sum(counts.values()) + counted
        groups = []
        for key in counts:
            items = sorted(members[key], key=_line_of)
            groups.append(Pool(key=key, rank=ranks[key], count=counts[key],
                               members=_Members(items, self._resolved),
                               first=items[0].line if items else 0,
                               more=counted > 0 and self._more(key, items)))
        return Pools(groups=tuple(groups), found=found, counted=counted)

    def _more(self, key: str, items: list[Highlight | _Pending]) -> bool:
        """Whether lines counted without being classified may be of group *key* (whose
        first members are *items*): unless its lines hold a keyword still rare, which every
        line holding it since counting began was classified for."""
        group = self._groups.get(key)
        if group is not None:
            held = group.keywords
        elif items:
            first = items[0]
            held = self._matcher.holds(first.hit.probe if isinstance(first, _Pending)
                                       else first.text)
        else:
            return True
        taken, rare = self._taken, self._rare
        return all(taken.get(k, 0) >= rare for k in held)


def _spans(data: bytes, ends: list[int], base: int, plain: bool) -> list[tuple[int, int]]:
    """Where the lines of *data* (UTF-8; ``"\\n"`` ends each) that end at the bytes *ends*
    start and end, in characters from *base* (*plain*: bytes and characters are one)."""
    spans = []
    done_byte, done_char = 0, base
    for end in ends:
        start = data.rfind(b"\n", 0, end - 1) + 1
        if plain:
            spans.append((base + start, base + end))
            continue
        first = done_char + len(data[done_byte:start].decode("utf-8", "surrogatepass"))
        done_byte = end
        done_char = first + len(data[start:end].decode("utf-8", "surrogatepass"))
        spans.append((first, done_char))
    return spans


def _line_of(item: Highlight | _Pending) -> int:
    return item.line


def _end_of(earlier: _Tail | _Line) -> int:
    return earlier.end


def _unique(lines: list[UnitLine]) -> tuple[UnitLine, ...]:
    seen: dict[int, UnitLine] = {}
    for line in lines:
        seen.setdefault(line.line, line)
    return tuple(seen[n] for n in sorted(seen))
