"""The ``truncate`` hook: the pipeline's cut, which asks the chosen Strategy object by default;
a plugin takes over or wraps the cut of any strategy here."""

from __future__ import annotations

from typing import Any

import attrs

from truncation_core import Budget, ContentFacts, Cut, Provides, Truncator, hookimpl
from truncation_core.plugin import Strategy
from truncation_core.text.cut import fit_prefix, omission
from truncation_core.text.measure import count_terminators
from truncation_core.types.markers import MarkerRenderer

LOG = "".join(f"line {i:04d}\n" for i in range(1000))


class EveryOther:
    """A strategy that keeps the head, rendered through the helpers a plugin author uses."""

    __name__ = "every-other"

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    @hookimpl
    def provides(self) -> Provides:
        return Provides(strategies=[Strategy(name="my_head", description="head via the helpers",
                                             cut=self.cut)])

    def cut(self, text: str, *, budget: Budget, facts: ContentFacts, markers: MarkerRenderer,
            **_: Any) -> Cut:
        self.calls.append({"strategy": "my_head", "budget": budget, "facts": facts})
        reserve = len(markers.worst_case("end"))
        end = fit_prefix(text, attrs.evolve(budget, chars=budget.chars - reserve))
        end = text.rfind("\n", 0, end) + 1
        region = omission(text, end, len(text), total_terminators=facts.terminators,
                          position="end")
        return Cut(text=text[:end] + markers.render(region), omitted_chars=region.chars,
                   omitted_lines=region.lines, omissions=[region],
                   details={"kept_lines": count_terminators(text, 0, end)})


def test_hook_truncate_implements_a_named_strategy() -> None:
    plugin = EveryOther()
    truncator = Truncator({"inline_limit": 500, "default_strategy": "my_head"},
                          plugins=[plugin], load_entrypoints=False)
    result = truncator.process(LOG, tool="anything")
    meta = result.metadata
    assert meta.strategy_used == "my_head"
    assert len(result.content) <= 500
    assert result.content.startswith("line 0000\n")
    kept = meta.details["kept_lines"]
    assert result.content.startswith(LOG[: kept * 10])
    assert meta.omitted_lines == 1000 - kept
    assert "... [Remainder omitted: " in result.content
    assert f'start_line={kept + 1}, end_line=1000' in result.content  # the artifact hint
    (call,) = plugin.calls
    assert call["budget"] == Budget(chars=500)
    assert (call["facts"].lines, call["facts"].chars) == (1000, len(LOG))


class TakesOverTail:
    """Implements ``truncate`` to take over the cut of the built-in ``tail``."""

    __name__ = "takes-over-tail"

    def __init__(self) -> None:
        self.asked: list[Strategy] = []

    @hookimpl
    def truncate(self, strategy: Strategy, text: str) -> Cut | None:
        self.asked.append(strategy)
        if strategy.name != "tail":
            return None
        return Cut(text=text[-20:], omitted_chars=len(text) - 20, omitted_lines=0,
                   details={"by": "takes-over-tail"})


def test_hook_truncate_is_given_the_strategy_object_and_may_take_over_its_cut() -> None:
    plugin = TakesOverTail()
    truncator = Truncator({"inline_limit": 500, "tools": {"build": {"strategy": "tail"}}},
                          plugins=[plugin], load_entrypoints=False)
    result = truncator.process(LOG)  # head_tail: declined, the built-in asks the strategy
    assert [s.name for s in plugin.asked] == ["head_tail"]
    assert plugin.asked[0] is truncator.plugins.strategies["head_tail"]
    assert result.metadata.strategy_used == "head_tail" and result.metadata.details == {}
    taken = truncator.process(LOG, tool="build")  # tail: taken over
    assert taken.content == LOG[-20:] and taken.metadata.details == {"by": "takes-over-tail"}


def test_hook_truncate_budget_includes_every_limit() -> None:
    plugin = EveryOther()
    truncator = Truncator({"inline_limit": 500, "max_bytes": 300, "max_lines": 20,
                           "default_strategy": "my_head", "spill": False},
                          plugins=[plugin], load_entrypoints=False)
    result = truncator.process(LOG)
    assert plugin.calls[0]["budget"] == Budget(chars=500, bytes=300, lines=20)
    assert len(result.content.encode()) <= 300 and result.content.count("\n") <= 20


def test_hook_truncate_budget_under_an_artifact_reference_is_the_rest_of_the_budget() -> None:
    plugin = EveryOther()
    truncator = Truncator({"artifact_threshold": 5000, "inline_limit": 4000,
                           "max_lines": 90, "default_strategy": "my_head"},
                          plugins=[plugin], load_entrypoints=False)
    result = truncator.process(LOG)
    assert result.content.startswith("[Artifact: ")
    header = result.content[:result.content.index("\n") + 1]
    assert plugin.calls[0]["budget"] == Budget(chars=4000 - len(header),
                                               bytes=None, lines=89)


def test_hook_truncate_budget_under_a_short_reference_is_the_preview() -> None:
    plugin = EveryOther()
    truncator = Truncator({"artifact_threshold": 5000, "reference_preview": "short",
                           "preview_limit": 300, "inline_limit": 4000,
                           "default_strategy": "my_head"},
                          plugins=[plugin], load_entrypoints=False)
    result = truncator.process(LOG)
    assert plugin.calls[0]["budget"].chars == 300
    assert result.content.startswith("[Artifact: ")


def test_hook_truncate_wrapper_sees_and_may_change_the_cut() -> None:
    class Stamp:
        __name__ = "stamp"

        @hookimpl(wrapper=True)
        def truncate(self) -> Any:
            cut = yield
            return attrs.evolve(cut, notes=(*cut.notes, "stamped"))

    truncator = Truncator({"inline_limit": 500}, plugins=[Stamp()], load_entrypoints=False)
    assert "stamped" in truncator.process(LOG).metadata.notes
