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
output schema, which a cut output (text with a marker) no longer follows.

:func:`artifact_tools` gives the artifact tools as async ``FunctionTool``s with strict
schemas (``strict_json_schema=True``: every property required, ``null`` for not given). A bad
call returns its error as the tool's output, which the SDK sends to the model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from agents import FunctionTool
from agents.tool_context import ToolContext

from truncation_core import Truncator
from truncation_core_adapters.common import cut

__all__ = ["artifact_tools", "truncating_tool", "truncating_tools"]


def truncating_tool(tool: FunctionTool, truncator: Truncator) -> FunctionTool:
    """*tool*, whose output is cut by *truncator* (see the module)."""
    invoke = tool.on_invoke_tool

    async def on_invoke_tool(ctx: ToolContext[Any], arguments: str) -> Any:
        output = await invoke(ctx, arguments)
        processed = await cut(truncator, output, tool=tool.name,
                              tool_call_id=getattr(ctx, "tool_call_id", None))
        return output if processed is None else processed.content

    return dataclasses.replace(tool, on_invoke_tool=on_invoke_tool, output_json_schema=None,
                               _output_type_adapter=None)


def truncating_tools(tools: Iterable[Any], truncator: Truncator) -> list[Any]:
    """Each :class:`~agents.FunctionTool` of *tools* wrapped by :func:`truncating_tool`;
    other tools (hosted tools, handoffs) as they are."""
    return [truncating_tool(tool, truncator) if isinstance(tool, FunctionTool) else tool
            for tool in tools]


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
