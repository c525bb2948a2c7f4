"""Over ``artifact_threshold``, a JSON, JSON Lines or XML result carries its artifact
reference inside the document, so that it still parses alone.

A program, an output schema or a host reads these results, not only a model: the reference
line that stands above a cut text would make them invalid. So the reference takes the place
of the note on the rest (:mod:`truncation_core.structured.rest`): an array's last item, an
object's last member (``marker.rest_key``), one more JSON Lines record, a comment after the
XML root element. The document keeps its type; the reference is the ``reference`` marker,
restyled as projects restyle it. Text keeps the reference above it.
"""

from __future__ import annotations

import asyncio
import json
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from truncation_core import Truncator
from truncation_core.tokens import EstimateTokenizer

ARRAY = json.dumps([{"id": i, "name": f"file{i}.txt"} for i in range(5000)])
OBJECT = json.dumps({f"k{i}": {"v": i, "s": "x" * 20} for i in range(5000)}, indent=2)
JSONL = "".join(json.dumps({"i": i, "msg": "hello world"}) + "\n" for i in range(5000))
XML = ("<?xml version='1.0'?>\n<root>"
       + "".join(f"<item id='{i}'>text {i}</item>\n" for i in range(5000)) + "</root>\n")
LOG = "".join(f"2024-05-01 12:00:{i % 60:02d} worker {i} processed\n" for i in range(5000))


def make(**settings: Any) -> Truncator:
    return Truncator({"store": {"backend": "memory"}, **settings}, load_entrypoints=False)


def reference_of(content: str, kind: str) -> str:
    """The reference inside *content*, which must parse as *kind*, keeping its type."""
    if kind == "array":
        value = json.loads(content)
        assert isinstance(value, list) and isinstance(value[0], dict)
        return str(value[-1])
    if kind == "object":
        value = json.loads(content)
        assert isinstance(value, dict) and "k0" in value
        return str(value["[truncated]"])
    if kind == "jsonl":
        records = [json.loads(line) for line in content.splitlines()]
        assert isinstance(records[0], dict)
        return str(records[-1])
    root = ET.fromstring(content)
    assert root.tag == "root" and root[0].tag == "item"
    comment = content.rsplit("<!--", 1)[1]
    return comment.split("-->")[0].strip()


CASES = [(ARRAY, "array"), (OBJECT, "object"), (JSONL, "jsonl"), (XML, "xml")]


@pytest.mark.parametrize(("text", "kind"), CASES)
def test_process_keeps_the_document_valid_with_the_reference_inside(text: str, kind: str
                                                                     ) -> None:
    truncator = make()
    assert len(text) > truncator.policy().artifact_threshold
    result = truncator.process(text, tool="search")
    assert result.was_truncated and result.artifact is not None
    assert len(result.content) <= truncator.policy().inline_limit
    reference = reference_of(result.content, kind)
    assert reference.startswith(f"[Artifact: {result.artifact.id}] search ")
    assert "artifact_grep" in reference and "get_artifact" in reference
    assert not result.content.startswith("[Artifact:")
    assert result.metadata.artifact_id == result.artifact.id


@pytest.mark.parametrize(("text", "kind"), CASES)
def test_a_stream_gives_the_same_valid_document(text: str, kind: str) -> None:
    truncator = make()
    expected = truncator.process(text, tool="search").content
    with truncator.stream(tool="search") as stream:
        for start in range(0, len(text), 4096):
            stream.write(text[start:start + 4096])
    result = stream.result()
    assert result.artifact is not None
    assert result.content == expected.replace(
        reference_of(expected, kind).split("]")[0], f"[Artifact: {result.artifact.id}")
    reference_of(result.content, kind)


@pytest.mark.parametrize(("text", "kind"), CASES)
def test_a_short_preview_and_a_token_budget_keep_it_valid(text: str, kind: str) -> None:
    short = make(reference_preview="short").process(text, tool="search")
    assert reference_of(short.content, kind).startswith("[Artifact: ")
    assert len(short.content) < 2000 + 400  # the preview, and the reference in it
    tokens = make(max_tokens=1000).process(text, tool="search")
    assert reference_of(tokens.content, kind).startswith("[Artifact: ")
    assert EstimateTokenizer().count(tokens.content) <= 1000


def test_a_tool_returning_a_large_list_still_returns_json() -> None:
    truncator = make()

    @truncator.tool
    def listing() -> list[dict[str, Any]]:
        return [{"id": i, "name": f"file{i}.txt"} for i in range(100_000)]

    @truncator.tool
    async def alisting() -> dict[str, Any]:
        return {"files": [f"file{i}.txt" for i in range(100_000)]}

    items = json.loads(listing())
    assert isinstance(items, list) and items[0] == {"id": 0, "name": "file0.txt"}
    assert items[-1].startswith("[Artifact: art_")
    document = json.loads(asyncio.run(alisting()))
    assert isinstance(document, dict) and document["files"][0] == "file0.txt"
    assert document["[truncated]"].startswith("[Artifact: art_")


