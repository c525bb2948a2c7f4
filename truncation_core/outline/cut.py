"""The ``outline`` strategy's cut: head and tail, with the outline of what lies between.

The text is cut as ``head_tail`` cuts it (``head_ratio`` of the budget to the head); then
the outline of the omitted region (:mod:`~truncation_core.outline.toc`) is placed right
after the omission marker, and the text is cut again with the outline's size taken off the
budget, so that the whole stays within it. The outline takes at most :data:`SHARE` of the
budget, in whichever unit binds most (under a line limit, an entry costs a line whatever
its length); entries of the (wider) region the second cut omits are listed.

Nothing is outlined when the cut leaves out no single region, when the artifact is itself
cut (its line numbers would not be the output's), when the text is too large to outline
(:data:`~truncation_core.outline.toc.MAX_CHARS`), or for a stream longer than the ends it
keeps (there is no whole text to read the structure from): the head_tail cut is returned
as it is.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs

from truncation_core.text.cut import cut_text
from truncation_core.text.measure import measure
from truncation_core.types.cuts import ContentFacts, Cut, Omission
from truncation_core.types.models import Budget, Size

if TYPE_CHECKING:
    from truncation_core.types.markers import MarkerRenderer

__all__ = ["SHARE", "outline_cut"]

#: The most of the budget (in characters) the outline may take.
SHARE = 0.2
#: How many times the text is cut again when the outline of the wider region grows.
_ATTEMPTS = 3
#: Shares of the budget are counted in millionths.
_MILLION = 1_000_000


def _sole(cut: Cut) -> Omission | None:
    return cut.omissions[0] if len(cut.omissions) == 1 and cut.omissions[0].lines else None


def outline_cut(text: str, *, budget: Budget, facts: ContentFacts, markers: MarkerRenderer,
                head_share: float = 0.6, whole_lines: bool = False,
                cut_within: Callable[[Budget], Cut] | None = None) -> Cut:
    """*text* cut to *budget* keeping *head_share* of it at the head, with the outline of
    the omitted part after the marker. *cut_within*, when given, makes the head and tail
    cut for a budget instead (the ``adaptive`` strategy's split)."""
    from truncation_core.outline.toc import document, render_entry

    def cut_to(room: Budget) -> Cut:
        if cut_within is not None:
            return cut_within(room)
        return cut_text(text, budget=room, facts=facts, markers=markers,
                        head_share=head_share, whole_lines=whole_lines)

    cut = cut_to(budget)
    region = _sole(cut)
    artifact = markers.artifact
    if (region is None or (artifact is not None and artifact.cut is not None)
            or not isinstance(text, str)):  # a stream's kept ends: no whole text to outline
        return cut
    doc = document(text)
    if doc is None:
        return cut
    templates = markers.policy.marker
    header = templates.outline

    def units(text: str) -> int:
        """*text*'s share of the budget, in millionths, in the unit it binds most (a
        line limit makes every entry cost a line, whatever its length)."""
        size = measure(text)
        share = size.chars / max(budget.chars, 1)
        if budget.bytes is not None:
            share = max(share, size.bytes / max(budget.bytes, 1))
        if budget.lines is not None:
            share = max(share, size.lines / max(budget.lines, 1))
        return math.ceil(share * _MILLION)

    def cost(entry: object) -> int:
        return units(render_entry(entry, templates.outline_entry) + "\n")  # type: ignore[arg-type]

    allowance = int(SHARE * _MILLION) - units(header + "\n\n")
    entries = doc.entries(region.first_line, region.last_line, allowance, cost)
    for attempt in range(_ATTEMPTS):
        if not entries:
            return cut
        block = _block(header, entries, templates.outline_entry)
        room = budget.minus(measure(block))
        if room is None:
            return cut
        again = cut_to(room)
        wider = _sole(again)
        if wider is None:
            return cut
        # The region the second cut omits is wider: its outline may need more entries.
        last = attempt == _ATTEMPTS - 1
        entries = doc.entries(wider.first_line, wider.last_line,
                              units(block) - units(header + "\n") if last else allowance, cost)
        fitted = _block(header, entries, templates.outline_entry) if entries else ""
        if entries and _within(measure(fitted), measure(block), budget):
            at = _after_marker(again, text, wider)
            if at == len(again.text) and not again.text.endswith("\n"):
                fitted = "\n" + fitted[:-1]  # after an end marker: on its own lines
            out = again.text[:at] + fitted + again.text[at:]
            if not budget.admits(measure(out)):
                return cut
            details = {**again.details,
                       "outline": {"entries": len(entries), "source": doc.source}}
            return attrs.evolve(again, text=out, details=details)
    return cut


def _within(size: Size, bound: Size, budget: Budget) -> bool:
    """*size* is no larger than *bound* in every unit *budget* limits."""
    return (size.chars <= bound.chars
            and (budget.bytes is None or size.bytes <= bound.bytes)
            and (budget.lines is None or size.lines <= bound.lines))


def _block(header: str, entries: list, template: str) -> str:  # type: ignore[type-arg]
    from truncation_core.outline.toc import render_entry

    return header + "\n" + "".join(render_entry(e, template) + "\n" for e in entries)


def _after_marker(cut: Cut, text: str, region: Omission) -> int:
    """Where the outline goes in *cut*'s text: just after the marker of *region* (before the
    kept tail; at the end when nothing follows the marker)."""
    if region.position == "end":
        return len(cut.text)
    return len(cut.text) - (len(text) - region.end)
