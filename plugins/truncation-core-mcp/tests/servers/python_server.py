"""A downstream MCP server written with the SDK's MCPServer, for the proxy's tests.

Structured output with output schemas, a tool called like an artifact tool (with
``--clash``), large text and errors, and tools that crash or hang the server.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TypedDict

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel

server = MCPServer("python-test-server")


class Record(BaseModel):
    id: int
    name: str
    note: str


class Records(BaseModel):
    total: int
    records: list[Record]


class Report(TypedDict):
    title: str
    body: str


@server.tool()
def big_text(lines: int) -> str:
    """Numbered lines of text (unstructured)."""
    return "".join(f"row {i:07d} the quick brown fox jumps over the lazy dog\n"
                   for i in range(lines))


@server.tool()
def records(count: int) -> Records:
    """Structured records (an output schema with an array of objects)."""
    return Records(total=count, records=[Record(id=i, name=f"record {i}", note="n" * 40)
                                         for i in range(count)])


@server.tool()
def report(size: int) -> Report:
    """A structured report whose body is one long string."""
    body = "".join(f"paragraph {i}: lorem ipsum dolor sit amet\n" for i in range(size))
    return Report(title="report", body=body)


@server.tool()
def strict_rows(count: int) -> dict[str, list[int]]:
    """A dict of lists of integers: an element cut's notes cannot validate against it."""
    return {"rows": list(range(count))}


@server.tool()
def failing(lines: int) -> str:
    """Fails with a long error message whose important lines are in the middle and end."""
    text = "".join(f"step {i}: ok\n" for i in range(lines))
    text += "ERROR: disk quota exceeded while writing /data/out.bin\n"
    text += "".join(f"cleanup {i}: ok\n" for i in range(lines))
    text += "fatal: giving up after 3 attempts\n"
    raise ToolError(text)


@server.tool()
def crash() -> str:
    """Exits the server in the middle of the call."""
    sys.stderr.write("python-test-server: crashing on purpose\n")
    sys.stderr.flush()
    os._exit(3)


@server.tool()
def hang(seconds: float) -> str:
    """Blocks the whole server (not just this call) for *seconds*."""
    time.sleep(seconds)
    return "woke up"


@server.tool()
async def until_cancelled(marker: str) -> str:
    """Waits a minute; writes *marker* if the call is cancelled first."""
    import anyio

    try:
        await anyio.sleep(60)
    except BaseException:
        with open(marker, "w") as f:
            f.write("cancelled")
        raise
    return "not cancelled"


@server.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


if "--clash" in sys.argv:
    @server.tool(name="get_artifact")
    def downstream_get_artifact(artifact_id: str) -> str:
        """The downstream server's own tool called get_artifact."""
        return f"downstream get_artifact called with {artifact_id}"


if __name__ == "__main__":
    server.run("stdio")
