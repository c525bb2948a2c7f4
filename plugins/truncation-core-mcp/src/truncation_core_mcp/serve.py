"""``trunc mcp serve``: the artifact tools alone, as an MCP server.

Built on the SDK's lowlevel ``Server``: the tools' schemas and their argument checks are the
core's own (:meth:`Truncator.tool_schemas <truncation_core.Truncator.tool_schemas>` and
:meth:`~truncation_core.Truncator.call_tool`), which ``MCPServer`` would derive anew from
Python signatures.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.server import Server, ServerRequestContext

from truncation_core_mcp.auth import Access, BearerAuth
from truncation_core_mcp.results import not_found_note

if TYPE_CHECKING:
    from truncation_core import Truncator

__all__ = ["artifact_server", "serve_http", "serve_stdio"]

INSTRUCTIONS = (
    "Tool outputs that were too long were cut, and kept whole as artifacts (ids like "
    "art_1763742000_4f3a...). The artifact tools read them back: get_artifact (line ranges), "
    "artifact_head, artifact_tail and artifact_grep.")


def artifact_server(truncator: Truncator, *,
                    name: str = "truncation-core-artifacts") -> Server[Any]:
    """An MCP server whose tools read *truncator*'s artifacts."""
    tools = [types.Tool.model_validate({
        **schema, "annotations": {"readOnlyHint": True, "openWorldHint": False}})
        for schema in truncator.tool_schemas("mcp")]

    async def list_tools(ctx: ServerRequestContext[Any],
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    def answer(name: str, arguments: Any) -> tuple[str, bool]:
        result = truncator.call_tool(name, arguments)
        text = result.content
        if result.error is not None and result.error.code == 404:
            text += "." + not_found_note(truncator.store, arguments)
        return text, result.is_error

    async def call_tool(ctx: ServerRequestContext[Any],
                        params: types.CallToolRequestParams) -> types.CallToolResult:
        text, is_error = await asyncio.to_thread(answer, params.name, params.arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    is_error=is_error)

    from truncation_core import __version__

    return Server(name, version=__version__, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool)


async def serve_stdio(server: Server[Any]) -> None:
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


def serve_http(server: Server[Any], *, host: str, port: int, path: str,
               access: Access) -> None:
    import uvicorn

    app: Any = server.streamable_http_app(streamable_http_path=path, host=host)
    if access.token is not None:
        app = BearerAuth(app, access.token)
    uvicorn.run(app, host=host, port=port, log_level="warning")
