"""The ranked strategy, against seed 002's validation list, end to end through process()."""

from __future__ import annotations

import json
import random

import pytest

from truncation_core import ToolConfig, Truncator
from truncation_core.errors import ConfigError


def search_response(count: int = 50, size: int = 1700, seed: int = 2) -> dict:
    """Seed 002's example: results of ~1,700 chars with a similarity_score, in no order."""
    rng = random.Random(seed)
    results = [{"chunk_id": f"c{i}", "file_path": f"src/f{i}.py",
                "content": "x" * (size - 200), "similarity_score": round(rng.random(), 6)}
               for i in range(count)]
    return {"results": results, "total_count": count, "project_id": "p", "latency_ms": 250}


def truncator(limit: int = 20_000, **tool) -> Truncator:
    return Truncator({"inline_limit": limit, "artifact_threshold": 10**9, "tools": {
        "search_code": {"strategy": "ranked", "score_key": "similarity_score", **tool}}})


def test_seed_002_validation_list():
    response = search_response()
    content = json.dumps(response)
    result = truncator().process(content, tool="search_code")
    meta = result.metadata
    info = meta.details["truncation_info"]
    # 1. truncation occurs; 2. it is flagged.
    assert meta.was_truncated and meta.strategy_used == "ranked"
    assert info["reason"] == "character_limit"
    # 3. the highest-similarity results are preserved, in score order.
    out = json.loads(result.content)
    kept = [r for r in out["results"] if isinstance(r, dict)]
    best = sorted(response["results"], key=lambda r: -r["similarity_score"])
    assert kept == best[:len(kept)]
    assert len(kept) >= 3  # seed 002: the top 3 are always included when they fit
    # 4. the JSON is within the limit.
    assert len(result.content) <= 20_000
    # 5. truncation_info matches the actual results.
    assert info["original_count"] == 50 and info["returned_count"] == len(kept)
    assert info["estimated_chars"] == len(result.content)
    assert info["estimated_tokens"] == (len(result.content) + 3) // 4
    assert info["limit_chars"] == 20_000 and info["limit_tokens"] == 5_000
    assert out["results"][-1] == f"... {50 - len(kept)} lower-scored results omitted ..."
    assert {k: out[k] for k in ("total_count", "project_id", "latency_ms")} == {
        "total_count": 50, "project_id": "p", "latency_ms": 250}
    # Never cut inside a result: one more result would not have fit.
    assert len(result.content) + len(json.dumps(best[len(kept)])) + 2 > 20_000


def test_single_result_too_large_is_element_truncated():
    response = search_response(count=5, size=30_000)
    result = truncator(limit=4000).process(json.dumps(response), tool="search_code")
    info = result.metadata.details["truncation_info"]
    assert info["reason"] == "single_result_too_large" and info["returned_count"] == 1
    out = json.loads(result.content)
    best = max(response["results"], key=lambda r: r["similarity_score"])
    assert out["results"][0]["chunk_id"] == best["chunk_id"]
    assert "chars omitted" in out["results"][0]["content"]
    assert len(result.content) <= 4000


def test_top_level_list_and_nested_score_key():
    results = [{"id": i, "meta": {"rank": i % 7}} for i in range(500)]
    result = truncator(limit=600, score_key="meta.rank").process(json.dumps(results),
                                                                 tool="search_code")
    out = json.loads(result.content)
    scores = [r["meta"]["rank"] for r in out if isinstance(r, dict)]
    assert scores == sorted(scores, reverse=True) and scores[0] == 6
    # Ties keep their original order.
    ids = [r["id"] for r in out if isinstance(r, dict)]
    assert ids == sorted(ids, key=lambda i: (-(i % 7), i))


def test_not_a_result_list_falls_back_to_element():
    result = truncator(limit=300).process(json.dumps({"a": "x" * 1000}), tool="search_code")
    assert result.metadata.strategy_used == "element"
    assert any("no list of results" in n for n in result.metadata.notes)


@pytest.mark.parametrize("bad", ["", "a..b", ".a", "a. b", 3])
def test_score_key_is_validated_as_a_key_path(bad):
    with pytest.raises(ConfigError, match="score_key: must be a dotted path of keys"):
        ToolConfig(score_key=bad)


@pytest.mark.parametrize("threshold", [16 * 1024 * 1024, 20_000])
def test_a_stream_is_ranked_as_process_ranks_it(threshold: int):
    from truncation_core.storage.memory import MemoryStore

    t = Truncator({"inline_limit": 3000, "stream_threshold": threshold, "tools": {
        "search_code": {"strategy": "ranked", "score_key": "similarity_score"}}},
        load_entrypoints=False, store=MemoryStore())
    log = "".join(f"[2024-05-01 12:00:{i % 60:02d}] INFO request {i}\n" for i in range(3000))
    contents = {
        "ranked": json.dumps(search_response(count=60, size=900)),
        "no list of results": json.dumps({"rows": list(range(5000))}),
        "not JSON": log,
        "JSON cut short": json.dumps(search_response(count=60, size=900))[:40_000],
    }
    for name, content in contents.items():
        expected = t.process(content, tool="search_code")
        for step in (1000, 1 << 20):
            with t.stream(tool="search_code") as s:
                for i in range(0, len(content), step):
                    s.write(content[i:i + step].encode())
            got = s.result()
            strip = (got.artifact.id, expected.artifact.id)
            assert got.content.replace(strip[0], "") == expected.content.replace(strip[1], "")
            assert (got.metadata.strategy_used, got.metadata.notes, got.metadata.details) == (
                expected.metadata.strategy_used, expected.metadata.notes,
                expected.metadata.details), (name, step)
            if name == "ranked" and len(content) <= threshold:
                assert got.metadata.details["truncation_info"]["reason"] == "character_limit"


@pytest.mark.parametrize(("limits", "reason"), [
    ({"inline_limit": 4000}, "character_limit"),
    ({"inline_limit": 100_000, "max_bytes": 5000}, "byte_limit"),
    ({"inline_limit": 100_000, "max_lines": 60}, "line_limit"),
])
def test_the_reason_names_the_limit_that_stopped_it(limits: dict, reason: str) -> None:
    results = [{"title": f"result {i}", "score": 1 - i / 1000, "body": "é" * 200}
               for i in range(200)]
    content = json.dumps({"results": results}, indent=1)
    result = Truncator({"spill": False, "tools": {"search": {"strategy": "ranked", **limits}}}
                       ).process(content, tool="search")
    info = result.metadata.details["truncation_info"]
    assert info["reason"] == reason
    assert 0 < info["returned_count"] < 200
    assert info.get("limit_bytes") == limits.get("max_bytes")
    assert info.get("limit_lines") == limits.get("max_lines")
