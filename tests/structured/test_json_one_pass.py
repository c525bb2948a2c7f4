"""The JSON fitter works in one pass: every container is serialized at most once per cut,
only as much as the trials need, and the output is written once.

These are counts, not timings (bench/bench_small_json.py times it): the fitter's plan
counts the containers it serializes (``serialized``) and the outputs it writes
(``rendered``); the tests read them from every plan a cut makes.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from strategies import json_documents

from truncation_core import Budget, Truncator
from truncation_core.pipeline.facts import content_facts
from truncation_core.structured import json_element
from truncation_core.structured.dispatch import element_cut
from truncation_core.structured.json_element import INF
from truncation_core.structured.sniff import parse
from truncation_core.text.measure import measure
from truncation_core.types.markers import MarkerRenderer


def search_response(count: int, *, indent: int | None = 2) -> str:
    rng = random.Random(count)
    return json.dumps({"query": "needle", "total": count, "results": [
        {"id": i, "title": f"Result {i}", "url": f"https://example.com/{i}",
         "score": round(rng.random(), 4), "snippet": "lorem ipsum dolor " * rng.randint(1, 6),
         "tags": ["t"] * rng.randint(0, 4)} for i in range(count)]}, indent=indent)


def containers(value: Any) -> int:
    """How many non-empty arrays and objects *value* holds, itself included."""
    if type(value) is tuple:
        return (1 if value else 0) + sum(containers(v) for _, v in value)
    if type(value) is list:
        return (1 if value else 0) + sum(containers(v) for v in value)
    return 0


@pytest.fixture
def plans(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every plan the fitter makes from now on."""
    made: list[Any] = []

    class Recorded(json_element._Plan):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(json_element, "_Plan", Recorded)
    return made


def cut(text: str, chars: int = 8000) -> Any:
    truncator = Truncator({"spill": False}, load_entrypoints=False)
    policy = truncator.policy("t")
    facts = content_facts(text)
    markers = MarkerRenderer(format=truncator.plugins.format_marker, policy=policy,
                             strategy="element", tool="t", facts=facts)
    result = element_cut(text, budget=Budget(chars=chars), facts=facts, policy=policy,
                         markers=markers)
    assert result.strategy is None and len(result.text) <= chars
    json.loads(result.text)
    return result


@pytest.mark.parametrize("size", [10_000, 40_000])
@pytest.mark.parametrize("indent", [2, None])
def test_a_cut_serializes_each_container_once_and_writes_the_output_once(plans, size, indent):
    count = 5
    while len(search_response(count, indent=indent)) < size:
        count += 5
    text = search_response(count, indent=indent)
    result = cut(text)
    assert result.details["cuts"][0]["kind"] == "json_items"  # the results were cut
    assert len(plans) == 1  # one layout was enough
    plan = plans[0]
    assert plan.rendered == 1
    # Each serialization leaves one entry (kept or failed) in the plan's memo: as many
    # entries as serializations means no container was serialized twice.
    assert plan.serialized == len(plan.memo)
    assert plan.serialized <= containers(parse(text).value)


def test_a_large_document_is_measured_only_as_far_as_the_trials_need(plans):
    """The containers serialized do not grow with the document: 100 KB and 2 MB of results
    cut to the same budget serialize about as many."""
    counts = []
    for count in (300, 6000):
        text = search_response(count, indent=None)
        plans.clear()
        cut(text)
        assert sum(plan.rendered for plan in plans) == 1
        counts.append(sum(plan.serialized for plan in plans))
    assert counts[1] <= counts[0] + 10
    assert counts[1] < containers(parse(search_response(6000, indent=None)).value) / 20


knob_values = st.sampled_from([0, 1, 2, 3, 5, 16, 40, 500, INF])


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=json_documents, chars=st.integers(0, 3000),
       extra=st.sampled_from(["chars", "bytes", "lines"]),
       trials=st.lists(st.tuples(knob_values, knob_values, knob_values,
                                 st.sampled_from([0, 1, 2, 3, 32])), min_size=1, max_size=12))
# A string kept whole under a byte budget only (its middle wide in bytes, not in characters):
# the cut depended on the budget's units, not on the knobs alone.
@example(doc='[[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '
             '0, 0, 0, "00\\u001f\\u0007\U00010000"]]',
         chars=0, extra="bytes", trials=[(2, 0, 0, 2)])
def test_every_trial_is_sized_exactly_as_its_output_measures(doc, chars, extra, trials):
    """A plan answers any sequence of trials, whatever it measured and kept from the trials
    before, exactly as the output under those knobs measures: its sizes, the sizes it keeps
    per container, and the rooms it found too small are never stale."""
    parsed = parse(doc)
    if parsed.format != "json" or parsed.deep:
        return
    budget = Budget(chars=chars, bytes=chars if extra == "bytes" else None,
                    lines=max(1, chars // 40) if extra == "lines" else None)
    style = json_element.detect_style(doc)

    def note(element: Any) -> str:  # depends on where the note stands, as a plugin's may
        return f"{element.count} {element.unit} at {element.path[-6:]}"

    def plan(limit: Budget) -> Any:
        return json_element._Plan(parsed.value, budget=limit, style=style, note=note,
                                  head_ratio=0.6, max_depth=32)

    trying = plan(budget)
    for items, keys, chars_knob, depth in trials:
        knobs = json_element.Knobs(items, keys, chars_knob, depth)
        fresh = plan(Budget(chars=INF))
        text = fresh.render(knobs).text
        assert trying.fits(knobs) == budget.admits(measure(text)), knobs
    assert trying.render(knobs).text == text


def test_negative_control_a_fitter_that_forgets_serializes_again(plans, monkeypatch):
    """Without its memo, the plan serializes containers again (what the counts above would
    catch): the records the first trial serialized inside the list are serialized once more
    when the list is measured member by member."""

    class Forgetful(dict):  # type: ignore[type-arg]
        def __setitem__(self, key: Any, value: Any) -> None:
            pass

    real_init = json_element._Plan.__init__

    def forgetful_init(self: Any, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        self.memo = Forgetful()
        self.serialize = json_element._serializer(self)

    monkeypatch.setattr(json_element._Plan, "__init__", forgetful_init)
    text = search_response(60)
    cut(text)
    assert plans[0].serialized > len(plans[0].memo)
    assert plans[0].serialized > containers(parse(text).value)
