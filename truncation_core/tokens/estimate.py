"""The built-in ``estimate`` tokenizer: an upper bound on cl100k_base and o200k_base counts.

It counts a text the way both encodings do, with part of their vocabularies:

1. The text is cut into pieces with each encoding's own pre-tokenizer
   (:mod:`truncation_core.tokens.pretokenize`); a piece is merged on its own, so a text's
   count is the sum of its pieces' counts.
2. Each piece is merged by byte-pair encoding with the tokens of the shipped rank table
   (:mod:`truncation_core.tokens.table`): all tokens below a rank threshold, for the kind of
   piece. Stopping early can only leave more parts, so the piece's count is at least its real
   count, for every piece, not only on average. Pieces over ``MAX_MERGED_BYTES`` bytes are
   counted as their UTF-8 size, which also bounds them (a token is at least one byte).
3. The count is the larger of the two encodings' sums.

The bound is exact where the table holds every token a piece uses (common words, numbers,
indentation), and over by the merges it lacks elsewhere: rare long words, base64 runs, rarer
CJK characters. docs/tokens.md gives the measured distribution.

Piece counts are cached per encoding: logs, code and JSON repeat their pieces, so most pieces
cost one dictionary look-up after the regular-expression split. Longer texts are counted by
segments that end where a line ends and the next one starts with neither whitespace nor
``/``: no piece of either encoding spans such a point (a piece that takes a newline ends
with it, unless whitespace or, in o200k_base, ``/`` follows), so a text's count is the sum
of its segments' counts, in each encoding. Segment counts are cached too: fitting a cut to a
budget counts texts that share most of their lines, and each line is split only once.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

from truncation_core.tokens.pretokenize import (
    CL100K_PATTERN,
    O200K_PATTERN,
    newer_letters,
    splitter,
)
from truncation_core.types.tokenizer import (
    fit_prefix_by_count,
    fit_suffix_by_count,
    utf8_size,
    visible_text,
)

if TYPE_CHECKING:
    from truncation_core.tokens.table import RankTable

__all__ = ["ESTIMATE", "MAX_MERGED_BYTES", "EstimateTokenizer", "bpe_count", "segments"]

ESTIMATE = "estimate"
#: Longer pieces are counted as their UTF-8 size: merging costs time quadratic in the piece.
MAX_MERGED_BYTES = 256
#: Cached piece counts per encoding, at most; the cache is emptied when it is full.
CACHE_SIZE = 200_000
#: Cached segment counts, at most (a segment is about a line: a few MB at most).
SEGMENT_CACHE_SIZE = 16_384
#: Texts shorter than this are counted whole, without segmenting.
_SEGMENT_FROM = 512
_NO_RANK = 1 << 62


@cache
def _segment_point() -> re.Pattern[str]:
    """Where a text may be cut into segments whose counts add up: after a "\\n" that is
    followed by a character that is neither whitespace (``str.isspace``, a superset of the
    Unicode White_Space the patterns use) nor "/".

    Compiled on first use, once: the Unicode ``\\s`` makes it cost most of a millisecond, at
    every start-up if done on import, and again whenever :mod:`re`'s own cache of 512
    patterns has dropped it, in a host that compiles many.
    """
    return re.compile(r"(?<=\n)(?=[^\s/])")


def bpe_count(piece: bytes, ranks: dict[bytes, int]) -> int:
    """The number of tokens byte-pair merging leaves of *piece* with the tokens of *ranks*.

    The merge order is tiktoken's: the adjacent pair whose concatenation has the lowest rank
    first, the leftmost one on a tie.
    """
    n = len(piece)
    if n <= 1:
        return n
    if piece in ranks:
        # tiktoken emits a piece that is itself a token as that one token, without merging.
        return 1
    get = ranks.get
    starts = list(range(n + 1))
    pair_ranks = [get(piece[i : i + 2], _NO_RANK) for i in range(n - 1)]
    while pair_ranks:
        lowest = min(pair_ranks)
        if lowest == _NO_RANK:
            break
        i = pair_ranks.index(lowest)
        del starts[i + 1]
        del pair_ranks[i]
        if i > 0:
            pair_ranks[i - 1] = get(piece[starts[i - 1] : starts[i + 1]], _NO_RANK)
        if i < len(pair_ranks):
            pair_ranks[i] = get(piece[starts[i] : starts[i + 2]], _NO_RANK)
    return len(starts) - 1


class _Encoding:
    """One encoding's split, rank table and piece-count cache."""

    def __init__(self, table: RankTable, max_merged: int = MAX_MERGED_BYTES) -> None:
        self.name = table.name
        self.max_merged = max_merged

        pattern = {"cl100k_base": CL100K_PATTERN, "o200k_base": O200K_PATTERN}[table.name]
        self.split: Callable[[str], list[str]] = splitter(pattern)
        self.table = table
        self.cache: dict[str, int] = {}

    def piece_count(self, piece: str) -> int:
        size = len(piece) if piece.isascii() else len(piece.encode("utf-8"))
        if size > self.max_merged:
            return size
        raw = piece.encode("utf-8")
        if piece.isascii():
            ranks = self.table.ascii
        elif _has_ascii_alnum(piece):
            ranks = self.table.all
        else:
            ranks = self.table.no_alnum
        return bpe_count(raw, ranks)  # type: ignore[arg-type]

    def counts(self, pieces: list[str]) -> list[int]:
        cache = self.cache
        if len(cache) > CACHE_SIZE:
            cache.clear()
        try:
            return list(map(cache.__getitem__, pieces))
        except KeyError:
            pass
        out = []
        for piece in pieces:
            n = cache.get(piece)
            if n is None:
                n = cache[piece] = self.piece_count(piece)
            out.append(n)
        return out

    def count(self, text: str, *, checked: bool = False) -> int:
        """The count of *text*; *checked*: the caller made sure it holds no newer letters."""
        if not checked and not text.isascii() and _has_newer_letters(text):
            # Pieced unlike tiktoken: only the UTF-8 size is sure to bound the count.
            return utf8_size(text)
        cache = self.cache
        if len(cache) > CACHE_SIZE:
            cache.clear()
        pieces = self.split(text)
        try:  # every piece seen before, the common case: summed at C speed
            return sum(map(cache.__getitem__, pieces))
        except KeyError:
            pass
        total = 0
        for piece in pieces:
            n = cache.get(piece)
            if n is None:
                n = cache[piece] = self.piece_count(piece)
            total += n
        return total


