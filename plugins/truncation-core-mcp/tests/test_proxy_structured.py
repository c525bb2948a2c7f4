"""Structured content and output schemas, errors, and name clashes, through the proxy in front
of a downstream server written with the SDK's MCPServer (tests/servers/python_server.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp_testing import host, numbered_lines, proxy_argv, python_server, store_of, write_config

pytestmark = pytest.mark.anyio


def _argv(trunc: str, work: Path, *server_args: str) -> list[str]:
    return proxy_argv(trunc, work / ".truncation.yaml", python_server(*server_args))


async def _schemas(client: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(tool -> the schema the proxy shows, tool -> the server's own schema)."""
    shown = {t.name: t.output_schema for t in (await client.list_tools()).tools}
    own = {name: {**{k: v for k, v in schema.items() if k in ("$schema", "$defs")},
                  **schema["anyOf"][0]}
           for name, schema in shown.items() if schema}
    return shown, own


def _stored_json(work: Path, artifact_id: str) -> Any:
    return json.loads(store_of(work).artifacts.text(artifact_id))


async def test_structured_records_are_cut_valid_against_the_output_schema(
        trunc_exe: str, workspace: Path) -> None:
    async with host(_argv(trunc_exe, workspace)) as client:
        shown, own = await _schemas(client)
        # 400 records: about 46 kB of JSON, under the artifact threshold, so the text block
        # is cut as JSON too (above it, it would be a reference and a preview).
        result = await client.call_tool("records", {"count": 400})
    structured = result.structured_content
    # Cut, still valid against the server's own schema: the first and last records, whole.
    jsonschema.validate(structured, own["records"])
    jsonschema.validate(structured, shown["records"])
    assert structured["total"] == 400
    ids = [r["id"] for r in structured["records"]]
    assert ids[0] == 0 and ids[-1] == 399 and len(ids) < 400
    assert len(json.dumps(structured)) <= 8000
    # The text block (the server's JSON of the same data) is cut as JSON, and says where the
    # whole is kept (its own note, or a block after it).
    assert not result.is_error
    cut = json.loads(result.content[0].text)
    assert cut["records"][0]["id"] == 0
    texts = "\n".join(block.text for block in result.content)
    # (in the JSON note, the quotes are escaped)
    artifact_id = re.search(r'get_artifact\(artifact_id=\\?"(art_\w+)', texts).group(1)  # type: ignore[union-attr]
    whole = _stored_json(workspace, artifact_id)
    assert len(whole["records"]) == 400 and whole["records"][234]["name"] == "record 234"
    meta = result.meta["truncation-core/truncated"]
    assert {entry["part"] for entry in meta} == {"content[0]", "structuredContent"}


async def test_a_long_string_field_is_shortened_and_stays_valid(
        trunc_exe: str, workspace: Path) -> None:
    async with host(_argv(trunc_exe, workspace)) as client:
        _shown, own = await _schemas(client)
        result = await client.call_tool("report", {"size": 1000})
    structured = result.structured_content
    jsonschema.validate(structured, own["report"])
    assert structured["title"] == "report"
    assert structured["body"].startswith("paragraph 0: lorem ipsum")
    assert "chars omitted" in structured["body"]
    # One artifact for the call: the structured content is the text block's cut, parsed.
    assert len(store_of(workspace).store.list()) == 1


async def test_text_duplicated_into_structured_content_goes_to_the_model_once(
        trunc_exe: str, workspace: Path) -> None:
    """MCPServer returns a str both as text and as {"result": text}: both show the same cut,
    and only one artifact holds the full text."""
    async with host(_argv(trunc_exe, workspace)) as client:
        _shown, own = await _schemas(client)
        result = await client.call_tool("big_text", {"lines": 20_000})
    text = result.content[0].text
    assert len(text) <= 8000 and "get_artifact(" in text
    assert result.structured_content == {"result": text}
    jsonschema.validate(result.structured_content, own["big_text"])
    [ref] = store_of(workspace).store.list()
    assert ref.lines == 20_000


