"""MCP server authors: TruncationMiddleware on a real MCPServer, called by the SDK's own
Client in process (no network)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from adapter_conversation import BIG_OUTPUT, Reader

from truncation_core import Truncator

pytest.importorskip("mcp", reason="mcp is installed by `make test`; without it this adapter "
                    "cannot be tested")

from mcp import Client
from mcp.server import MCPServer
from truncation_core_adapters.mcp import (
    META_ARTIFACTS,
    META_TRUNCATION,
    TruncationMiddleware,
)


def _server(truncator: Truncator, *, middleware: bool = True) -> MCPServer:
    server = MCPServer("builder")

    @server.tool()
    def build(target: str) -> str:
        """Build a target; returns the log."""
        return BIG_OUTPUT

    @server.tool()
    def numbers(n: int) -> list[int]:
        """Numbers up to n."""
        return list(range(n))

    if middleware:
        server.middleware.append(TruncationMiddleware(truncator))
    return server


def test_the_conversation(truncator: Truncator) -> None:
    reader = Reader()

    async def main() -> dict[str, Any]:
        async with Client(_server(truncator)) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            cut = await client.call_tool("build", {"target": "all"})
            arguments: dict[str, Any] | None = reader.after_cut(cut.content[0].text)
            pages = 0
            while arguments is not None:
                page = await client.call_tool("get_artifact", arguments)
                assert not page.is_error, page.content[0].text
                arguments = reader.after_page(page.content[0].text)
                pages += 1
            small = await client.call_tool("numbers", {"n": 5})
            big_numbers = await client.call_tool("numbers", {"n": 3_000})  # a block each
            return {"listed": listed, "cut": cut, "pages": pages, "small": small,
                    "big_numbers": big_numbers}

    seen = asyncio.run(main())
    reader.check()
    listed = seen["listed"]
    assert {"build", "numbers", "get_artifact", "artifact_grep"} <= set(listed)
    assert listed["build"].output_schema is not None  # {result: string}: a cut still fits
    assert listed["numbers"].output_schema is None  # a cut list is not a list
    cut = seen["cut"]
    text = cut.content[0].text
    assert len(text) <= 8000 and text.startswith("[Artifact: art_")
    assert cut.structured_content == {"result": text}
    assert cut.meta[META_ARTIFACTS] == [reader.calls[0]["artifact_id"]]
    assert cut.meta[META_TRUNCATION][0]["original_size"] == len(BIG_OUTPUT)
    assert seen["small"].structured_content == {"result": [0, 1, 2, 3, 4]}  # unchanged
    big = seen["big_numbers"]
    assert not big.is_error and big.structured_content is None
    assert len(big.content) == 1 and "omitted" in big.content[0].text


def test_control_without_the_middleware_the_model_gets_a_megabyte(truncator: Truncator) -> None:
    async def main() -> Any:
        async with Client(_server(truncator, middleware=False)) as client:
            return await client.call_tool("build", {"target": "all"})

    assert len(asyncio.run(main()).content[0].text) == len(BIG_OUTPUT)


def test_a_bad_artifact_call_is_an_error_result(truncator: Truncator) -> None:
    async def main() -> Any:
        async with Client(_server(truncator)) as client:
            return await client.call_tool("get_artifact", {"artifact_id": "../etc/passwd"})

    result = asyncio.run(main())
    assert result.is_error and "artifact_id" in result.content[0].text
    assert json.dumps(result.model_dump(mode="json"))


def test_without_the_artifact_tools_the_cut_names_none(truncator: Truncator) -> None:
    server = MCPServer("builder")

    @server.tool()
    def build(target: str) -> str:
        """Build a target; returns the log."""
        return BIG_OUTPUT

    server.middleware.append(TruncationMiddleware(truncator, artifact_tools=False))

    async def main() -> tuple[set[str], str]:
        async with Client(server) as client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
            cut = await client.call_tool("build", {"target": "all"})
            return listed, cut.content[0].text

    listed, text = asyncio.run(main())
    assert listed == {"build"} and text.startswith("[Artifact: art_")
    for name in ("get_artifact", "artifact_head", "artifact_tail", "artifact_grep"):
        assert name not in text
