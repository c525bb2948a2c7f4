"""Salient-line patterns, and finding the lines that match them fast.

A :class:`SalientPattern` (of a ``salient_detector``) names literal ``keywords`` and
an optional ``regex``. A line matches when its probe (its first :data:`PROBE_CHARS`
characters, without the terminator, ANSI escapes removed: :func:`~.lines.clean`) contains a
keyword and the regex, if any, is found in it; the first matching pattern in rank order
classifies the line. Lines that hold a JSON object are judged by the
:class:`~truncation_core.types.salient.SalientRecord` rules first, when there are any.
A :class:`Matcher` holds the patterns, records and
:class:`~truncation_core.types.salient.SalientUnit` of one tool, compiled once.

Keywords are what keeps scanning fast: only lines that may hold one once escapes are removed
are classified, and run the patterns' regular expressions. An engine finds those lines:
Hyperscan, one pass in C for all keywords at once, when it is installed; else ``str.find``,
each literal looked for by its rarest character first (see :class:`_LiteralSearch`), a
character absent from the text costing a memchr over it. A colour code may split a keyword:
in text holding an escape, Hyperscan looks for what such a line must hold
(:func:`_escaped_literals`), the pure-Python search for the escape character itself. Both
find every line that can match (:data:`ENGINE`).
"""

from __future__ import annotations

import functools
import heapq
import re
import threading
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from truncation_core.highlights.lines import clean, clip, fold, without_data
from truncation_core.highlights.records import RECORD_CHARS, parse_record, record_text
from truncation_core.text.measure import count_terminators, utf8_size

if TYPE_CHECKING:
    # a plugin's pattern only: 2.7 ms, and the regex module (python -X importtime, 2026-12)
    from truncation_core.text.bounded_regex import SalientRegex
    from truncation_core.types.salient import SalientPattern, SalientRecord, SalientUnit

__all__ = ["ENGINE", "LINE_CHARS", "PROBE_CHARS", "Hit", "Matcher", "new_engine", "scan_lines"]

#: Characters of a line that patterns look at.
PROBE_CHARS = 512
_ESC = "\x1b"
#: Characters of a line shown in the block (a longer one keeps its start and its end).
LINE_CHARS = 320


class Hit(NamedTuple):
    """What one line matched: the pattern's (or record's) name and rank, the text the block
    shows for it, and the key that groups it with the lines saying the same thing."""

    name: str
    rank: int
    text: str
    key: str
    #: The line as the units' ``choose`` sees it (its probe, cleaned).
    probe: str


