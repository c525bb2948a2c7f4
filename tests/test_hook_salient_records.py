"""The ``salient_records`` hook: records of a JSON Lines log judged parsed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from truncation_core import Truncator
from truncation_core.highlights.records import RECORD_CHARS, record_text
from truncation_core.plugin import hookimpl
from truncation_core.storage.memory import MemoryStore
from truncation_core.types.salient import SalientRecord


def make(config: Any = None, **kwargs: Any) -> Truncator:
    return Truncator(config, load_entrypoints=False, store=MemoryStore(), **kwargs)


def shown(result: Any) -> dict[int, str]:
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
    def salient_records(self, tool: str | None) -> list[SalientRecord] | None:
        if tool != "audit":
            return None

        def denied(record: Any) -> bool:
            self.tested.append(record)
            return record.get("outcome") == "denied"

        return [SalientRecord(name="audit-denied", keywords=('"denied"',), test=denied)]


def test_hook_salient_records() -> None:
    plugin = _Audit()
    rows = audit_log()
    rows[900] = json.dumps({"ts": 900, "user": "mallory", "outcome": "denied"})
    rows[1200] = json.dumps({"ts": 1200, "outcome": "allowed", "before": "denied"})
    rows[1300] = '{"ts": 1300, "outcome": "denied", broken json'  # not a record: patterns
    rows[1400] = '{"ts": 1400, "outcome": "allowed", "was": "denied", "msg": "ERROR quota"}'
    content = "\n".join(rows) + "\n"
    truncator = make(TAIL, plugins=[plugin])
    result = truncator.process(content, tool="audit")
    assert shown(result) == {901: rows[900]}
    # Only lines holding a keyword were parsed, and given parsed.
    assert [r["ts"] for r in plugin.tested] == [900, 1200, 1400]
    # A record is judged as a record: "ERROR" in the message of an allowed record is not an
    # error. Without the rule, the same line is text, and the "error" pattern takes it.
    assert 1401 in shown(make(TAIL).process(content, tool="audit"))


def test_hook_salient_records_a_record_is_cut_as_a_record() -> None:
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


def test_hook_salient_records_stream_and_process_agree_on_long_records() -> None:
    rows = audit_log(2000)
    long_record = json.dumps({"ts": 777, "outcome": "denied", "blob": "x" * 200_000})
    rows[777] = json.dumps({"ts": 777, "outcome": "denied", "note": "y" * 3000})
    rows[1500] = long_record  # longer than RECORD_CHARS: not parsed, not a match
    assert len(long_record) > RECORD_CHARS
    content = "\n".join(rows) + "\n"
    config = TAIL
    expected = make(config, plugins=[_Audit()]).process(content, tool="audit")
    assert list(shown(expected)) == [778]
    for size in (1000, 4093, 65536):
        truncator = make(config, plugins=[_Audit()])
        with truncator.stream(tool="audit") as s:
            for i in range(0, len(content), size):
                s.write(content[i:i + size])
        assert s.result().metadata.details == expected.metadata.details, size


def test_hook_salient_records_a_raising_test_counts_as_false() -> None:
    class Raising:
        @hookimpl
        def salient_records(self) -> list[SalientRecord]:
            return [SalientRecord(name="x", keywords=('"outcome"',),
                                  test=lambda record: record["missing"])]

    rows = audit_log()
    result = make(TAIL, plugins=[Raising()]).process(
        "\n".join(rows) + "\n", tool="audit")
    assert "highlights from" not in result.content


def test_records_are_checked() -> None:
    with pytest.raises(ValueError, match="keywords: at least one"):
        SalientRecord(name="x", keywords=(), test=bool)
    with pytest.raises(ValueError, match="test: expected a function"):
        SalientRecord(name="x", keywords=("a",), test="yes")  # type: ignore[arg-type]


def test_hook_salient_records_come_back_as_records_when_element_cuts_json_lines() -> None:
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
