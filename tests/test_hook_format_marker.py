"""The ``format_marker`` hook: a project restyles every marker in one place."""

from __future__ import annotations

from typing import Any

from truncation_core import Marker, Policy, Truncator, hookimpl

LOG = "".join(f"line {i:04d}\n" for i in range(1000))


class Brackets:
    __name__ = "brackets"

    def __init__(self) -> None:
        self.markers: list[Marker] = []

    @hookimpl
    def format_marker(self, marker: Marker, policy: Policy) -> str | None:
        self.markers.append(marker)
        if marker.kind == "reference":
            return None  # the built-in reference
        region = marker.omission
        assert region is not None
        where = f" in {marker.artifact.id}" if marker.artifact else ""
        return f"\n[{region.first_line}-{region.last_line} cut{where}]\n"


def test_hook_format_marker_restyles_omissions() -> None:
    plugin = Brackets()
    truncator = Truncator({"inline_limit": 500}, plugins=[plugin], load_entrypoints=False)
    result = truncator.process(LOG, tool="read_file")
    region = result.metadata.omissions[0]
    expected = f"\n[{region.first_line}-{region.last_line} cut in {result.artifact.id}]\n"  # type: ignore[union-attr]
    assert expected in result.content
    assert "lines / " not in result.content
    assert len(result.content) <= 500
    last = plugin.markers[-1]
    assert (last.kind, last.strategy, last.tool) == ("middle", "outline", "read_file")
    assert (last.original_chars, last.original_lines) == (len(LOG), 1000)


def test_hook_format_marker_gets_each_position() -> None:
    plugin = Brackets()
    failing = LOG + "error: the build failed\n"  # execute_command keeps a failure log's tail
    for tool, kind, text in (("execute_command", "beginning", failing),
                             ("execute_command", "middle", LOG), ("read_file", "middle", LOG)):
        Truncator({"inline_limit": 500}, plugins=[plugin],
                  load_entrypoints=False).process(text, tool=tool)
        assert plugin.markers[-1].kind == kind
    Truncator({"inline_limit": 500, "default_strategy": "head"}, plugins=[plugin],
              load_entrypoints=False).process(LOG)
    assert plugin.markers[-1].kind == "end"


def test_hook_format_marker_none_falls_back_to_the_configured_template() -> None:
    plugin = Brackets()
    truncator = Truncator({"artifact_threshold": 5000}, plugins=[plugin],
                          load_entrypoints=False)
    result = truncator.process(LOG * 2)
    assert result.content.startswith(f"[Artifact: {result.artifact.id}] tool output")  # type: ignore[union-attr]
    assert any(m.kind == "reference" for m in plugin.markers)


def test_hook_format_marker_says_when_the_content_could_not_be_kept() -> None:
    from faults import FailingStore

    from truncation_core import StoreFull

    seen: list[Marker] = []

    class Record:
        __name__ = "record"

        @hookimpl
        def format_marker(self, marker: Marker) -> None:
            seen.append(marker)

    truncator = Truncator({"inline_limit": 500}, plugins=[Record()],
                          store=FailingStore(StoreFull("full")), load_entrypoints=False)
    result = truncator.process(LOG)
    assert seen and all(m.artifact is None for m in seen)
    assert {m.artifact_error for m in seen} == {"the artifact store is full"}
    assert "could not be kept: the artifact store is full" in result.content


def test_hook_format_marker_too_long_for_the_budget_gets_the_fallback() -> None:
    class Huge:
        __name__ = "huge"

        @hookimpl
        def format_marker(self, marker: Any) -> str:
            return "#" * 10_000

    truncator = Truncator({"inline_limit": 500, "spill": False}, plugins=[Huge()],
                          load_entrypoints=False)
    result = truncator.process(LOG)
    assert len(result.content) <= 500
    assert "…" in result.content
    assert "marker did not fit the budget; used '…'" in result.metadata.notes
