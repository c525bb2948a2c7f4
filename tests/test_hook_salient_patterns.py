"""The ``salient_patterns`` hook: plugins add the lines worth lifting, per tool."""

from __future__ import annotations

from typing import Any

from truncation_core import Truncator
from truncation_core.highlights.patterns import SalientPattern
from truncation_core.hooks.specs import hookimpl
from truncation_core.storage.memory import MemoryStore


def make(config: Any = None, **kwargs: Any) -> Truncator:
    """A Truncator on the memory store, with only the built-in plugins (and *kwargs*')."""
    return Truncator(config, load_entrypoints=False, store=MemoryStore(), **kwargs)


def lifted(result: Any) -> dict[int, str]:
    """Line number -> text of the highlights, from the metadata."""
    return {h["line"]: h["text"] for h in result.metadata.details.get("highlights", ())}


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
    truncator = make({"inline_limit": 3000, "highlights": 4}, plugins=[plugin])
    rows = [f"   Compiling crate{i} v0.1.0" for i in range(3000)]
    rows[700], rows[800] = "warning: unused variable `x`", "error: cannot borrow"
    content = "\n".join(rows) + "\n"
    cargo = lifted(truncator.process(content, tool="cargo"))
    assert cargo == {701: "warning: unused variable `x`", 801: "error: cannot borrow"}
    other = lifted(truncator.process(content, tool="other"))
    assert other == {801: "error: cannot borrow"}  # the plugin's pattern is per tool
    truncator.process(content, tool="cargo")
    assert plugin.calls == ["cargo", "other"]  # compiled once per tool
