"""The ``salient_detector`` hook: a plugin's highlights detector, one declaration of its
patterns (the lines worth lifting, per tool), units (the lines shown with them) and records
(the records of a JSON Lines log judged parsed)."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import pytest

from truncation_core import Truncator
from truncation_core.highlights.records import RECORD_CHARS, record_text
from truncation_core.hooks.specs import hookimpl
from truncation_core.storage.memory import MemoryStore
from truncation_core.types.salient import (
    SalientDetector,
    SalientPattern,
    SalientRecord,
    SalientUnit,
    UnitLines,
    lines_above,
    lines_below,
)


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
    def salient_detector(self, tool: str | None) -> SalientDetector | None:
        self.calls.append(tool)
        if tool != "cargo":
            return None
        return SalientDetector(patterns=[SalientPattern(name="cargo-lint",
                                                        keywords=("lint: unused",), rank=0)])


def test_hook_salient_detector() -> None:
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
    def salient_detector(self) -> SalientDetector:
        return SalientDetector(patterns=[SalientPattern(
            name="deploy-step", keywords=("==> at ",), regex=r"^==> at \S+:\d+$",
            header=r"^STEP-\d+ ")])


def test_hook_salient_detector_patterns_header_makes_the_line_above_the_salient_one() -> None:
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


def test_hook_salient_detector_patterns_of_a_plugin_name_a_line_before_the_built_ins() -> None:
    """Within a rank, a plugin's pattern classifies a line before the built-in ones."""

    class Named:
        @hookimpl
        def salient_detector(self) -> SalientDetector:
            return SalientDetector(patterns=[SalientPattern(
                name="billing-error", keywords=("billing",), regex=r"ERROR billing")])

    rows = [f"INFO {i} ok" for i in range(3000)]
    rows[900] = "2026-01-01 ERROR billing: card declined"
    content = "\n".join(rows) + "\n"
    plain = make({"inline_limit": 3000, "highlights": 4}).process(content, tool="x")
    assert [h["pattern"] for h in plain.metadata.details["highlights"]] == ["error"]
    named = make({"inline_limit": 3000, "highlights": 4}, plugins=[Named()]).process(
        content, tool="x")
    assert [h["pattern"] for h in named.metadata.details["highlights"]] == ["billing-error"]


def test_hook_salient_detector_patterns_header_is_checked() -> None:
    with pytest.raises(ValueError, match="regex: not a valid regular expression"):
        SalientPattern(name="x", keywords=("a",), header="(")


def test_hook_salient_detector_patterns_is_called_when_a_stream_gets_its_first_text() -> None:
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


# -- units: the lines shown with a salient line ---------------------------------------------


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
    def salient_detector(self, tool: str | None) -> SalientDetector:
        patterns = [SalientPattern(name="deploy-failed", keywords=("DEPLOY FAILED",))]
        if tool != "deploy":
            return SalientDetector(patterns=patterns)

        def choose(lines: UnitLines) -> list[int]:
            self.seen.append(lines)
            return [i for i, line in enumerate(lines.below, 1)
                    if re.match(r"^\s+(reason|hint): ", line)]

        return SalientDetector(patterns=patterns, units=[SalientUnit(
            name="deploy-reason", patterns=("deploy-failed",), below=4, choose=choose)])


def test_hook_salient_detector_units_show_lines_with_a_salient_line() -> None:
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


def test_hook_salient_detector_units_stream_and_process_agree_across_chunk_edges() -> None:
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


def test_hook_salient_detector_units_lines_in_the_kept_part_are_not_repeated() -> None:
    rows = deploy_log()
    rows[-6:-2] = ["DEPLOY FAILED on node 7", "   reason: disk full", "   retry: 3",
                   "   hint: free /var"]
    truncator = make({"inline_limit": 3000, "highlights": 4}, plugins=[_DeployUnits()])
    result = truncator.process("\n".join(rows) + "\n", tool="deploy")
    assert "highlights from" not in result.content  # the whole unit is in the kept tail
    assert result.content.count("reason: disk full") == 1


