"""Google ADK: an ``after_tool_callback`` that cuts what an ``LlmAgent``'s tools return, and
the artifact tools.

    from google.adk.agents import LlmAgent
    from truncation_core_adapters.google_adk import artifact_tools, truncating_callback

    agent = LlmAgent(name="builder", model=model, tools=[build, *artifact_tools(truncator)],
                     after_tool_callback=truncating_callback(truncator))

ADK hands the callback each tool's response as a dict: a function that returns something
else has it wrapped as ``{"result": value}``. The callback undoes that wrapping, cuts the
value as the tool (its policy applies), with the function call's id as the tool call id (the
artifact tools find the output by it), and redoes it: the model gets ``{"result": cut}``. A
response within its limits is left as it is (the callback returns None). A dict the tool
returned itself is cut as JSON. The artifact tools' own responses are not cut again.

:func:`artifact_tools` gives the artifact tools as ADK tools whose declarations are their JSON
schemas; a bad call answers ``{"error": ...}``, which the model reads.
"""

from __future__ import annotations

from typing import Any

from google.adk.tools import BaseTool, ToolContext
from google.genai import types

from truncation_core import Truncator
from truncation_core_adapters.common import artifact_tool_names, cut, retry_message

__all__ = ["ArtifactTool", "artifact_tools", "truncating_callback"]


def truncating_callback(truncator: Truncator) -> Any:
    """An ``after_tool_callback`` for ``LlmAgent`` (see the module)."""
    names = artifact_tool_names(truncator)

    async def after_tool_callback(tool: BaseTool, args: dict[str, Any],
                                  tool_context: ToolContext,
                                  tool_response: Any) -> dict[str, Any] | None:
        if tool.name in names:
            return None
        wrapped = isinstance(tool_response, dict) and list(tool_response) == ["result"]
        value = tool_response["result"] if wrapped else tool_response
        processed = await cut(truncator, value, tool=tool.name,
                              tool_call_id=getattr(tool_context, "function_call_id", None))
        return None if processed is None else {"result": processed.content}

    return after_tool_callback


class ArtifactTool(BaseTool):
    """One artifact tool, declared by its JSON schema; build with :func:`artifact_tools`."""

    def __init__(self, schema: dict[str, Any], truncator: Truncator) -> None:
        super().__init__(name=schema["name"], description=schema["description"])
        self.parameters = schema["parameters"]
        self.truncator = truncator

    def _get_declaration(self) -> types.FunctionDeclaration:
        return types.FunctionDeclaration(name=self.name, description=self.description,
                                         parameters_json_schema=self.parameters)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        result = await self.truncator.acall_tool(self.name, args)
        if result.error is not None:
            return {"error": retry_message(result)}
        return {"result": result.content}


def artifact_tools(truncator: Truncator) -> list[BaseTool]:
    """The artifact tools, named as *truncator*'s ``artifact_tools:`` says."""
    return [ArtifactTool(entry["function"], truncator)
            for entry in truncator.tool_schemas("openai")]
