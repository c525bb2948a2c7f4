"""LangChain (langchain-core): wrap ``BaseTool``s so that their output is cut, and add the
artifact tools.

    from truncation_core_adapters.langchain import artifact_tools, truncating_tools

    tools = [*truncating_tools([build, read_file], truncator), *artifact_tools(truncator)]
    model = chat_model.bind_tools(tools, strict=True)

A wrapped tool runs as itself: invoked with a tool call (as agents do), the tool makes its own
``ToolMessage`` (its ``InjectedToolCallId`` and other injected arguments filled in, its
``status="error"`` for a handled ``ToolException``, its own ``artifact`` for a
``content_and_artifact`` tool), and the wrapper cuts that message's ``content`` as the tool,
with the call's id (``tool_call_id``: the artifact tools find the output by it). The cut
message's ``artifact`` is ``{"artifact_id": ..., "truncation": {...}}`` when the tool has
none of its own; a tool's own artifact is kept, and the truncation goes to
``response_metadata["truncation"]``. Image, file, audio and video blocks pass on unchanged;
only the text beside them is cut. Invoked with arguments alone, the wrapper returns the cut
content. The wrapped tool keeps its name, description and argument schema.

The artifact tools use ``response_format="content_and_artifact"`` (the artifact is the call's
result as a dict). A bad call of one raises :class:`~langchain_core.tools.ToolException`,
which the tool (``handle_tool_error=True``) turns into an error ``ToolMessage`` the model
reads and acts on.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, ToolException
from pydantic import ConfigDict

from truncation_core import Truncator
from truncation_core_adapters.common import (
    check_clash,
    cut,
    cut_sync,
    joined_text,
    split_media,
)

__all__ = ["ArtifactTool", "TruncatingTool", "artifact_tools", "truncating_tools"]

#: Content block types a model reads as media (langchain-core's standard blocks, and the
#: provider formats it passes on).
_MEDIA_TYPES = frozenset({"image", "image_url", "file", "audio", "video", "input_image",
                          "input_file", "input_audio"})


def _is_media(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") in _MEDIA_TYPES


def _text_of(block: Any) -> str | None:
    if isinstance(block, str):
        return block
    if isinstance(block, dict) and block.get("type") == "text":
        text = block.get("text")
        return text if isinstance(text, str) else None
    return None


def _artifact(processed: Any) -> dict[str, Any]:
    metadata = processed.metadata.to_dict()
    return {"artifact_id": metadata.get("artifact_id"), "truncation": metadata}


def _call_id(input: Any) -> str | None:
    """The id of a tool call given as a tool's input (None for plain arguments)."""
    if isinstance(input, dict) and input.get("type") == "tool_call":
        call_id = input.get("id")
        return call_id if isinstance(call_id, str) else None
    return None


class TruncatingTool(BaseTool):
    """A tool whose output *truncator* cuts (see the module); build with
    :func:`truncating_tools`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    tool: BaseTool
    truncator: Truncator

    def invoke(self, input: Any, config: RunnableConfig | None = None,
               **kwargs: Any) -> Any:
        output = self.tool.invoke(input, config, **kwargs)
        text, media = self._split(output)
        processed = None if text is None else cut_sync(
            self.truncator, text, tool=self.name, tool_call_id=_call_id(input))
        return self._shown(output, processed, media)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None,
                      **kwargs: Any) -> Any:
        output = await self.tool.ainvoke(input, config, **kwargs)
        text, media = self._split(output)
        processed = None if text is None else await cut(
            self.truncator, text, tool=self.name, tool_call_id=_call_id(input))
        return self._shown(output, processed, media)

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("run_manager", None)
        return self.invoke(_input(args, kwargs))

    async def _arun(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("run_manager", None)
        return await self.ainvoke(_input(args, kwargs))

    @staticmethod
    def _split(output: Any) -> tuple[Any, list[Any]]:
        """What of *output* is cut, and its media blocks."""
        content = output.content if isinstance(output, ToolMessage) else output
        rest, media = split_media(content, _is_media)
        return (rest if not media else joined_text(rest, _text_of)), media

    @staticmethod
    def _shown(output: Any, processed: Any, media: list[Any]) -> Any:
        """*output* with its content cut (as *processed* says), its media blocks kept."""
        if processed is None:
            return output
        content: Any = processed.content
        if media:
            content = [{"type": "text", "text": processed.content}, *media]
        if not isinstance(output, ToolMessage):
            return content
        update: dict[str, Any] = {"content": content}
        if output.artifact is None:
            update["artifact"] = _artifact(processed)
        else:  # the tool's own artifact stays where its caller looks for it
            update["response_metadata"] = {**output.response_metadata,
                                           "truncation": _artifact(processed)}
        return output.model_copy(update=update)


def _input(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    if args and not kwargs and len(args) == 1:
        return args[0]
    return kwargs


def truncating_tools(tools: Iterable[BaseTool], truncator: Truncator) -> list[BaseTool]:
    """Each tool of *tools*, its output cut by *truncator* as that tool (see the module). A
    tool named like an artifact tool is refused with :class:`ValueError`."""
    tools = list(tools)
    check_clash((tool.name for tool in tools), truncator, "tools")
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
