"""The element strategy on JSON: valid in gives valid out, exact counts, never raises."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from oracle import check, strict_loads
from strategies import hostile_json, json_documents

from truncation_core import Budget, Truncator, hookimpl
from truncation_core.pipeline.facts import content_facts
from truncation_core.structured.dispatch import element_cut
from truncation_core.structured.json_element import MIN_STRING
from truncation_core.types.artifacts import ArtifactRef
from truncation_core.types.cuts import ContentFacts

#: docs/structured.md: with the default templates, element output is valid JSON for any
#: budget of at least this many characters (unless the document is one long number).
MIN_JSON_BUDGET = 80

CI = settings(max_examples=80, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


#: An artifact said to hold the whole content (record stubs name its lines only then).
KEPT = ArtifactRef(id="art_1795897852_a0cf5947006f6db64c1ea619154c3f46", backend="memory")


def element(text: str, budget: Budget, truncator: Truncator | None = None, tool: str = "t",
            kept: bool = False):
    truncator = truncator or Truncator({"spill": False})
    policy = truncator.policy(tool)
    facts = content_facts(text)
    from truncation_core.types.markers import MarkerRenderer

    markers = MarkerRenderer(format=truncator.plugins.format_marker, policy=policy,
                             strategy="element", tool=tool, facts=facts,
                             artifact=KEPT if kept else None)
    return element_cut(text, budget=budget, facts=facts, policy=policy, markers=markers)


def fits(text: str, budget: Budget) -> bool:
    from truncation_core.text.measure import measure

    return budget.admits(measure(text))


@CI
@given(doc=json_documents, chars=st.integers(MIN_JSON_BUDGET, 3000),
       extra=st.sampled_from(["chars", "bytes", "lines"]), kept=st.booleans())
# Records: the omitted items' stubs follow the note (the oracle took them for kept items).
@example(doc=json.dumps([{"id": i, "name": f"task {i}", "body": "x" * 150} for i in range(12)]),
         chars=900, extra="chars", kept=False)
# Stubs naming their lines ("...": "lines N-M"), and an array collapsed as nested too deep,
# after which stubs were put as if they were its items.
@example(doc=json.dumps([{"k": i, **{f"f{j}": 0 for j in range(30)}} for i in range(3)],
                        indent=1), chars=185, extra="chars", kept=True)
@example(doc=json.dumps([{"id": i, "name": f"task {i}", "body": "x" * 150} for i in range(40)],
                        indent=2), chars=900, extra="chars", kept=True)
def test_valid_json_in_gives_valid_json_out_with_exact_counts(doc, chars, extra, kept):
    budget = Budget(chars=chars, bytes=chars if extra == "bytes" else None,
                    lines=max(1, chars // 40) if extra == "lines" else None)
    cut = element(doc, budget, kept=kept)
    assert fits(cut.text, budget)
    original = strict_loads(doc)
    if cut.strategy is not None:  # only a long top-level number may not fit as JSON
        assert cut.details["reason"] == "the budget is too small for valid JSON"
        return
    output = strict_loads(cut.text)
    counts = check(original, output)
    omitted = cut.details["omitted"]
    assert counts["items"] == omitted["items"]
    assert counts["keys"] == omitted["keys"]
    assert counts["chars"] == omitted["chars"]
    assert cut.details["cut_count"] >= len(cut.details["cuts"])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=hostile_json, chars=st.integers(0, 400))
def test_hostile_input_never_raises_and_fits(text, chars):
    budget = Budget(chars=chars)
    cut = element(text, budget)
    assert fits(cut.text, budget)
    if cut.strategy is None and chars >= MIN_JSON_BUDGET:
        strict_loads(cut.text)


def test_seed_000_scenario_5_search_results_end_to_end():
    """Seed 000, scenario 5: a search with many results; valid JSON, first and last results
    present, count of omitted shown."""
    items = [{"path": f"src/mod_{i:03d}.py", "line": i, "text": f"match number {i}"}
             for i in range(400)]
    content = json.dumps({"items": items, "total_count": 400}, indent=2)
    assert 8000 < len(content) < 50_000
    result = Truncator().process(content, tool="search_files")
    meta = result.metadata
    assert meta.was_truncated and meta.strategy_used == "element"
    out = json.loads(result.content)
    assert out["total_count"] == 400
    assert out["items"][0] == items[0] and out["items"][-1] == items[-1]
    notes = [v for v in out["items"] if isinstance(v, str)]
    kept = [v for v in out["items"] if isinstance(v, dict)]
    assert notes == [f"... {400 - len(kept)} items omitted ..."]
    assert meta.details["cuts"] == [{"path": "$.items", "kind": "json_items",
                                     "omitted": 400 - len(kept), "total": 400}]
    assert len(result.content) <= 8000
    assert result.artifact is not None and result.artifact.bytes == len(content.encode())


def test_seed_000_element_example_shape():
    """The manual's example: first two, a note, last two, other members intact."""
    doc = {"items": [{"n": i} for i in range(50)], "total_count": 50}
    text = json.dumps(doc, indent=2)
    cut = element(text, Budget(chars=190))
    out = json.loads(cut.text)
    assert out["items"][:2] == [{"n": 0}, {"n": 1}]
    assert out["items"][-2:] == [{"n": 48}, {"n": 49}]
    assert "... 46 items omitted ..." in out["items"]
    assert cut.text.startswith('{\n  "items": [\n    {')  # laid out like the input