class Matcher:
    """The patterns, records and units of one tool, compiled once."""

    def __init__(self, patterns: Iterable[SalientPattern] = (), *,
                 units: Iterable[SalientUnit] = (),
                 records: Iterable[SalientRecord] = ()) -> None:
        ordered = sorted(patterns, key=lambda p: p.rank)  # stable: plugin order within a rank
        self.patterns = tuple(ordered)
        self.records = tuple(sorted(records, key=lambda r: r.rank))
        self._keywords = frozenset(
            [k for p in ordered for k in p.keywords] + [k for r in self.records
                                                        for k in r.keywords])
        # A plugin's regex is searched under a deadline (a built-in's, on re: _bounded).
        self._checks = [(p, _bounded(p.regex, p.name) if p.regex else None) for p in ordered]
        # Which patterns each keyword may start: a line is checked against the patterns of
        # the keywords it holds only, in rank order.
        by_keyword: dict[str, list[int]] = {}
        for index, pattern in enumerate(ordered):
            for keyword in pattern.keywords:
                by_keyword.setdefault(keyword, []).append(index)
        self._by_keyword = {k: tuple(v) for k, v in by_keyword.items()}
        self._keyword_list = tuple(sorted(by_keyword))
        #: Every keyword, the records' too (what :meth:`holds` looks for).
        self.keywords = tuple(sorted(self._keywords))
        self._local = threading.local()
        self._record_keywords = tuple(sorted({k for r in self.records for k in r.keywords}))
        by_anchor: dict[str, list[SalientUnit]] = {}
        for unit in units:
            for name in unit.patterns:
                by_anchor.setdefault(name, []).append(unit)
        #: Pattern name -> what the line above its matching lines must match (see
        #: :attr:`SalientPattern.header`).
        self.headers = {p.name: _bounded(p.header, f"{p.name} (header)") for p in ordered
                        if p.header is not None}
        #: Pattern (or record) name -> the units that extend its lines.
        self.units = {name: tuple(found) for name, found in by_anchor.items()}
        every = [u for found in self.units.values() for u in found]
        #: The most lines any unit looks at, above and below its line.
        self.above = max((u.above for u in every), default=0) + (1 if self.headers else 0)
        self.below = max((u.below for u in every), default=0)
        # Whether no pattern tells the digits 1 to 9 apart (see shape()): a keyword holding
        # one is checked line by line instead, and so is its pattern's regex when all of the
        # pattern's keywords hold one (rails' "Completed 5" with "Completed 5\d\d ").
        digit_keywords = {k for k in self._keywords if any("1" <= c <= "9" for c in k)}
        self._digits_alike = all(
            p.regex is None or set(p.keywords) <= digit_keywords or _digits_alike(p.regex)
            for p in ordered)
        self._digit_keywords = tuple(sorted(
            {k.encode("utf-8", "surrogatepass").translate(_DIGITS) for k in digit_keywords
             if k in self._by_keyword}))

    def __bool__(self) -> bool:
        return bool(self._keywords)

    @property
    def searched(self) -> frozenset[str]:
        """What the engines look for: the keywords, and the escape character, since a line
        with colour codes may hold a keyword only once they are removed (Hyperscan looks for
        that escape in a narrower way: :func:`_escaped_literals`)."""
        return self._keywords | {_ESC} if self._keywords else frozenset()

    @functools.cached_property
    def literals(self) -> tuple[str, ...]:
        """What the pure-Python engine looks for: every line holding a keyword, or an escape,
        holds one."""
        return _literals(self.searched)

    def headed(self, hit: Hit, header: str) -> Hit | None:
        """*hit*, made the match of *header* (the cleaned line above it), if its pattern
        looks for a header and *header* is one; None if it is not."""
        wanted = self.headers.get(hit.name)
        if wanted is None or not wanted.search(header):
            return None
        return Hit(hit.name, hit.rank, clip(header, LINE_CHARS),
                   f"{hit.name}\0{fold(header)}", header)

    def engine(self) -> _PythonEngine | _HyperscanEngine:
        """What finds the lines holding a keyword (:data:`ENGINE`). A stream keeps its own
        from chunk to chunk, so that what it learns about the text (which characters are
        common in it) carries over."""
        return new_engine(self)

    def classify(self, probe: str) -> SalientPattern | None:
        """The pattern *probe* (a line's first characters) matches, if any."""
        return self._classify(clean(probe))

    def shape(self, line: str) -> bytes | str:
        """What :meth:`match` of *line* (a whole line of at most :data:`PROBE_CHARS`
        characters that is not a record) is taken to depend on: lines of the same shape get
        the same pattern and group, so a log's lines are classified once per shape (a
        stream or text remembers a bounded number of shapes).

        The shape is the line with the digits 1 to 9 made ``1`` (``0`` is kept: ``0x``
        starts a hexadecimal number), and, when its first word is a path (it holds a slash,
        as in ``src/net/sock.c:88:13: error: ...``), with that word cut down to the part
        from its extension on, without digits (``.c::``). The digits are alike to grouping
        (:func:`~truncation_core.highlights.lines.fold`), and to every pattern when
        ``__init__`` found that no regex tells them apart (else they are kept). A path word
        is ``<path>`` to grouping too; that no pattern classifies a line by the directories,
        name and numbers in its first word is assumed, which holds for the built-in ones
        (they look for its extension: ``.go:``). Lines with
        an escape, and those starting with NUL (the mark of a cut path), are their own
        shape (a str: the line itself)."""
        if _ESC in line or line[:1] == "\0":
            return line
        path = b""
        rest = line
        space = line.find(" ")
        if space > 0:
            word = line[:space]
            # (printable: no whitespace but the space after it, so it is the first word)
            if ("/" in word or "\\" in word) and word.isprintable():
                slash = max(word.rfind("/"), word.rfind("\\"))
                dot = word.rfind(".")
                path = b"\0" + word[dot if dot > slash else slash + 1:].encode(
                    "utf-8", "surrogatepass").translate(None, _ALL_DIGITS)
                rest = line[space:]
        shape = rest.encode("utf-8", "surrogatepass")
        if self._digits_alike:
            shape = shape.translate(_DIGITS)
            if self._digit_keywords and any(map(shape.__contains__, self._digit_keywords)):
                return line
        return path + shape if path else shape

    def holds(self, text: str) -> tuple[str, ...]:
        """The keywords (:attr:`keywords`) *text* holds, as it is (escapes not removed)."""
        if ENGINE == "python" or (ENGINE == "auto" and _hyperscan() is None):
            return tuple(k for k in self.keywords if k in text)
        local = self._local.__dict__
        if "holds" not in local:
            database = _hyperscan_database(self.keywords, ids_in_order=True)
            local["holds"] = (database, _hyperscan().Scratch(database))
        database, scratch = local["holds"]
        found: set[int] = set()
        database.scan(text.encode("utf-8", "surrogatepass"),
                      match_event_handler=lambda i, *_: found.add(i), scratch=scratch)
        return tuple(self.keywords[i] for i in sorted(found))

    def _held(self, cleaned: str) -> list[tuple[int, ...]]:
        """The patterns (indexes) of the keywords *cleaned* holds, per keyword."""
        probe = self._probe_scanner()
        if probe is None:
            by_keyword = self._by_keyword
            return [by_keyword[k] for k in self._keyword_list if k in cleaned]
        database, scratch = probe
        found: set[int] = set()
        database.scan(cleaned.encode("utf-8", "surrogatepass"),
                      match_event_handler=lambda i, *_: found.add(i), scratch=scratch)
        return [self._by_keyword[self._keyword_list[i]] for i in found]

    def _probe_scanner(self) -> tuple[Any, Any] | None:
        """Hyperscan over the keywords, with this thread's scratch, when it is the engine:
        for one line it finds the keywords in a few microseconds, where checking ~150 of
        them one by one takes tens."""
        if ENGINE == "python" or (ENGINE == "auto" and _hyperscan() is None):
            return None
        local = self._local.__dict__
        if "probe" not in local:
            database = _hyperscan_database(self._keyword_list, ids_in_order=True)
            local["probe"] = (database, _hyperscan().Scratch(database))
        probe: tuple[Any, Any] = local["probe"]
        return probe

    def _classify(self, cleaned: str) -> SalientPattern | None:
        """The first pattern *cleaned* matches, unless the line matches only in the data it
        carries (:func:`~.lines.without_data`: a dumped dict, JSON): then the first pattern
        the rest of the line matches, if any."""
        index = self._first(cleaned)
        if index is None:
            return None
        pattern, regex = self._checks[index]
        bare = without_data(cleaned)
        if bare == cleaned or (any(map(bare.__contains__, pattern.keywords)) and
                               (regex is None or regex.search(bare))):
            return pattern
        index = self._first(bare)
        return None if index is None else self._checks[index][0]

    def _first(self, cleaned: str) -> int | None:
        held = self._held(cleaned)
        if not held:
            return None
        candidates = held[0] if len(held) == 1 else sorted(set().union(*held))
        checks = self._checks
        for index in candidates:
            regex = checks[index][1]
            if regex is None or regex.search(cleaned):
                return index
        return None

    def wants_whole(self, head: str) -> bool:
        """Whether a line starting with *head* may be a record (so it is read whole)."""
        return bool(self.records) and head.lstrip(" \t")[:1] == "{"

    def match(self, line: str, length: int) -> Hit | None:
        """What a line matches. *line* is the line, or its first characters when it is
        longer (*length* is its whole length, terminator excluded)."""
        probe = line[:PROBE_CHARS]
        if length == len(line) and length <= RECORD_CHARS and self.wants_whole(probe) \
                and any(map(line.__contains__, self._record_keywords)):
            record = parse_record(line)
            if record is not None:
                return self._record_hit(line, probe, record)
        cleaned = clean(probe)
        pattern = self._classify(cleaned)
        if pattern is None:
            return None
        return Hit(pattern.name, pattern.rank, clip(cleaned, LINE_CHARS),
                   f"{pattern.name}\0{fold(cleaned)}", cleaned)

    def _record_hit(self, line: str, probe: str, record: dict[str, object]) -> Hit | None:
        contains = line.__contains__
        for rule in self.records:
            if any(map(contains, rule.keywords)):
                try:
                    accepted = bool(rule.test(record))
                except Exception:  # a rule that cannot judge this record does not take it
                    accepted = False
                if accepted:
                    cleaned = clean(probe)
                    return Hit(rule.name, rule.rank, record_text(clean(line), LINE_CHARS),
                               f"{rule.name}\0{fold(cleaned)}", cleaned)
        return None


