"""Salient lines: the lines that matter, lifted from the omitted part into a highlights block.

When a cut leaves out part of a tool result, lines such as an exception header, ``error:``,
``FAILED``, ``panic`` or a test summary may be in the part left out. The highlights block
shows them, each with its line number in the artifact (the number ``get_artifact`` takes),
right after the omission marker::

    ... [Beginning omitted: 9,870 lines / ...; get_artifact(...)] ...
    ... [highlights from the omitted part: 2 of 2 matching lines] ...
    line 129: Traceback (most recent call last):
    line 135: ValueError: invalid literal for int() with base 10: 'x'
    <the kept tail>

Definitions (the same for ``process`` and for streams, which is what makes them agree):

* Lines are those of :mod:`truncation_core.text.cut`. A line is a **candidate** only if it lies
  entirely inside the omitted region.
* Each line is matched on its **probe**: its first :data:`PROBE_CHARS` characters, without
  the terminator. A line matches a :class:`SalientPattern` when the probe contains one of the
  pattern's ``keywords`` and, if the pattern has a ``regex``, ``re.search`` finds it in the
  probe. The first matching pattern, in rank order, classifies the line.
* **Selection** is deterministic: patterns of rank 0 (test summaries, exit statuses) first,
  then rank 1 (error headers), and so on; within a rank, when there are more matches than
  room, the first half of the room goes to the earliest matches and the rest to the latest
  (the first failure and the last one). At most ``policy.highlights`` lines are shown, each
  clipped to :data:`LINE_CHARS`, and the block takes at most a quarter of the budget.
* The block counts against the budget: the content is cut again with the block's size taken
  off, and only lines still inside the (larger) omitted region are shown.
* Numbers address the artifact as stored: when it is itself cut (over ``max_artifact_size``),
  a line it keeps is shown with its number there, and a line it dropped is shown as not kept
  (``marker.highlight_not_kept``), with no number (:func:`truncation_core.pipeline.resume.artifact_line`).

Keywords are what keeps scanning fast: only lines holding one are classified (and run the
patterns' regular expressions), and those lines are found with ``str.find``, each literal
looked for by its rarest character first (see :class:`_LiteralSearch`): a character absent
from the text costs a memchr over it. Scanning still costs a few times a plain cut, which is
why highlights are on only for tools whose output is command output (see ``highlights`` in
docs/configuration.md).

Patterns come from the ``salient_patterns`` hook: the built-in plugin
(:mod:`truncation_core.builtins.salient`) gives generic ones, and plugins add their own per tool.
"""

from __future__ import annotations

import functools
import heapq
import re
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from truncation_core.hooks.models import Budget, Cut, Omission
from truncation_core.text.measure import count_terminators, measure

if TYPE_CHECKING:
    from truncation_core.config.model import MarkerConfig

__all__ = [
    "LINE_CHARS",
    "PROBE_CHARS",
    "Highlight",
    "Matcher",
    "SalientPattern",
    "StreamHighlights",
    "lift_highlights",
]

#: Characters of a line that patterns look at.
PROBE_CHARS = 512
#: Characters of a line shown in the block.
LINE_CHARS = 160
#: The most of the budget (in every limited unit) the block may take.
SHARE = 0.25
#: How many times a cut is redone when the block's counts grow with the omitted region.
_ATTEMPTS = 3
#: Pieces of a stream are scanned once this many characters have gathered.
_BATCH_CHARS = 64 * 1024


def _check_keywords(_inst: object, _attr: object, value: tuple[str, ...]) -> None:
    if not value:
        raise ValueError("keywords: at least one literal string is needed, so that lines can "
                         "be found without running the regex on every line")
    for keyword in value:
        if not isinstance(keyword, str) or not keyword:
            raise ValueError(f"keywords: expected non-empty strings, got {keyword!r}")
        if "\n" in keyword or "\r" in keyword:
            raise ValueError(f"keywords: {keyword!r} holds a line terminator; keywords match "
                             "inside one line")


def _check_regex(_inst: object, _attr: object, value: str | None) -> None:
    if value is not None:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"regex: not a valid regular expression: {exc}") from None


@attrs.frozen(kw_only=True)
class SalientPattern:
    """What makes a line worth lifting into the highlights block.

    A line matches when its probe contains one of *keywords* (literal, case-sensitive) and,
    if *regex* is given, :func:`re.search` finds *regex* in the probe. Write keywords as
    literal strings that every line you want contains (``"rror"`` catches both ``error`` and
    ``Error``); the regex then says precisely which of those lines you want.
    """

    #: A short name, shown in the metadata (``python-exception``, ``pytest-summary`` ...).
    name: str
    #: Literal strings, one of which every matching line contains.
    keywords: tuple[str, ...] = attrs.field(converter=tuple, validator=_check_keywords)
    #: A regular expression searched in lines that contain a keyword; None to take them all.
    regex: str | None = attrs.field(default=None, validator=_check_regex)
    #: 0 is shown first (summaries, exit statuses), then 1 (errors), 2 ...
    rank: int = 1


