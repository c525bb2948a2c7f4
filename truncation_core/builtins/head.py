"""The ``head`` strategy: keep the beginning."""

from __future__ import annotations

from typing import TYPE_CHECKING

from truncation_core.hooks.specs import hookimpl
from truncation_core.types.models import Provides

if TYPE_CHECKING:
    from truncation_core.types.cuts import ContentFacts, Cut
    from truncation_core.types.markers import MarkerRenderer
    from truncation_core.types.models import Budget

NAME = "head"


@hookimpl(trylast=True)
def provides() -> Provides:
    return Provides(strategies={NAME: "keep the beginning, cut near a line boundary"},
                    streamable={NAME})


@hookimpl(trylast=True)
def truncate(
    strategy: str, text: str, budget: Budget, facts: ContentFacts, markers: MarkerRenderer
) -> Cut | None:
    if strategy != NAME:
        return None
    from truncation_core.text.cut import cut_text

    return cut_text(text, budget=budget, facts=facts, markers=markers, head_share=1.0)
