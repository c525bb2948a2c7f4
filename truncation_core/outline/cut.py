"""The ``outline`` strategy's cut: head and tail, with the outline of what lies between.

The text is cut as ``head_tail`` cuts it (``head_ratio`` of the budget to the head); then
the outline of the omitted region (:mod:`~truncation_core.outline.toc`) is placed right
after the omission marker, and the text is cut again with the outline's size taken off the
budget, so that the whole stays within it. The outline takes at most :data:`SHARE` of the
budget; entries of the (wider) region the second cut omits are listed.

Nothing is outlined when the cut leaves out no single region, when the artifact is itself
cut (its line numbers would not be the output's), when the text is too large to outline
(:data:`~truncation_core.outline.toc.MAX_CHARS`), or for a stream longer than the ends it
keeps (there is no whole text to read the structure from): the head_tail cut is returned
as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from truncation_core.text.cut import cut_text
from truncation_core.text.measure import measure
from truncation_core.types.cuts import ContentFacts, Cut, Omission
from truncation_core.types.models import Budget

if TYPE_CHECKING:
    from truncation_core.types.markers import MarkerRenderer

__all__ = ["SHARE", "outline_cut"]

#: The most of the budget (in characters) the outline may take.
SHARE = 0.2
#: How many times the text is cut again when the outline of the wider region grows.
_ATTEMPTS = 3


def _sole(cut: Cut) -> Omission | None:
    return cut.omissions[0] if len(cut.omissions) == 1 and cut.omissions[0].lines else None


def outline_cut(text: str, *, budget: Budget, facts: ContentFacts, markers: MarkerRenderer,
                head_share: float, whole_lines: bool = False) -> Cut:
    """*text* cut to *budget* keeping *head_share* of it at the head, with the outline of
    the omitted part after the marker."""
    from truncation_core.outline.toc import document, render_entry

    cut = cut_text(text, budget=budget, facts=facts, markers=markers, head_share=head_share,
                   whole_lines=whole_lines)
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

    def cost(entry: object) -> int:
        return len(render_entry(entry, templates.outline_entry)) + 1  # type: ignore[arg-type]

    allowance = int(budget.chars * SHARE) - len(header) - 2
    entries = doc.entries(region.first_line, region.last_line, allowance, cost)
    for attempt in range(_ATTEMPTS):
        if not entries:
            return cut
        block = _block(header, entries, templates.outline_entry)
        room = budget.minus(measure(block))
        if room is None:
            return cut
        again = cut_text(text, budget=room, facts=facts, markers=markers,
                         head_share=head_share, whole_lines=whole_lines)
        wider = _sole(again)
        if wider is None:
            return cut
        # The region the second cut omits is wider: its outline may need more entries.
        last = attempt == _ATTEMPTS - 1
        entries = doc.entries(wider.first_line, wider.last_line,
                              len(block) - len(header) - 1 if last else allowance, cost)
        fitted = _block(header, entries, templates.outline_entry) if entries else ""
        if entries and len(fitted) <= len(block):
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


def _block(header: str, entries: list, template: str) -> str:  # type: ignore[type-arg]
    from truncation_core.outline.toc import render_entry

    return header + "\n" + "".join(render_entry(e, template) + "\n" for e in entries)


def _after_marker(cut: Cut, text: str, region: Omission) -> int:
    """Where the outline goes in *cut*'s text: just after the marker of *region* (before the
    kept tail; at the end when nothing follows the marker)."""
    if region.position == "end":
        return len(cut.text)
    return len(cut.text) - (len(text) - region.end)
