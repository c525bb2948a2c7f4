"""The ``adaptive`` strategy's cut: head and tail split where the information is, a floor of
whole lines for the tail, and the outline of the part left out.

1. **Split**: the head share that the failure lines at the two ends ask for
   (:mod:`~truncation_core.adaptive.ends`), decided once per text from windows as wide as
   ``inline_limit`` (not the budget of each attempt, which shrinks as a highlights block or
   an outline takes room: the decision must not change between attempts).
2. **A floor of lines for the tail**: the tail keeps at least :data:`TAIL_LINES` whole lines
   (a summary, the last error), even when they are long, as long as they take at most
   :data:`TAIL_FLOOR_SHARE` of the budget: the head gives up the room they need. A share of
   characters alone would keep two lines of a log whose last lines are long.
3. **Outline**: the part left out is outlined (:func:`truncation_core.outline.cut.outline_cut`):
   an index by file, directory or commit for records, where a section starts for a
   document or a source file; every section at most 100 lines.

``details.split`` says what was decided: the head share, and the failure lines found at each
end.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from truncation_core.adaptive.ends import Ends, head_share, salient_ends
from truncation_core.text.cut import cut_text

if TYPE_CHECKING:
    from truncation_core.types.cuts import ContentFacts, Cut
    from truncation_core.types.markers import MarkerRenderer
    from truncation_core.types.models import Budget
    from truncation_core.types.policy import Policy

__all__ = ["TAIL_FLOOR_SHARE", "TAIL_LINES", "adaptive_cut", "tail_floor"]

#: Whole lines the tail keeps at least, whatever their length (within
#: :data:`TAIL_FLOOR_SHARE` of the budget).
TAIL_LINES = 10
#: The most of the budget the tail's floor of lines may take.
TAIL_FLOOR_SHARE = 0.8


def tail_floor(text: str, lines: int = TAIL_LINES, *, within: int | None = None) -> int:
    """Characters of the last *lines* lines of *text* (terminators included): the length
    of the shortest tail holding them. Reads only as far back as those lines go, and at most
    *within* characters (a stream keeps no more of its end): *within* + 1 when they start
    further back."""
    n = len(text)
    if lines <= 0:
        return 0
    floor = 0 if within is None else max(0, n - within)
    end = n
    # A final terminator ends the last line; it starts no line of its own.
    if text[n - 1:n] == "\n":
        end -= 2 if text[n - 2:n] == "\r\n" else 1
    elif text[n - 1:n] == "\r":
        end -= 1
    pos = end
    for _ in range(lines):
        if pos <= floor:
            return n if floor == 0 else n - floor + 1
        nl = max(text.rfind("\n", floor, pos), text.rfind("\r", floor, pos))
        if nl < 0:
            return n if floor == 0 else n - floor + 1
        pos = nl - 1 if text[nl] == "\n" and nl > floor and text[nl - 1] == "\r" else nl
    return n - (nl + 1)


def _share_with_floor(room: Budget, share: float, floor: int, marker: int) -> float:
    """*share* lowered so that the tail's *floor* characters fit beside the head, if they
    take at most :data:`TAIL_FLOOR_SHARE` of *room* (less the *marker*'s characters, which
    the cut reserves before it splits the rest)."""
    chars = room.chars - marker
    if chars <= 0 or floor > TAIL_FLOOR_SHARE * chars:
        return share
    return min(share, 1 - floor / chars)


def _sniff(text: str, policy: Policy) -> Ends:
    # The pipeline gives the tool's patterns (a plugin's too). A policy made from
    # configuration alone (a strategy called directly, outside a Truncator) has none: no
    # failure lines are found, and the split is head_ratio's.
    if policy.salient is None:
        return Ends(head=0, tail=0)
    # Each end is read as far as the budget could show of it.
    return salient_ends(text, policy.inline_limit, policy.salient())


def adaptive_cut(text: str, *, budget: Budget, facts: ContentFacts, markers: MarkerRenderer,
                 policy: Policy) -> Cut:
    """*text* cut to *budget* where its information is, with the outline of what is left
    out after the marker."""
    from truncation_core.outline.cut import outline_cut

    ends = _sniff(text, policy)
    share = head_share(ends, policy.head_ratio)
    # The floor is looked for within inline_limit of the end (a stream keeps more), since it
    # may take only part of the budget.
    floor = tail_floor(text, within=policy.inline_limit) if share < 1 else 0

    marker = len(markers.worst_case("middle")) if 0 < share < 1 else 0

    def cut_within(room: Budget) -> Cut:
        split = _share_with_floor(room, share, floor, marker)
        return cut_text(text, budget=room, facts=facts, markers=markers, head_share=split)

    cut = outline_cut(text, budget=budget, facts=facts, markers=markers,
                      cut_within=cut_within)
    details = {**cut.details, "split": {"head_share": share, "failure_lines":
                                        {"start": ends.head, "end": ends.tail}}}
    return attrs.evolve(cut, strategy=None, details=details)
