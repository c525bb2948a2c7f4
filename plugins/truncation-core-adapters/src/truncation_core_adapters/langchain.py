"""LangChain (langchain-core): wrap ``BaseTool``s so that their output is cut, and add the
artifact tools.

    from truncation_core_adapters.langchain import artifact_tools, truncating_tools

    tools = [*truncating_tools([build, read_file], truncator), *artifact_tools(truncator)]
    model = chat_model.bind_tools(tools, strict=True)

Every tool here uses ``response_format="content_and_artifact"``: invoked with a tool call,
it returns a ``ToolMessage`` whose ``content`` is what the model sees and whose ``artifact``
carries, for a cut output, the artifact id and the truncation metadata
(``{"artifact_id": ..., "truncation": {...}}``; None when nothing was cut). The wrapped tool
keeps its name, description and argument schema. A bad call of an artifact tool raises
:class:`~langchain_core.tools.ToolException`, which the tool (``handle_tool_error=True``)
turns into an error ``ToolMessage`` the model reads and acts on.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from langchain_core.tools import BaseTool, ToolException
from pydantic import ConfigDict

from truncation_core import Truncator, as_content
from truncation_core_adapters.common import cut

__all__ = ["ArtifactTool", "TruncatingTool", "artifact_tools", "truncating_tools"]


def _artifact(processed: Any) -> dict[str, Any] | None:
    if processed is None:
        return None
    metadata = processed.metadata.to_dict()
    return {"artifact_id": metadata.get("artifact_id"), "truncation": metadata}


class TruncatingTool(BaseTool):
    """A tool whose output *truncator* cuts (see the module); build with
    :func:`truncating_tools`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    tool: BaseTool
    truncator: Truncator
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"

    def _run(self, *args: Any, **kwargs: Any) -> tuple[Any, dict[str, Any] | None]:
        kwargs.pop("run_manager", None)
        output = self.tool.invoke(_input(args, kwargs))
        return self._cut_sync(output)

    async def _arun(self, *args: Any, **kwargs: Any) -> tuple[Any, dict[str, Any] | None]:
        kwargs.pop("run_manager", None)
        output = await self.tool.ainvoke(_input(args, kwargs))
        processed = await cut(self.truncator, output, tool=self.name)
        return (output if processed is None else processed.content), _artifact(processed)

    def _cut_sync(self, output: Any) -> tuple[Any, dict[str, Any] | None]:
        processed = self.truncator.process(as_content(output), tool=self.name)
        if not processed.metadata.was_truncated:
            return output, None
        return processed.content, _artifact(processed)


def _input(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if args and not kwargs and len(args) == 1:
        return args[0]
    return kwargs


def truncating_tools(tools: Iterable[BaseTool], truncator: Truncator) -> list[BaseTool]:
    """Each tool of *tools*, its output cut by *truncator* as that tool (see the module)."""
    return [TruncatingTool(name=tool.name, description=tool.description,
                           args_schema=tool.args_schema, tool=tool, truncator=truncator,
                           return_direct=tool.return_direct)
            for tool in tools]


class ArtifactTool(BaseTool):
    """One artifact tool (``get_artifact`` ...), with its strict schema; build with
    :func:`artifact_tools`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    truncator: Truncator
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    handle_tool_error: bool = True

    def _run(self, *args: Any, **kwargs: Any) -> tuple[str, dict[str, Any]]:
        kwargs.pop("run_manager", None)
        return _answer(self.truncator.call_tool(self.name, kwargs))

    async def _arun(self, *args: Any, **kwargs: Any) -> tuple[str, dict[str, Any]]:
        kwargs.pop("run_manager", None)
        return _answer(await self.truncator.acall_tool(self.name, kwargs))


def _answer(result: Any) -> tuple[str, dict[str, Any]]:
    if result.error is not None:
        raise ToolException(result.content)
    return result.content, result.to_dict()


def artifact_tools(truncator: Truncator) -> list[BaseTool]:
    """The artifact tools, named as *truncator*'s ``artifact_tools:`` says, with strict
    schemas (every property required, ``null`` for not given)."""
    return [ArtifactTool(name=entry["function"]["name"],
                         description=entry["function"]["description"],
                         args_schema=entry["function"]["parameters"], truncator=truncator)
            for entry in truncator.tool_schemas("openai", strict=True)]
