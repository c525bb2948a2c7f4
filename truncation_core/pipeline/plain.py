"""The view without terminal control: what a cut keeps, as a reader of the terminal sees it.

Command output captured from a terminal holds colour codes, cursor moves and progress
displays redrawn in place; none of it tells the model anything, and all of it spends the
budget. :func:`plain_view` removes it from what the model sees
(:mod:`truncation_core.text.terminal`), and nothing else changes: the strategy cuts the
original text, the markers and the metadata describe the original, the artifact keeps the
original bytes. So every number shown still addresses the artifact as stored.

Only the text a cut keeps is cleaned whole (escape sequences, erased lines, redrawn
frames); markers and the highlights block between kept parts lose escape sequences only
(a highlight quotes a line of the content), so that an erase or a redraw in the content can
never take a marker with it. When the output cannot be split into kept parts and the rest
(a structured strategy rewrites the content; a plugin's strategy may too), escape sequences
alone are removed, from all of it.

Removing only ever shrinks the view, so it stays within the budget; to use the room freed,
the cut is made again in a wider budget, by the share terminal control took, until what is
left fills the budget (a few cuts at most, and only for output that holds terminal control:
for other output this costs one ``str.find`` for ``ESC`` and one for ``"\\r"`` over the
view).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import attrs

from truncation_core.pipeline.ends import TERMINAL_WIDENING
from truncation_core.text.measure import measure
from truncation_core.text.terminal import ESC, strip_ansi, terminal_view
from truncation_core.types.cuts import Cut, Omission
from truncation_core.types.models import Budget, Size

if TYPE_CHECKING:
    from truncation_core.pipeline.call import Call
    from truncation_core.pipeline.ends import KeptEnds

__all__ = ["plain_view"]

#: How many more cuts at most fill the room that terminal control leaves when removed.
_WIDENINGS = 4
#: Room left (a share of the budget) that is close enough to full.
_FULL_ENOUGH = 0.02


def plain_view(call: Call, budget: Budget, view: Callable[[Budget], tuple[Cut, list[str]]],
               notes: list[str]) -> tuple[Cut, int]:
    """The cut of *call* in *budget* without terminal control, and how many characters of
    the cut's text that removed.

    *view* cuts the content in a budget (the strategy's cut and the highlights block) and
    gives the notes of that cut; *notes* gets those of the cut chosen.
    """
    cut, cut_notes = view(budget)
    clean = _Cleaner(call.text)
    plain = clean(cut)
    if plain is cut.text:
        notes.extend(cut_notes)
        return cut, 0
    best, best_notes, best_plain = cut, cut_notes, plain
    # The budget is widened by one factor in every limited unit, found as a root: the
    # secant from the last cut, kept between the widest factor known to fit and the
    # narrowest known not to. A stream keeps ends as wide as the widest budget, so it cuts
    # as process() does. A budget the whole text fits would make no cut at all: when the
    # widening reaches that far, the whole text, without terminal control, is tried instead.
    total = call.facts.chars
    most = min(float(TERMINAL_WIDENING), _widest_cutting(call, budget))
    factor, fits, too_wide = 1.0, 1.0, math.inf
    shown = measure(plain)
    for _ in range(_WIDENINGS):
        if _full(shown, budget):
            break
        guess = factor * _shortfall(shown, budget)
        if too_wide < math.inf and not fits < guess < too_wide:
            guess = (fits + too_wide) / 2
        if guess > most and total <= TERMINAL_WIDENING * budget.chars:
            whole = clean.whole()
            if whole is not None and budget.admits(measure(whole)):
                notes.append("the whole output fits once terminal control is removed")
                # Reported as cut by the strategy that made the first cut (a fallback's
                # name when the one asked for fell back), not by the one asked for.
                return (Cut(text=whole, omitted_chars=0, omitted_lines=0, strategy=cut.strategy),
                        total - len(whole))
        guess = min(guess, most)
        if guess <= fits or _scaled(budget, guess) == _scaled(budget, factor):
            break
        factor = guess
        again, again_notes = view(_scaled(budget, factor))
        again_plain = clean(again)
        shown = measure(again_plain)
        if budget.admits(shown):
            fits = max(fits, factor)
            if len(again_plain) > len(best_plain):
                best, best_notes, best_plain = again, again_notes, again_plain
        else:
            too_wide = min(too_wide, factor)
    notes.extend(best_notes)
    return attrs.evolve(best, text=best_plain), len(best.text) - len(best_plain)


class _Cleaner:
    """Removes terminal control from the cuts of one text."""

    def __init__(self, text: str | KeptEnds) -> None:
        self._text = text

    @functools.cached_property
    def _redraws(self) -> bool:
        """Whether a lone ``"\\r"`` redraws a line: only in text that ends its lines with
        ``"\\n"``; in text whose lines end with a lone ``"\\r"``, it is a line break."""
        text = self._text
        if isinstance(text, str):
            return text.find("\n") != -1
        return text.count("\n") > 0  # a stream's ends know the total

    def whole(self) -> str | None:
        """The whole text without terminal control, when it is at hand (not a stream's
        ends)."""
        text = self._text
        return terminal_view(text, redraws=self._redraws) if isinstance(text, str) else None

    def __call__(self, cut: Cut) -> str:
        """*cut*'s text without terminal control; the very same object when it holds none."""
        out = cut.text
        if out.find(ESC) == -1 and (out.find("\r") == -1 or not self._redraws):
            return out
        parts = _kept_parts(out, self._text, cut.omissions)
        if parts is None:
            return strip_ansi(out)
        redraws = self._redraws
        cleaned = "".join(terminal_view(part, redraws=redraws) if kept else strip_ansi(part)
                          for part, kept in parts)
        return out if len(cleaned) == len(out) else cleaned


def _kept_parts(out: str, text: str | KeptEnds, omissions: Sequence[Omission]
                ) -> list[tuple[str, bool]] | None:
    """*out* split into the parts of *text* it keeps (True) and what stands between them
    (markers, highlights: False), when *out* is the text with each omitted region replaced;
    None when it is not."""
    regions = sorted(omissions, key=lambda region: region.start)
    kept_spans = []
    start = 0
    for region in regions:
        if region.start < start:
            return None
        kept_spans.append((start, region.start))
        start = region.end
    kept_spans.append((start, len(text)))
    if sum(b - a for a, b in kept_spans) > len(out):  # not the text's parts (nor a copy of it)
        return None
    try:
        kept = [text[a:b] for a, b in kept_spans]
    except LookupError:  # a stream's ends do not hold a middle part
        return None
    head, tail = kept[0], kept[-1]
    if not out.startswith(head) or len(head) + len(tail) > len(out) or not out.endswith(tail):
        return None
    parts: list[tuple[str, bool]] = [(head, True)]
    pos, stop = len(head), len(out) - len(tail)
    for piece in kept[1:-1]:
        found = out.find(piece, pos, stop) if piece else pos
        if found == -1:
            return None
        parts += [(out[pos:found], False), (piece, True)]
        pos = found + len(piece)
    parts += [(out[pos:stop], False), (tail, True)]
    return parts


def _widest_cutting(call: Call, budget: Budget) -> float:
    """The widest factor by which *budget* can grow and still not hold the whole text (in
    some unit the text stays over it): a strategy asked to fit a text in a budget that holds
    it would cut nothing."""
    facts = call.facts
    widest = (facts.chars - 1) / budget.chars
    if budget.lines is not None:
        widest = max(widest, (facts.lines - 1) / max(budget.lines, 1))
    if budget.bytes is not None:
        widest = max(widest, (facts.bytes - 1) / max(budget.bytes, 1))
    return widest


def _full(shown: Size, budget: Budget) -> bool:
    """Whether *shown* fits *budget* and fills it, in some limited unit, to within
    :data:`_FULL_ENOUGH` (a line, for lines)."""
    if not budget.admits(shown):
        return False
    return (shown.chars >= budget.chars * (1 - _FULL_ENOUGH)
            or (budget.bytes is not None and shown.bytes >= budget.bytes * (1 - _FULL_ENOUGH))
            or (budget.lines is not None and shown.lines >= budget.lines - 1))


def _shortfall(shown: Size, budget: Budget) -> float:
    """How much larger what is shown could be, in the tightest limited unit: what to widen
    the budget by if what is shown grew with it (aiming just under the limit)."""
    aim = 1 - _FULL_ENOUGH / 2
    ratios = [budget.chars * aim / max(shown.chars, 1)]
    if budget.bytes is not None:
        ratios.append(budget.bytes * aim / max(shown.bytes, 1))
    if budget.lines is not None:
        ratios.append(budget.lines / max(shown.lines, 1))
    return min(ratios)


def _scaled(budget: Budget, factor: float) -> Budget:
    """*budget* times *factor* (1 or more) in every limited unit."""
    return Budget(chars=math.floor(budget.chars * factor),
                  bytes=None if budget.bytes is None else math.floor(budget.bytes * factor),
                  lines=None if budget.lines is None else math.floor(budget.lines * factor))
