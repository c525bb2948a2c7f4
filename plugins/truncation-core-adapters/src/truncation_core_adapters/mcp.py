"""MCP server authors: one line cuts every tool result of an ``MCPServer``, and adds the
artifact tools.

    from mcp.server import MCPServer
    from truncation_core_adapters.mcp import TruncationMiddleware

    server = MCPServer("files")
    server.middleware.append(TruncationMiddleware(truncator))

The middleware wraps the server's ``tools/list`` and ``tools/call`` requests:

* ``tools/list`` gets the artifact tools appended (on the last page), named as the
  truncator's ``artifact_tools:`` says (those it publishes; ``artifact_tools=False`` adds none,
  and then the markers name none). A tool's ``outputSchema`` is kept only when it is the
  one a ``str``-returning tool has (``{"result": string}``), which a cut result still
  follows; any other is dropped, because a cut result is text with a marker, not the
  structure the schema describes (and clients check results against it).
* ``tools/call`` of an artifact tool is answered by ``truncator.acall_tool`` (a bad call is
  an ``isError`` result the model reads). Any other call goes to the server, and each text
  block of its result goes through ``truncator.aprocess`` as that tool (several text blocks,
  as a tool returning a list gives, as one text). When a block is cut,
  ``structuredContent`` is cut with it (``{"result": text}``) or dropped, and the result's
  ``_meta`` says which artifacts hold the full output (``truncation_core/artifacts``) with
  the truncation metadata (``truncation_core/truncation``).

This is independent of the ``trunc mcp`` proxy, which puts the same cut in front of servers
you do not write.
"""

from __future__ import annotations

from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.types import CallToolResult, ListToolsResult, TextContent, Tool

from truncation_core import Truncator
from truncation_core_adapters.common import artifact_tool_names

__all__ = ["META_ARTIFACTS", "META_TRUNCATION", "TruncationMiddleware"]

#: ``_meta`` keys of a cut result.
META_ARTIFACTS = "truncation_core/artifacts"
META_TRUNCATION = "truncation_core/truncation"


def _string_result_schema(schema: Any) -> bool:
    """The output schema MCPServer gives a tool returning ``str``: a cut result fits it."""
    if not isinstance(schema, dict):
        return False
    properties = schema.get("properties")
    return (schema.get("type") == "object" and isinstance(properties, dict)
            and list(properties) == ["result"]
            and isinstance(properties["result"], dict)
            and properties["result"].get("type") == "string")


class TruncationMiddleware:
    """An ``MCPServer`` (or low-level ``Server``) middleware; see the module."""

    def __init__(self, truncator: Truncator, *, artifact_tools: bool = True) -> None:
        # Without the artifact tools, the markers name none (Truncator.publishing).
        self.truncator = truncator if artifact_tools else truncator.publishing(())
        self.artifact_tools = artifact_tools

    async def __call__(self, ctx: ServerRequestContext[Any, Any],
                       call_next: CallNext) -> HandlerResult:
        if ctx.method == "tools/list":
            return self._listed(await call_next(ctx))
        if ctx.method != "tools/call":
            return await call_next(ctx)
        params = ctx.params or {}
        name = params.get("name")
        if (self.artifact_tools and isinstance(name, str)
                and name in artifact_tool_names(self.truncator)):
            result = await self.truncator.acall_tool(name, params.get("arguments"))
            return CallToolResult(content=[TextContent(text=result.content)],
                                  is_error=result.is_error)
        return await self._cut(name if isinstance(name, str) else None, await call_next(ctx))

    def _listed(self, result: HandlerResult) -> HandlerResult:
        if result is None:
            return result
        listed = (result if isinstance(result, ListToolsResult)
                  else ListToolsResult.model_validate(result))
        tools = [tool if tool.output_schema is None or _string_result_schema(tool.output_schema)
                 else tool.model_copy(update={"output_schema": None})
                 for tool in listed.tools]
        if self.artifact_tools and listed.next_cursor is None:
            taken = {tool.name for tool in tools}
            for entry in self.truncator.tool_schemas("mcp"):
                if entry["name"] in taken:
                    raise ValueError(f"tool {entry['name']!r}: the server has a tool of that "
                                     "name; rename the artifact tools (artifact_tools: "
                                     "prefix or names)")
                tools.append(Tool.model_validate(entry))
        return listed.model_copy(update={"tools": tools})

    async def _cut(self, tool: str | None, result: HandlerResult) -> HandlerResult:
        if result is None:
            return result
        called = (result if isinstance(result, CallToolResult)
                  else CallToolResult.model_validate(result))
        blocks = list(called.content)
        texts = [block for block in blocks if isinstance(block, TextContent)]
        if len(texts) > 1:
            # A tool returning a list gets one block per item: cut them as one text.
            joined = TextContent(text="\n".join(block.text for block in texts))
            blocks = [joined, *(block for block in blocks if not isinstance(block, TextContent))]
        content: list[Any] = []
        artifacts: list[str] = []
        metadata: list[dict[str, Any]] = []
        originals: dict[str, str] = {}
        for block in blocks:
            if isinstance(block, TextContent):
                processed = await self.truncator.aprocess(block.text, tool=tool)
                if processed.metadata.was_truncated:
                    originals[block.text] = processed.content
                    metadata.append(processed.metadata.to_dict())
                    if processed.metadata.artifact_id:
                        artifacts.append(processed.metadata.artifact_id)
                    block = block.model_copy(update={"text": processed.content})
            content.append(block)
        if not metadata:
            return result
        structured = called.structured_content
        if isinstance(structured, dict) and list(structured) == ["result"] \
                and isinstance(structured["result"], str) and structured["result"] in originals:
            structured = {"result": originals[structured["result"]]}
        else:
            structured = None
        meta = {**(called.meta or {}), META_ARTIFACTS: artifacts, META_TRUNCATION: metadata}
        return called.model_copy(update={"content": content, "structured_content": structured,
                                         "meta": meta})