@attrs.frozen(kw_only=True)
class Highlight:
    """One line lifted from the omitted part."""

    #: 1-based line number in the original output. The block shows the artifact's number
    #: for it, which differs when the artifact is itself cut (see
    #: :func:`truncation_core.pipeline.resume.artifact_line`).
    line: int
    #: Character offsets of the line, terminator included, in the original.
    start: int
    end: int
    #: The pattern that matched, and its rank.
    pattern: str
    rank: int
    #: The line's text, clipped to :data:`LINE_CHARS` characters (content: not in the repr).
    text: str = attrs.field(repr=False)


class Matcher:
    """The patterns of one tool, compiled once."""

    def __init__(self, patterns: Iterable[SalientPattern]) -> None:
        ordered = sorted(patterns, key=lambda p: p.rank)  # stable: plugin order within a rank
        self.patterns = tuple(ordered)
        #: What scanning looks for: every line holding a keyword holds one of these.
        self.literals = _literals(frozenset(k for p in ordered for k in p.keywords))
        self._checks = [(p, p.keywords, re.compile(p.regex) if p.regex else None)
                        for p in ordered]

    def __bool__(self) -> bool:
        return bool(self.literals)

    def classify(self, probe: str) -> SalientPattern | None:
        contains = probe.__contains__
        for pattern, keywords, regex in self._checks:
            if any(map(contains, keywords)) and (regex is None or regex.search(probe)):
                return pattern
        return None

    def searches(self) -> list[_LiteralSearch]:
        """A search for each literal. A stream keeps its own from chunk to chunk, so that
        what they learn about the text (which characters are common in it) carries over."""
        return [_LiteralSearch(literal) for literal in self.literals]


# -- finding lines that hold a keyword ---------------------------------------------------------

#: Printable ASCII, from the rarest to the commonest in command output (measured over the
#: outputs in bench/corpus/); other characters count as rarer still. It decides only how a
#: literal is looked for, never what is found.
_BY_RARITY = ("$&?GHJQVXYZ\\j#MK*UT<`@zRLxC>!+^W|{}\"D'%;NOAIFSEP~Bvq=f/m89w[]5)(,67y4g3p0k"
              "hbca2d:.ol1u_-irsnte ")
_RARITY = {char: rank for rank, char in enumerate(_BY_RARITY)}
#: Characters ranked before this are under 0.1% of the characters of command output.
_RARE = _BY_RARITY.index("W")
#: How a search gives up a character that is common in the text after all: more false
#: occurrences than this, plus one per this many characters searched. A false occurrence
#: costs a step of Python (about 150 ns); str.find of a literal about 0.4 ns a character.
_FREE_MISSES = 8
_MISS_SPACING = 1024


def _rarity(char: str) -> int:
    return _RARITY.get(char, -1)


class _LiteralSearch:
    """Finds one literal in texts, looking for its rarest character first.

    ``str.find`` of one character is memchr (tens of GB/s); of a longer literal, 2 to 3 GB/s
    here. So the literal is looked for by one of its characters and checked around each
    occurrence of it, with the characters tried from the rarest in command output. A
    character that turns out to be common in this text (see :data:`_FREE_MISSES`) is given up
    for the next one, for good; once none is left, the literal itself is looked for.
    """

    __slots__ = ("_anchors", "_search", "literal")

    def __init__(self, literal: str) -> None:
        self.literal = literal
        #: (character, its index in the literal), rarest first; the ones not given up yet.
        self._anchors = [(char, literal.index(char)) for char in sorted(set(literal),
                                                                        key=_rarity)]
        self._search = re.compile(re.escape(literal)).search

    def first(self, text: str, pos: int, hi: int) -> int:
        """Where the first occurrence in ``text[pos:hi]`` starts, or -1."""
        literal, find = self.literal, text.find
        if pos + len(literal) > hi:  # (and stop, below, would be negative: from the end)
            return -1
        while self._anchors:
            char, at = self._anchors[0]
            stop = hi - len(literal) + at + 1  # the literal must end by hi
            i = find(char, pos + at, stop)
            misses = 0
            while i != -1:
                if text.startswith(literal, i - at):
                    return i - at
                misses += 1
                if misses > _FREE_MISSES + (i - pos) // _MISS_SPACING:
                    break
                i = find(char, i + 1, stop)
            else:
                return -1
            # Common here: every occurrence up to i was checked; go on with the next one.
            del self._anchors[0]
            pos = i - at + 1
        found = self._search(text, pos, hi)
        return -1 if found is None else found.start()