def _bounded(regex: str, name: str) -> SalientRegex:
    """A salient pattern's regular expression (or its header's), searched under a deadline:
    a plugin's pattern with catastrophic backtracking must not hang ``process()`` (see
    :class:`~truncation_core.text.bounded_regex.SalientRegex`; the built-in detectors'
    are trusted, and searched on re)."""
    from truncation_core.text.bounded_regex import SalientRegex

    return SalientRegex(regex, name=name)


#: Makes the digits 1 to 9 one (see :meth:`Matcher.shape`).
_DIGITS = bytes.maketrans(b"23456789", b"11111111")
_ALL_DIGITS = b"0123456789"
_NONZERO = frozenset(range(ord("1"), ord("9") + 1))


@functools.lru_cache(maxsize=1024)  # parsing the ~150 built-in regexes took 3-7 ms a Truncator
def _digits_alike(regex: str) -> bool:
    """Whether *regex* cannot tell the digits 1 to 9 apart: no literal among them, no class
    holding some of them but not all, no back-reference. False when unsure."""
    import importlib

    # (re's parser: private, and not in the type stubs; checked by the tests on every run.)
    c: Any = importlib.import_module("re._constants")
    parser: Any = importlib.import_module("re._parser")

    def alike(items: Iterable[tuple[Any, Any]]) -> bool:
        for op, arg in items:
            if op in (c.LITERAL, c.NOT_LITERAL):
                if arg in _NONZERO:
                    return False
            elif op is c.IN:
                held: set[int] = set()
                for kind, value in arg:
                    if kind is c.LITERAL:
                        held |= {value} & _NONZERO
                    elif kind is c.RANGE:
                        held |= _NONZERO.intersection(range(value[0], value[1] + 1))
                    elif kind not in (c.CATEGORY, c.NEGATE):
                        return False
                if held and held != _NONZERO:
                    return False
            elif op is c.SUBPATTERN:
                if not alike(arg[3]):
                    return False
            elif op is c.BRANCH:
                if not all(alike(branch) for branch in arg[1]):
                    return False
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
                if not alike(arg[2]):
                    return False
            elif op in (c.ASSERT, c.ASSERT_NOT):
                if not alike(arg[1]):
                    return False
            elif op is c.ATOMIC_GROUP:
                if not alike(arg):
                    return False
            elif op not in (c.ANY, c.AT, c.CATEGORY):
                return False  # a back-reference, a conditional, or what is not known here
        return True

    try:
        return alike(parser.parse(regex))
    except Exception:  # (a private module: whatever it does, unsure is not alike)
        return False


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

    rare_keywords = {k for k in keywords if has_rare(k)}

    def covered(candidate: str) -> frozenset[str]:
        if has_rare(candidate):
            return frozenset(k for k in keywords if candidate in k)
        return frozenset(k for k in keywords if k not in rare_keywords and candidate in k)

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


