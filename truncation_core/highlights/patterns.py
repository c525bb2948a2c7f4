"""Salient-line patterns, and finding the lines that match them fast.

A :class:`SalientPattern` (from the ``salient_patterns`` hook) names literal ``keywords`` and
an optional ``regex``. A line matches when its probe (its first :data:`PROBE_CHARS`
characters, without the terminator) contains a keyword and the regex, if any, is found in
it; the first matching pattern in rank order classifies the line as a :class:`Highlight`.

Keywords are what keeps scanning fast: only lines holding one are classified (and run the
patterns' regular expressions), and those lines are found with ``str.find``, each literal
looked for by its rarest character first (see :class:`_LiteralSearch`): a character absent
from the text costs a memchr over it.
"""

from __future__ import annotations

import functools
import heapq
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import attrs

from truncation_core.hooks.models import strings
from truncation_core.text.measure import count_terminators

if TYPE_CHECKING:
    from truncation_core.hooks.models import Omission
    from truncation_core.text.bounded_regex import SalientRegex

__all__ = ["LINE_CHARS", "PROBE_CHARS", "Highlight", "Matcher", "SalientPattern", "scan_lines"]

#: Characters of a line that patterns look at.
PROBE_CHARS = 512
#: Characters of a line shown in the block.
LINE_CHARS = 160


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
    keywords: tuple[str, ...] = attrs.field(converter=strings, validator=_check_keywords)
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

    def inside(self, region: Omission) -> bool:
        """True when the whole line lies in *region*."""
        return region.start <= self.start and self.end <= region.end


class Matcher:
    """The patterns of one tool, compiled once."""

    def __init__(self, patterns: Iterable[SalientPattern]) -> None:
        ordered = sorted(patterns, key=lambda p: p.rank)  # stable: plugin order within a rank
        self.patterns = tuple(ordered)
        #: What scanning looks for: every line holding a keyword holds one of these.
        self.literals = _literals(frozenset(k for p in ordered for k in p.keywords))
        self._checks = [(p, p.keywords, _bounded(p)) for p in ordered]

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


def _bounded(pattern: SalientPattern) -> SalientRegex | None:
    """The pattern's regular expression, searched under a deadline: a plugin's pattern with
    catastrophic backtracking must not hang ``process()`` (see
    :class:`~truncation_core.text.bounded_regex.SalientRegex`)."""
    from truncation_core.text.bounded_regex import SalientRegex

    return SalientRegex(pattern.regex, name=pattern.name) if pattern.regex else None


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
