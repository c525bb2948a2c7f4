"""The ``salient_patterns`` hook: plugins add the lines worth lifting, per tool."""

from __future__ import annotations

from typing import Any

from truncation_core import Truncator
from truncation_core.hooks.specs import hookimpl
from truncation_core.storage.memory import MemoryStore
from truncation_core.types.salient import SalientPattern


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
        return [SalientPattern(name="cargo-lint", keywords=("lint: unused",), rank=0)]


def test_hook_salient_patterns() -> None:
    plugin = _CargoPatterns()
    truncator = make({"inline_limit": 3000, "highlights": 4}, plugins=[plugin])
    rows = [f"   Compiling crate{i} v0.1.0" for i in range(3000)]
    rows[700], rows[800] = "lint: unused variable `x`", "error: cannot borrow"
    content = "\n".join(rows) + "\n"
    cargo = lifted(truncator.process(content, tool="cargo"))
    assert cargo == {701: "lint: unused variable `x`", 801: "error: cannot borrow"}
    other = lifted(truncator.process(content, tool="other"))
    assert other == {801: "error: cannot borrow"}  # the plugin's pattern is per tool
    truncator.process(content, tool="cargo")
    assert plugin.calls == ["cargo", "other"]  # compiled once per tool


class _DeployPatterns:
    """A plugin whose tool prints a header with no fixed word over a line that has one."""

    @hookimpl
    def salient_patterns(self) -> list[SalientPattern]:
        return [SalientPattern(name="deploy-step", keywords=("==> at ",),
                               regex=r"^==> at \S+:\d+$", header=r"^STEP-\d+ ")]


def test_hook_salient_patterns_header_makes_the_line_above_the_salient_one() -> None:
    truncator = make({"inline_limit": 3000, "highlights": 4}, plugins=[_DeployPatterns()])
    rows = [f"   Deploying shard{i}" for i in range(3000)]
    rows[700], rows[701] = "STEP-42 rollout stalled on node 7", "==> at deploy.yaml:12"
    rows[1500] = "==> at deploy.yaml:99"  # an arrow under no header: nothing
    result = truncator.process("\n".join(rows) + "\n", tool="deploy")
    shown = [(h["original_line"], h["text"], h.get("unit")) for h in
             result.metadata.details["highlights"]]
    assert shown == [(701, "STEP-42 rollout stalled on node 7", None)]
    assert "line 701: STEP-42 rollout stalled on node 7" in result.content
    # The same text without the header pattern: the arrow lines are not salient at all.
    assert "highlights from" not in make({"inline_limit": 3000, "highlights": 4}).process(
        "\n".join(rows) + "\n", tool="deploy").content


def test_hook_salient_patterns_of_a_plugin_name_a_line_before_the_built_ins() -> None:
    """Within a rank, a plugin's pattern classifies a line before the built-in ones."""

    class Named:
        @hookimpl
        def salient_patterns(self) -> list[SalientPattern]:
            return [SalientPattern(name="billing-error", keywords=("billing",),
                                   regex=r"ERROR billing")]

    rows = [f"INFO {i} ok" for i in range(3000)]
    rows[900] = "2026-01-01 ERROR billing: card declined"
    content = "\n".join(rows) + "\n"
    plain = make({"inline_limit": 3000, "highlights": 4}).process(content, tool="x")
    assert [h["pattern"] for h in plain.metadata.details["highlights"]] == ["error"]
    named = make({"inline_limit": 3000, "highlights": 4}, plugins=[Named()]).process(
        content, tool="x")
    assert [h["pattern"] for h in named.metadata.details["highlights"]] == ["billing-error"]


def test_hook_salient_patterns_header_is_checked() -> None:
    import pytest

    with pytest.raises(ValueError, match="regex: not a valid regular expression"):
        SalientPattern(name="x", keywords=("a",), header="(")


def test_hook_salient_patterns_is_called_when_a_stream_gets_its_first_text() -> None:
    """A stream that stays empty (a silent command's) never asks for the patterns; one that
    gets text asks once, and lifts the lines they match."""
    plugin = _CargoPatterns()
    truncator = make({"inline_limit": 3000, "highlights": 4}, plugins=[plugin])
    with truncator.stream(tool="cargo") as silent:
        silent.write(b"")
    assert silent.result().content == "" and plugin.calls == []
    with truncator.stream(tool="cargo") as stream:
        for i in range(3000):
            stream.write(f"   Compiling crate{i} v0.1.0\n" if i != 1500 else "lint: unused x\n")
    assert plugin.calls == ["cargo"]
    assert "lint: unused x" in lifted(stream.result()).values()
