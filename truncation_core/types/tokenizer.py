"""The tokenizer contract: what a tokenizer is, and the cuts built on ``count`` alone.

A :class:`Tokenizer` counts the tokens a model would see for a text, and fits a text to a
token budget by keeping its longest prefix or suffix within it. It is a plain object: it never
raises on any ``str`` (lone surrogates, ``\\r``-only lines, NUL, a 10 MB line) and holds no
per-call state, so one instance serves every thread.

What the model sees: a lone surrogate cannot reach a model as such (it is not valid
Unicode). Counting follows tiktoken, which replaces each lone surrogate by U+FFFD after
joining surrogate pairs into their character (:func:`visible_text`); every tokenizer here
counts that text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

__all__ = [
    "Tokenizer",
    "fit_prefix_by_count",
    "fit_suffix_by_count",
    "utf8_size",
    "visible_text",
]


@runtime_checkable
class Tokenizer(Protocol):
    """How tokens are counted for one family of models."""

    @property
    def name(self) -> str:
        """The name configuration uses for this tokenizer (``"estimate"``, ``"o200k_base"``)."""
        ...

    @property
    def byte_level(self) -> bool:
        """True if ``count(text) <= utf8_size(text)`` for every text.

        Then a text whose UTF-8 size is within a token budget needs no counting at all.
        Byte-level BPE tokenizers (every tiktoken encoding) have this property: each token is
        at least one byte.
        """
        ...

    def count(self, text: str) -> int:
        """The number of tokens of *text* as the model sees it."""
        ...

    def fit_prefix(self, text: str, max_tokens: int) -> int:
        """An end index ``e`` with ``count(text[:e]) <= max_tokens``, as large as practical.

        ``e`` is ``len(text)`` when the whole text fits, and never splits a ``"\\r\\n"`` pair
        or a surrogate pair. The cost grows with ``len(text)`` (times a logarithm at most),
        so callers cut by characters first and fit what they keep.
        """
        ...

    def fit_suffix(self, text: str, max_tokens: int) -> int:
        """A start index ``s`` with ``count(text[s:]) <= max_tokens``, as small as practical.

        The mirror of :meth:`fit_prefix`: ``0`` when the whole text fits.
        """
        ...


def utf8_size(text: str) -> int:
    """The UTF-8 size of *text*; a lone surrogate counts as three bytes."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def visible_text(text: str) -> str:
    """*text* as a model receives it: lone surrogates replaced by U+FFFD, pairs joined.

    Returns *text* itself (no copy) when it is valid Unicode, the common case.
    """
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


def _is_split(text: str, i: int) -> bool:
    """True if a cut at *i* would split a ``"\\r\\n"`` pair or a surrogate pair."""
    if not 0 < i < len(text):
        return False
    before, after = text[i - 1], text[i]
    if before == "\r" and after == "\n":
        return True
    return "\ud800" <= before <= "\udbff" and "\udc00" <= after <= "\udfff"


def fit_prefix_by_count(count: Callable[[str], int], text: str, max_tokens: int) -> int:
    """:meth:`Tokenizer.fit_prefix` for any tokenizer, by bisection on *count*.

    Token counts of prefixes are not monotonic in general (a longer prefix can merge into
    fewer tokens), so the result is a prefix that fits and whose next safe cut does not: the
    longest one in practice, guaranteed to fit always.
    """
    if max_tokens <= 0 or not text:
        return 0
    total = count(text)
    if total <= max_tokens:
        return len(text)
    lo, hi = 0, len(text)  # count(text[:lo]) fits, count(text[:hi]) does not
    # A first guess in proportion to the budget saves most of the bisection steps.
    guess = len(text) * max_tokens // total
    while hi - lo > 1:
        mid = guess if lo < guess < hi else (lo + hi) // 2
        guess = -1
        if _is_split(text, mid):
            mid -= 1
            if mid <= lo:
                break
        if count(text[:mid]) <= max_tokens:
            lo = mid
        else:
            hi = mid
    return lo


def fit_suffix_by_count(count: Callable[[str], int], text: str, max_tokens: int) -> int:
    """:meth:`Tokenizer.fit_suffix` for any tokenizer, by bisection on *count*."""
    if max_tokens <= 0 or not text:
        return len(text)
    total = count(text)
    if total <= max_tokens:
        return 0
    lo, hi = 0, len(text)  # count(text[hi:]) fits, count(text[lo:]) does not
    guess = len(text) - len(text) * max_tokens // total
    while hi - lo > 1:
        mid = guess if lo < guess < hi else (lo + hi) // 2
        guess = -1
        if _is_split(text, mid):
            mid += 1
            if mid >= hi:
                break
        if count(text[mid:]) <= max_tokens:
            hi = mid
        else:
            lo = mid
    return hi