def _has_ascii_alnum(piece: str) -> bool:
    return _ASCII_ALNUM(piece) is not None


def _has_newer_letters(text: str) -> bool:
    """Whether *text* holds a character whose Unicode version may split it unlike tiktoken
    (see :func:`~truncation_core.tokens.pretokenize.newer_letters`)."""
    if text.isascii():
        return False

    return newer_letters()(text) is not None


_ASCII_ALNUM = __import__("re").compile("[A-Za-z0-9]").search

_lock = threading.Lock()
#: Segment -> its count in each encoding, in the order of :func:`_encodings`.
_segment_counts: dict[str, tuple[int, ...]] = {}


@cache
def _encodings() -> tuple[_Encoding, ...]:
    with _lock:
        # The table, the patterns and the `regex` module load here, on the first count.
        # on the first count: 3.1 ms with json (python -X importtime, fastest of 9, 2026-12)
        from truncation_core.tokens.table import load_tables

        return tuple(_Encoding(table) for table in load_tables().values())


def segments(text: str) -> list[str]:
    """*text* cut where no piece of cl100k_base or o200k_base spans the cut (see the module
    docstring): the counts of the parts add up to the count of the whole, in each."""
    return _segment_point().split(text)


def _count_by_segment(text: str, encodings: tuple[_Encoding, ...]) -> int:
    cache = _segment_counts
    if len(cache) > SEGMENT_CACHE_SIZE:
        cache.clear()
    totals = [0] * len(encodings)
    for segment in segments(text):
        counts = cache.get(segment)
        if counts is None:
            if not segment.isascii() and _has_newer_letters(segment):
                # Pieced unlike tiktoken: only the UTF-8 size is sure to bound the count
                # (checked once for both encodings).
                counts = (utf8_size(segment),) * len(encodings)
            else:
                counts = tuple(e.count(segment, checked=True) for e in encodings)
            cache[segment] = counts
        for i, n in enumerate(counts):
            totals[i] += n
    return max(totals)