#: Which multi-literal engine finds the lines holding a keyword: ``"auto"`` (Hyperscan when
#: the ``hyperscan`` package is installed, as it is wherever it has a wheel: x86-64, and
#: macOS; else the pure-Python search), ``"hyperscan"`` or ``"python"``. Both find the same
#: lines (the tests run both); only the speed differs (``bench/bench_salient.py``).
ENGINE = "auto"


def _hyperscan() -> Any:
    try:
        import hyperscan
    except ImportError:
        return None
    return hyperscan


@functools.lru_cache(maxsize=64)  # the same for every Truncator and stream
def _hyperscan_database(keywords: tuple[str, ...], ids_in_order: bool = False) -> Any:
    """A Hyperscan database for the literal *keywords*; a match's id is the keyword's index
    in *keywords* (*ids_in_order* only keeps the two uses apart in the cache)."""
    hs = _hyperscan()
    database = hs.Database(mode=hs.HS_MODE_BLOCK)
    # Every byte escaped: a keyword is a literal, whatever it holds.
    expressions = ["".join(f"\\x{b:02x}" for b in k.encode("utf-8", "surrogatepass")).encode()
                   for k in keywords]
    database.compile(expressions=expressions, ids=list(range(len(keywords))),
                     flags=[0] * len(keywords))
    return database


