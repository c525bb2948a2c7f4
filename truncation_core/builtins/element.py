"""The ``element`` strategy (FR-022), for structured data.

Structure-aware truncation of JSON and XML arrives with the structured-data work; until then
``element`` keeps whole lines from the head and the tail, and says so in the metadata.
"""

from __future__ import annotations

import attrs

from truncation_core.config import Policy
from truncation_core.hookspecs import hookimpl
from truncation_core.markers import MarkerRenderer
from truncation_core.models import Budget, ContentFacts, Cut, Provides
from truncation_core.text import cut_text

NAME = "element"
FALLBACK = "head_tail"


@hookimpl(trylast=True)
def provides() -> Provides:
    return Provides(strategies={NAME: "structured data: cut between elements"})


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
    cut = cut_text(text, budget=budget, facts=facts, markers=markers,
                   head_share=policy.head_ratio, whole_lines=True)
    return attrs.evolve(
        cut,
        strategy=FALLBACK,
        notes=(*cut.notes, "element: structure-aware truncation is not available yet; "
                           "kept whole lines from the head and the tail"),
    )
