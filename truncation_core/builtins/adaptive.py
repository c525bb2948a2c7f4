"""The ``adaptive`` strategy, ``execute_command``'s: the split where the information is.

A failure log keeps its tail, search hits, listings and files their head and tail; the
part left out is outlined (an index by file, directory or commit for records). The
algorithm is :mod:`truncation_core.adaptive`; docs/strategies.md describes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from truncation_core.config.model import Policy
from truncation_core.hooks.models import Provides
from truncation_core.hooks.specs import hookimpl

if TYPE_CHECKING:
    from truncation_core.hooks.models import Budget, ContentFacts, Cut
    from truncation_core.pipeline.markers import MarkerRenderer

NAME = "adaptive"


@hookimpl(trylast=True)
def provides() -> Provides:
    return Provides(strategies={NAME: "keep the end of a failure log, the beginning and the "
                                      "end of anything else (search hits, listings, files), "
                                      "and outline the omitted part"},
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
    from truncation_core.adaptive.cut import adaptive_cut

    return adaptive_cut(text, budget=budget, facts=facts, markers=markers, policy=policy)
