"""The counters behind :meth:`Truncator.stats <truncation_core.Truncator.stats>`: calls,
truncations, artifacts, characters saved, and how full the results were relative to their
limits, counted per tool as results pass.

Utilization is the share of its tightest limit a result uses (what the model sees, against
``inline_limit``, ``max_bytes``, ``max_lines`` and ``max_tokens``), counted in a histogram
of :data:`BUCKETS` buckets of 5% each, the last holding results at 100% or more (a result
the tool marked as already truncated can be over its limits). A result passed through
without measuring bytes, lines or tokens is placed by its characters.

The report made of them (:class:`~truncation_core.pipeline.stats.Stats`) is in
:mod:`truncation_core.pipeline.stats`, imported when it is asked for: every Truncator counts,
few report.
"""

from __future__ import annotations

import itertools
import threading
from typing import TYPE_CHECKING, NamedTuple

from truncation_core.errors import log

if TYPE_CHECKING:
    from truncation_core.types.models import Size
    from truncation_core.types.policy import Policy

__all__ = ["BUCKETS", "NO_TOOL", "CallCounter", "StatsRecorder", "ToolCounts", "log_use",
           "utilization"]


#: The key under which calls made without a tool name are counted.
NO_TOOL = "(no tool)"
#: Utilization buckets: ``i`` holds shares from ``i * 5%`` up to ``(i + 1) * 5%``, the last
#: one shares of 100% and more.
BUCKETS = 21


def utilization(size: Size, policy: Policy, tokens: int | None = None) -> tuple[float, str]:
    """The share of its tightest limit a result of *size* (and *tokens*, when counted)
    uses, and that limit's name."""
    share, limit = size.chars / policy.inline_limit, "inline_limit"
    for used, bound, name in ((size.bytes, policy.max_bytes, "max_bytes"),
                              (size.lines, policy.max_lines, "max_lines"),
                              (tokens, policy.max_tokens, "max_tokens")):
        if used is not None and bound is not None and used / bound > share:
            share, limit = used / bound, name
    return share, limit


def bucket_of(share: float) -> int:
    return min(BUCKETS - 1, max(0, int(share * (BUCKETS - 1))))


def log_use(tool: str | None, share: float, limit: str, *, chars: int, truncated: bool) -> None:
    """The INFO record of a result over ``log_utilization_above`` (no content)."""
    log.info("result uses %.0f%% of %s (tool=%s, chars=%d, truncated=%s)", share * 100, limit,
             tool, chars, truncated)


class ToolCounts(NamedTuple):
    """One tool's counters, read at one time."""

    calls: int
    truncations: int
    artifacts: int
    chars_saved: int
    utilization: tuple[int, ...]


class CallCounter:
    """Counts calls without a lock: ``next()`` on an :func:`itertools.count` is atomic.

    It sits on the pass-through path, where a lock would cost more than the rest of the call.
    """

    __slots__ = ("_count",)

    def __init__(self) -> None:
        self._count = itertools.count()

    def __call__(self) -> None:
        next(self._count)

    @property
    def value(self) -> int:
        return count_value(self._count)


def count_value(counter: itertools.count[int]) -> int:
    """The next value of *counter*, read without advancing it: its repr is ``count(N)``."""
    return int(repr(counter)[6:-1])


class StatsRecorder:
    """The mutable counters behind :meth:`Truncator.stats`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[str, CallCounter] = {}
        self._slow: dict[str, list[int]] = {}  # tool -> [truncations, artifacts, chars_saved]
        # tool -> one counter per utilization bucket; next() on each is atomic, as for calls.
        self._use: dict[str, list[itertools.count[int]]] = {}

    def call_counter(self, tool: str | None) -> CallCounter:
        return self._calls.setdefault(NO_TOOL if tool is None else tool, CallCounter())

    def use_counters(self, tool: str | None) -> list[itertools.count[int]]:
        """The utilization histogram of *tool*: ``next(counters[bucket])`` counts a result."""
        return self._use.setdefault(NO_TOOL if tool is None else tool,
                                    [itertools.count() for _ in range(BUCKETS)])

    def record_use(self, tool: str | None, share: float) -> None:
        next(self.use_counters(tool)[bucket_of(share)])

    def record_truncation(self, tool: str | None, *, chars_saved: int, artifact: bool) -> None:
        key = NO_TOOL if tool is None else tool
        with self._lock:
            counters = self._slow.setdefault(key, [0, 0, 0])
            counters[0] += 1
            counters[1] += int(artifact)
            counters[2] += chars_saved

    def counts(self) -> dict[str, ToolCounts]:
        """Each tool's counters as they are now (:meth:`Stats.of
        <truncation_core.pipeline.stats.Stats.of>` makes the report of them)."""
        with self._lock:
            slow = {tool: tuple(c) for tool, c in self._slow.items()}
        counts = {}
        for tool, counter in list(self._calls.items()):
            truncations, artifacts, saved = slow.get(tool, (0, 0, 0))
            use = self._use.get(tool)
            histogram = tuple(count_value(c) for c in use) if use else (0,) * BUCKETS
            counts[tool] = ToolCounts(counter.value, truncations, artifacts, saved, histogram)
        return counts
