"""pydantic-ai: a toolset that cuts what an agent's tools return, and adds the artifact tools.

    from pydantic_ai import Agent
    from truncation_core_adapters.pydantic_ai import TruncatingToolset

    agent = Agent(model, toolsets=[TruncatingToolset(my_toolset, truncator)])

Each tool's result goes through ``truncator.aprocess`` (as tool *name*, so its policy
applies). A result within its limits is returned unchanged; a cut one comes back as a
:class:`~pydantic_ai.messages.ToolReturn` whose ``return_value`` is what the model sees and
whose ``metadata`` carries the truncation metadata (``artifact_id`` among it). The artifact
tools are listed with strict schemas (every property required, ``null`` for not given); a
bad call of one raises :class:`~pydantic_ai.exceptions.ModelRetry` with the error the model
can act on.
"""

from __future__ import annotations

from typing import Any

from pydantic_ai import ModelRetry, RunContext, ToolReturn
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, WrapperToolset
from pydantic_ai.toolsets.abstract import ToolsetTool
from pydantic_core import SchemaValidator, core_schema

from truncation_core import Truncator
from truncation_core_adapters.common import artifact_tool_names, cut, retry_message

__all__ = ["TruncatingToolset"]

#: The artifact tools' arguments are checked by call_tool, against the published schema.
_ANY_ARGUMENTS = SchemaValidator(schema=core_schema.any_schema())


class TruncatingToolset(WrapperToolset[Any]):
    """*wrapped*, with every result cut by *truncator*, plus the artifact tools.

    :param artifact_tools: list the artifact tools (``get_artifact`` ...), named as the
        truncator's ``artifact_tools:`` configuration says.
    :param max_retries: retries the model gets for a bad artifact-tool call.
    """

    def __init__(self, wrapped: AbstractToolset[Any], truncator: Truncator, *,
                 artifact_tools: bool = True, max_retries: int = 3) -> None:
        super().__init__(wrapped)
        self.truncator = truncator
        self.artifact_tools = artifact_tools
        self.max_retries = max_retries

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        tools = dict(await self.wrapped.get_tools(ctx))
        if not self.artifact_tools:
            return tools
        for entry in self.truncator.tool_schemas("openai", strict=True):
            function = entry["function"]
            if function["name"] in tools:
                raise ValueError(f"tool {function['name']!r}: the wrapped toolset has a tool "
                                 "of that name; rename the artifact tools (artifact_tools: "
                                 "prefix or names)")
            definition = ToolDefinition(name=function["name"],
                                        description=function["description"],
                                        parameters_json_schema=function["parameters"],
                                        strict=True)
            tools[function["name"]] = ToolsetTool(toolset=self, tool_def=definition,
                                                  max_retries=self.max_retries,
                                                  args_validator=_ANY_ARGUMENTS)
        return tools

    async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any],
                        tool: ToolsetTool[Any]) -> Any:
        if tool.toolset is self and name in artifact_tool_names(self.truncator):
            result = await self.truncator.acall_tool(name, tool_args)
            if result.error is not None and result.error.code in (400, 404):
                raise ModelRetry(retry_message(result))
            return ToolReturn(return_value=result.content, metadata=result.to_dict())
        returned = await self.wrapped.call_tool(name, tool_args, ctx, tool)
        value = returned.return_value if isinstance(returned, ToolReturn) else returned
        processed = await cut(self.truncator, value, tool=name,
                              tool_call_id=ctx.tool_call_id)
        if processed is None:
            return returned
        metadata = processed.metadata.to_dict()
        if isinstance(returned, ToolReturn):
            return ToolReturn(return_value=processed.content, content=returned.content,
                              metadata={"truncation": metadata, "tool": returned.metadata})
        return ToolReturn(return_value=processed.content, metadata={"truncation": metadata})
