"""The ``outline`` strategy: head and tail, and where the sections of the omitted part start.

For file views, documents and listings: the cut of ``head_tail``, with an outline of the
omitted part after its marker (headings, definitions found by a tree-sitter grammar, or
indentation; every section at most 100 lines), so that any of it is one ``get_artifact``
call away. The algorithm is :mod:`truncation_core.outline`; docs/strategies.md describes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from truncation_core.config.model import Policy
from truncation_core.hooks.models import Provides
from truncation_core.hooks.specs import hookimpl

if TYPE_CHECKING:
    from truncation_core.hooks.models import Budget, ContentFacts, Cut
    from truncation_core.pipeline.markers import MarkerRenderer

NAME = "outline"


@hookimpl(trylast=True)
def provides() -> Provides:
    return Provides(strategies={NAME: "keep the beginning and the end, and list where the "
                                      "sections of the omitted part start (headings, "
                                      "definitions), each with its line number"},
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
    from truncation_core.outline.cut import outline_cut

    return outline_cut(text, budget=budget, facts=facts, markers=markers,
                       head_share=policy.head_ratio)
