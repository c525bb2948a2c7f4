"""What :meth:`Truncator.stats <truncation_core.Truncator.stats>` reports: per tool, calls,
truncations, artifacts, characters saved, and how full the results were relative to their
limits (:class:`ToolStats`), keyed by tool in :class:`Stats`.

The counters it is made of, and what utilization is, are in
:mod:`truncation_core.pipeline.counters` (whose names are exported here too).
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from truncation_core.pipeline.counters import (
    BUCKETS,
    NO_TOOL,
    StatsRecorder,
    log_use,
    utilization,
)
from truncation_core.types.converters import frozen_mapping

__all__ = ["BUCKETS", "NO_TOOL", "Stats", "StatsRecorder", "ToolStats", "log_use",
           "utilization"]

_QUANTILES = {"p50": 0.5, "p90": 0.9, "p99": 0.99}


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

    @classmethod
    def of(cls, recorder: StatsRecorder) -> Stats:
        """A snapshot of *recorder*'s counters."""
        return cls(tools={tool: ToolStats(calls=c.calls, truncations=c.truncations,
                                          artifacts=c.artifacts, chars_saved=c.chars_saved,
                                          utilization=c.utilization)
                          for tool, c in recorder.counts().items()})

    def __getitem__(self, tool: str | None) -> ToolStats:
        return self.tools.get(NO_TOOL if tool is None else tool, ToolStats())

    def to_dict(self) -> dict[str, dict[str, object]]:
        return {tool: s.to_dict() for tool, s in sorted(self.tools.items())}


def _summed(histograms: list[tuple[int, ...]]) -> tuple[int, ...]:
    return tuple(sum(h[i] for h in histograms) for i in range(BUCKETS))
