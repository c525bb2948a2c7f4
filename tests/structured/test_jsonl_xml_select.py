"""JSON Lines and XML through element, and how select_strategy picks element."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from truncation_core import Truncator
from truncation_core.storage.memory import MemoryStore
from truncation_core.structured.sniff import parse, parse_prefix

from .strategies import hostile_json, json_documents


def lines(count: int) -> str:
    return "".join(json.dumps({"n": i, "msg": "event"}) + "\n" for i in range(count))


def test_json_lines_keep_whole_records_first_and_last():
    result = Truncator({"inline_limit": 500, "spill": False}).process(lines(1000))
    rows = result.content.split("\n")
    records = [json.loads(r) for r in rows]  # still JSON Lines
    assert records[0] == {"n": 0, "msg": "event"} and records[-1] == {"n": 999, "msg": "event"}
    omitted = 1000 - (len(records) - 1)
    assert f"... {omitted:,} records omitted ..." in records
    assert result.metadata.details["omitted"] == {"records": omitted}
    assert len(result.content) <= 500


def test_json_lines_with_one_record_too_large():
    text = json.dumps({"blob": "y" * 5000}) + "\n" + lines(3)
    result = Truncator({"inline_limit": 300, "spill": False}).process(text)
    first, note = result.content.split("\n")
    assert "chars omitted" in json.loads(first)["blob"]
    assert json.loads(note) == "... 3 records omitted ..."
    assert result.metadata.details["reason"] == "single_record_too_large"


def feed(count: int) -> str:
    entries = "".join(f'  <entry id="{i}"><title>T &amp; {i}</title></entry>\n'
                      for i in range(count))
    return f'<?xml version="1.0"?>\n<feed xmlns="urn:atom" xmlns:m="urn:m" m:v="1">\n' \
           f"{entries}</feed>\n"


def test_xml_keeps_first_and_last_children_and_stays_well_formed():
    result = Truncator({"inline_limit": 600, "spill": False}).process(feed(200))
    root = ET.fromstring(result.content)  # well-formed, namespaces declared
    entries = root.findall("{urn:atom}entry")
    assert entries[0].get("id") == "0" and entries[-1].get("id") == "199"
    omitted = 200 - len(entries)
    assert f"<!-- {omitted} elements omitted -->" in result.content
    assert result.metadata.details["cuts"] == [
        {"path": "/feed", "kind": "xml_elements", "omitted": omitted, "total": 200}]


BOMB = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lollollollollol">'
        '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
        '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>'
        "<lolz>" + "<i>&lol3;</i>" * 40 + "</lolz>")


def test_text_between_omitted_elements_is_counted():
    """Mixed content: the text after each omitted element goes with it, and is counted."""
    xml = "<r>" + "".join(f"<i>{i}</i>TAIL{i} " for i in range(10)) + "</r>"
    result = Truncator({"spill": False, "inline_limit": 120}).process(xml)
    out = result.content
    ET.fromstring(out)
    dropped = [f"TAIL{i} " for i in range(10) if f"TAIL{i}" not in out]
    assert dropped  # something was cut
    assert result.metadata.details["omitted"]["chars"] == sum(map(len, dropped))
    assert result.metadata.details["omitted"]["elements"] == len(dropped)


def test_entity_expansion_is_refused():
    # Negative control: a naive parse expands the entities (here 1,500 chars per <i>).
    naive = ET.fromstring(BOMB)
    assert len("".join(naive.itertext())) == 40 * 1500
    result = Truncator({"inline_limit": 300, "spill": False}).process(BOMB)
    assert result.metadata.strategy_used == "head_tail"
    assert "declares entities" in result.metadata.details["reason"]
    assert "lollollollollollol" not in result.content  # shown as text, nothing expanded


def test_external_entities_are_never_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    doc = (f'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file://{secret}">]>'
           "<r>" + "<a>&x;</a>" * 100 + "</r>")
    result = Truncator({"inline_limit": 300, "spill": False}).process(doc)
    assert "TOP-SECRET" not in result.content
    assert "declares entities" in result.metadata.details["reason"]


def test_malformed_xml_falls_back_to_text():
    text = "<a>" + "<b>x</b>" * 200 + "</c>"
    result = Truncator({"inline_limit": 200, "spill": False}).process(text)
    assert result.metadata.strategy_used == "head_tail"
    assert result.metadata.details["reason"].startswith("not well-formed XML: mismatched tag")


BIG_JSON = json.dumps({"rows": list(range(5000))})


@pytest.mark.parametrize(("config", "tool", "expected"), [
    ({}, None, "element"),                                  # no tool policy: sniffed
    ({}, "search_files", "element"),                        # built-in policy says element
    ({}, "read_file", "outline"),                           # built-in policy: edited next
    ({}, "git_diff", "head_tail"),
    ({}, "execute_command", "element"),                     # its tail is for its text
    ({"tools": {"execute_command": {"strategy": "tail"}}}, "execute_command", "tail"),
    ({"tools": {"execute_command": {"inline_limit": 900}}}, "execute_command", "element"),
    ({"default_strategy": "tail"}, "other", "element"),     # default_strategy is not a tool policy
    ({"tools": {"other": {"strategy": "head"}}}, "other", "head"),
    ({"tools": {"other": {"inline_limit": 100}}}, "other", "element"),
    ({"detect_structure": False}, "other", "head_tail"),
    ({"tools": {"other": {"detect_structure": False}}}, "other", "head_tail"),
])
def test_select_strategy_sends_json_to_element_unless_the_tool_policy_says_otherwise(
        config, tool, expected):
    result = Truncator({"spill": False, **config}).process(BIG_JSON, tool=tool)
    assert result.metadata.strategy_used == expected


@pytest.mark.parametrize("content", [
    "\ufeff" + BIG_JSON,                   # a BOM before the document
    "\n  " + BIG_JSON + "\r\n\n",          # blanks around it
    " " * 255 + BIG_JSON,                  # as many blanks as the sniff can see past
], ids=["bom", "blanks", "255-blanks"])
@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_every_kind_of_json_document_is_sniffed_and_stays_valid(content: str,
                                                                as_bytes: bool) -> None:
    truncator = Truncator({"spill": False})
    result = truncator.process(content.encode() if as_bytes else content)
    assert result.metadata.strategy_used == "element", result.metadata.notes
    json.loads(result.content)
    with truncator.stream() as s:
        s.write(content.encode() if as_bytes else content)
        assert s.result().content == result.content


def test_json_printed_by_a_command_is_cut_as_json_and_stays_valid() -> None:
    # curl ... | python -m json.tool: an array of records, indented, printed by a shell.
    printed = json.dumps([{"id": i, "name": f"task {i}", "status": "open"} for i in range(600)],
                         indent=4)
    truncator = Truncator({"spill": False})
    result = truncator.process(printed, tool="execute_command")
    assert result.metadata.strategy_used == "element"
    kept = json.loads(result.content)
    assert kept[0]["id"] == 0 and kept[-1]["id"] == 599  # both ends, as JSON
    # Negative control: under the command's tail, the output is no longer JSON.
    tail = Truncator({"spill": False, "tools": {"execute_command": {"strategy": "tail"}}})
    with pytest.raises(json.JSONDecodeError):
        json.loads(tail.process(printed, tool="execute_command").content)
    with truncator.stream(tool="execute_command") as s:  # a stream cuts it the same way
        s.write(printed)
        assert s.result().content == result.content


def test_json_lines_a_command_prints_are_its_log_and_keep_its_tail() -> None:
    log = "".join(json.dumps({"level": "info", "msg": f"request {i} ok"}) + "\n"
                  for i in range(2000))
    result = Truncator({"spill": False}).process(log, tool="execute_command")
    assert result.metadata.strategy_used == "adaptive"
    assert result.content.endswith(log[-500:])
    # Without a tool policy, JSON Lines are still cut as records by element.
    assert Truncator({"spill": False}).process(log).metadata.strategy_used == "element"


@pytest.mark.parametrize("content", [
    '"a","b"\n' * 3000 + '"c","d"',       # quoted CSV
    '"a","b",' * 3000 + '"c","d"',         # on one line
    "".join(f"{i}\n" if i % 2 else f"{i} done\n" for i in range(3000)),
], ids=["csv", "csv-line", "numbered"])
def test_quoted_text_is_not_sniffed_as_json(content: str) -> None:
    result = Truncator({"spill": False}).process(content)
    assert result.metadata.strategy_used == "head_tail"
    assert not any("element" in note for note in result.metadata.notes)


def test_a_top_level_string_is_sniffed_and_stays_one_string() -> None:
    content = json.dumps("a long JSON string " * 1000)
    result = Truncator({"spill": False}).process(content)
    assert result.metadata.strategy_used == "element"
    assert json.loads(result.content).startswith("a long JSON string ")


@pytest.mark.parametrize("escape", ["\\\\", '\\"', "\\u00e9", "\\n"],
                         ids=["backslash", "quote", "unicode", "newline"])
def test_a_top_level_string_is_sniffed_wherever_the_edge_cuts_an_escape(escape: str) -> None:
    """The sniff reads the first 256 characters: an escape there may be cut by the edge,
    at any of its characters (an escaped backslash at 242 left one backslash, which escaped
    the closing quote: the string was taken for text)."""
    from truncation_core.structured.sniff import looks_like_json

    missed = []
    for at in range(200, 262):
        content = '"' + "a" * at + escape + "b" * 3000 + '"'
        json.loads(content)
        if not looks_like_json(content):
            missed.append(at)
    assert missed == []


def _written(truncator: Truncator, content: str) -> Any:
    with truncator.stream() as stream:
        for start in range(0, len(content), 65536):
            stream.write(content[start:start + 65536])
    return stream.result()


def test_a_stream_of_one_string_over_stream_threshold_is_cut_as_text_saying_why() -> None:
    """Past ``stream_threshold`` a stream keeps only its ends: one long string is cut as
    text, for the reason ``process`` gives, not after the cut fails reading the middle."""
    content = json.dumps("a long JSON string " * 150_000)  # 2.9 MB
    config = {"spill": False, "stream_threshold": 1_000_000}
    result = _written(Truncator(config), content)
    whole = Truncator(config).process(content)  # control: what process says
    assert whole.metadata.strategy_used == result.metadata.strategy_used == "head_tail"
    assert any("a single string" in note for note in whole.metadata.notes)
    assert result.metadata.notes == whole.metadata.notes
    assert not any("failed" in note for note in result.metadata.notes)


def test_a_stream_of_json_lines_of_long_strings_over_stream_threshold_stays_json_lines() -> None:
    """Strings longer than the sniff (256 characters) a line are JSON Lines, not one long
    string: a stream of them past ``stream_threshold`` is cut by record."""
    content = "".join(json.dumps(f"{i} " + "x" * 400) + "\n" for i in range(4000))  # 1.6 MB
    result = _written(Truncator({"spill": False, "stream_threshold": 1_000_000}), content)
    assert result.metadata.strategy_used == "element"
    records = [json.loads(line) for line in result.content.split("\n")]
    assert records[0].startswith("0 ") and records[-1].startswith("3999 ")


def test_plain_text_is_not_sent_to_element():
    result = Truncator({"spill": False}).process("line\n" * 5000)
    assert result.metadata.strategy_used == "head_tail"


# -- a stream that starts like JSON: what its first 64 KiB prove ----------------------------

def _broken(document: str, at: int, junk: str) -> str:
    return document[:at] + junk + document[at:]


@settings(max_examples=400, deadline=None)
@given(st.one_of(json_documents, hostile_json,
                 st.builds(_broken, json_documents, st.integers(0, 4000),
                           st.sampled_from(["x", ",", "]", "}", '"', "\n", "\n{}", "NaN", " 1"]))),
       st.data())
def test_a_prefix_decides_only_what_the_whole_would_say(text: str, data: Any) -> None:
    parsed = parse(text)
    for cut in sorted(set(data.draw(st.lists(st.integers(0, len(text)), max_size=6)))):
        decided = parse_prefix(text[:cut])
        assert decided is None or decided == parsed, (cut, decided, parsed)


def test_a_log_that_starts_like_json_is_decided_by_its_start() -> None:
    assert parse_prefix("[2024-05-01 12:00:00] INFO started\n" * 10) == parse(
        "[2024-05-01 12:00:00] INFO started\n" * 10 + "anything")
    for undecided in ('{"a": [1, 2', '[1, 2, 3', '{"a": "unterminated', '[1]\n[2]\n'):
        assert parse_prefix(undecided) is None


def _streamed(truncator: Truncator, text: str, step: int) -> tuple[Any, Any]:
    with truncator.stream() as s:
        for i in range(0, len(text), step):
            s.write(text[i:i + step])
        cutter = next(iter(s._cutters.values()))
    return s.result(), cutter


@pytest.mark.parametrize("config", [{}, {"default_strategy": "element"},
                                    {"default_strategy": "element", "stream_threshold": 100_000}])
def test_a_stream_that_starts_like_json_keeps_at_most_64_kib_unless_it_is(
        config: dict[str, Any]) -> None:
    log = "".join(f"[2024-05-01 12:00:{i % 60:02d}] INFO request {i} ok\n" for i in range(8000))
    rows = json.dumps([{"n": i, "tags": ["a", "b"]} for i in range(8000)])
    broken_late = rows[:200_000] + "x" + rows[200_000:]  # broken after the first 64 KiB
    # What is checked is what was kept when 64 KiB were crossed: one chunk of 1 MiB shows
    # the error 200,000 characters in at once.
    for text, kept in ((log, set()), (rows, {4096, 1 << 20}), (broken_late, {4096}),
                       (log[:60_000] + "]", {4096, 1 << 20})):
        truncator = Truncator({"inline_limit": 800, **config}, load_entrypoints=False,
                              store=MemoryStore())
        expected = truncator.process(text)
        for step in (4096, 1 << 20):
            got, cutter = _streamed(truncator, text, step)
            assert got.content.replace(got.artifact.id, "") == \
                expected.content.replace(expected.artifact.id, "")
            assert got.metadata.details == expected.metadata.details
            assert got.metadata.notes == expected.metadata.notes
            large = len(text) > truncator.policy().stream_threshold
            assert ("keeping" in repr(cutter)) == (step in kept and not large), (
                repr(cutter), config, step)


# -- records: every item left out of a top-level array is still named (issue 28) ----------


def _tasks(n: int, indent: int | None = None) -> str:
    return json.dumps([{"id": f"T-{1000 + i}", "title": f"Task number {i}", "status": "open",
                        "kind": "task", "description": "Lorem ipsum dolor sit amet " * 12,
                        "history": [{"at": j, "by": "someone"} for j in range(5)]}
                       for i in range(n)], indent=indent)


@pytest.mark.parametrize("indent", [None, 2], ids=["compact", "indented"])
def test_json_records_keep_every_items_identifying_fields(indent: int | None) -> None:
    text = _tasks(120, indent)
    result = Truncator({"spill": False}).process(text, tool="mcp__tasks__list")
    assert len(result.content) <= 8000
    kept = json.loads(result.content)  # still valid JSON
    ids = {item["id"] for item in kept if isinstance(item, dict) and "id" in item}
    assert ids == {f"T-{1000 + i}" for i in range(120)}  # every item, by its id
    # Found from the data: the unique short fields, not the constant ones nor the long text.
    assert result.metadata.details["records"][0] == "id"
    from truncation_core.structured.records import identifying_fields
    from truncation_core.structured.sniff import parse

    # Found from the data: the unique short fields; not the constant ones ("status",
    # "kind"), nor the long text ("description"), nor the nested ("history").
    assert identifying_fields(parse(text).value) == ["id", "title"]
    # The whole budget is used (the plain fit of this document stopped well short of it).
    assert len(result.content) > 8000 * 0.85


def test_json_records_negative_control_without_stubs_the_middle_items_are_lost() -> None:
    text = _tasks(120)
    result = Truncator({"spill": False, "json_records": False}).process(text, tool="x")
    kept = json.loads(result.content)
    assert len({i["id"] for i in kept if isinstance(i, dict)}) < 20
    assert "records" not in result.metadata.details


# -- records name their lines: any field of an omitted item is one read away (issue 28) ------

_LINES = re.compile(r'"\.\.\."\s*:\s*"lines (\d+)-(\d+)"')


def _stubs_with_lines(content: str) -> list[tuple[str, int, int]]:
    """(id, first line, last line) of each stub that names its lines."""
    kept = json.loads(content)
    return [(item["id"], *map(int, item["..."].removeprefix("lines ").split("-")))
            for item in kept if isinstance(item, dict) and "..." in item]


@pytest.mark.parametrize("count", [60, 300], ids=["a-stub-each", "runs"])
def test_json_records_name_the_lines_of_the_items_left_out(count: int) -> None:
    text = _tasks(count, indent=2)
    truncator = Truncator(load_entrypoints=False, store=MemoryStore())
    result = truncator.process(text, tool="mcp__tasks__list")
    kept = json.loads(result.content)  # still valid JSON
    assert len(result.content) <= 8000
    shown = {item["id"] for item in kept if isinstance(item, dict) and "title" in item}
    stubs = _stubs_with_lines(result.content)
    assert stubs
    ranges = [(first, last) for _, first, last in stubs]
    assert all(last - first + 1 <= 100 for first, last in ranges)
    # Every item left out lies in a named range, and that range of the artifact holds it
    # (read back through the artifact, not from the text handed to the cut).
    artifact = result.metadata.artifact_id
    assert artifact is not None
    for i in range(count):
        task_id = f"T-{1000 + i}"
        if task_id in shown:
            continue
        holding = [(a, b) for a, b in ranges
                   if f'"title": "Task number {i}"' in truncator.artifacts.lines(
                       artifact, a, b).text]
        assert holding, task_id
    if count == 60:  # a stub each: its own lines, and nothing else's
        for task_id, first, last in stubs:
            page = truncator.artifacts.lines(artifact, first, last).text
            assert f'"id": "{task_id}"' in page and page.count('"id"') == 1
    else:  # runs: each stub is a run's first item
        assert "in runs" in kept[[i for i, x in enumerate(kept) if isinstance(x, str)][1]]
        for task_id, first, _last in stubs:
            assert f'"id": "{task_id}"' in truncator.artifacts.lines(artifact, first,
                                                                        first + 1).text


def test_json_records_negative_control_one_line_json_names_no_lines() -> None:
    # On one line, a line number says nothing: the stubs are the identifying fields only.
    text = _tasks(60)
    result = Truncator(load_entrypoints=False, store=MemoryStore()).process(
        text, tool="mcp__tasks__list")
    assert result.metadata.details["records"][0] == "id"
    assert not _LINES.search(result.content)


def test_item_lines_refuses_a_layout_that_does_not_match_the_parse() -> None:
    from truncation_core.structured.records import item_lines

    text = _tasks(5, indent=2)
    spans = item_lines(text, "  ", 5)
    assert spans is not None and len(spans) == 5
    lines = text.split("\n")
    for i, (first, last) in enumerate(spans):
        assert json.loads("\n".join(lines[first - 1:last]).rstrip(","))["id"] == f"T-{1000 + i}"
    assert item_lines(text, "  ", 4) is None  # an item count that differs names nothing
    assert item_lines(text.replace("\n  },\n  {", "\n  }, {"), "  ", 5) is None
    assert item_lines(_tasks(5), None, 5) is None


def test_item_lines_refuses_a_layout_whose_extra_and_missing_item_starts_cancel_out() -> None:
    """A value of an item at the unit's indent (an extra start) and a ``}, {`` further on (a
    missing one) give the parsed count: every stub after the first named the wrong lines
    (54 of 54 in an array of 80). An item is an object, and ends with its ``}``."""
    from truncation_core.structured.records import item_lines

    text = _tasks(80, indent=2)
    text = text.replace('"history": [\n      {', '"history": [\n  {', 1)  # extra
    join = text.rfind("\n  },\n  {")
    text = text[:join] + "\n  }, {" + text[join + len("\n  },\n  {"):]  # missing
    assert len(json.loads(text)) == 80
    assert item_lines(text, "  ", 80) is None
    truncator = Truncator(load_entrypoints=False, store=MemoryStore())
    result = truncator.process(text, tool="mcp__tasks__list")
    artifact = result.metadata.artifact_id
    assert artifact is not None
    for task_id, first, last in _stubs_with_lines(result.content):
        assert f'"id": "{task_id}"' in truncator.artifacts.lines(artifact, first, last).text


def test_json_records_of_an_array_too_long_for_its_stubs_are_not_looked_for(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An array whose items could not all fit even as ``{}`` stubs is cut plainly, without
    finding its fields or building its stubs (6,500 records under 8,000 characters took 30x
    the plain cut, all thrown away); the control, an array short enough, still gets them."""
    from truncation_core.structured import records

    looked: list[int] = []
    found = records.identifying_fields

    def counted(items: list[Any]) -> list[str]:
        looked.append(len(items))
        return found(items)

    monkeypatch.setattr(records, "identifying_fields", counted)
    long = json.dumps([{"id": i, "name": f"n{i}"} for i in range(3000)])
    plain = Truncator({"spill": False, "json_records": False}).process(long, tool="x")
    result = Truncator({"spill": False}).process(long, tool="x")
    assert looked == [] and result.content == plain.content
    assert "records" not in result.metadata.details
    short = Truncator({"spill": False}).process(_tasks(120), tool="x")  # control
    assert looked == [120] and short.metadata.details["records"][0] == "id"


