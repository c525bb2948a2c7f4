"""The ``salient_patterns`` hook: plugins add the lines worth lifting, per tool."""

from __future__ import annotations

import re
from typing import Any

from truncation_core import Truncator
from truncation_core.hookspecs import hookimpl
from truncation_core.salient import SalientPattern

BLOCK = re.compile(r"^line (\d+): (.*)$", re.MULTILINE)


def log_with(marks: dict[int, str], total: int = 3000) -> str:
    lines = [f"INFO {i:05d} compiling module number {i}" for i in range(total)]
    for index, text in marks.items():
        lines[index] = text
    return "\n".join(lines) + "\n"


def shown(content: str) -> dict[int, str]:
    return {int(n): text for n, text in BLOCK.findall(content)}


class _CargoPatterns:
    """A plugin that knows one tool's output."""

    def __init__(self) -> None:
        self.calls: list[Any] = []

    @hookimpl
    def salient_patterns(self, tool: str | None) -> list[SalientPattern] | None:
        self.calls.append(tool)
        if tool != "cargo":
            return None
        return [SalientPattern(name="cargo-warning", keywords=("warning: unused",), rank=0)]


def test_hook_salient_patterns() -> None:
    plugin = _CargoPatterns()
    truncator = Truncator({"inline_limit": 3000, "highlights": 4}, plugins=[plugin],
                          load_entrypoints=False)
    content = log_with({700: "warning: unused variable `x`", 800: "error: cannot borrow"})
    cargo = shown(truncator.process(content, tool="cargo").content)
    assert cargo == {701: "warning: unused variable `x`", 801: "error: cannot borrow"}
    other = shown(truncator.process(content, tool="other").content)
    assert other == {801: "error: cannot borrow"}  # the plugin's pattern is per tool
    truncator.process(content, tool="cargo")
    assert plugin.calls == ["cargo", "other"]  # compiled once per tool
