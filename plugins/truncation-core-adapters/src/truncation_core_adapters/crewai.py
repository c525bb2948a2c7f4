"""CrewAI: an ``after_tool_call`` hook that cuts what the agents' tools return, and the
artifact tools as ``BaseTool``s.

    from crewai.hooks import after_tool_call
    from truncation_core_adapters.crewai import artifact_tools, truncating_hook

    after_tool_call(truncating_hook(truncator))
    agent = Agent(role=..., goal=..., backstory=..., tools=[build, *artifact_tools(truncator)])

The hook gets each tool result as the text the model will see (``context.tool_result``) and
returns its cut, as the tool (its policy applies); None (the result as it is) when it is
within its limits. CrewAI's hooks are registered for the whole process, as ``after_tool_call``
does; give ``tools=[...]`` or ``agents=[...]`` to ``after_tool_call`` to narrow it. The
artifact tools' own results are not cut again. :func:`artifact_tools` gives them as
``BaseTool``s whose argument schemas are built from their JSON schemas (optional arguments may
be left out or null); a bad call returns its error, which the model reads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Optional

from crewai.hooks import ToolCallHookContext
from crewai.tools import BaseTool
from pydantic import BaseModel, ConfigDict, Field, create_model

from truncation_core import Truncator
from truncation_core_adapters.common import artifact_tool_names, cut_sync, retry_message

__all__ = ["ArtifactTool", "artifact_tools", "truncating_hook"]

_TYPES: dict[str, Any] = {"string": str, "integer": int, "boolean": bool, "number": float}


def truncating_hook(truncator: Truncator) -> Callable[[ToolCallHookContext], str | None]:
    """An ``after_tool_call`` hook (see the module)."""
    names = artifact_tool_names(truncator)

    def cut_tool_result(context: ToolCallHookContext) -> str | None:
        if context.tool_name in names or context.tool_result is None:
            return None
        processed = cut_sync(truncator, context.tool_result, tool=context.tool_name)
        return None if processed is None else processed.content

    return cut_tool_result


class ArtifactTool(BaseTool):
    """One artifact tool; build with :func:`artifact_tools`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    truncator: Truncator

    def _run(self, **kwargs: Any) -> str:
        result = self.truncator.call_tool(self.name, {k: v for k, v in kwargs.items()
                                                      if v is not None})
        return retry_message(result) if result.error is not None else result.content


def _arguments(name: str, parameters: dict[str, Any]) -> type[BaseModel]:
    required = set(parameters.get("required", ()))
    fields: dict[str, Any] = {}
    for key, prop in parameters["properties"].items():
        kind = _TYPES[prop["type"]]
        if key in required:
            fields[key] = (kind, Field(description=prop["description"]))
        else:
            fields[key] = (Optional[kind],  # noqa: UP045 (a runtime type for pydantic)
                           Field(default=None, description=prop["description"]))
    return create_model(f"{name}_arguments", **fields)


def artifact_tools(truncator: Truncator) -> list[BaseTool]:
    """The artifact tools, named as *truncator*'s ``artifact_tools:`` says."""
    tools: list[BaseTool] = []
    for entry in truncator.tool_schemas("openai"):
        function = entry["function"]
        tools.append(ArtifactTool(name=function["name"], description=function["description"],
                                  args_schema=_arguments(function["name"],
                                                         function["parameters"]),
                                  truncator=truncator))
    return tools