class EstimateTokenizer:
    """The ``estimate`` tokenizer (see the module docstring). Stateless; share one instance."""

    name = ESTIMATE
    #: Every count is at most the UTF-8 size: merging never makes more parts than bytes.
    byte_level = True

    def count(self, text: str) -> int:
        """An upper bound on the tokens of *text* in cl100k_base and in o200k_base."""
        text = visible_text(text)
        if not text:
            return 0
        encodings = _encodings()
        if len(text) >= _SEGMENT_FROM:
            return _count_by_segment(text, encodings)
        return max(encoding.count(text) for encoding in encodings)

    def fit_prefix(self, text: str, max_tokens: int) -> int:
        """See :meth:`truncation_core.tokens.Tokenizer.fit_prefix`."""
        if max_tokens <= 0 or not text:
            return 0
        if visible_text(text) is not text or _has_newer_letters(text):
            return fit_prefix_by_count(self.count, text, max_tokens)
        budget = max_tokens
        for attempt in range(4):
            end = self._prefix_guess(text, budget)
            if attempt == 0 and end == len(text):
                return end  # the whole text's piece sums are its exact count
            over = self.count(text[:end]) - max_tokens
            if over <= 0:
                return end
            budget -= over
            if budget <= 0:
                break
        return fit_prefix_by_count(self.count, text, max_tokens)

    def fit_suffix(self, text: str, max_tokens: int) -> int:
        """See :meth:`truncation_core.tokens.Tokenizer.fit_suffix`."""
        if max_tokens <= 0 or not text:
            return len(text)
        if visible_text(text) is not text or _has_newer_letters(text):
            return fit_suffix_by_count(self.count, text, max_tokens)
        budget = max_tokens
        for attempt in range(4):
            start = self._suffix_guess(text, budget)
            if attempt == 0 and start == 0:
                return start
            over = self.count(text[start:]) - max_tokens
            if over <= 0:
                return start
            budget -= over
            if budget <= 0:
                break
        return fit_suffix_by_count(self.count, text, max_tokens)

    def _prefix_guess(self, text: str, budget: int) -> int:
        """The largest end whose summed piece counts, in both encodings, are within *budget*.

        A cut inside a piece counts the cut part as its UTF-8 size. The split of a prefix can
        differ from the whole text's near its end (look-aheads), so callers check the result.
        """
        limits = [self._prefix_limit(enc, text, budget) for enc in _encodings()]
        return _safe_end(text, min(limits))

    def _suffix_guess(self, text: str, budget: int) -> int:
        limits = [self._suffix_limit(enc, text, budget) for enc in _encodings()]
        return _safe_start(text, max(limits))

    @staticmethod
    def _prefix_limit(encoding: _Encoding, text: str, budget: int) -> int:
        pieces = encoding.split(text)
        used = 0
        pos = 0
        for piece, n in zip(pieces, encoding.counts(pieces), strict=True):
            if used + n > budget:
                return pos + _partial_piece(encoding, piece, budget - used)
            used += n
            pos += len(piece)
        return len(text)

    @staticmethod
    def _suffix_limit(encoding: _Encoding, text: str, budget: int) -> int:
        pieces = encoding.split(text)
        used = 0
        pos = len(text)
        for piece, n in zip(reversed(pieces), reversed(encoding.counts(pieces)), strict=True):
            if used + n > budget:
                return pos - _partial_piece(encoding, piece, budget - used, from_end=True)
            used += n
            pos -= len(piece)
        return 0


def _partial_piece(encoding: _Encoding, piece: str, budget: int, *, from_end: bool = False) -> int:
    """How many characters of *piece* (from its start, or its end) fit in *budget* tokens.

    Merged pieces are bisected on their own count; longer ones are cut by UTF-8 size, which
    bounds the count of any text.
    """
    if budget <= 0:
        return 0
    if len(piece) * 4 > encoding.max_merged and utf8_size(piece) > encoding.max_merged:
        return _chars_within_bytes(piece[::-1] if from_end else piece, budget)
    lo, hi = 0, len(piece)  # lo characters fit, hi do not (the whole piece is over budget)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        part = piece[len(piece) - mid :] if from_end else piece[:mid]
        if encoding.piece_count(part) <= budget:
            lo = mid
        else:
            hi = mid
    return lo


def _chars_within_bytes(piece: str, limit: int) -> int:
    """How many leading characters of *piece* fit in *limit* UTF-8 bytes."""
    if limit <= 0:
        return 0
    if piece.isascii():
        return min(len(piece), limit)
    size = 0
    for i, ch in enumerate(piece):
        size += len(ch.encode("utf-8"))
        if size > limit:
            return i
    return len(piece)


def _safe_end(text: str, end: int) -> int:
    if 0 < end < len(text) and text[end - 1] == "\r" and text[end] == "\n":
        return end - 1
    return end


def _safe_start(text: str, start: int) -> int:
    if 0 < start < len(text) and text[start - 1] == "\r" and text[start] == "\n":
        return start + 1
    return start