@functools.lru_cache(maxsize=16)  # the same for every Truncator and stream
def _hyperscan_lines_database(keywords: tuple[str, ...]) -> tuple[Any, Any]:
    """Two Hyperscan databases: one that reports each line holding one of *keywords* once,
    at its end (one pattern, so that Hyperscan reports an end once), and one that reports
    the first line longer than :data:`PROBE_CHARS` bytes."""
    hs = _hyperscan()
    literals = "|".join("".join(f"\\x{b:02x}" for b in k.encode("utf-8", "surrogatepass"))
                        for k in keywords)
    lines = hs.Database(mode=hs.HS_MODE_BLOCK)
    lines.compile(expressions=[f"(?:{literals})[^\\n]*\\n".encode()], ids=[0], flags=[0])
    long = hs.Database(mode=hs.HS_MODE_BLOCK)
    long.compile(expressions=[f"[^\\n]{{{PROBE_CHARS + 1}}}".encode()], ids=[0],
                 flags=[hs.HS_FLAG_SINGLEMATCH])
    return lines, long


@functools.lru_cache(maxsize=64)  # the same for every Truncator and stream
def _hyperscan_several_database(keywords: tuple[str, ...]) -> Any:
    """A Hyperscan database that reports each occurrence of *keywords* that follows another
    in its line (where it ends: once each)."""
    hs = _hyperscan()
    literals = "|".join("".join(f"\\x{b:02x}" for b in k.encode("utf-8", "surrogatepass"))
                        for k in keywords)
    database = hs.Database(mode=hs.HS_MODE_BLOCK)
    database.compile(expressions=[f"(?:{literals})[^\\n]*(?:{literals})".encode()], ids=[0],
                     flags=[0])
    return database


@functools.lru_cache(maxsize=64)
def _may_overlap(keys: tuple[bytes, ...]) -> bool:
    """Whether two occurrences of *keys* (the same one or two) may overlap: one holds
    another, or ends with what one starts with."""
    for a in keys:
        for b in keys:
            if a != b and b in a:
                return True
            if any(a.endswith(b[:n]) for n in range(1, min(len(a), len(b)) if a == b
                                                   else min(len(a), len(b)) + 1)):
                return True
    return False


class _PythonEngine:
    """Finds the lines holding a keyword with ``str.find``, one search per literal (see
    :class:`_LiteralSearch`)."""

    def __init__(self, literals: Sequence[str]) -> None:
        self._searches = [_LiteralSearch(literal) for literal in literals]

    def positions(self, text: str, lo: int, hi: int, raw: bytes | None = None
                  ) -> Generator[int, int | None, None]:
        """Where literals occur in ``text[lo:hi]``, in increasing order; after each position
        given, the caller sends where to look on from (the end of that line). (*raw*, the
        text's bytes when it is ASCII, is of no use here.)"""
        searches = self._searches
        heap = [(i, n) for n, search in enumerate(searches)
                if (i := search.first(text, lo, hi)) != -1]
        heapq.heapify(heap)
        while heap:
            at = heap[0][0]
            sent = yield at
            pos = at + 1 if sent is None else sent  # (iterated plainly: every occurrence)
            while heap and heap[0][0] < pos:
                n = heap[0][1]
                i = searches[n].first(text, pos, hi)
                if i == -1:
                    heapq.heappop(heap)
                else:
                    heapq.heapreplace(heap, (i, n))

    def batches(self, text: str, lo: int, hi: int, raw: bytes | None = None
                ) -> Iterator[list[int]]:
        """Where literals occur in ``text[lo:hi]``, whose lines all end with ``"\\n"``, in
        increasing order, in lists: the first occurrence in each line that holds one."""
        found: list[int] = []
        positions = self.positions(text, lo, hi)
        try:
            at = next(positions)
            while True:
                found.append(at)
                end = text.find("\n", at, hi)
                at = positions.send(hi if end < 0 else end + 1)
        except StopIteration:
            pass
        yield found

    def occurs(self, raw: bytes) -> bool | None:
        """None: this engine searches text, and cannot tell from bytes."""
        return None

    def keyword_lines(self, data: bytes, rare: tuple[str, ...]
                      ) -> tuple[list[int], list[int]] | None:
        """None: this engine does not count lines in bulk (see
        :meth:`_HyperscanEngine.keyword_lines`); each line is visited instead."""
        return None

    def count_lines(self, data: bytes, common: tuple[str, ...], rare: tuple[str, ...]
                    ) -> int | None:
        """None: as :meth:`keyword_lines`."""
        return None


