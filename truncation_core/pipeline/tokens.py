"""Token budgets: what the model sees, fitted to ``max_tokens`` under the policy's tokenizer.

Strategies cut to a budget in characters, bytes and lines
(:class:`~truncation_core.types.models.Budget`) and know nothing of tokens. The pipeline holds
the token limit on top of them, whatever the strategy (a plugin's included), by searching the
character budget:

1. Cut by characters first. A character is at most 4 UTF-8 bytes and a byte-level token at
   least one byte, so when the character budget (plus anything shown above the content) is
   at most a quarter of ``max_tokens``, the cut is within it without counting.
2. Otherwise cut at a first guess of the characters that many tokens take (the density of
   the prefix counted to prove the content over, when it was; else 2.5 characters a token,
   what ``estimate`` gives build logs), count what the model would see, and cut again
   at the size the counts point to (a line through the last two counts: a cut's tokens grow
   about linearly with its characters, plus the fixed cost of its markers), or halfway
   between the largest budget that fits and the smallest that does not when the counts
   say nothing (a strategy cutting whole lines or JSON items moves in steps), until a cut
   fits and uses at least :data:`FILL` of the budget, or the budget is known to within
   0.5%, or six cuts were made. A cut whose UTF-8 size is within the limit needs no count.

Whether content within its other limits is within ``max_tokens`` is judged in proportion to
the limit too (:meth:`CallTokens.within`): a prefix of three characters a token is counted,
ending where no piece of a byte-level BPE tokenizer spans (:data:`PREFIX_ENDS`), so that its
count is at most the whole's, and longer ones only while the count stays within the limit.
A prefix over the limit proves the whole over without counting the rest; only content
within the limit is counted whole, and it is shown whole.

Each count is of what one cut shows, about the budget's size, never of the whole input, so
the cost does not grow with the input; and a text cut from the same content shares most of
its lines with the previous one, which ``estimate`` counts once (it caches by line). What
the model sees is counted exactly as it is shown: markers, the artifact reference,
highlights and notes included. It is within ``max_tokens`` by that count, not by an
estimate of it.

A plugin tokenizer that raises is replaced by ``estimate`` for the rest of the call (an upper
bound on cl100k_base and o200k_base), the failure is reported and noted, unless
``plugins.strict``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

import attrs

from truncation_core.text.measure import utf8_size
from truncation_core.tokens.estimate import ESTIMATE, EstimateTokenizer

if TYPE_CHECKING:
    from truncation_core.types.cuts import Cut
    from truncation_core.types.tokenizer import Tokenizer

__all__ = ["DEFAULT_CHARS_PER_TOKEN", "FILL", "PREFIX_ENDS", "PROBE_CHARS_PER_TOKEN", "CallTokens",
           "Shown", "Within", "fit_tokens"]

#: A fit using at least this share of ``max_tokens`` ends the search. (Cuts snap to line
#: boundaries, so the tokens shown move in steps of a line, or more.)
FILL = 0.95
#: The share of ``max_tokens`` the next cut aims at.
_AIM = 0.985
#: Cuts tried before settling for the best one that fits.
_MAX_CUTS = 6
#: The first guess of characters per token: about what ``estimate`` gives build logs (real
#: tokenizers give them about 3), for content that was not counted first. The guess depends
#: on nothing but the content (never on earlier calls), so that the same content always gets
#: the same cut, from ``process()`` and from a stream.
DEFAULT_CHARS_PER_TOKEN = 2.5
#: The most UTF-8 bytes one character takes (a lone surrogate takes 3, as U+FFFD does).
_MAX_BYTES_PER_CHAR = 4
#: The first prefix :meth:`CallTokens.within` counts, in characters per token of the limit:
#: more than logs and code take (2.5 to 3), so that one count proves most long content over.
PROBE_CHARS_PER_TOKEN = 3
#: Where a prefix may end so that its count is at most the whole text's: points no piece of
#: cl100k_base, o200k_base or ``estimate`` spans, so that the prefix is split into the same
#: pieces as the whole up to there. After a newline followed by neither whitespace nor "/"
#: (``estimate``'s segment points); between a non-blank and a space or tab (a piece never
#: ends in one, except a whitespace piece); between an ASCII letter or digit and ASCII
#: punctuation other than the apostrophe of a contraction (letter and digit runs end there:
#: for JSON and base64 without blanks).
PREFIX_ENDS = re.compile(
    r"(?<=\n)(?=[^\s/])|(?<=\S)(?=[ \t])|(?<=[A-Za-z0-9])(?=[!-&(-/:-@\[-`{-~])")


class Within(NamedTuple):
    """What :meth:`CallTokens.within` found."""

    #: True when the text is within the limit.
    fits: bool
    #: Its count, when it was counted whole.
    tokens: int | None = None
    #: The characters per token of the longest part counted (None when nothing was): where
    #: :func:`fit_tokens` makes its first cut of this content.
    chars_per_token: float | None = None


class CallTokens:
    """The token limit of one call, and the tokenizer that counts it.

    :param tokenizer: the policy's tokenizer.
    :param limit: ``max_tokens``.
    :param on_failure: called with what a plugin tokenizer raised, and the tokenizer; it
        reports the failure (or re-raises it, in strict mode). Counting goes on with
        ``estimate``.
    """

    def __init__(self, tokenizer: Tokenizer, limit: int,
                 on_failure: Callable[[Exception, Tokenizer], None]) -> None:
        self.tokenizer = tokenizer
        self.limit = limit
        self._on_failure = on_failure

    @property
    def byte_level(self) -> bool:
        try:
            return bool(self.tokenizer.byte_level)
        except Exception as exc:
            self._fall_back(exc)
            return True

    def count(self, text: str) -> int:
        """The tokens of *text*."""
        try:
            n = self.tokenizer.count(text)
            if type(n) is not int or n < 0:
                raise TypeError(f"Tokenizer.count returned {type(n).__name__} {n!r}, not a "
                                "count of 0 or more")
            return n
        except Exception as exc:
            self._fall_back(exc)
            return self.tokenizer.count(text)

    def within(self, text: str, size_bytes: int | None = None) -> Within:
        """Whether *text* (*size_bytes* in UTF-8, when known) is within the limit.

        Counted only as far as it takes (see the module docstring): a prefix ending at a
        point of :data:`PREFIX_ENDS` counting over the limit proves the whole over, so the
        cost follows the limit, not the text. Content within the limit is counted whole,
        once, exactly; a tokenizer that counted a prefix ending so as more than the whole
        (none of the byte-level BPE ones can) would see content cut that fitted, never
        content shown over the limit.
        """
        limit = self.limit
        if self.byte_level:
            n = len(text)
            if n * _MAX_BYTES_PER_CHAR <= limit:
                return Within(True)
            if n <= limit and (size_bytes if size_bytes is not None
                               else utf8_size(text)) <= limit:
                return Within(True)
        end = len(text)
        probe = limit * PROBE_CHARS_PER_TOKEN
        while probe < end:
            found = PREFIX_ENDS.search(text, probe)
            if found is None:
                break
            cut = found.start()
            n = self.count(text[:cut])
            if n > limit:
                return Within(False, None, cut / n)
            # The next prefix is where this one's density puts the limit, a quarter over,
            # and at least half again as long: the prefixes counted add up to at most three
            # times the last.
            probe = max(cut + cut // 2, int(cut * limit * 1.25 / max(n, 1)))
        n = self.count(text)
        return Within(n <= limit, n, end / n if n else None)

    def within_by_size(self, text: str) -> bool:
        """True when *text* is within the limit by its size alone (no count needed)."""
        if not self.byte_level:
            return False
        n = len(text)
        if n * _MAX_BYTES_PER_CHAR <= self.limit:
            return True
        return n <= self.limit and utf8_size(text) <= self.limit

    def _fall_back(self, exc: Exception) -> None:
        if getattr(self.tokenizer, "name", None) == ESTIMATE and isinstance(
                self.tokenizer, EstimateTokenizer):
            raise exc  # the built-in itself: a bug, not a plugin's
        failed, self.tokenizer = self.tokenizer, EstimateTokenizer()
        self._on_failure(exc, failed)


@attrs.frozen(kw_only=True)
class Shown:
    """One cut of a call: what the model sees, the cut, the notes made while cutting, and
    how many characters of terminal control were removed from the cut's text."""

    content: str
    cut: Cut
    notes: tuple[str, ...] = ()
    terminal_chars: int = 0