async def test_a_cut_the_schema_rejects_becomes_the_reference_object(
        trunc_exe: str, workspace: Path) -> None:
    """strict_rows' schema wants integers in every array; with an inline limit too small
    for any of them, no cut validates, and the structured content is the reference object,
    which the proxy's schema for the tool admits."""
    write_config(workspace, {"tools": {"strict_rows": {"inline_limit": 40}}})
    async with host(_argv(trunc_exe, workspace)) as client:
        shown, own = await _schemas(client)
        small = await client.call_tool("strict_rows", {"count": 2000})
    reference = small.structured_content["_truncated"]
    jsonschema.validate(small.structured_content, shown["strict_rows"])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(small.structured_content, own["strict_rows"])
    assert reference["original_chars"] > 2000
    assert "get_artifact(" in reference["note"]
    assert _stored_json(workspace, reference["artifact_id"]) == {"rows": list(range(2000))}


async def test_without_its_notes_an_array_cut_validates(trunc_exe: str, workspace: Path) -> None:
    async with host(_argv(trunc_exe, workspace)) as client:
        _shown, own = await _schemas(client)
        result = await client.call_tool("strict_rows", {"count": 5000})
    rows = result.structured_content["rows"]
    jsonschema.validate(result.structured_content, own["strict_rows"])
    assert rows[0] == 0 and rows[-1] == 4999 and all(isinstance(r, int) for r in rows)
    entry = next(e for e in result.meta["truncation-core/truncated"]
             if e["part"] == "structuredContent")
    assert entry["notes_removed"] is True


async def test_an_error_keeps_its_tail_and_its_error_lines(
        trunc_exe: str, workspace: Path) -> None:
    async with host(_argv(trunc_exe, workspace)) as client:
        result = await client.call_tool("failing", {"lines": 3000})
    assert result.is_error
    text = result.content[0].text
    assert len(text) <= 8000
    assert text.rstrip().endswith("fatal: giving up after 3 attempts")
    # The error line from the middle is lifted into the highlights.
    assert "ERROR: disk quota exceeded while writing /data/out.bin" in text
    assert "step 0: ok" not in text  # the head is what goes


async def test_artifact_tools_get_a_prefix_when_the_server_has_a_tool_of_that_name(
        trunc_exe: str, workspace: Path) -> None:
    async with host(_argv(trunc_exe, workspace, "--clash")) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        assert names.count("get_artifact") == 1  # the server's own
        assert names[-4:] == ["trunc_get_artifact", "trunc_artifact_head", "trunc_artifact_tail",
                              "trunc_artifact_grep"]
        assert len(names) == len(set(names))
        result = await client.call_tool("big_text", {"lines": 20_000})
        text = result.content[0].text
        hint = re.search(r'trunc_get_artifact\(artifact_id="(art_\w+)", start_line=(\d+), '
                         r'end_line=(\d+)\)', text)
        assert hint is not None and "search it with trunc_artifact_grep, read lines with " \
            "trunc_get_artifact or trunc_artifact_tail" in text
        assert not re.search(r"(?<!trunc_)get_artifact\(", text)
        page = await client.call_tool("trunc_get_artifact", {
            "artifact_id": hint.group(1), "start_line": int(hint.group(2)),
            "end_line": int(hint.group(2)) + 2})
        assert [n for n, _ in numbered_lines(page.content[0].text)] == \
            [int(hint.group(2)) + i for i in range(3)]
        assert "trunc_get_artifact(" in page.content[0].text.splitlines()[-1]
        theirs = await client.call_tool("get_artifact", {"artifact_id": "x"})
        assert theirs.content[0].text == "downstream get_artifact called with x"


async def test_an_artifact_tool_called_before_any_listing_still_avoids_the_clash(
        trunc_exe: str, workspace: Path, raw_wire: Any) -> None:
    wire = raw_wire(_argv(trunc_exe, workspace, "--clash"))
    wire.initialize()
    answer = json.loads(wire.answer({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "get_artifact", "arguments": {"artifact_id": "y"}}}))
    assert answer["result"]["content"][0]["text"] == "downstream get_artifact called with y"
    answer = json.loads(wire.answer({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "trunc_get_artifact", "arguments": {"artifact_id": "art_y"}}}))
    assert answer["result"]["isError"] is True
    assert "artifact_id" in answer["result"]["content"][0]["text"]  # our tool's own 400