def test_loss_order_items_before_strings_before_depth():
    doc = {"log": "x" * 5000, "rows": list(range(2000)), "deep": [[[[[1, 2, 3]]]]]}
    text = json.dumps(doc)
    cut = element(text, Budget(chars=400))
    limits = cut.details["limits"]
    assert limits["items"] == 2  # arrays went down to first and last first
    assert limits["chars"] is not None and limits["chars"] >= MIN_STRING
    out = json.loads(cut.text)
    assert out["rows"][0] == 0 and out["rows"][-1] == 1999
    # Not collapsed: dropping items and shortening strings was enough.
    assert out["deep"] == [[[[[1, "... 1 item omitted ...", 3]]]]]
    assert out["log"].startswith("x") and "chars omitted" in out["log"]


def test_depth_limit_collapses_deeper_subtrees_with_a_note():
    doc = {"a": {"b": {"c": {"d": [1, 2, 3]}}}, "pad": "y" * 200}
    truncator = Truncator({"spill": False, "max_depth": 2})
    cut = element(json.dumps(doc), Budget(chars=150), truncator)
    out = json.loads(cut.text)
    assert out["a"]["b"] == {"...": "... 1 key omitted (nested too deep) ..."}
    assert {"path": "$.a.b", "kind": "json_depth", "omitted": 1, "total": 1} in cut.details["cuts"]


def test_objects_keep_a_key_subset_with_a_note():
    doc = {f"key{i:04d}": i for i in range(3000)}
    cut = element(json.dumps(doc), Budget(chars=500))
    out = strict_loads(cut.text)
    keys = [k for k, _ in out]
    assert keys[0] == "key0000" and keys[-1] == "key2999"
    note = dict(out)["..."]
    assert note == f"{3000 - len(keys) + 1:,} keys omitted"


@pytest.mark.parametrize(("text", "reason"), [
    ('{"a": NaN, "pad": "' + "x" * 300 + '"}', "not strict JSON: NaN"),
    ('[Infinity, "' + "x" * 300 + '"]', "not strict JSON: Infinity"),
    ('{"a": [1, 2' + ", 3" * 200 + "}", "not valid JSON"),
])
def test_malformed_or_non_strict_json_falls_back_to_text_with_the_reason(text, reason):
    result = Truncator({"inline_limit": 100, "spill": False}).process(text)
    assert result.metadata.strategy_used == "head_tail"
    assert reason in result.metadata.details["reason"]
    assert any(reason in n for n in result.metadata.notes)
    assert len(result.content) <= 100


def test_duplicate_keys_and_number_text_survive():
    text = '{"a": 1, "a": 2, "big": 1e999, "precise": 0.10000000000000000001, "pad": [' + \
        ", ".join(["0"] * 500) + "]}"
    cut = element(text, Budget(chars=200))
    assert cut.text.count('"a": ') == 2
    assert '"big": 1e999' in cut.text and '"precise": 0.10000000000000000001' in cut.text
    strict_loads(cut.text)


def test_bom_lone_surrogates_and_huge_integers():
    text = '\ufeff{"s": "\\ud800 lone", "raw": "\udc00", "n": ' + "9" * 5000 + ', "pad": [' + \
        ", ".join(["1"] * 3000) + "]}"
    cut = element(text, Budget(chars=6000))
    assert cut.strategy is None
    assert "a BOM was removed" in " ".join(cut.notes)
    cut.text.encode("utf-8")  # lone surrogates are escaped: the output always encodes
    out = json.loads(cut.text, parse_int=str)
    assert out["s"] == "\ud800 lone" and out["raw"] == "\udc00"
    assert out["n"] == "9" * 5000


def test_nesting_beyond_the_recursion_limit_is_truncated_not_raised():
    depth = sys.getrecursionlimit() * 3
    text = "[" * depth + "1" + "]" * depth
    with pytest.raises(RecursionError):  # negative control: the naive parse fails
        json.loads(text)
    result = Truncator({"inline_limit": 200, "spill": False}).process(text)
    assert result.metadata.strategy_used == "element"
    out = json.loads(result.content)
    for _ in range(32):  # max_depth 32: the container at depth 32 is collapsed
        out = out[0]
    assert out == ["... 1 item omitted (nested too deep) ..."]