def fit_tokens(render: Callable[[int], Shown], *, cap: int, tokens: CallTokens,
               above: str = "", chars_per_token: float | None = None
               ) -> tuple[Shown, int | None, int]:
    """The cut, among those *render* makes for a character budget up to *cap*, that shows
    the most within ``tokens.limit`` tokens (see the module docstring).

    *above* is text shown above the content (a command's header): it counts too.
    *chars_per_token* makes the first guess (default :data:`DEFAULT_CHARS_PER_TOKEN`).
    Returns the cut, its count of tokens (None when its size alone proved it within the
    limit), and the character budget it was made with.
    """
    limit = tokens.limit

    def attempt(chars: int) -> tuple[Shown, int | None, int]:
        shown = render(chars)
        text = above + shown.content if above else shown.content
        if tokens.within_by_size(text):
            return shown, None, utf8_size(text)
        n = tokens.count(text)
        return shown, n, n

    if tokens.byte_level and (cap + len(above)) * _MAX_BYTES_PER_CHAR <= limit:
        return render(cap), None, cap
    density = chars_per_token if chars_per_token and chars_per_token > 0 else (
        DEFAULT_CHARS_PER_TOKEN)
    chars = max(1, min(cap, int(limit * _AIM * density)))
    best: tuple[int, Shown, int | None] | None = None
    over = cap + 1  # the fewest characters known to show too many tokens
    points: list[tuple[int, int]] = []
    shown_sizes: set[int] = set()
    for _ in range(_MAX_CUTS):
        shown, n, used = attempt(chars)
        # A cut seen already: the budget moved within one step of the strategy's cuts
        # (whole lines, whole JSON items), where a line through the counts says nothing.
        repeated = len(shown.content) in shown_sizes
        shown_sizes.add(len(shown.content))
        if not repeated:
            points.append((chars, used))
        if used <= limit:
            if best is None or chars > best[0]:
                best = (chars, shown, n)
            if chars >= cap or used >= FILL * limit:
                break
        else:
            over = min(over, chars)
        low = best[0] if best is not None else 0
        high = over - 1
        if high - low <= max(2, low // 200):
            break
        middle = (low + 1 + high) // 2
        guess = middle if repeated else _predict(points, _AIM * limit)
        guess = min(max(guess, low + 1), high)
        if guess == chars:
            guess = middle
        if guess == chars:
            break
        chars = guess
    if best is not None:
        return best[1], best[2], best[0]
    # Nothing tried fits (markers alone take more than the limit, or counts jump): shrink
    # until something does; no characters at all show nothing.
    while chars > 0:
        chars = max(0, min(chars - 1, int(chars * limit / max(used, 1) * 0.9)))
        shown, n, used = attempt(chars)
        if used <= limit:
            return shown, n, chars
    return shown, n, 0


def _predict(points: list[tuple[int, int]], target: float) -> int:
    """The character budget at which the tokens shown should reach *target*: on the line
    through the last two counts, else in proportion to the last."""
    chars, used = points[-1]
    if len(points) >= 2:
        before, used_before = points[-2]
        if chars != before and used != used_before:
            slope = (used - used_before) / (chars - before)
            if slope > 0:
                return int(chars + (target - used) / slope)
    return int(chars * target / max(used, 1))
