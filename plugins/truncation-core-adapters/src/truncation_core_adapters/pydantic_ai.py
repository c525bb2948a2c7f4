"""pydantic-ai: a toolset that cuts what an agent's tools return, and adds the artifact tools.

    from pydantic_ai import Agent
    from truncation_core_adapters.pydantic_ai import TruncatingToolset

    agent = Agent(model, toolsets=[TruncatingToolset(my_toolset, truncator)])

Each tool's result goes through ``truncator.aprocess`` (as tool *name*, so its policy
applies). A result within its limits is returned unchanged; a cut one comes back as a
:class:`~pydantic_ai.messages.ToolReturn` whose ``return_value`` is what the model sees and
whose ``metadata`` carries the truncation metadata (``artifact_id`` among it). Media parts
(``BinaryContent``, ``ImageUrl`` and the other file URLs) pass on unchanged, alone or in a
list; only the other parts are cut. The artifact tools are listed with strict schemas (every
property required, ``null`` for not given); a bad call of one raises
:class:`~pydantic_ai.exceptions.ModelRetry` with the error the model can act on.

Prefixes: put a framework prefix *inside*, around your own toolset
(``TruncatingToolset(toolset.prefixed("ci"), truncator)``), and name the artifact tools with
``artifact_tools.prefix`` (``ci_``) if they should carry it too. A prefix outside
(``TruncatingToolset(...).prefixed("ci")``) would rename the artifact tools behind the
truncator's back, so that the hints named tools the model does not have: it is refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_ai import ModelRetry, RunContext, ToolReturn
from pydantic_ai.messages import (
    AudioUrl,
    BinaryContent,
    DocumentUrl,
    ImageUrl,
    ModelResponse,
    ToolCallPart,
    VideoUrl,
)
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.toolsets import AbstractToolset, WrapperToolset
from pydantic_ai.toolsets.abstract import ToolsetTool
from pydantic_core import SchemaValidator, core_schema

from truncation_core import Truncator
from truncation_core_adapters.common import (
    artifact_tool_names,
    check_clash,
    cut,
    retry_message,
    split_media,
)

__all__ = ["TruncatingToolset"]

#: The artifact tools' arguments are checked by call_tool, against the published schema.
_ANY_ARGUMENTS = SchemaValidator(schema=core_schema.any_schema())

#: What a model reads as media, not as text.
_MEDIA = (BinaryContent, ImageUrl, AudioUrl, DocumentUrl, VideoUrl)


def _is_media(value: Any) -> bool:
    return isinstance(value, _MEDIA)


_OUTSIDE = ("a prefix or renaming put around TruncatingToolset renames the artifact tools, "
            "and the hints would name tools the model does not have: put it inside, around "
            "your toolset (TruncatingToolset(toolset.prefixed('ci'), truncator)), and name "
            "the artifact tools with artifact_tools.prefix or artifact_tools.names")


class TruncatingToolset(WrapperToolset[Any]):
    """*wrapped*, with every result cut by *truncator*, plus the artifact tools.

    :param artifact_tools: list the artifact tools (``get_artifact`` ...), named as the
        truncator's ``artifact_tools:`` configuration says. Without them, the markers name no
        tool (:meth:`Truncator.publishing <truncation_core.Truncator.publishing>`).
    :param max_retries: retries the model gets for a bad artifact-tool call.
    """

    def __init__(self, wrapped: AbstractToolset[Any], truncator: Truncator, *,
                 artifact_tools: bool = True, max_retries: int = 3) -> None:
        super().__init__(wrapped)
        self.truncator = truncator if artifact_tools else truncator.publishing(())
        self.artifact_tools = artifact_tools
        self.max_retries = max_retries

    def prefixed(self, prefix: str) -> Any:
        """Refused: see the module (a prefix goes inside)."""
        raise ValueError(f"TruncatingToolset(...).prefixed({prefix!r}): {_OUTSIDE}")

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        # pydantic-ai lists a wrapped toolset's tools with the layers of prefixes and renames
        # that wrap it (private, hence getattr): a prefix, or a renaming of an artifact tool,
        # means the model sees other names than the hints give.
        names = artifact_tool_names(self.truncator) if self.artifact_tools else frozenset()
        for layer in getattr(ctx, "_tool_name_path", ()):
            if isinstance(layer, str) or (isinstance(layer, Mapping) and names & set(layer)):
                raise ValueError(_OUTSIDE)
        tools = dict(await self.wrapped.get_tools(ctx))
        if not self.artifact_tools:
            return tools
        check_clash(tools, self.truncator, "the wrapped toolset")
        for entry in self.truncator.tool_schemas("openai", strict=True):
            function = entry["function"]
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
        called = _called_as(ctx)
        is_artifact_tool = tool.toolset is self and name in artifact_tool_names(self.truncator)
        if called not in (None, name) and (is_artifact_tool or called.endswith("_" + name)):
            raise ValueError(_OUTSIDE)  # a prefix, or an artifact tool renamed, outside
        if is_artifact_tool:
            result = await self.truncator.acall_tool(name, tool_args)
            if result.error is not None and result.error.code in (400, 404):
                raise ModelRetry(retry_message(result))
            return ToolReturn(return_value=result.content, metadata=result.to_dict())
        returned = await self.wrapped.call_tool(name, tool_args, ctx, tool)
        value = returned.return_value if isinstance(returned, ToolReturn) else returned
        text, media = split_media(value, _is_media)
        processed = None if text is None else await cut(self.truncator, text, tool=name,
                                                         tool_call_id=ctx.tool_call_id)
        if processed is None:
            return returned
        shown = processed.content if not media else [processed.content, *media]
        metadata = processed.metadata.to_dict()
        if isinstance(returned, ToolReturn):
            return ToolReturn(return_value=shown, content=returned.content,
                              metadata={"truncation": metadata, "tool": returned.metadata})
        return ToolReturn(return_value=shown, metadata={"truncation": metadata})


def _called_as(ctx: RunContext[Any]) -> str | None:
    """The name the model called this tool call by (from the model's last response), or
    None when it cannot be told."""
    call_id = ctx.tool_call_id
    if call_id is None or not ctx.messages:
        return None
    last = ctx.messages[-1]
    if isinstance(last, ModelResponse):
        for part in last.parts:
            if isinstance(part, ToolCallPart) and part.tool_call_id == call_id:
                return part.tool_name
    return None
