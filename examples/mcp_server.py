"""An MCP server (the SDK's MCPServer) whose tools' results are cut: one line,
``server.middleware.append(TruncationMiddleware(truncator))``.

``python examples/mcp_server.py serve`` serves it on stdio (point your MCP client at it).
Without arguments it runs offline: the SDK's in-process Client plays the client and does
what a model would do with a 1 MB build log: reads the cut result, then greps the artifact.

    pip install "truncation-core-adapters[mcp]"
    python examples/mcp_server.py
"""

from __future__ import annotations

import asyncio
import sys
import tempfile

from mcp import Client
from mcp.server import MCPServer
from mcp.types import TextContent
from truncation_core_adapters.mcp import META_ARTIFACTS, TruncationMiddleware

from truncation_core import Truncator


def make_server(truncator: Truncator) -> MCPServer:
    server = MCPServer("builder")

    @server.tool()
    def build(target: str) -> str:
        """Build a target and return the log."""
        lines = [f"[{i:06d}] compiling module_{i % 900:03d}.c ... ok" for i in range(15_000)]
        lines[9_000] = "[009000] error: undefined reference to `frobnicate'"
        return "\n".join(lines) + "\n"

    server.middleware.append(TruncationMiddleware(truncator))
    return server


async def offline(server: MCPServer) -> None:
    async with Client(server) as client:
        tools = [tool.name for tool in (await client.list_tools()).tools]
        print("tools:", ", ".join(tools))
        cut = await client.call_tool("build", {"target": "all"})
        assert isinstance(cut.content[0], TextContent) and cut.meta is not None
        print("--- what the model sees of 1 MB ---\n" + cut.content[0].text[:600] + " ...\n")
        [artifact_id] = cut.meta[META_ARTIFACTS]
        found = await client.call_tool("artifact_grep", {"artifact_id": artifact_id,
                                                         "pattern": "error:", "context": 1})
        assert isinstance(found.content[0], TextContent)
        print("The build fails here:\n" + found.content[0].text)


def main() -> None:
    if sys.argv[1:] == ["serve"]:
        make_server(Truncator.from_config()).run("stdio")
        return
    with tempfile.TemporaryDirectory() as workspace:
        asyncio.run(offline(make_server(Truncator({"store": {"root": workspace}}))))


if __name__ == "__main__":
    main()
