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
from truncation_core.types.strategy import Strategy

if TYPE_CHECKING:
    from truncation_core.structured.stream_cut import ElementStreamCut
    from truncation_core.types.cuts import ContentFacts, Cut
    from truncation_core.types.markers import MarkerRenderer
    from truncation_core.types.models import Budget
    from truncation_core.types.policy import Policy

NAME = "element"

# The structured algorithms are imported by the first structured cut: importing them takes
# 53 ms (structured.ranked with what it imports, the fastest of 7 runs of python -X
# importtime, 2026-12), four times `python -c pass`; the stream cutter 23 ms.


def element(text: str, *, budget: Budget, facts: ContentFacts, policy: Policy,
            markers: MarkerRenderer) -> Cut | None:
    from truncation_core.structured.dispatch import guarded
    from truncation_core.structured.ranked import element_or_ranked

    return guarded(element_or_ranked, text, budget=budget, facts=facts, policy=policy,
                   markers=markers)


def element_stream_cutter(policy: Policy) -> ElementStreamCut | None:
    """Streams whose content ``select_strategy`` may send to ``element`` get a cutter that
    cuts them as ``process`` would (see :mod:`truncation_core.structured.stream_cut`)."""
    if policy.strategy != NAME and not policy.sniffs_structure:
        return None
    from truncation_core.structured.stream_cut import ElementStreamCut

    return ElementStreamCut(policy)


ELEMENT = Strategy(name=NAME, cut=element, stream_cutter=element_stream_cutter,
                   description="structured data (JSON, JSON Lines, XML): keep the first and "
                               "last elements, with notes; stays valid")


@hookimpl(trylast=True)
def provides() -> Provides:
    return Provides(strategies=[ELEMENT])
