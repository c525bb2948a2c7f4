"""Key-line recall over the corpus of real tool outputs (tests/corpus/, bench/bench_recall.py).

The manifest must describe the committed files faithfully (every key line in range and
still holding the text it was marked on), the corpus must keep its breadth (cases, tools,
classes, failures at the start, middle and end), and the mean recall of the library's views
must not drop below the floors measured when the corpus was built. The fixed rules are
scored in the same run so that a failure message can compare against them.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import bench_recall  # noqa: E402

# Floors: today's measured means, rounded DOWN to two decimals. They may only go up: raise
# them when the detectors or the default view improve, never lower them to make a change pass.
DEFAULT_FLOOR = 1.0  # 0.665 when the corpus was built; 0.992 with the detectors; 1.000
# once the reference tier used the whole budget and the view dropped terminal control
MATCHED_8000_FLOOR = 1.0  # measured 0.681; 0.997 with the detectors of issues 13 and 14; 1.000
#: The same on the failure cases alone, where the issues set their targets (>= 0.95).
FAILURES_DEFAULT_FLOOR = 1.0  # measured 1.000
FAILURES_MATCHED_8000_FLOOR = 1.0  # measured 1.000
#: Highlight precision (pooled): the share of the block's lines that are key lines or in a
#: key unit. The target is 0.5; measured 0.89 for both views, 0.88 with 68 cases (184/209),
#: 0.86 after the adaptive strategy (147/171: its head and tail show the failures of the
#: most precise blocks, and the noisy blocks stayed), 0.90 once a file's location and a
#: back-quoted name are masked in templates (147/164). Issue 28 asks that it not fall below
#: the 0.88 of before the adaptive strategy; 0.8 let the fall to 0.86 through.
PRECISION_FLOOR = 0.88

MIN_CASES = 68
MIN_TOOLS = 51


@pytest.fixture(scope="module")
def manifest() -> dict[str, Any]:
    return bench_recall.load_manifest()


@pytest.fixture(scope="module")
def texts(manifest: dict[str, Any]) -> dict[str, str]:
    return {case["name"]: bench_recall.read_case(case) for case in manifest["cases"]}


@pytest.fixture(scope="module")
def score(manifest: dict[str, Any]) -> bench_recall.Score:
    return bench_recall.score(manifest)


def test_every_case_file_exists_and_every_file_is_a_case(manifest: dict[str, Any]) -> None:
    named = {case["file"] for case in manifest["cases"]}
    on_disk = {p.name for p in bench_recall.CORPUS.iterdir() if p.name != "manifest.json"}
    assert named == on_disk
    assert len(named) == len(manifest["cases"]), "two cases share a file"


def test_key_lines_are_in_range_and_hold_the_marked_text(
        manifest: dict[str, Any], texts: dict[str, str]) -> None:
    for case in manifest["cases"]:
        lines = bench_recall.corpus_lines(texts[case["name"]])
        assert case["key_lines"], f"{case['name']}: no key lines"
        numbers = [k["line"] for k in case["key_lines"]]
        assert numbers == sorted(set(numbers)), f"{case['name']}: key lines not increasing"
        for key in case["key_lines"]:
            assert 1 <= key["line"] <= len(lines), f"{case['name']}: line {key['line']}"
            assert lines[key["line"] - 1] == key["text"], (
                f"{case['name']}: line {key['line']} no longer holds the marked text")
            assert len(bench_recall.key_probe(key, lines)) >= 5, (
                f"{case['name']}: key line {key['line']} too short to be found by its text")
            if "match" in key:
                assert key["match"] in key["text"]
        for first, last in case.get("key_units", []):
            assert 1 <= first <= last <= len(lines), f"{case['name']}: unit {first}-{last}"


def test_every_case_says_where_it_comes_from(manifest: dict[str, Any]) -> None:
    for case in manifest["cases"]:
        assert case["rationale"].strip(), case["name"]
        assert case["position"] in {"start", "middle", "end", "spread", "none"}, case["name"]
        assert (case["position"] == "none") == (not case["failure"]), case["name"]
        if case["origin"] == "generated":
            assert case["made_by"]["generator"].startswith("bench/corpus_generate.py")
            assert case["made_by"]["command"] and case["made_by"]["versions"], case["name"]
        else:
            assert case["origin"] == "fixture", case["name"]
            source = case["source"]
            assert re.fullmatch(r"[0-9a-f]{40}", source["commit"]), case["name"]
            assert source["repo"] and source["path"], case["name"]
            assert source["license"] in {"MIT", "BSD-2-Clause", "BSD-3-Clause", "Apache-2.0"}


def test_the_corpus_is_broad_enough(manifest: dict[str, Any], texts: dict[str, str]) -> None:
    cases = manifest["cases"]
    assert len(cases) >= MIN_CASES
    assert len({case["tool"] for case in cases}) >= MIN_TOOLS
    covered = {cls for case in cases for cls in case["classes"]}
    assert set(manifest["classes"]) <= covered, set(manifest["classes"]) - covered
    assert covered <= set(manifest["classes"]), covered - set(manifest["classes"])
    positions = [case["position"] for case in cases]
    for where in ("start", "middle", "end"):
        assert positions.count(where) >= 6, (where, positions.count(where))
    assert sum(not case["failure"] for case in cases) >= 3
    for case in cases:
        over = len(texts[case["name"]]) > 50_000
        assert over == ("over-50k" in case["classes"]), case["name"]
        assert ("passing" in case["classes"]) == (not case["failure"]), case["name"]


def test_mean_recall_does_not_drop(score: bench_recall.Score) -> None:
    means = {view: round(score.mean(view), 3) for view in bench_recall.VIEWS}
    assert score.mean("default") >= DEFAULT_FLOOR, means
    assert score.mean("matched 8000") >= MATCHED_8000_FLOOR, means
    failures = {view: round(score.mean(view, failures_only=True), 3)
                for view in bench_recall.VIEWS}
    assert failures["default"] >= FAILURES_DEFAULT_FLOOR, failures
    assert failures["matched 8000"] >= FAILURES_MATCHED_8000_FLOOR, failures


def test_every_fixed_rule_scores_lower_in_the_same_run(score: bench_recall.Score) -> None:
    for view in ("default", "matched 8000"):
        library = score.mean(view, failures_only=True)
        for rule in bench_recall.FIXED_RULES:
            assert score.mean(rule, failures_only=True) < library, (view, rule)


def test_no_case_loses_to_the_plain_tail_at_the_same_size(score: bench_recall.Score) -> None:
    assert score.losing_to_tail() == []


def test_highlight_precision_does_not_drop(score: bench_recall.Score) -> None:
    for view in ("default", "matched 8000"):
        hits, shown = score.precision(view)
        assert shown and hits / shown >= PRECISION_FLOOR, (view, hits, shown)


def test_a_view_can_lose_to_the_tail(manifest: dict[str, Any]) -> None:
    """Negative control: a head view of the same size loses to the tail on some case, so
    test_no_case_loses_to_the_plain_tail_at_the_same_size can fail."""
    from truncation_core import Truncator
    from truncation_core.storage.memory import MemoryStore

    head = Truncator({"tools": {"execute_command": {"strategy": "head", "highlights": 0}}},
                     load_entrypoints=False, store=MemoryStore())
    views = {name: (lambda t: head.process(t, tool="execute_command"))
             for name in bench_recall.LIBRARY_VIEWS}
    assert bench_recall.score(manifest, views=views).losing_to_tail()


def test_the_floor_bites_a_view_without_highlights(manifest: dict[str, Any]) -> None:
    """Negative control: the matched-budget view with highlights turned off falls below the
    floor, so the floor does guard what highlights contribute."""
    from truncation_core import Truncator
    from truncation_core.storage.memory import MemoryStore

    off = Truncator({"inline_limit": bench_recall.BUDGET, "artifact_threshold": 10**12,
                     "tools": {"execute_command": {"highlights": 0}}},
                    load_entrypoints=False, store=MemoryStore())
    views = {name: (lambda t: off.process(t, tool="execute_command"))
             for name in bench_recall.LIBRARY_VIEWS}
    assert bench_recall.score(manifest, views=views).mean("matched 8000") < MATCHED_8000_FLOOR


def test_fixed_rules_are_scored_in_the_same_run(score: bench_recall.Score) -> None:
    for view in bench_recall.VIEWS:
        assert all(0.0 <= case.recall[view] <= 1.0 for case in score.cases), view
    # Cases that fit the budget are shown whole by every view.
    for case in score.cases:
        if case.chars <= bench_recall.BUDGET:
            assert all(case.recall[view] == 1.0 for view in bench_recall.FIXED_RULES)
    # The head and the tail see different things: the harness is not blind to position.
    assert score.mean("head") != score.mean("tail")


def test_a_key_line_counts_only_when_its_text_is_shown() -> None:
    """Negative control: the same case scores lower when its key lines are cut away."""
    text = "".join(f"progress {i}: ok\n" for i in range(3000)) + "FATAL: disk full at /var\n"
    case = {"name": "probe", "tool": "t", "family": "f", "position": "end", "failure": True,
            "key_lines": [{"line": 3001, "text": "FATAL: disk full at /var"}]}
    seen = bench_recall.score_case(case, text)
    assert seen.recall["tail"] == 1.0 and seen.recall["head"] == 0.0
    moved = "FATAL: disk full at /var\n" + text.rsplit("FATAL", 1)[0]
    case["key_lines"] = [{"line": 1, "text": "FATAL: disk full at /var"}]
    assert bench_recall.score_case(case, moved).recall["tail"] == 0.0


def test_ansi_codes_do_not_hide_a_key_line() -> None:
    text = "\x1b[31merror\x1b[0m: build \x1b[1mfailed\x1b[0m\n"
    case = {"name": "ansi", "tool": "t", "family": "f", "position": "end", "failure": True,
            "key_lines": [{"line": 1, "text": text.rstrip("\n")}]}
    assert bench_recall.score_case(case, text).recall["default"] == 1.0
    assert bench_recall.corpus_lines("a\rb\r\nc\n") == ["a", "b", "c"]


#: Per class of the manifest (each a bullet of issues 13 and 14, each made of real outputs
#: whose source the manifest gives): the mean recall of its cases at the matched budget and
#: under the default configuration may not drop below these (measured: every class at 1.00
#: in both views since the reference tier uses the whole budget).
CLASS_FLOORS = {"matched 8000": 1.0, "default": 1.0}


def test_every_class_keeps_its_recall(manifest: dict[str, Any],
                                      score: bench_recall.Score) -> None:
    classes = {case["name"]: case["classes"] for case in manifest["cases"]}
    for view, floor in CLASS_FLOORS.items():
        by_class: dict[str, list[float]] = {}
        for case in score.cases:
            for cls in classes[case.name]:
                by_class.setdefault(cls, []).append(case.recall[view])
        low = {cls: round(sum(r) / len(r), 3) for cls, r in by_class.items()
               if sum(r) / len(r) < floor}
        assert not low, (view, low)
