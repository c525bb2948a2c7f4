"""The proxy in front of the official filesystem server, driven by the official mcp client."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp_testing import (
    SESSION,
    RawWire,
    host,
    numbered_lines,
    proxy_argv,
    store_of,
    write_config,
)

pytestmark = pytest.mark.anyio

ARTIFACT_TOOLS = ["get_artifact", "artifact_head", "artifact_tail", "artifact_grep"]
HINT = re.compile(r'get_artifact\(artifact_id="(art_[0-9]+_[0-9a-f]+)", start_line=(\d+), '
                  r'end_line=(\d+)\)')


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "files"
    root.mkdir()
    # 2 MB of lines, some of them not ASCII, so that characters and bytes differ.
    lines = [f"{i:06d} {'état ' if i % 7 == 0 else 'state'} {'x' * (i % 50)} é€😀\n"
             for i in range(42_000)]
    (root / "big.txt").write_text("".join(lines), encoding="utf-8")
    assert (root / "big.txt").stat().st_size > 2_000_000
    (root / "small.txt").write_text("just a few words\nand a second line\n", encoding="utf-8")
    return root


async def _follow(client: Any, artifact_id: str, start: int, end: int) -> list[tuple[int, str]]:
    """Every line from *start* to *end*, through get_artifact and the pages it suggests."""
    rows: list[tuple[int, str]] = []
    arguments: dict[str, Any] | None = {"artifact_id": artifact_id, "start_line": start,
                                        "end_line": end}
    while arguments is not None:
        page = (await client.call_tool("get_artifact", arguments)).content[0].text
        rows.extend(numbered_lines(page))
        follow = re.search(r"\[Next page: get_artifact\((.*)\)\]$", page)
        arguments = None
        if follow:
            arguments = {k: json.loads(v) for k, v in
                         re.findall(r'(\w+)=("[^"]*"|\d+)', follow.group(1))}
    return rows


async def test_a_2mb_file_is_cut_and_the_omitted_lines_come_back_byte_identical(
        trunc_exe: str, filesystem_server: str, workspace: Path, root: Path) -> None:
    original = (root / "big.txt").read_bytes()
    lines = original.decode("utf-8").splitlines(keepends=True)
    write_config(workspace, {"tools": {"get_artifact": {"inline_limit": 400_000}}})
    argv = proxy_argv(trunc_exe, workspace / ".truncation.yaml", [filesystem_server, str(root)])
    async with host(argv) as client:
        listed = {t.name: t for t in (await client.list_tools()).tools}
        result = await client.call_tool("read_text_file", {"path": str(root / "big.txt")})
        assert not result.is_error
        text = result.content[0].text
        assert len(text) <= 8000  # the default inline limit
        artifact_id = HINT.search(text).group(1)  # type: ignore[union-attr]
        # The marker between head and tail gives the omitted lines, which come back
        # exactly.
        omitted = [m for m in HINT.finditer(text) if m.group(2) != "1"]
        assert len(omitted) == 1
        start, end = int(omitted[0].group(2)), int(omitted[0].group(3))
        assert end - start > 20_000
        rows = await _follow(client, artifact_id, start, end)
        assert [n for n, _ in rows] == list(range(start, end + 1))
        back = "".join(t + "\n" for _, t in rows).encode("utf-8")
        assert back == "".join(lines[start - 1:end]).encode("utf-8")
        # What the model sees is the file's head and tail, verbatim, around the marker,
        # under the one-line reference.
        assert text.startswith(f"[Artifact: {artifact_id}] read_text_file: ")
        view = text.split("\n", 1)[1]
        head, tail = view.split(omitted[0].group(0), 1)
        kept_head = head.rsplit("\n... [", 1)[0]
        assert original.decode().startswith(kept_head)
        assert original.decode().endswith(tail.split("] ...\n", 1)[1])
        # The structured content holds the same cut, not the file a second time, and it
        # still validates against the server's own output schema.
        structured = result.structured_content
        assert structured == {"content": text}
        schema = listed["read_text_file"].output_schema
        jsonschema.validate(structured, schema["anyOf"][0])
        jsonschema.validate(structured, schema)
        meta = result.meta["truncation-core/truncated"]
        assert meta[0]["artifact_id"] == artifact_id and meta[0]["original_chars"] == \
            len(original.decode())
    # The artifact is the file, byte for byte, with the call's server, tool and id.
    truncator = store_of(workspace)
    ref = truncator.store.stat(artifact_id)
    assert ref.sha256 == hashlib.sha256(original).hexdigest()
    assert (ref.tool, ref.server) == ("read_text_file", "secure-filesystem-server")
    # The call's handle: its connection, and its JSON-RPC id (see test_handles.py).
    assert ref.tool_call_id is not None
    assert re.fullmatch(r"[0-9a-f]{12}:[0-9]+", ref.tool_call_id)
    assert ref.session == SESSION
    assert len(truncator.store.list()) == 1  # stored once, not once per copy in the result


async def test_tools_list_is_the_servers_plus_the_artifact_tools(
        trunc_exe: str, filesystem_server: str, workspace: Path, root: Path) -> None:
    async with host([filesystem_server, str(root)]) as direct:
        own = (await direct.list_tools()).tools
    argv = proxy_argv(trunc_exe, workspace / ".truncation.yaml", [filesystem_server, str(root)])
    async with host(argv) as client:
        tools = (await client.list_tools()).tools
    assert [t.name for t in tools] == [t.name for t in own] + ARTIFACT_TOOLS
    for mine, theirs in zip(tools, own, strict=False):
        assert mine.input_schema == theirs.input_schema
        assert mine.description == theirs.description
        # The output schema admits the reference object besides the server's own.
        assert mine.output_schema["anyOf"][0] == {
            k: v for k, v in theirs.output_schema.items() if k != "$schema"}


async def test_results_under_the_limit_and_errors_pass_byte_identical(
        trunc_exe: str, filesystem_server: str, workspace: Path, root: Path,
        raw_wire: Any) -> None:
    """The same requests, to the server directly and through the proxy: the answers are the
    same bytes, errors included."""
    direct: RawWire = raw_wire([filesystem_server, str(root)])
    proxied: RawWire = raw_wire(proxy_argv(trunc_exe, workspace / ".truncation.yaml",
                                           [filesystem_server, str(root)]))
    calls = [("read_text_file", {"path": str(root / "small.txt")}),
             ("list_allowed_directories", {}),
             ("list_directory", {"path": str(root)}),
             ("read_text_file", {"path": str(root / "missing.txt")}),
             ("read_text_file", {"path": "/etc/passwd"}),
             ("no_such_tool", {})]
    direct.initialize()
    proxied.initialize()
    for i, (name, arguments) in enumerate(calls, start=1):
        request = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                   "params": {"name": name, "arguments": arguments}}
        expected, got = direct.answer(request), proxied.answer(request)
        assert got == expected, name
        if "missing" in json.dumps(arguments) or name == "no_such_tool":
            assert json.loads(got)["result"]["isError"] is True
    ping = {"jsonrpc": "2.0", "id": 99, "method": "ping"}
    assert proxied.answer(ping) == direct.answer(ping)


async def test_a_long_error_keeps_its_tail(
        trunc_exe: str, filesystem_server: str, workspace: Path, root: Path) -> None:
    """An error result is cut too, keeping its end: here the server's own error for a file
    name too long to be real."""
    write_config(workspace, {"inline_limit": 300})
    argv = proxy_argv(trunc_exe, workspace / ".truncation.yaml", [filesystem_server, str(root)])
    name = "n" * 2000
    async with host(argv) as client:
        result = await client.call_tool("read_text_file", {"path": str(root / name)})
    assert result.is_error
    text = result.content[0].text
    assert len(text) <= 300
    assert text.startswith("... [Beginning omitted: ")  # tail, not head_tail
    assert result.meta["truncation-core/truncated"][0]["strategy"] == "tail"