def _core(keyword: str) -> str:
    """The part of *keyword* that text holding escapes is searched for: without the spaces
    around it, unless that leaves too little to be selective (``E   `` stays whole)."""
    core = keyword.strip()
    return core if len(core) >= 3 or (core and not core.isascii()) else keyword


@functools.lru_cache(maxsize=64)  # the same for every Truncator and stream
def _escaped_literals(keywords: tuple[str, ...]) -> tuple[str, ...]:
    """Literals that every line holding one of *keywords* once its escape sequences are
    removed (:func:`~.lines.clean`) holds as it is.

    A keyword found in the cleaned line stands in the raw line either whole, or with escape
    sequences between some of its characters. In the second case, the characters before the
    first sequence are followed by an escape character, which starts every sequence
    :func:`~.lines.clean` removes (a partial one cut off at the end of the probe too). So
    each keyword's :func:`_core` (a part of it) and each of the core's proper prefixes
    followed by ``ESC`` are looked for. A line holding one is classified as usual, which
    decides; lines whose escapes split no keyword (almost every coloured line) are not even
    looked at, as they were when the escape itself was looked for.
    """
    found: set[str] = set()
    for keyword in keywords:
        core = _core(keyword)
        found.add(core)
        found.update(core[:i] + _ESC for i in range(1, len(core)))
    return tuple(sorted(found))


