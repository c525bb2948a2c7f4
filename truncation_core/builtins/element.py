"""The ``element`` strategy: JSON, JSON Lines and XML, cut between elements.

The output stays valid JSON (JSON Lines, well-formed XML) whenever the input is: arrays keep
their first and last items, objects a subset of their members, long strings their ends, and
deep subtrees collapse, each with a note in place saying what was left out. JSON results that
carry scores are cut by ``ranked`` instead, unless the tool's strategy is configured. Content
that is none of these formats is cut by a text strategy, and the metadata says why. The
algorithms live in :mod:`truncation_core.structured`; docs/structured.md describes them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from truncation_core.hooks.specs import hookimpl
from truncation_core.types.models import Provides
from truncation_core.types.policy import Policy

if TYPE_CHECKING:
    from truncation_core.structured.stream_cut import ElementStreamCut
    from truncation_core.types.cuts import ContentFacts, Cut
    from truncation_core.types.markers import MarkerRenderer
    from truncation_core.types.models import Budget

NAME = "element"


@hookimpl(trylast=True)
def provides() -> Provides:
    return Provides(strategies={NAME: "structured data (JSON, JSON Lines, XML): keep the first "
                                      "and last elements, with notes; stays valid"})


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
    from truncation_core.structured.dispatch import guarded
    from truncation_core.structured.ranked import element_or_ranked

    return guarded(element_or_ranked, text, budget=budget, facts=facts, policy=policy,
                   markers=markers)


@hookimpl(trylast=True)
def stream_cutter(policy: Policy) -> ElementStreamCut | None:
    """Streams whose content ``select_strategy`` may send to ``element`` get a cutter that
    cuts them as ``process`` would (see :mod:`truncation_core.structured.stream_cut`)."""
    if policy.strategy != NAME and (policy.tool_strategy or not policy.detect_structure):
        return None
    from truncation_core.structured.stream_cut import ElementStreamCut

    return ElementStreamCut(policy)
