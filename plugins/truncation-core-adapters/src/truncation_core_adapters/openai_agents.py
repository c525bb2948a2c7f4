"""OpenAI Agents SDK: wrap ``function_tool``s so that their output is cut, and add the
artifact tools.

    from agents import Agent
    from truncation_core_adapters.openai_agents import artifact_tools, truncating_tools

    agent = Agent(name="builder", tools=[*truncating_tools([build, read_file], truncator),
                                          *artifact_tools(truncator)])

:func:`truncating_tools` returns each :class:`~agents.FunctionTool` with its invocation
wrapped: the output goes through ``truncator.aprocess`` as tool *name* (its policy applies),
off the event loop; an output within its limits is handed on unchanged. Everything else about
the tool (its schema, ``strict_json_schema``, guardrails, approval) is kept, except the
output schema, which a cut output (text with a marker) no longer follows. Images and files
(``ToolOutputImage``, ``ToolOutputFileContent``, or their dict forms) pass on unchanged, alone
or in a list; the text parts beside them (``ToolOutputText`` and plain values) are cut as one.

:func:`artifact_tools` gives the artifact tools as async ``FunctionTool``s with strict
schemas (``strict_json_schema=True``: every property required, ``null`` for not given). A bad
call returns its error as the tool's output, which the SDK sends to the model. A tool of yours
named like an artifact tool is refused (:func:`truncating_tools` checks the tools it is
given), as the SDK would let the later one shadow the other.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from agents import FunctionTool, ToolOutputFileContent, ToolOutputImage, ToolOutputText
from agents.tool_context import ToolContext

from truncation_core import Truncator
from truncation_core_adapters.common import check_clash, cut, joined_text, split_media

__all__ = ["artifact_tools", "truncating_tool", "truncating_tools"]


def truncating_tool(tool: FunctionTool, truncator: Truncator) -> FunctionTool:
    """*tool*, whose output is cut by *truncator* (see the module)."""
    invoke = tool.on_invoke_tool

    async def on_invoke_tool(ctx: ToolContext[Any], arguments: str) -> Any:
        output = await invoke(ctx, arguments)
        rest, media = split_media(output, _is_media)
        text = rest if not media else joined_text(rest, _text_of)
        processed = None if text is None else await cut(
            truncator, text, tool=tool.name, tool_call_id=getattr(ctx, "tool_call_id", None))
        if processed is None:
            return output
        if not media:
            return processed.content
        return [ToolOutputText(text=processed.content), *media]

    return dataclasses.replace(tool, on_invoke_tool=on_invoke_tool, output_json_schema=None,
                               _output_type_adapter=None)


def truncating_tools(tools: Iterable[Any], truncator: Truncator) -> list[Any]:
    """Each :class:`~agents.FunctionTool` of *tools* wrapped by :func:`truncating_tool`;
    other tools (hosted tools, handoffs) as they are. A tool named like an artifact tool is
    refused with :class:`ValueError`."""
    tools = list(tools)
    check_clash((getattr(tool, "name", None) for tool in tools), truncator, "tools")
    return [truncating_tool(tool, truncator) if isinstance(tool, FunctionTool) else tool
            for tool in tools]


#: The media parts of a tool output, and their dict forms' types.
_MEDIA = (ToolOutputImage, ToolOutputFileContent)
_MEDIA_TYPES = frozenset({"image", "file"})


def _is_media(value: Any) -> bool:
    return isinstance(value, _MEDIA) or (isinstance(value, dict)
                                         and value.get("type") in _MEDIA_TYPES)


def _text_of(value: Any) -> str | None:
    if isinstance(value, ToolOutputText):
        return value.text
    if isinstance(value, dict) and value.get("type") == "text":
        text = value.get("text")
        return text if isinstance(text, str) else None
    return value if isinstance(value, str) else None


def artifact_tools(truncator: Truncator) -> list[FunctionTool]:
    """The artifact tools, named as *truncator*'s ``artifact_tools:`` says (see the
    module)."""
    tools = []
    for entry in truncator.tool_schemas("openai", strict=True):
        function = entry["function"]
        tools.append(FunctionTool(name=function["name"], description=function["description"],
                                  params_json_schema=function["parameters"],
                                  on_invoke_tool=_invoker(truncator, function["name"]),
                                  strict_json_schema=True))
    return tools


def _invoker(truncator: Truncator, name: str) -> Any:
    async def on_invoke_tool(ctx: ToolContext[Any], arguments: str) -> str:
        result = await truncator.acall_tool(name, arguments)
        return result.content

    return on_invoke_tool