@functools.lru_cache(maxsize=64)  # the same for every Truncator
def _literals(keywords: frozenset[str], shared: int = 4) -> tuple[str, ...]:
    """Fewer literals to look for, that still find every line holding a keyword.

    A keyword with a rare character (see :class:`_LiteralSearch`) costs little to look for;
    one without costs about a pass over the text. So keywords that contain a common substring
    of at least *shared* characters (``error:``, ``error[`` and ``npm error`` contain
    ``rror``), or another keyword (``FAILED (`` contains ``FAIL``), are looked for through
    it, unless that would lose a rare character (``Exception`` is not looked for through
    ``tion``). A line holding a keyword holds the literal too, inside the keyword, so nothing
    is missed; the keywords themselves are then checked line by line. Deterministic.
    """

    def has_rare(text: str) -> bool:
        return any(_rarity(char) < _RARE for char in text)

    def covered(candidate: str) -> frozenset[str]:
        rare = has_rare(candidate)
        return frozenset(k for k in keywords if candidate in k and (rare or not has_rare(k)))

    pieces = {k[i:i + n] for k in keywords for n in range(shared, len(k))
              for i in range(len(k) - n + 1)}
    covers = {c: covered(c) for c in keywords}
    covers.update((c, cover) for c in pieces - keywords if len(cover := covered(c)) > 1)
    uncovered, chosen = set(keywords), []
    while uncovered:
        best = max(covers, key=lambda c: (len(covers[c] & uncovered), len(c), c))
        chosen.append(best)
        uncovered -= covers[best]
    return tuple(sorted(chosen, key=lambda k: (-len(k), k)))


def _clip(probe: str) -> str:
    text = probe.rstrip()
    return text if len(text) <= LINE_CHARS else text[:LINE_CHARS - 1] + "…"


def scan_lines(matcher: Matcher, text: str, lo: int, hi: int, *, line_index: int,
               offset: int, emit: Callable[[Highlight], None],
               searches: Sequence[_LiteralSearch]) -> None:
    """Find the salient lines among the complete lines of ``text[lo:hi]``.

    *lo* is a line start, and *hi* a line start or the end of *text*. *line_index* is the
    0-based index of the line at *lo*; *offset* is added to positions (for a stream's piece).
    *searches* are the matcher's (:meth:`Matcher.searches`).
    """
    if lo >= hi:
        return
    # The next occurrence of each literal, earliest first. Once a line is done, literals
    # that occur in it again are looked for after it, so each line is looked at once.
    heap = [(i, n) for n, search in enumerate(searches)
            if (i := search.first(text, lo, hi)) != -1]
    heapq.heapify(heap)
    pos = counted = lo
    index = line_index
    # The first "\n" and "\r" at or after the current line's match (-1: none up to hi), kept
    # from line to line: looking for them afresh for every line would scan to hi each time
    # when the text has no "\r" (most text), which is quadratic in the matching lines.
    nl = cr = -2  # not looked for yet
    while heap:
        i = heap[0][0]
        start = max(text.rfind("\n", pos, i), text.rfind("\r", pos, i))
        start = pos if start < 0 else start + 1
        if -1 != nl < i:
            nl = text.find("\n", i, hi)
        if -1 != cr < i:
            cr = text.find("\r", i, hi)
        end = min(nl, cr) if nl >= 0 and cr >= 0 else max(nl, cr)
        if end < 0:
            end, after = hi, hi
        else:
            after = end + 2 if text.startswith("\r\n", end, hi) else end + 1
        index += count_terminators(text, counted, start)
        counted = start
        probe = text[start:min(end, start + PROBE_CHARS)]
        pattern = matcher.classify(probe)
        if pattern is not None:
            emit(Highlight(line=index + 1, start=offset + start, end=offset + after,
                           pattern=pattern.name, rank=pattern.rank, text=_clip(probe)))
        pos = after
        while heap and heap[0][0] < pos:
            n = heap[0][1]
            i = searches[n].first(text, pos, hi)
            if i == -1:
                heapq.heappop(heap)
            else:
                heapq.heapreplace(heap, (i, n))