def test_note_wording_is_configurable_and_validated():
    truncator = Truncator({"spill": False, "marker": {"json_items": "<{count} more>"}})
    cut = element(json.dumps(list(range(1000))), Budget(chars=100), truncator)
    assert any(v == f"<{cut.details['omitted']['items']} more>" for v in json.loads(cut.text))
    from truncation_core.errors import ConfigError
    from truncation_core.types.templates import MarkerConfig

    with pytest.raises(ConfigError) as caught:  # checked when built in code, too
        MarkerConfig(json_items="{lines} gone")
    assert caught.value.problems == (
        "marker.json_items: unknown placeholder {lines}; available: {count}, {total}, {kept}, "
        "{unit}, {units}, {path}, {artifact_id}, {strategy}, {tool}, {count_s}, {total_s}, "
        "{kept_s}",)


def test_notes_are_restyled_by_a_format_marker_plugin():
    class Restyle:
        @hookimpl
        def format_marker(self, marker):
            if marker.element is not None and marker.kind == "json_items":
                return f"[{marker.element.count} of {marker.element.total} hidden at " \
                       f"{marker.element.path}]"
            return None

    truncator = Truncator({"spill": False}, plugins=[Restyle()])
    cut = element(json.dumps({"rows": list(range(1000))}), Budget(chars=120), truncator)
    out = json.loads(cut.text)
    omitted = cut.details["omitted"]["items"]
    assert f"[{omitted} of 1000 hidden at $.rows]" in out["rows"]


def test_facts_parse_once_shared_by_select_and_truncate(monkeypatch):
    calls = []
    import truncation_core.structured.sniff as sniff

    real = sniff.parse
    monkeypatch.setattr("truncation_core.structured.sniff.parse",
                        lambda text: calls.append(1) or real(text))

    class Peek:
        @hookimpl
        def select_strategy(self, facts: ContentFacts):
            assert facts.parsed.format == "json"
            return None

    Truncator({"spill": False}, plugins=[Peek()]).process(json.dumps(list(range(5000))))
    assert calls == [1]


def test_a_depth_limit_beyond_the_recursion_limit_still_never_raises():
    depth = 900  # json.loads manages this; a renderer allowed to recurse as deep may not
    text = "[" * depth + "1" + "]" * depth
    truncator = Truncator({"spill": False, "inline_limit": 100, "max_depth": 100_000})
    result = truncator.process(text)
    assert len(result.content) <= 100
    assert result.metadata.strategy_used in ("element", "head_tail")
    if result.metadata.strategy_used == "head_tail":
        assert "structured truncation failed" in result.metadata.details["reason"]
    else:
        json.loads(result.content)


def test_a_budget_of_zero_lines_admits_no_json():
    """Every output has at least one line. (The fitter before the one-pass rewrite checked
    lines only at a newline, so an indented document fell back to its one-line note and
    returned it for a budget of 0 lines.)"""
    from truncation_core.structured.json_element import Style, fit
    from truncation_core.structured.sniff import parse

    value = parse(json.dumps({"a": [1, 2, 3], "b": "x" * 50})).value
    for style in (Style(), Style(indent="  ", item_sep=",", key_sep=": ")):
        assert fit(value, budget=Budget(chars=1000, lines=0), style=style, note=str,
                   head_ratio=0.6, max_depth=32) is None
        assert fit(value, budget=Budget(chars=1000, lines=1), style=style, note=str,
                   head_ratio=0.6, max_depth=32) is not None


def test_a_string_is_never_cut_where_its_note_is_as_long_as_what_it_removes():
    """An object of 27-character values over the budget: each value is kept whole or its
    member left out, never replaced by a note longer than the value (the fitter shortened
    every string to 16 characters plus a 29-character note: "node scripts/s ... [11 chars
    omitted] ...  0"). The control, longer values, still have their middles cut."""
    short = {f"s{i}": f"node scripts/s{i}.js --flag {i}" for i in range(400)}
    cut = element(json.dumps(short, indent=2), Budget(chars=4000))
    out = json.loads(cut.text)
    assert len(cut.text) <= 4000
    kept = {k: v for k, v in out.items() if k in short}
    assert kept and all(v == short[k] for k, v in kept.items())
    assert "chars omitted" not in cut.text
    long = {f"s{i}": f"node scripts/s{i}.js " + "--flag " * 40 for i in range(400)}
    control = element(json.dumps(long, indent=2), Budget(chars=4000))
    assert "chars omitted" in control.text


@pytest.mark.parametrize(("char", "budget"), [
    ("\x01", Budget(chars=1200)),                  # escaped to six characters each
    ('"', Budget(chars=1200)),                     # escaped to two
    ("\U0001f600", Budget(chars=5000, bytes=1500)),  # four bytes each
], ids=["control", "quote", "emoji-bytes"])
def test_a_string_whose_middle_costs_more_than_its_note_is_still_cut(char: str,
                                                                      budget: Budget) -> None:
    """The note is weighed against what the middle costs in the output, not its raw
    characters: 40 control characters are 240 characters of JSON, which a 30-character note
    saves 150 of. Kept whole, fewer members fit (4 of 40, against 9 cut)."""
    doc = {f"k{i}": char * 40 for i in range(40)}
    cut = element(json.dumps(doc, ensure_ascii=False), budget)
    out = json.loads(cut.text)
    assert "chars omitted" in cut.text
    assert not any(v == char * 40 for v in out.values())
