"""Ranked by default when results carry scores: JSON records with a numeric score field
(``score``, ``similarity_score``, ``relevance``, ``_score`` ...) keep the best scores, with a
note naming the field; an explicit per-tool ``strategy`` still wins."""

from __future__ import annotations

import json
import random

import pytest

from truncation_core import Truncator
from truncation_core.structured.ranked import SCORE_FIELDS, detect_score_key
from truncation_core.structured.sniff import parse


def records(field: str, count: int = 60, *, best_at: int = 30, seed: int = 3) -> list[dict]:
    """Search results in no particular order, the best one in the middle (where first and
    last cut it)."""
    rng = random.Random(seed)
    out = [{"id": f"doc{i}", "text": "lorem ipsum " * 20, field: round(rng.random(), 4)}
           for i in range(count)]
    out[best_at][field] = 9.5
    return out


def truncator(**config: object) -> Truncator:
    return Truncator({"inline_limit": 3000, "spill": False, **config}, load_entrypoints=False)


def kept_ids(content: str, member: str | None = None) -> list[str]:
    value = json.loads(content)
    items = value[member] if member else value
    return [item["id"] for item in items if isinstance(item, dict)]


@pytest.mark.parametrize("field", ["score", "similarity_score", "relevance", "_score",
                                   "@search.score"])
def test_scored_results_keep_the_best_scores_and_say_which_field(field: str) -> None:
    results = records(field)
    for doc, member in ((results, None), ({"results": results, "took_ms": 12}, "results")):
        result = truncator().process(json.dumps(doc), tool="search")
        meta = result.metadata
        assert meta.strategy_used == "ranked"
        ids = kept_ids(result.content, member)
        assert ids[0] == "doc30"  # the best, first
        best = sorted(results, key=lambda r: -r[field])
        assert ids == [r["id"] for r in best[:len(ids)]]
        assert any(f"numeric score in {field!r}" in note for note in meta.notes)
        assert meta.details["score_key"] == field


def test_negative_control_element_cuts_the_best_result_away() -> None:
    """What the detection fixes: by first and last, the best-scored result is dropped."""
    doc = json.dumps(records("similarity_score"))
    # Without the record stubs (json_records), which would name it, by its id only.
    element = truncator(json_records=False, tools={"search": {"strategy": "element"}}).process(
        doc, tool="search")
    assert element.metadata.strategy_used == "element"
    assert "doc30" not in kept_ids(element.content)
    assert not any("numeric score" in note for note in element.metadata.notes)


def test_an_explicit_strategy_and_detect_structure_off_win() -> None:
    doc = json.dumps(records("score"))
    for config in ({"tools": {"search": {"strategy": "element"}}},
                   {"tools": {"search": {"strategy": "head"}}},
                   {"detect_structure": False}):
        result = truncator(**config).process(doc, tool="search")
        assert result.metadata.strategy_used != "ranked", config
    # A built-in tool policy is not the user's: search_files (element) still ranks.
    assert truncator().process(doc, tool="search_files").metadata.strategy_used == "ranked"


def test_score_key_is_looked_at_first_and_unscored_json_stays_element() -> None:
    results = [{"id": f"d{i}", "meta": {"rank_value": i % 9}, "score": 1} for i in range(80)]
    value = parse(json.dumps(results)).value
    assert detect_score_key(value, ("meta", "rank_value")) == ("meta", "rank_value")
    assert detect_score_key(value, ("score",)) == ("score",)
    plain = [{"id": i, "name": "x" * 40} for i in range(100)]
    assert detect_score_key(parse(json.dumps(plain)).value, ("score",)) is None
    result = truncator().process(json.dumps(plain), tool="list")
    assert result.metadata.strategy_used == "element"
    # A field most results lack is no score: records are not ranked by a stray number.
    mostly = [{"id": i, **({"score": 1.0} if i % 5 == 0 else {})} for i in range(100)]
    assert detect_score_key(parse(json.dumps(mostly)).value, ("score",)) is None
    # Booleans and strings are not scores.
    flags = [{"id": i, "score": True, "relevance": "high"} for i in range(100)]
    assert detect_score_key(parse(json.dumps(flags)).value, ("score",)) is None
    assert "relevance" in SCORE_FIELDS


def test_a_stream_ranks_as_process_does() -> None:
    doc = json.dumps({"hits": records("relevance", count=200)})
    t = truncator()
    expected = t.process(doc, tool="search")
    with t.stream(tool="search") as s:
        for i in range(0, len(doc), 1000):
            s.write(doc[i:i + 1000])
    got = s.result()
    assert got.metadata.strategy_used == "ranked"
    assert got.content == expected.content and got.metadata.notes == expected.metadata.notes
