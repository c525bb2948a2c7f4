"""The ``head_tail`` strategy, the default: keep the beginning and the end.

The head gets ``head_ratio`` of the budget (60% by default), the tail what the head leaves.
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

NAME = "head_tail"


@hookimpl(trylast=True)
def provides() -> Provides:
    return Provides(strategies={NAME: "keep the beginning and the end (head_ratio of the budget "
                                      "to the head), cut near line boundaries"},
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

    return cut_text(text, budget=budget, facts=facts, markers=markers,
                    head_share=policy.head_ratio)
