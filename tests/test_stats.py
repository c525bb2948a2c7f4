"""``Truncator.stats()``: per-tool calls, truncations, artifacts, characters saved, rates
(NFR-015/016), exact under concurrent use."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator

import pytest
from faults import FailingStore

from truncation_core import StoreFull, Truncator
from truncation_core.pipeline.stats import NO_TOOL

SMALL = "ok\n"
BIG = "".join(f"line {i}\n" for i in range(400))  # 3,290 chars


def test_counts_per_tool() -> None:
    truncator = Truncator({"inline_limit": 1000, "tools": {"quiet": {"spill": False}}},
                          load_entrypoints=False)
    saved: dict[str | None, int] = {}
    plan = [("read_file", BIG), ("read_file", SMALL), ("read_file", BIG),
            ("quiet", BIG), (None, BIG), (None, SMALL), ("execute_command", SMALL)]
    for tool, content in plan:
        result = truncator.process(content, tool=tool)
        saved[tool] = saved.get(tool, 0) + len(content) - len(result.content)
    stats = truncator.stats()
    read = stats["read_file"]
    assert (read.calls, read.truncations, read.artifacts) == (3, 2, 2)
    assert read.chars_saved == saved["read_file"] > 0
    assert read.truncation_rate == pytest.approx(2 / 3)
    quiet = stats["quiet"]
    assert (quiet.calls, quiet.truncations, quiet.artifacts) == (1, 1, 0)
    anonymous = stats[None]
    assert (anonymous.calls, anonymous.truncations) == (2, 1)
    assert stats.tools[NO_TOOL] == anonymous
    command = stats["execute_command"]
    assert (command.calls, command.truncations, command.chars_saved) == (1, 0, 0)
    assert command.truncation_rate == 0.0
    assert stats["never_called"].calls == 0 and stats["never_called"].truncation_rate == 0.0
    total = stats.total
    assert (total.calls, total.truncations, total.artifacts) == (7, 4, 3)
    assert total.chars_saved == sum(saved.values())


def test_opt_outs_count_as_calls_not_truncations() -> None:
    truncator = Truncator({"inline_limit": 100}, load_entrypoints=False)
    truncator.process(BIG, tool="t", already_truncated=True)
    s = truncator.stats()["t"]
    assert (s.calls, s.truncations, s.artifacts, s.chars_saved) == (1, 0, 0, 0)


def test_failed_artifacts_are_not_counted() -> None:
    truncator = Truncator({"inline_limit": 100}, store=FailingStore(StoreFull("x"), "write"),
                          load_entrypoints=False)
    truncator.process(BIG, tool="t")
    s = truncator.stats()["t"]
    assert (s.calls, s.truncations, s.artifacts) == (1, 1, 0)


def test_to_dict() -> None:
    truncator = Truncator({"inline_limit": 1000}, load_entrypoints=False)
    truncator.process(BIG, tool="b")
    truncator.process(SMALL, tool="a")
    data = truncator.stats().to_dict()
    assert list(data) == ["a", "b"]
    use = [0] * 21
    use[len(SMALL) * 20 // 1000] = 1
    assert data["a"] == {"calls": 1, "truncations": 0, "artifacts": 0, "chars_saved": 0,
                         "utilization": use, "truncation_rate": 0.0,
                         "utilization_quantiles": {"p50": (use.index(1) + 1) / 20,
                                                   "p90": (use.index(1) + 1) / 20,
                                                   "p99": (use.index(1) + 1) / 20}}
    assert data["b"]["truncation_rate"] == 1.0


def test_a_snapshot_does_not_change_afterwards() -> None:
    truncator = Truncator({"inline_limit": 1000}, load_entrypoints=False)
    truncator.process(BIG, tool="t")
    before = truncator.stats()
    truncator.process(BIG, tool="t")
    assert before["t"].calls == 1 and truncator.stats()["t"].calls == 2


def test_each_truncator_counts_its_own_calls() -> None:
    one, two = (Truncator(load_entrypoints=False) for _ in range(2))
    one.process(SMALL, tool="t")
    assert two.stats()["t"].calls == 0


@pytest.fixture
def fast_switching() -> Iterator[None]:
    """Switch threads as often as possible, to make lost updates likely if any can happen."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


@pytest.mark.usefixtures("fast_switching")
def test_counts_are_exact_across_threads() -> None:
    truncator = Truncator({"inline_limit": 1000, "spill": False}, load_entrypoints=False)
    threads_per_tool, rounds = 4, 300
    tools = ["alpha", "beta", None]
    expected_saved = len(BIG) - len(truncator.process(BIG, tool="probe").content)
    barrier = threading.Barrier(threads_per_tool * len(tools))
    errors: list[BaseException] = []

    def work(tool: str | None) -> None:
        try:
            barrier.wait()
            for i in range(rounds):
                truncator.process(BIG if i % 3 == 0 else SMALL, tool=tool)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(tool,))
               for tool in tools for _ in range(threads_per_tool)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    stats = truncator.stats()
    truncated_per_thread = len(range(0, rounds, 3))
    for tool in tools:
        s = stats[tool]
        assert s.calls == threads_per_tool * rounds
        assert s.truncations == threads_per_tool * truncated_per_thread
        assert s.chars_saved == threads_per_tool * truncated_per_thread * expected_saved
    assert stats.total.calls == threads_per_tool * rounds * len(tools) + 1