def test_json_record_stubs_are_written_only_as_far_as_they_fit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """6,500 records printed one a few lines apart may be stubbed in runs, so their fields
    are looked for; each try at a stub per item then stops once its stubs pass the budget,
    instead of writing all 6,500 (202,435 stubs for one cut before, 1.4 s against 0.09 s
    now)."""
    from truncation_core.structured import records

    written: list[int] = []
    stub = records._stub

    def counted(*args: Any) -> str:
        written.append(1)
        return stub(*args)

    monkeypatch.setattr(records, "_stub", counted)
    text = json.dumps([{"id": f"r{i}", "name": f"name {i}", "body": "x" * 60}
                       for i in range(6500)], indent=2)
    # Kept as an artifact: the stubs name its lines, and can be grouped in runs.
    result = Truncator(load_entrypoints=False, store=MemoryStore()).process(text, tool="x")
    json.loads(result.content)
    assert len(result.content) <= 8000
    assert 0 < len(written) < 8000  # no try writes more stubs than fit in the budget


def test_record_stubs_name_lines_only_when_an_artifact_holds_them() -> None:
    """A stub's ``"...": "lines N-M"`` names lines of the artifact: with nothing kept (spill
    off) there are none to read, and the stubs name none. The control keeps an artifact."""
    text = json.dumps([{"id": i, "name": f"item {i}", "body": "x" * 1000} for i in range(40)],
                      indent=2)
    kept = Truncator(load_entrypoints=False, store=MemoryStore()).process(text, tool="x")
    assert kept.metadata.artifact_id and '"...": "lines ' in kept.content
    bare = Truncator({"spill": False}, load_entrypoints=False).process(text, tool="x")
    assert bare.metadata.artifact_id is None
    assert re.search(r'\{"id": \d+,"name": "item \d+"\}', bare.content)  # the stubs
    assert '"lines ' not in bare.content


@pytest.mark.parametrize("text", ['{"a": [1, 2.5, "x"]}', "\ufeff[1]", "[1, NaN]", "1" * 5000,
                                  '{"a": 1} x', "", "[1,", '"\\ud800"'])
def test_the_shared_decoder_answers_as_json_loads(text: str) -> None:
    """The sniff keeps one decoder (json.loads with arguments makes one per call): same
    values, same errors, the BOM and the integer over the digit limit included."""
    from truncation_core.structured import sniff

    def loads(text: str) -> object:
        try:
            return json.loads(text, **sniff._LOADS)
        except ValueError as exc:
            if isinstance(exc, (json.JSONDecodeError, sniff._NotStrict)):
                raise
            return json.loads(text, parse_int=sniff.RawNumber, **sniff._LOADS)

    def outcome(load: Any) -> object:
        try:
            return repr(load(text))
        except ValueError as exc:
            return type(exc), str(exc)

    assert outcome(sniff._loads) == outcome(loads)