def test_the_reference_inside_is_restyled_by_the_project_s_template() -> None:
    truncator = make(marker={"reference": "see {artifact_id} ({lines:,} lines)\n",
                             "rest_key": "_more"})
    result = truncator.process(OBJECT, tool="search")
    assert result.artifact is not None
    assert json.loads(result.content)["_more"] == (
        f"see {result.artifact.id} ({result.artifact.lines:,} lines)")


def test_text_and_json_cut_as_text_keep_the_reference_above() -> None:
    """Negative control: what is not cut as a document gets the reference line above it."""
    assert make().process(LOG).content.startswith("[Artifact: ")
    as_text = make(tools={"search": {"strategy": "head_tail"}}).process(ARRAY, tool="search")
    assert as_text.content.startswith("[Artifact: ")
    with pytest.raises(ValueError):
        json.loads(as_text.content)


# -- documents the sniff used to miss: one long string, JSON Lines of scalars --------------

STRING = json.dumps("a" * 1_000_000)
NUMBERS = "".join(f"{i}\n" for i in range(50_000))
STRINGS = "".join(json.dumps(f"line {i}") + "\n" for i in range(50_000))
MIXED = "".join(json.dumps(f"line {i}") + "\n" if i % 3 else f"{i}\n" for i in range(50_000))
SCALAR_CASES = [(STRING, "search", "string"), (STRINGS, "search", "scalars"),
                (MIXED, "search", "scalars")]


def reference_in(content: str, kind: str) -> str:
    """The reference inside *content*, which parses as *kind*: the end of a string, or the
    last of JSON Lines of scalars; the others as :func:`reference_of`."""
    if kind == "string":
        value = json.loads(content)
        assert isinstance(value, str) and value.startswith("aaaa")
        return value[value.index("[Artifact: "):]
    if kind == "scalars":
        records = [json.loads(line) for line in content.splitlines()]
        assert records[0] in (0, "line 0") and records[1] == "line 1"
        return str(records[-1])
    return reference_of(content, kind)


@pytest.mark.parametrize(("text", "tool", "kind"), SCALAR_CASES)
def test_a_long_string_and_scalar_lines_stay_valid(text: str, tool: str,
                                                                  kind: str) -> None:
    truncator = make()
    result = truncator.process(text, tool=tool)
    assert result.artifact is not None
    assert result.metadata.strategy_used == "element"
    assert len(result.content) <= truncator.policy(tool).inline_limit
    reference = reference_in(result.content, kind)
    assert reference.startswith(f"[Artifact: {result.artifact.id}] {tool} ")
    assert "get_artifact" in reference


@pytest.mark.parametrize(("text", "tool", "kind"), SCALAR_CASES)
def test_a_stream_of_them_stays_valid_too(text: str, tool: str, kind: str) -> None:
    truncator = make()
    with truncator.stream(tool=tool) as stream:
        for start in range(0, len(text), 4096):
            stream.write(text[start:start + 4096])
    result = stream.result()
    assert result.artifact is not None
    assert len(result.content) <= truncator.policy(tool).inline_limit
    assert reference_in(result.content, kind).startswith(f"[Artifact: {result.artifact.id}] ")


def test_a_file_view_of_a_json_document_keeps_its_lines() -> None:
    """The exception, by design: a file that ``read_file`` reads is shown as its lines (the
    model edits them next, and needs them as they are), with the outline of what is left
    out and the reference above, not re-rendered as a JSON document with notes inside."""
    result = make().process(OBJECT, tool="read_file")
    assert result.metadata.strategy_used == "outline"
    assert result.content.startswith("[Artifact: ")
    shown = result.content.split("\n", 1)[1]
    assert shown.startswith("\n".join(OBJECT.splitlines()[:20]))


def test_logs_quoted_csv_and_numbers_are_no_json_lines_of_scalars() -> None:
    """Negative control: a log of timestamps, quoted CSV and lines of numbers alone (the
    output of `seq`: text as much as JSON) start as scalars do, and stay text, with the
    reference above."""
    numbers = make().process(NUMBERS)
    assert numbers.metadata.strategy_used == "head_tail"
    assert numbers.content.startswith("[Artifact: ")
    stamps = "".join(f"2024-05-01 12:00:{i % 60:02d} worker {i} processed 5\n"
                     for i in range(5000))
    assert make().process(stamps, tool="read_file").metadata.strategy_used == "outline"
    assert make().process(stamps).content.startswith("[Artifact: ")
    quoted_csv = "".join(f'"{i}","name {i}","x"\n' for i in range(5000))
    assert make().process(quoted_csv).metadata.strategy_used == "head_tail"
