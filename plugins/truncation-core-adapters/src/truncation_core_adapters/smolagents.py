"""smolagents: wrap ``Tool``s so that their output is cut, and add the artifact tools.

    from smolagents import ToolCallingAgent
    from truncation_core_adapters.smolagents import artifact_tools, truncating_tools

    agent = ToolCallingAgent(tools=[*truncating_tools([build], truncator),
                                    *artifact_tools(truncator)], model=model)

:func:`truncating_tools` gives each :class:`~smolagents.Tool` wrapped: same name, description
and inputs; its output goes through ``truncator.process`` as that tool, and a cut output is the
text the model sees. A tool whose ``output_type`` is ``image`` or ``audio`` is left as it is
(a model reads those as media). :func:`artifact_tools` gives the artifact tools as ``Tool``s
whose optional inputs are ``nullable`` (smolagents' way to say "may be left out"); a bad
call raises, and smolagents shows the model the error.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from smolagents import Tool

from truncation_core import Truncator
from truncation_core_adapters.common import check_clash, cut_sync, retry_message

__all__ = ["ArtifactTool", "TruncatingTool", "artifact_tools", "truncating_tools"]

#: Output types a model reads as media: never cut.
_MEDIA_TYPES = frozenset({"image", "audio"})


class TruncatingTool(Tool):
    """*tool*, its output cut by *truncator* (see the module)."""

    skip_forward_signature_validation = True

    def __init__(self, tool: Tool, truncator: Truncator) -> None:
        self.name = tool.name
        self.description = tool.description
        self.inputs = tool.inputs
        self.output_type = tool.output_type
        self.tool = tool
        self.truncator = truncator
        super().__init__()

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        output = self.tool(*args, **kwargs)
        processed = cut_sync(self.truncator, output, tool=self.name)
        return output if processed is None else processed.content


def truncating_tools(tools: Iterable[Tool], truncator: Truncator) -> list[Tool]:
    """Each tool of *tools* wrapped by :class:`TruncatingTool`, but media tools (see the
    module). A tool named like an artifact tool is refused with :class:`ValueError`."""
    tools = list(tools)
    check_clash((tool.name for tool in tools), truncator, "tools")
    return [tool if tool.output_type in _MEDIA_TYPES else TruncatingTool(tool, truncator)
            for tool in tools]


class ArtifactTool(Tool):
    """One artifact tool, from its JSON schema; build with :func:`artifact_tools`."""

    skip_forward_signature_validation = True
    output_type = "string"

    def __init__(self, schema: dict[str, Any], truncator: Truncator) -> None:
        self.name = schema["name"]
        self.description = schema["description"]
        parameters = schema["parameters"]
        required = set(parameters.get("required", ()))
        self.inputs = {
            key: {"type": prop["type"], "description": prop["description"],
                  **({} if key in required else {"nullable": True})}
            for key, prop in parameters["properties"].items()}
        self.truncator = truncator
        super().__init__()

    def forward(self, **kwargs: Any) -> str:
        result = self.truncator.call_tool(self.name, kwargs)
        if result.error is not None:
            raise ValueError(retry_message(result))
        return result.content


def artifact_tools(truncator: Truncator) -> list[Tool]:
    """The artifact tools, named as *truncator*'s ``artifact_tools:`` says, optional inputs
    nullable (see the module)."""
    return [ArtifactTool(entry["function"], truncator)
            for entry in truncator.tool_schemas("openai")]
