"""The ``ranked`` strategy: the best-scored whole results that fit.

For a JSON list of results (top-level, or the list inside a response object), each with a
score under ``score_key``: results are kept from the highest score down while they fit, never
cut inside; the metadata carries a ``truncation_info``. A single result too large by
itself is element-truncated (reason ``single_result_too_large``). See
:mod:`truncation_core.structured.ranked` and docs/structured.md.
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

NAME = "ranked"

# The algorithm is imported by the first cut: 53 ms otherwise at start-up (see element.py).


def ranked(text: str, *, budget: Budget, facts: ContentFacts, policy: Policy,
           markers: MarkerRenderer) -> Cut | None:
    from truncation_core.structured.dispatch import guarded
    from truncation_core.structured.ranked import ranked_cut

    return guarded(ranked_cut, text, budget=budget, facts=facts, policy=policy, markers=markers)


def ranked_stream_cutter(policy: Policy) -> ElementStreamCut | None:
    """Streams of a tool whose strategy is ``ranked`` get a cutter that cuts them as
    ``process`` would (see :mod:`truncation_core.structured.stream_cut`)."""
    if policy.strategy != NAME:
        return None
    from truncation_core.structured.stream_cut import ElementStreamCut

    return ElementStreamCut(policy, strategy=NAME)


RANKED = Strategy(name=NAME, cut=ranked, stream_cutter=ranked_stream_cutter,
                  description="ranked results (JSON): keep the highest-scored whole results "
                              "that fit (score_key)")


@hookimpl(trylast=True)
def provides() -> Provides:
    return Provides(strategies=[RANKED])