# -- keeping the first and last matches of each rank -------------------------------------------


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
            inside = [h for h in self._head if h.rank == rank and _inside(h, region)]
            recent = self._recent.get(rank, deque())
            tail = [h for h in recent if h.end > tail_from]
            edge_tail = [h for h in tail if _inside(h, region)]
            middle_count = self._counts.get(rank, 0) - len(tail)
            first = [h for h in self._first.get(rank, ()) if h.end <= tail_from]
            last = [h for h in recent if h.end <= tail_from]
            count = len(inside) + middle_count + len(edge_tail)
            if count:
                pools[rank] = _Pool(first=(inside + first + edge_tail)[:self._keep],
                                    last=(inside + last + edge_tail)[-self._keep:],
                                    count=count)
        return pools


def _inside(item: Highlight, region: Omission) -> bool:
    return region.start <= item.start and item.end <= region.end


# -- the block -------------------------------------------------------------------------------


def _found(pools: Pools) -> int:
    return sum(pool.count for pool in pools.values())


def _same_line(line: int) -> int | None:
    return line


def _shown(item: Highlight, templates: MarkerConfig, number: int | None) -> str:
    if number is None:
        return templates.highlight_not_kept.format(text=item.text, pattern=item.pattern,
                                                   original_line=item.line)
    return templates.highlight.format(line=number, text=item.text, pattern=item.pattern,
                                      original_line=item.line)


def render(chosen: Sequence[Highlight], found: int, position: str,
           templates: MarkerConfig,
           artifact_line: Callable[[int], int | None] = _same_line) -> str:
    """The highlights block, with the separators its place next to the marker needs.

    *artifact_line* maps a line of the original to the number ``get_artifact`` takes for it,
    None when the artifact does not keep it (:func:`truncation_core.pipeline.resume.artifact_line`).
    """
    lines = [templates.highlights.format(shown=len(chosen), found=found)]
    lines += [_shown(h, templates, artifact_line(h.line)) for h in chosen]
    if position == "end":  # after a marker that ends the output without a newline
        return "\n" + "\n".join(lines)
    return "\n".join(lines) + "\n"


def _choose(pools: Pools, limit: int, budget: Budget, position: str,
            templates: MarkerConfig,
            artifact_line: Callable[[int], int | None]) -> list[Highlight]:
    """The most highlights (up to *limit*) whose block fits :data:`SHARE` of the budget."""
    share = budget.scaled(SHARE)
    found = _found(pools)
    for k in range(limit, 0, -1):
        chosen = select(pools, k)
        if not chosen:
            return []
        if share.admits(measure(render(chosen, found, position, templates, artifact_line))):
            return chosen
    return []


def _sole_omission(cut: Cut, text: Any) -> Omission | None:
    """The cut's omission, if it has one and the output ends with the text after it."""
    if len(cut.omissions) != 1:
        return None
    region = cut.omissions[0]
    try:
        kept_tail = text[region.end:]
    except LookupError:  # a stream's windows do not reach there
        return None
    return region if cut.text.endswith(kept_tail) else None


def lift_highlights(cut: Cut, *, text: Any, budget: Budget, limit: int,
                    templates: MarkerConfig, pools_for: Callable[[Omission], Pools],
                    recut: Callable[[Budget], Cut],
                    artifact_line: Callable[[int], int | None] = _same_line) -> Cut:
    """*cut* with a highlights block after its marker, cut again to make room for the block.

    Each line is shown with the number *artifact_line* gives it (the artifact's), or as not
    kept when it gives None. Returns *cut* unchanged when there is nothing to lift, or when
    the result would not fit.
    """
    region = _sole_omission(cut, text)
    if region is None or limit <= 0:
        return cut
    pools = pools_for(region)
    chosen = _choose(pools, limit, budget, region.position, templates, artifact_line)
    found = _found(pools)
    for _ in range(_ATTEMPTS):
        if not chosen:
            return cut
        room = budget.minus(measure(render(chosen, found, region.position, templates,
                                           artifact_line)))
        if room is None:
            return cut
        again = recut(room)
        wider = _sole_omission(again, text)
        if wider is None:
            return cut
        chosen = [h for h in chosen if _inside(h, wider)]
        found = _found(pools_for(wider))
        block = render(chosen, found, wider.position, templates, artifact_line)
        at = len(again.text) - (len(text) - wider.end)
        out = again.text[:at] + block + again.text[at:]
        if chosen and budget.admits(measure(out)):
            details = {**again.details, "highlights": [
                {"line": artifact_line(h.line), "pattern": h.pattern, "text": h.text,
                 "original_line": h.line} for h in chosen]}
            return attrs.evolve(again, text=out, details=details)
    return cut
