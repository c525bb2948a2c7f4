"""The ``salient_units`` hook: the lines shown with a salient line, as one unit."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest

from truncation_core import Truncator
from truncation_core.plugin import SalientPattern, hookimpl
from truncation_core.storage.memory import MemoryStore
from truncation_core.types.salient import SalientUnit, UnitLines, lines_above, lines_below


def make(config: Any = None, **kwargs: Any) -> Truncator:
    return Truncator(config, load_entrypoints=False, store=MemoryStore(), **kwargs)


def shown(result: Any) -> list[tuple[int, str, str | None]]:
    return [(h["original_line"], h["text"], h.get("unit"))
            for h in result.metadata.details.get("highlights", ())]


def deploy_log(total: int = 3000) -> list[str]:
    return [f"   deploying shard {i} ok" for i in range(total)]


class _DeployUnits:
    """A tool whose failures print their reason and hint on the lines under them."""

    def __init__(self) -> None:
        self.seen: list[UnitLines] = []

    @hookimpl
    def salient_patterns(self, tool: str | None) -> list[SalientPattern] | None:
        return [SalientPattern(name="deploy-failed", keywords=("DEPLOY FAILED",))]

    @hookimpl
    def salient_units(self, tool: str | None) -> list[SalientUnit] | None:
        if tool != "deploy":
            return None

        def choose(lines: UnitLines) -> list[int]:
            self.seen.append(lines)
            return [i for i, line in enumerate(lines.below, 1)
                    if re.match(r"^\s+(reason|hint): ", line)]

        return [SalientUnit(name="deploy-reason", patterns=("deploy-failed",), below=4,
                            choose=choose)]


def test_hook_salient_units() -> None:
    plugin = _DeployUnits()
    rows = deploy_log()
    rows[900:904] = ["DEPLOY FAILED on node 7", "   reason: disk full",
                     "   retry: 3", "   hint: free /var"]
    content = "\n".join(rows) + "\n"
    truncator = make({"inline_limit": 3000, "highlights": 4}, plugins=[plugin])
    result = truncator.process(content, tool="deploy")
    assert shown(result) == [(901, "DEPLOY FAILED on node 7", None),
                             (902, "   reason: disk full", "deploy-reason"),
                             (904, "   hint: free /var", "deploy-reason")]
    # Each with its own line number, right under the salient line.
    assert "line 901: DEPLOY FAILED on node 7\nline 902:    reason: disk full\n" \
           "line 904:    hint: free /var\n" in result.content
    assert plugin.seen[0].line == "DEPLOY FAILED on node 7"
    assert list(plugin.seen[0].below) == rows[901:905]
    # Per tool: another tool gets the pattern but not the unit.
    other = make({"inline_limit": 3000, "highlights": 4}, plugins=[_DeployUnits()])
    assert shown(other.process(content, tool="other")) == [
        (901, "DEPLOY FAILED on node 7", None)]


def test_hook_salient_units_stream_and_process_agree_across_chunk_edges() -> None:
    rows = deploy_log(4000)
    for at in (700, 1800, 3000):
        rows[at:at + 4] = [f"DEPLOY FAILED on node {at}", f"   reason: disk {at} full",
                           "   retry: 3", f"   hint: free /var/{at}"]
    rows[3998] = "DEPLOY FAILED at the very end"  # its unit runs into the end
    content = "\n".join(rows) + "\n"
    config = {"inline_limit": 4000, "highlights": 6}
    expected = make(config, plugins=[_DeployUnits()]).process(content, tool="deploy")
    assert len(shown(expected)) == 9
    # Chunk edges in every place, relative to the units' lines.
    for size in (1, 7, 23, 4093, 65536, 65537):
        truncator = make(config, plugins=[_DeployUnits()])
        with truncator.stream(tool="deploy") as s:
            for i in range(0, len(content), size):
                s.write(content[i:i + size])
        streamed = s.result()
        assert streamed.metadata.details == expected.metadata.details, size


def test_hook_salient_units_lines_in_the_kept_part_are_not_repeated() -> None:
    rows = deploy_log()
    rows[-6:-2] = ["DEPLOY FAILED on node 7", "   reason: disk full", "   retry: 3",
                   "   hint: free /var"]
    truncator = make({"inline_limit": 3000, "highlights": 4}, plugins=[_DeployUnits()])
    result = truncator.process("\n".join(rows) + "\n", tool="deploy")
    assert "highlights from" not in result.content  # the whole unit is in the kept tail
    assert result.content.count("reason: disk full") == 1


class _Raising:
    @hookimpl
    def salient_patterns(self) -> list[SalientPattern]:
        return [SalientPattern(name="deploy-failed", keywords=("DEPLOY FAILED",))]

    @hookimpl
    def salient_units(self) -> list[SalientUnit]:
        def choose(lines: UnitLines) -> list[int]:
            raise RuntimeError(f"cannot read {lines.line}")

        return [SalientUnit(name="broken", patterns=("deploy-failed",), below=2,
                            choose=choose),
                SalientUnit(name="wild", patterns=("deploy-failed",), below=2,
                            choose=lambda lines: [-5, 0, 1, 3, 1, "2"])]  # type: ignore


def test_hook_salient_units_a_failing_choose_adds_nothing_and_is_logged(
        caplog: pytest.LogCaptureFixture) -> None:
    rows = deploy_log()
    rows[900:902] = ["DEPLOY FAILED secret-token-123", "   reason: disk full"]
    truncator = make({"inline_limit": 3000, "highlights": 4}, plugins=[_Raising()])
    with caplog.at_level(logging.WARNING, logger="truncation_core"):
        result = truncator.process("\n".join(rows) + "\n", tool="deploy")
    # The wild unit's offsets are checked: only 1 is in reach and kept, once.
    assert shown(result) == [(901, "DEPLOY FAILED secret-token-123", None),
                             (902, "   reason: disk full", "wild")]
    assert "salient unit 'broken' raised RuntimeError" in caplog.text
    assert "secret-token" not in caplog.text  # never the content


def test_hook_salient_units_wrong_results_are_reported() -> None:
    class Wrong:
        @hookimpl
        def salient_units(self) -> list[str]:
            return ["not a unit"]

    rows = deploy_log()
    rows[900] = "error: it broke"
    result = make({"inline_limit": 3000, "highlights": 4}, plugins=[Wrong()]).process(
        "\n".join(rows) + "\n", tool="x")
    assert "highlights from" not in result.content
    assert any("salient_units" in note and "no highlights" in note
               for note in result.metadata.notes)


def test_units_are_checked() -> None:
    with pytest.raises(ValueError, match="patterns: expected the names"):
        SalientUnit(name="u", patterns=(), choose=lambda lines: [])
    with pytest.raises(ValueError, match="below: expected an integer from 0 to 64"):
        SalientUnit(name="u", patterns=("p",), below=65, choose=lambda lines: [])
    with pytest.raises(ValueError, match="choose: expected a function"):
        SalientUnit(name="u", patterns=("p",), choose="^x")  # type: ignore[arg-type]


def test_lines_below_and_above_take_until_stop_or_most() -> None:
    lines = UnitLines(line="HEAD", above=("  a: 1", "x", "  b: 2", "STOP", "  c: 3"),
                      below=("  a: 1", "x", "  b: 2", "STOP: yes", "  c: 3"))
    assert lines_below(r"^\s+\w+:")(lines) == [1, 3, 5]
    assert lines_below(r"^\s+\w+:", most=1)(lines) == [1]
    assert lines_below(r":", stop=r"^STOP")(lines) == [1, 3, 4]  # the stop line taken too
    assert lines_below(r"^\s", stop=r"^STOP")(lines) == [1, 3]
    assert lines_above(r"^\s+\w+:", stop=r"^STOP")(lines) == [-1, -3]
    assert lines_above(r"^\s+\w+:", most=5)(lines) == [-1, -3, -5]