class _HyperscanEngine:
    """Finds the lines holding a keyword with Hyperscan: one pass over the text for all
    keywords at once, in C. Text that is not ASCII is scanned as UTF-8, and the end of each
    match mapped back to characters."""

    def __init__(self, keywords: Sequence[str]) -> None:
        hs = _hyperscan()
        # A one-character literal slows every scan down, and most text has no escape: the
        # escape is looked for (memchr) first, and only text that has one is scanned for it.
        plain = tuple(sorted(set(keywords) - {_ESC}))
        self._keywords = plain
        #: The longest keyword, in characters: what one piece of a scan must overlap the last.
        self._longest = max(map(len, keywords), default=1)
        self._plain = _hyperscan_database(plain)
        self._escaped = _hyperscan_database(_escaped_literals(plain))
        # Fewer literals that every line holding a keyword holds too (see _literals): half
        # as many, scanned some 40% faster, for :meth:`occurs`, which may say yes wrongly.
        self._cover = _hyperscan_database(tuple(sorted(_literals(frozenset(plain)))))
        # Scratch space per stream (a stream is used by one thread at a time).
        self._more_scratches: dict[Any, Any] = {}
        self._scratches = {id(self._plain): hs.Scratch(self._plain),
                           id(self._escaped): hs.Scratch(self._escaped),
                           id(self._cover): hs.Scratch(self._cover)}

    def positions(self, text: str, lo: int, hi: int, raw: bytes | None = None
                  ) -> Generator[int, int | None, None]:
        """As :meth:`_PythonEngine.positions`; *raw*, the text's UTF-8 bytes when given, is
        scanned as it is."""
        pos = lo
        for batch in self.batches(text, lo, hi, raw):
            for offset in batch:
                if offset >= pos:
                    sent = yield offset
                    pos = offset + 1 if sent is None else sent

    def batches(self, text: str, lo: int, hi: int, raw: bytes | None = None
                ) -> Iterator[list[int]]:
        """Where literals occur in ``text[lo:hi]`` (the last character of each occurrence),
        in increasing order, in lists: one for the whole, or one per piece of
        :data:`_PIECE_CHARS` when the text's bytes are not at hand."""
        ends: list[int] = []

        def found(_id: int, _start: int, end: int, _flags: int, _context: object) -> None:
            ends.append(end)

        database = self._escaped if text.find(_ESC, lo, hi) != -1 else self._plain
        scan, handler, scratch = database.scan, found, self._scratches[id(database)]
        if raw is not None and text.isascii():  # bytes and characters are one
            scan(memoryview(raw)[lo:hi], match_event_handler=handler, scratch=scratch)
            yield [lo + end - 1 for end in sorted(set(ends))]
        elif raw is not None:
            # The bytes of text[lo:hi], found from the ends (a stream's lo and hi are near
            # them: a line begun in an earlier chunk, and one that goes on in the next).
            start = utf8_size(text[:lo])
            stop = len(raw) - utf8_size(text[hi:])
            data = memoryview(raw)[start:stop]
            scan(data, match_event_handler=handler, scratch=scratch)
            yield list(_characters(data, sorted(set(ends)), lo))
        else:
            yield from self._pieces(text, lo, hi, scan, handler, scratch, ends)

    def keyword_lines(self, data: bytes, rare: tuple[str, ...]
                      ) -> tuple[list[int], list[int]] | None:
        """In the UTF-8 bytes *data*, whose lines all end with ``"\\n"``: where each line
        holding a keyword ends (the offset after its ``"\\n"``), and where each occurrence
        of a keyword of *rare* ends; None when a line is longer than :data:`PROBE_CHARS`
        bytes (then its keywords count only in its first characters: see the bank). One
        pass for the lines, in C, with one call per line; one for the rare keywords."""
        lines, long = _hyperscan_lines_database(self._keywords)
        try:
            long.scan(data, match_event_handler=_stop, scratch=self._scratch(long))
        except _hyperscan().ScanTerminated:
            return None
        ends: list[int] = []
        append = ends.append
        lines.scan(data, match_event_handler=lambda _id, _start, end, _flags, _context:
                   append(end), scratch=self._scratch(lines))
        found: list[int] = []
        if rare:
            database = _hyperscan_database(rare)
            database.scan(data, match_event_handler=lambda _i, _s, end, *_: found.append(end),
                          scratch=self._scratch(database))
        return ends, found

    def count_lines(self, data: bytes, common: tuple[str, ...], rare: tuple[str, ...]
                    ) -> int | None:
        """How many lines of the UTF-8 bytes *data* (each ending with ``"\\n"``) hold one of
        *common*, when none holds one of *rare*, none is longer than :data:`PROBE_CHARS`
        bytes, and no two occurrences of *common* keywords can overlap; None otherwise.
        Counted without a call per line: ``bytes.count`` of each keyword, less the
        occurrences that follow another in their line (one pass finds those, and only those:
        few, as a rule)."""
        keys = [k.encode("utf-8", "surrogatepass") for k in common]
        if not keys or _may_overlap(tuple(keys)):
            return None
        long = _hyperscan_lines_database(self._keywords)[1]
        try:
            long.scan(data, match_event_handler=_stop, scratch=self._scratch(long))
            if rare:
                database = _hyperscan_database(rare)
                database.scan(data, match_event_handler=_stop, scratch=self._scratch(database))
        except _hyperscan().ScanTerminated:
            return None
        extra = [0]  # (occurrences after the first in their line)

        def one_more(_id: int, _start: int, _end: int, _flags: int, _context: object) -> None:
            extra[0] += 1

        several = _hyperscan_several_database(tuple(common))
        several.scan(data, match_event_handler=one_more, scratch=self._scratch(several))
        return sum(map(data.count, keys)) - extra[0]

    def _scratch(self, database: Any) -> Any:
        """Scratch space for *database* (kept, with it, for the stream's life)."""
        scratch = self._more_scratches.get(database)
        if scratch is None:
            scratch = self._more_scratches[database] = _hyperscan().Scratch(database)
        return scratch

    def occurs(self, raw: bytes) -> bool:
        """Whether a keyword (or an escape) may occur in the UTF-8 bytes *raw*: False only
        if none does. A stream asks first, and decodes a chunk in which none does only where
        it must. The scan stops at the first match."""
        if raw.find(b"\x1b") != -1:
            return True
        cover = self._cover
        try:
            cover.scan(raw, match_event_handler=_stop, scratch=self._scratches[id(cover)])
        except _hyperscan().ScanTerminated:
            return True
        return False

    def _pieces(self, text: str, lo: int, hi: int, scan: Callable[..., None],
                handler: Callable[..., None], scratch: Any, ends: list[int]
                ) -> Iterator[list[int]]:
        """The offsets of the matches' last characters in ``text[lo:hi]``, scanned a piece
        of :data:`_PIECE_CHARS` at a time, so that no encoding of the whole text sits beside
        it: a list per piece. Each piece starts early enough to hold a keyword that ends in
        it."""
        overlap = self._longest - 1
        ascii_text = text.isascii()
        done = lo
        while done < hi:
            stop = min(hi, done + _PIECE_CHARS)
            start = max(lo, done - overlap)
            data = text[start:stop].encode("ascii" if ascii_text else "utf-8", "surrogatepass")
            ends.clear()
            scan(data, match_event_handler=handler, scratch=scratch)
            found = sorted(set(ends))
            positions = ((start + end - 1 for end in found) if ascii_text
                         else _characters(memoryview(data), found, start))
            # (A match that ends before `done` was found already.)
            yield [position for position in positions if position >= done]
            done = stop