class _Raising:
    @hookimpl
    def salient_detector(self) -> SalientDetector:
        def choose(lines: UnitLines) -> list[int]:
            raise RuntimeError(f"cannot read {lines.line}")

        return SalientDetector(
            patterns=[SalientPattern(name="deploy-failed", keywords=("DEPLOY FAILED",))],
            units=[SalientUnit(name="broken", patterns=("deploy-failed",), below=2,
                               choose=choose),
                   SalientUnit(name="wild", patterns=("deploy-failed",), below=2,
                               choose=lambda lines: [-5, 0, 1, 3, 1, "2"])])  # type: ignore


def test_hook_salient_detector_units_a_failing_choose_adds_nothing_and_is_logged(
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


def test_hook_salient_detector_units_wrong_results_are_reported() -> None:
    class Wrong:
        @hookimpl
        def salient_detector(self) -> list[str]:
            return ["not a detector"]

    rows = deploy_log()
    rows[900] = "error: it broke"
    result = make({"inline_limit": 3000, "highlights": 4}, plugins=[Wrong()]).process(
        "\n".join(rows) + "\n", tool="x")
    assert "highlights from" not in result.content
    assert any("salient_detector" in note and "no highlights" in note
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


# -- records: a JSON Lines log judged parsed -----------------------------------------------


def shown_records(result: Any) -> dict[int, str]:
    return {h["original_line"]: h["text"] for h in result.metadata.details.get("highlights", ())}


#: The tail strategy, as for command output (JSON Lines would otherwise go to `element`).
TAIL = {"inline_limit": 3000, "highlights": 6, "default_strategy": "tail",
        "detect_structure": False}


def audit_log(total: int = 3000) -> list[str]:
    return [json.dumps({"ts": i, "user": f"u{i % 7}", "outcome": "allowed",
                        "msg": "access checked"}) for i in range(total)]


class _Audit:
    def __init__(self) -> None:
        self.tested: list[dict[str, Any]] = []

    @hookimpl
    def salient_detector(self, tool: str | None) -> SalientDetector | None:
        if tool != "audit":
            return None

        def denied(record: Any) -> bool:
            self.tested.append(record)
            return record.get("outcome") == "denied"

        return SalientDetector(records=[SalientRecord(name="audit-denied",
                                                      keywords=('"denied"',), test=denied)])


def test_hook_salient_detector_records_judge_parsed_records() -> None:
    plugin = _Audit()
    rows = audit_log()
    rows[900] = json.dumps({"ts": 900, "user": "mallory", "outcome": "denied"})
    rows[1200] = json.dumps({"ts": 1200, "outcome": "allowed", "before": "denied"})
    rows[1300] = '{"ts": 1300, "outcome": "denied", broken json'  # not a record: patterns
    rows[1400] = '{"ts": 1400, "outcome": "allowed", "was": "denied", "msg": "ERROR quota"}'
    content = "\n".join(rows) + "\n"
    truncator = make(TAIL, plugins=[plugin])
    result = truncator.process(content, tool="audit")
    assert shown_records(result) == {901: rows[900]}
    # Only lines holding a keyword were parsed, and given parsed.
    assert [r["ts"] for r in plugin.tested] == [900, 1200, 1400]
    # A record is judged as a record: "ERROR" in the message of an allowed record is not an
    # error. Without the rule, the same line is text whose keyword lies only in the data it
    # carries (a JSON object): no match either (issue 28). The same words outside an object
    # are text, and the "error" pattern takes them.
    assert 1401 not in shown_records(make(TAIL).process(content, tool="audit"))
    rows[1400] = 'ts=1400 outcome=allowed was=denied msg="ERROR quota"'
    plain = "\n".join(rows) + "\n"
    assert 1401 in [line for line, _, _ in shown(make(TAIL).process(plain, tool="audit"))]


def test_hook_salient_detector_records_a_record_is_cut_as_a_record() -> None:
    stack = "Error: ECONNRESET\\n" + "    at handler (/srv/app.js:12:5)\\n" * 40
    record = ('{"level":50,"time":1764100059200,"service":"checkout","err":{"type":"Error",'
              f'"message":"ECONNRESET while capturing payment","stack":"{stack}"}},'
              '"msg":"payment failed"}')
    text = record_text(record, 320)
    assert text.startswith('{"level":50,"time":1764100059200,"service":"checkout","err":'
                           '{"type":"Error","message":"ECONNRESET while capturing payment",'
                           '"stack":"Error: ECONNRESET')
    assert text.endswith('"msg":"payment failed"}')
    assert len(text) <= 320 and "…" in text


def test_hook_salient_detector_records_stream_and_process_agree_on_long_records() -> None:
    rows = audit_log(2000)
    long_record = json.dumps({"ts": 777, "outcome": "denied", "blob": "x" * 200_000})
    rows[777] = json.dumps({"ts": 777, "outcome": "denied", "note": "y" * 3000})
    rows[1500] = long_record  # longer than RECORD_CHARS: not parsed, not a match
    assert len(long_record) > RECORD_CHARS
    content = "\n".join(rows) + "\n"
    config = TAIL
    expected = make(config, plugins=[_Audit()]).process(content, tool="audit")
    assert list(shown_records(expected)) == [778]
    for size in (1000, 4093, 65536):
        truncator = make(config, plugins=[_Audit()])
        with truncator.stream(tool="audit") as s:
            for i in range(0, len(content), size):
                s.write(content[i:i + size])
        assert s.result().metadata.details == expected.metadata.details, size


def test_hook_salient_detector_records_a_raising_test_counts_as_false() -> None:
    class Raising:
        @hookimpl
        def salient_detector(self) -> SalientDetector:
            return SalientDetector(records=[SalientRecord(
                name="x", keywords=('"outcome"',), test=lambda record: record["missing"])])

    rows = audit_log()
    result = make(TAIL, plugins=[Raising()]).process(
        "\n".join(rows) + "\n", tool="audit")
    assert "highlights from" not in result.content


def test_records_are_checked() -> None:
    with pytest.raises(ValueError, match="keywords: at least one"):
        SalientRecord(name="x", keywords=(), test=bool)
    with pytest.raises(ValueError, match="test: expected a function"):
        SalientRecord(name="x", keywords=("a",), test="yes")  # type: ignore[arg-type]


def test_hook_salient_detector_records_come_back_as_records_when_element_cuts_json_lines() -> None:
    """JSON Lines content goes to ``element`` (no tool policy); the records it leaves out
    that a rule takes are put back after its note, as records: the output stays JSON Lines,
    within the budget, and a stream gives the same."""
    rows = audit_log(3000)
    rows[1500] = json.dumps({"ts": 1500, "user": "mallory", "outcome": "denied",
                             "trace": "x" * 5000})
    rows[2200] = json.dumps({"ts": 2200, "level": "error", "msg": "ledger write failed"})
    content = "\n".join(rows) + "\n"
    config = {"inline_limit": 4000, "artifact_threshold": 10**9}
    truncator = make(config, plugins=[_Audit()])
    result = truncator.process(content, tool="audit")
    assert result.metadata.strategy_used == "element"
    lines = result.content.split("\n")
    parsed = [json.loads(line) for line in lines if line]  # every line is JSON
    assert len(result.content) <= 4000
    lifted = [p for p in parsed if isinstance(p, dict) and p.get("ts") in (1500, 2200)]
    assert [p["ts"] for p in lifted] == [1500, 2200]
    assert lifted[0]["outcome"] == "denied" and "…" in lifted[0]["trace"]  # cut inside
    note = next(p for p in parsed if isinstance(p, str) and "highlights from" in p)
    assert note.endswith("line 1501, line 2201")
    # Without a rule for "denied", only the built-in error record comes back.
    plain = make(config).process(content, tool="audit")
    assert [json.loads(line).get("ts") for line in plain.content.split("\n")
            if line.startswith("{") and ("1500" in line or "2200" in line)] == [2200]
    with truncator.stream(tool="audit") as s:
        for i in range(0, len(content), 8192):
            s.write(content[i:i + 8192].encode())
    streamed = s.result()
    assert streamed.content.replace(streamed.artifact.id, "<id>") == \
        result.content.replace(result.artifact.id, "<id>")


def test_a_detector_holds_only_what_its_parts_are_made_of() -> None:
    with pytest.raises(TypeError, match="patterns: expected SalientPattern objects, got str"):
        SalientDetector(patterns=["error"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="records: expected SalientRecord objects"):
        SalientDetector(records=[SalientPattern(name="p", keywords=("x",))])  # type: ignore
    assert SalientDetector() == SalientDetector(patterns=(), units=(), records=())
