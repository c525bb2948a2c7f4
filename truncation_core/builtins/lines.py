"""The ``lines`` strategy: keep the first or last whole lines that fit.

``direction`` chooses the end. Lines are never split, except the first (or last) line when
it does not fit the budget next to the marker: it is cut so that the preview is not empty,
and the metadata notes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from truncation_core.hooks.specs import hookimpl
from truncation_core.types.models import Provides
from truncation_core.types.policy import Policy

if TYPE_CHECKING:
    from truncation_core.types.cuts import ContentFacts, Cut
    from truncation_core.types.markers import MarkerRenderer
    from truncation_core.types.models import Budget

NAME = "lines"


@hookimpl(trylast=True)
def provides() -> Provides:
    return Provides(strategies={NAME: "keep the first (direction: head) or last (direction: "
                                      "tail) whole lines that fit"},
                    streamable={NAME})


@hookimpl(trylast=True)
def truncate(
    strategy: str,
    text: str,
    budget: Budget,
    facts: ContentFacts,
    policy: Policy,
    markers: MarkerRenderer,
) -> Cut | None:
    if strategy != NAME:
        return None
    from truncation_core.text.cut import cut_text

    share = 1.0 if policy.direction == "head" else 0.0
    return cut_text(text, budget=budget, facts=facts, markers=markers, head_share=share,
                    whole_lines=True)
