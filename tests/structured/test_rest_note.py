"""A structured cut that spilled says how to read the rest, in the format's own terms (a
member or item in JSON, a record in JSON Lines, a comment in XML), within the budget."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from truncation_core import Truncator

ID = re.compile(r"art_\d+_[0-9a-f]{32}")


def make(**config: Any) -> Truncator:
    return Truncator({"store": {"backend": "memory"}, **config}, load_entrypoints=False)


def _follow(t: Truncator, note: str) -> str:
    """Call the hint the note gives, as a model would."""
    match = re.search(r'(\w+)\(artifact_id="(art_[^"]+)", start_line=(\d+), end_line=(\d+)\)',
                      note)
    assert match, note
    name, artifact_id, start, end = match.groups()
    result = t.call_tool(name, {"artifact_id": artifact_id, "start_line": int(start),
                                "end_line": int(end)})
    assert result.error is None, result.content
    return result.content


DOC = {"query": "x", "results": [{"id": i, "text": "y" * 50} for i in range(400)]}


@pytest.mark.parametrize("indent", [None, 1, 2, "\t"])
def test_json_object_gets_a_member(indent: Any) -> None:
    t = make()
    text = json.dumps(DOC, indent=indent)
    result = t.process(text, tool="search")
    assert len(result.content) <= 8000
    out = json.loads(result.content)
    note = out["[truncated]"]
    assert result.artifact is not None and result.artifact.id in note
    assert list(out)[-1] == "[truncated]"
    assert '"id": 0' in _follow(t, note) or '"id":0' in _follow(t, note)
    # the note is the only place the id appears: without it, no way to the rest
    del out["[truncated]"]
    assert not ID.search(json.dumps(out))


def test_json_array_jsonl_and_xml() -> None:
    t = make(inline_limit=3000)
    array = t.process(json.dumps(DOC["results"]), tool="search")
    items = json.loads(array.content)
    assert isinstance(items[-1], str) and "get_artifact(" in items[-1]
    assert len(array.content) <= 3000
    lines = "".join(json.dumps(r) + "\n" for r in DOC["results"])
    jsonl = t.process(lines, tool="search")
    records = [json.loads(line) for line in jsonl.content.splitlines()]
    assert isinstance(records[-1], str) and "get_artifact(" in records[-1]
    xml = "<root>" + "".join(f"<item n='{i}'>{'z' * 40}</item>" for i in range(300)) + "</root>"
    cut = t.process(xml, tool="feed")
    ET.fromstring(cut.content)  # still well-formed
    comment = cut.content.rsplit("<!--", 1)[1]
    assert cut.content.rstrip().endswith("-->") and "get_artifact(" in comment
    assert "<item n='0'>" in _follow(t, comment)


def test_ranked_and_tool_names() -> None:
    t = make(inline_limit=3000, artifact_tools={"prefix": "x_"},
             tools={"search_code": {"strategy": "ranked"}})
    response = {"results": [{"score": 1 - i / 100, "text": "w" * 80} for i in range(100)]}
    result = t.process(json.dumps(response), tool="search_code")
    out = json.loads(result.content)
    assert result.metadata.strategy_used == "ranked"
    assert "x_get_artifact(" in out["[truncated]"] and "x_artifact_grep" in out["[truncated]"]
    info = result.metadata.details["truncation_info"]
    assert info["estimated_chars"] == len(result.content) and info["limit_chars"] == 3000


def test_no_note_without_an_artifact_and_the_reference_in_its_place_over_the_threshold(
        ) -> None:
    text = json.dumps(DOC, indent=1)
    assert "[truncated]" not in json.loads(make(spill=False).process(text).content)
    big = json.dumps({"results": [{"id": i, "text": "y" * 90} for i in range(1000)]})
    referenced = make().process(big)  # over artifact_threshold: the reference says it
    out = json.loads(referenced.content)  # inside the document, which stays valid alone
    assert out["[truncated]"].startswith(f"[Artifact: {referenced.artifact.id}] ")  # type: ignore[union-attr]
    assert "Omitted parts are kept" not in referenced.content  # not the rest note as well


def test_a_byte_budget_just_over_the_note_still_gets_valid_json() -> None:
    """The room the note leaves is checked in every unit: a byte budget a little over what
    the note costs once left the cut almost no bytes, and valid JSON fell back to a text cut
    that was empty or ``[…]``."""
    text = json.dumps([{"k": i, "v": "x" * 50} for i in range(500)], indent=1)
    noted = 0
    for max_bytes in range(200, 800, 4):
        result = make(max_bytes=max_bytes).process(text)
        assert result.metadata.strategy_used == "element", max_bytes
        assert len(result.content.encode("utf-8")) <= max_bytes
        noted += any(
            isinstance(item, str) and "get_artifact(" in item
            for item in json.loads(result.content))
    assert noted  # the budgets with room for both still get the note


@settings(max_examples=60, deadline=None)
@given(doc=st.recursive(st.one_of(st.integers(), st.text(max_size=30), st.none()),
                        lambda inner: st.one_of(st.lists(inner, max_size=30),
                                                st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=30)),
                        max_leaves=400),
       limit=st.integers(300, 3000), indent=st.sampled_from([None, 1, 4]),
       max_bytes=st.one_of(st.none(), st.integers(300, 4000)))
def test_output_stays_valid_and_within_the_budget(doc: Any, limit: int, indent: Any,
                                                  max_bytes: int | None) -> None:
    t = make(inline_limit=limit, max_bytes=max_bytes, default_strategy="element")
    text = json.dumps(doc, indent=indent, ensure_ascii=False)
    result = t.process(text)
    assert len(result.content) <= limit
    if max_bytes is not None:
        assert len(result.content.encode("utf-8", "surrogatepass")) <= max_bytes
    if result.metadata.was_truncated and result.metadata.details.get("format") == "json":
        json.loads(result.content)


@pytest.mark.parametrize("tool", ["search_files", "list_directory"])
def test_text_that_cannot_be_structured_keeps_no_room_for_a_note(tool: str) -> None:
    # Search hits and listings that are no JSON or XML are cut as text, whose markers carry
    # their own hints: the rest note is never added, so its room goes to the text (it went
    # unused: about 250 characters of every such cut).
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    hits = "".join(f"{path.relative_to(root)}:{n}:{line}\n"
                   for path in sorted(root.glob("test_*.py"))[:10]
                   for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                   if "assert" in line)
    assert 8000 < len(hits) < 50_000
    result = make().process(hits, tool=tool)
    assert result.artifact is not None and result.metadata.was_truncated
    assert "Omitted parts are kept" not in result.content
    assert 7900 <= len(result.content) <= 8000, len(result.content)