def _stop(*_: object) -> bool:
    return True  # a match: stop the scan


def _characters(data: memoryview, ends: list[int], base: int) -> Iterator[int]:
    """The character offsets (plus *base*) of the last bytes before *ends* in UTF-8 *data*:
    a match ends at a character boundary, so each gap between two ends decodes whole (and
    only up to the last match is decoded)."""
    chars, done = base, 0
    for end in ends:
        chars += len(str(data[done:end], "utf-8", "surrogatepass"))
        done = end
        yield chars - 1


#: Characters of text encoded and scanned at a time when its bytes are not at hand.
_PIECE_CHARS = 1 << 20


def new_engine(matcher: Matcher) -> _PythonEngine | _HyperscanEngine:
    """The engine a text or stream scans with (see :data:`ENGINE`)."""
    if ENGINE == "hyperscan" or (ENGINE == "auto" and _hyperscan() is not None):
        return _HyperscanEngine(sorted(matcher.searched))
    return _PythonEngine(matcher.literals)


def scan_lines(engine: _PythonEngine | _HyperscanEngine, text: str, lo: int, hi: int, *,
               line_index: int, visit: Callable[[int, int, int, int], None],
               raw: bytes | None = None) -> None:
    """Call ``visit(index, start, end, after)`` for each complete line of ``text[lo:hi]``
    that holds a literal the engine looks for, in order.

    *lo* is a line start, and *hi* a line start or the end of *text*. *line_index* is the
    0-based index of the line at *lo*; *index* is the visited line's. The line is
    ``text[start:end]``, and its terminator ends at *after*. *raw*: the text's bytes, if it
    is ASCII (then an engine scanning bytes need not encode it).
    """
    if lo >= hi:
        return
    positions = engine.positions(text, lo, hi, raw)
    try:
        i = next(positions)
    except StopIteration:
        return
    if text.find("\r", lo, hi) == -1:  # most text: a line ends at its "\n"
        _scan_lines_lf(positions, i, text, lo, hi, line_index, visit)
        return
    pos = counted = lo
    index = line_index
    # The first "\n" and "\r" at or after the current line's match (-1: none up to hi), kept
    # from line to line: looking for them afresh for every line would scan to hi each time
    # when the text has no "\r" (most text), which is quadratic in the matching lines.
    nl = cr = -2  # not looked for yet
    while True:
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
        visit(index, start, end, after)
        pos = after
        try:
            i = positions.send(pos)
        except StopIteration:
            return


def _scan_lines_lf(positions: Generator[int, int | None, None], i: int, text: str, lo: int,
                   hi: int, index: int, visit: Callable[[int, int, int, int], None]) -> None:
    """:func:`scan_lines` from the first position *i*, for text whose lines all end with
    ``"\\n"``: a few calls of C per line visited, as the matching lines may be many."""
    find, rfind, count = text.find, text.rfind, text.count
    pos = counted = lo
    while True:
        start = rfind("\n", pos, i) + 1 or pos
        end = find("\n", i, hi)
        if end < 0:
            end = after = hi
        else:
            after = end + 1
        index += count("\n", counted, start)
        counted = start
        visit(index, start, end, after)
        pos = after
        try:
            i = positions.send(pos)
        except StopIteration:
            return
