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

from truncation_core.hooks.models import Budget, Cut, Omission, Size
from truncation_core.text.measure import measure
from truncation_core.text.terminal import ESC, strip_ansi, terminal_view

if TYPE_CHECKING:
    from truncation_core.pipeline.call import Call
    from truncation_core.streaming.ends import KeptEnds

__all__ = ["plain_view"]

#: How many more cuts at most fill the room that terminal control leaves when removed.
_WIDENINGS = 3
#: Room left (a share of the budget) that is close enough to full.
_FULL_ENOUGH = 0.02
#: The most a budget is widened for terminal control: output that is more than this many
#: times larger than what it shows is mostly a display's redraws.
_MOST_WIDENED = 16


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
    wide, raw, shown = budget, measure(cut.text), measure(plain)
    for _ in range(_WIDENINGS):
        wider = _widened(wide, raw, shown, budget)
        if wider is None:
            break
        wide = wider
        again, again_notes = view(wide)
        again_plain = clean(again)
        raw, shown = measure(again.text), measure(again_plain)
        if budget.admits(shown) and len(again_plain) > len(best_plain):
            best, best_notes, best_plain = again, again_notes, again_plain
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


def _widened(wide: Budget, raw: Size, shown: Size, budget: Budget) -> Budget | None:
    """The budget to cut in next, from the last cut (of size *raw*, made in *wide*) and the
    size of what is left of it to show (*shown*), so that what is shown fills *budget*; None
    when it is full enough, or no wider budget would change anything."""
    if budget.admits(shown) and budget.chars - shown.chars <= budget.chars * _FULL_ENOUGH:
        return None

    def unit(limit: int | None, used: int, raw_used: int, now: int | None) -> int | None:
        if limit is None or now is None:
            return None
        # The room left (or the excess), in raw units: as many as the last cut took to show
        # that much.
        change = (limit - used) * max(raw_used, 1) / max(used, 1)
        wanted = math.floor(now + change) - (0 if change >= 0 else 1)
        return min(max(wanted, limit), limit * _MOST_WIDENED)

    wider = Budget(chars=unit(budget.chars, shown.chars, raw.chars, wide.chars) or budget.chars,
                   bytes=unit(budget.bytes, shown.bytes, raw.bytes, wide.bytes),
                   lines=unit(budget.lines, shown.lines, raw.lines, wide.lines))
    return None if wider == wide else wider
