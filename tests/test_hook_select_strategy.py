"""The ``select_strategy`` hook: a plugin extends per-tool policies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from truncation_core import ContentFacts, Policy, Truncator, hookimpl

LOG = "".join(f"line {i}\n" for i in range(1000))


class TailForLogs:
    """The docs' example: tail for any tool whose name ends in _log; otherwise not mine."""

    __name__ = "tail-for-logs"

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []

    @hookimpl
    def select_strategy(self, tool: str | None, facts: ContentFacts, policy: Policy,
                        context: Mapping[str, Any]) -> str | None:
        self.seen.append({"tool": tool, "facts": facts, "policy": policy,
                          "context": dict(context)})
        if tool and tool.endswith("_log"):
            return "tail"
        return None


def test_hook_select_strategy_extends_tool_policies() -> None:
    plugin = TailForLogs()
    truncator = Truncator({"inline_limit": 500}, plugins=[plugin], load_entrypoints=False)
    assert truncator.process(LOG, tool="build_log").metadata.strategy_used == "tail"
    # None: the next implementation (the built-in: the policy's strategy) decides.
    assert truncator.process(LOG, tool="read_file").metadata.strategy_used == "outline"
    assert truncator.process(LOG, tool="execute_command").metadata.strategy_used == "adaptive"


def test_hook_select_strategy_receives_facts_policy_and_context() -> None:
    plugin = TailForLogs()
    truncator = Truncator({"inline_limit": 500, "tools": {"x": {"max_lines": 7}}},
                          plugins=[plugin], load_entrypoints=False)
    content = '[{"a": 1}, ' + ", ".join(f'{{"é": {i}}}' for i in range(200)) + "]\n"
    truncator.process(content, tool="x", tool_call_id="call-1", path="data.json")
    (call,) = plugin.seen
    facts = call["facts"]
    assert (facts.chars, facts.bytes, facts.lines, facts.terminators) == (
        len(content), len(content.encode()), 1, 1)
    assert facts.looks_like_json is True and facts.from_bytes is False
    assert call["policy"].tool == "x" and call["policy"].max_lines == 7
    assert call["context"] == {"tool_call_id": "call-1", "path": "data.json"}
    truncator.process(content.encode(), tool="x")
    assert plugin.seen[1]["facts"].from_bytes is True


def test_hook_select_strategy_is_not_called_within_the_limits() -> None:
    plugin = TailForLogs()
    truncator = Truncator(plugins=[plugin], load_entrypoints=False)
    truncator.process("small", tool="build_log")
    truncator.process(LOG, tool="build_log", already_truncated=True)
    assert plugin.seen == []


def test_hook_select_strategy_first_result_wins() -> None:
    class Head:
        __name__ = "head"

        @hookimpl
        def select_strategy(self) -> str:
            return "head"

    class Lines:
        __name__ = "lines"

        @hookimpl
        def select_strategy(self) -> str:
            return "lines"

    truncator = Truncator({"inline_limit": 500}, plugins=[Head(), Lines()],
                          load_entrypoints=False)
    assert truncator.process(LOG).metadata.strategy_used == "lines"  # registered last
