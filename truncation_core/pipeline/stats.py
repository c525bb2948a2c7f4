"""Per-tool counters: calls, truncations, artifacts and characters saved."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping

import attrs

from truncation_core.hooks.models import frozen_mapping

__all__ = ["Stats", "StatsRecorder", "ToolStats"]

#: The key under which calls made without a tool name are counted.
NO_TOOL = "(no tool)"


@attrs.frozen(kw_only=True)
class ToolStats:
    """Counters for one tool."""

    calls: int = 0
    truncations: int = 0
    artifacts: int = 0
    #: Characters of tool output that the model did not have to read.
    chars_saved: int = 0

    @property
    def truncation_rate(self) -> float:
        """Share of calls whose result was truncated (0.0 with no calls)."""
        return self.truncations / self.calls if self.calls else 0.0

    def to_dict(self) -> dict[str, float | int]:
        return {**attrs.asdict(self), "truncation_rate": self.truncation_rate}


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
        )

    def __getitem__(self, tool: str | None) -> ToolStats:
        return self.tools.get(NO_TOOL if tool is None else tool, ToolStats())

    def to_dict(self) -> dict[str, dict[str, float | int]]:
        return {tool: s.to_dict() for tool, s in sorted(self.tools.items())}


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
        # repr is "count(N)": the only way to read a count without advancing it.
        return int(repr(self._count)[6:-1])


class StatsRecorder:
    """The mutable counters behind :meth:`Truncator.stats`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[str, CallCounter] = {}
        self._slow: dict[str, list[int]] = {}  # tool -> [truncations, artifacts, chars_saved]

    def call_counter(self, tool: str | None) -> CallCounter:
        return self._calls.setdefault(NO_TOOL if tool is None else tool, CallCounter())

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
            tools[tool] = ToolStats(calls=counter.value, truncations=truncations,
                                    artifacts=artifacts, chars_saved=saved)
        return Stats(tools=tools)
