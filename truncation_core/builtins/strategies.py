"""The text strategies, all one cut (:func:`~truncation_core.text.cut.cut_text`) with a
different share of the budget for the head; each reads only the ends of its text, so each
cuts streams of any length.

* ``head_tail``, the default: the beginning and the end; the head gets ``head_ratio`` of the
  budget (60% by default), the tail what the head leaves.
* ``head``: the beginning.
* ``tail``: the end, where command output puts its errors.
* ``outline``: ``head_tail``'s cut, with an outline of the omitted part after its marker
  (headings, definitions found by a tree-sitter grammar, or indentation; every section at
  most 100 lines), so that any of it is one ``get_artifact`` call away
  (:mod:`truncation_core.outline`; docs/strategies.md).
* ``adaptive``, ``execute_command``'s: ``outline``'s cut with the split decided per output
  from the failure lines at its two ends (a failure log keeps its tail, anything else
  ``head_ratio`` to the head), and a floor of whole lines for the tail
  (:mod:`truncation_core.adaptive`; docs/strategies.md).
* ``lines``: the first or last whole lines that fit; ``direction`` chooses the end. Lines are
  never split, except the first (or last) line when it does not fit the budget next to the
  marker: it is cut so that the preview is not empty, and the metadata notes it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from truncation_core.hooks.specs import hookimpl
from truncation_core.types.models import Provides
from truncation_core.types.strategy import Strategy

if TYPE_CHECKING:
    from collections.abc import Callable

    from truncation_core.types.cuts import ContentFacts, Cut
    from truncation_core.types.markers import MarkerRenderer
    from truncation_core.types.models import Budget
    from truncation_core.types.policy import Policy


def _cut_text() -> Callable[..., Cut]:
    # Importing the text cutter with a cut's values (types/cuts.py) takes 9.6 ms, 0.7x of
    # `python -c pass` (python -X importtime, 2026-12): a Truncator whose content stays
    # within its limits never pays it.
    from truncation_core.text.cut import cut_text

    return cut_text


def head_tail(text: str, *, budget: Budget, facts: ContentFacts, policy: Policy,
              markers: MarkerRenderer) -> Cut:
    return _cut_text()(text, budget=budget, facts=facts, markers=markers,
                    head_share=policy.head_ratio)


def head(text: str, *, budget: Budget, facts: ContentFacts, policy: Policy,
         markers: MarkerRenderer) -> Cut:
    return _cut_text()(text, budget=budget, facts=facts, markers=markers, head_share=1.0)


def tail(text: str, *, budget: Budget, facts: ContentFacts, policy: Policy,
         markers: MarkerRenderer) -> Cut:
    return _cut_text()(text, budget=budget, facts=facts, markers=markers, head_share=0.0)


def lines(text: str, *, budget: Budget, facts: ContentFacts, policy: Policy,
          markers: MarkerRenderer) -> Cut:
    share = 1.0 if policy.direction == "head" else 0.0
    return _cut_text()(text, budget=budget, facts=facts, markers=markers, head_share=share,
                    whole_lines=True)


def outline(text: str, *, budget: Budget, facts: ContentFacts, policy: Policy,
            markers: MarkerRenderer) -> Cut:
    # The outline's parsers (tree-sitter grammars, when installed) load with the first file
    # cut this way.
    from truncation_core.outline.cut import outline_cut

    return outline_cut(text, budget=budget, facts=facts, markers=markers,
                       head_share=policy.head_ratio)


def adaptive(text: str, *, budget: Budget, facts: ContentFacts, policy: Policy,
             markers: MarkerRenderer) -> Cut:
    # As outline's: the parsers load with the first output cut this way.
    from truncation_core.adaptive.cut import adaptive_cut

    return adaptive_cut(text, budget=budget, facts=facts, markers=markers, policy=policy)


STRATEGIES = (
    Strategy(name="head_tail", cut=head_tail, streamable=True,
             description="keep the beginning and the end (head_ratio of the budget to the "
                         "head), cut near line boundaries"),
    Strategy(name="head", cut=head, streamable=True,
             description="keep the beginning, cut near a line boundary"),
    Strategy(name="tail", cut=tail, streamable=True,
             description="keep the end, cut near a line boundary"),
    Strategy(name="outline", cut=outline, streamable=True,
             description="keep the beginning and the end, and list where the sections of "
                         "the omitted part start (headings, definitions), each with its line "
                         "number"),
    Strategy(name="adaptive", cut=adaptive, streamable=True,
             description="keep the end of a failure log, the beginning and the end of "
                         "anything else (search hits, listings, files), and outline the "
                         "omitted part"),
    Strategy(name="lines", cut=lines, streamable=True,
             description="keep the first (direction: head) or last (direction: tail) whole "
                         "lines that fit"),
)


@hookimpl(trylast=True)
def provides() -> Provides:
    return Provides(strategies=STRATEGIES)
