"""How full results are relative to their limits: the histogram in stats(), and the opt-in
INFO log of results over a share of their limit (sizes only, never content)."""

from __future__ import annotations

import logging
import re

import pytest

from truncation_core import Truncator
from truncation_core.pipeline.stats import BUCKETS, ToolStats
from truncation_core.tokens import EstimateTokenizer

CANARY = "CANARY-utilization-7d1e"


def lines(n: int) -> str:
    return "".join(f"line {i} {CANARY}\n" for i in range(n))


def test_results_are_counted_by_the_share_of_their_tightest_limit() -> None:
    t = Truncator({"inline_limit": 1000, "spill": False}, load_entrypoints=False)
    t.process("x" * 100, tool="a")  # 10%: bucket 2 (10-15%)
    t.process("x" * 549, tool="a")  # 54.9%: bucket 10
    t.process("x" * 1000, tool="a")  # exactly full: the last bucket
    t.process(lines(500), tool="a")  # cut: close to full
    use = t.stats()["a"].utilization
    assert len(use) == BUCKETS and sum(use) == 4
    assert use[2] == 1 and use[10] == 1 and use[20] == 1
    assert use[18] + use[19] == 1
    quantiles = t.stats()["a"].utilization_quantiles
    assert quantiles == {"p50": 0.55, "p90": 1.0, "p99": 1.0}


def test_measured_limits_and_tokens_count_too() -> None:
    """A result within its characters but close to max_lines, or to max_tokens, is placed by
    that limit."""
    t = Truncator({"inline_limit": 10_000, "max_lines": 10, "spill": False},
                  load_entrypoints=False)
    t.process("a\n" * 9, tool="lines")  # 18 of 10,000 chars, 9 of 10 lines: 90%
    assert t.stats()["lines"].utilization[18] == 1
    t = Truncator({"max_tokens": 300, "spill": False}, load_entrypoints=False)
    result = t.process(lines(400), tool="tokens")
    share = EstimateTokenizer().count(result.content) / 300
    assert t.stats()["tokens"].utilization[min(20, int(share * 20))] == 1
    assert share > 0.9


def test_streams_and_opted_out_results_are_counted() -> None:
    t = Truncator({"inline_limit": 100, "spill": False}, load_entrypoints=False)
    with t.stream(tool="s") as s:
        s.write("y" * 50)
    with t.stream(tool="s") as s:
        s.write(lines(100))
    t.process(lines(100), tool="s", already_truncated=True)  # left alone: over 100%
    use = t.stats()["s"].utilization
    assert use[10] == 1 and use[18] + use[19] + use[20] == 2 and sum(use) == 3
    assert use[20] >= 1  # the opted-out one, over its limit


def test_the_total_sums_every_tool_and_empty_stats_have_no_quantiles() -> None:
    t = Truncator({"inline_limit": 1000}, load_entrypoints=False)
    t.process("x" * 100, tool="a")
    t.process("x" * 100, tool="b")
    assert t.stats().total.utilization[2] == 2
    assert ToolStats().utilization_quantiles == {"p50": None, "p90": None, "p99": None}
    assert t.stats().to_dict()["a"]["utilization"][2] == 1


def test_results_over_the_threshold_are_logged_at_info_without_content(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="truncation_core")
    t = Truncator({"inline_limit": 1000, "spill": False,
                   "tools": {"quiet": {"log_utilization_above": 1.0}},
                   "log_utilization_above": 0.8}, load_entrypoints=False)
    t.process(CANARY * 10, tool="a")  # 23%: not logged
    assert not [r for r in caplog.records if r.levelno == logging.INFO]
    t.process(CANARY * 40, tool="a")  # 92% on the pass-through path
    t.process(lines(200), tool="b")  # cut to the limit
    t.process(lines(200), tool="quiet")  # its own threshold: 100%, never exceeded
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert infos[0] == "result uses 92% of inline_limit (tool=a, chars=920, truncated=False)"
    assert re.fullmatch(r"result uses (9[0-9]|100)% of inline_limit \(tool=b, chars=[0-9]+, "
                        r"truncated=True\)", infos[1])
    assert len(infos) == 2
    assert not [r for r in caplog.records if CANARY in r.getMessage()]


def test_nothing_is_logged_without_the_setting(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="truncation_core")
    t = Truncator({"inline_limit": 100, "spill": False}, load_entrypoints=False)
    t.process("x" * 100)
    t.process(lines(100))
    assert not [r for r in caplog.records if r.levelno == logging.INFO]
