"""Per-tool counters: calls, truncations, artifacts, characters saved, and how
full the results were relative to their limits.

Utilization is the share of its tightest limit a result uses (what the model sees, against
``inline_limit``, ``max_bytes``, ``max_lines`` and ``max_tokens``), counted in a histogram
of :data:`BUCKETS` buckets of 5% each, the last holding results at 100% or more (a result
the tool marked as already truncated can be over its limits). A result passed through
without measuring bytes, lines or tokens is placed by its characters.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING

import attrs

from truncation_core.hooks.models import frozen_mapping

if TYPE_CHECKING:
    from truncation_core.config.model import Policy
    from truncation_core.hooks.models import Size

__all__ = ["BUCKETS", "Stats", "StatsRecorder", "ToolStats", "log_use", "utilization"]

log = logging.getLogger("truncation_core")

#: The key under which calls made without a tool name are counted.
NO_TOOL = "(no tool)"
#: Utilization buckets: ``i`` holds shares from ``i * 5%`` up to ``(i + 1) * 5%``, the last
#: one shares of 100% and more.
BUCKETS = 21
_QUANTILES = {"p50": 0.5, "p90": 0.9, "p99": 0.99}


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


def _ints(values: object) -> tuple[int, ...]:
    return tuple(values)  # type: ignore[arg-type]


@attrs.frozen(kw_only=True)
class ToolStats:
    """Counters for one tool."""

    calls: int = 0
    truncations: int = 0
    artifacts: int = 0
    #: Characters of tool output that the model did not have to read.
    chars_saved: int = 0
    #: How full the results were: a histogram of the share of its tightest limit each result
    #: used, in :data:`BUCKETS` counts (5% each; the last, 100% and more).
    utilization: tuple[int, ...] = attrs.field(default=(0,) * BUCKETS, converter=_ints)

    @property
    def truncation_rate(self) -> float:
        """Share of calls whose result was truncated (0.0 with no calls)."""
        return self.truncations / self.calls if self.calls else 0.0

    @property
    def utilization_quantiles(self) -> dict[str, float | None]:
        """``p50``, ``p90`` and ``p99`` of utilization, each the upper edge of its bucket
        (``0.95`` means at most 95%; ``1.0`` for the last bucket); None with no results."""
        total = sum(self.utilization)
        out: dict[str, float | None] = {}
        for name, q in _QUANTILES.items():
            if not total:
                out[name] = None
                continue
            rank, seen = q * total, 0
            for i, n in enumerate(self.utilization):
                seen += n
                if seen >= rank:
                    out[name] = min(1.0, (i + 1) / (BUCKETS - 1))
                    break
        return out

    def to_dict(self) -> dict[str, object]:
        return {**attrs.asdict(self), "utilization": list(self.utilization),
                "truncation_rate": self.truncation_rate,
                "utilization_quantiles": self.utilization_quantiles}


@attrs.frozen(kw_only=True)
class Stats:
    """A snapshot of a Truncator's counters, keyed by tool name."""

    tools: Mapping[str, ToolStats] = attrs.field(converter=frozen_mapping)

    @property
    def total(self) -> ToolStats:
        return ToolStats(
            calls=sum(s.calls for s in self.tools.values()),
            truncations=sum(s.truncations for s in self.tools.values()),
            artifacts=sum(s.artifacts for s in self.tools.values()),
            chars_saved=sum(s.chars_saved for s in self.tools.values()),
            utilization=_summed([s.utilization for s in self.tools.values()]),
        )

    def __getitem__(self, tool: str | None) -> ToolStats:
        return self.tools.get(NO_TOOL if tool is None else tool, ToolStats())

    def to_dict(self) -> dict[str, dict[str, object]]:
        return {tool: s.to_dict() for tool, s in sorted(self.tools.items())}


def _summed(histograms: list[tuple[int, ...]]) -> tuple[int, ...]:
    return tuple(sum(h[i] for h in histograms) for i in range(BUCKETS))


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

    def snapshot(self) -> Stats:
        with self._lock:
            slow = {tool: tuple(c) for tool, c in self._slow.items()}
        tools = {}
        for tool, counter in list(self._calls.items()):
            truncations, artifacts, saved = slow.get(tool, (0, 0, 0))
            use = self._use.get(tool)
            histogram = tuple(count_value(c) for c in use) if use else (0,) * BUCKETS
            tools[tool] = ToolStats(calls=counter.value, truncations=truncations,
                                    artifacts=artifacts, chars_saved=saved,
                                    utilization=histogram)
        return Stats(tools=tools)
