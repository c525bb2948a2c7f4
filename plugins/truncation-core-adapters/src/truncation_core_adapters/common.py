"""What every adapter does the same way: cut one tool result, and know the artifact tools."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from truncation_core import Truncator, as_content

if TYPE_CHECKING:
    from truncation_core import ToolResult, TruncationResult

__all__ = ["artifact_tool_names", "cut", "retry_message"]


def artifact_tool_names(truncator: Truncator) -> frozenset[str]:
    """The names the model sees for the artifact tools."""
    return frozenset(truncator.config.artifact_tools.all().values())


async def cut(truncator: Truncator, value: Any, *, tool: str,
              **context: Any) -> TruncationResult | None:
    """*value* (what tool *tool* returned: text, bytes, or structured data, which becomes
    JSON) cut by *truncator* off the event loop; None when it is within its limits, so that
    the caller hands on the tool's own value unchanged."""
    content = as_content(value)
    context = {k: v for k, v in context.items() if v is not None}
    result = await truncator.aprocess(content, tool=tool, **context)
    return result if result.metadata.was_truncated else None


def retry_message(result: ToolResult) -> str:
    """What the model reads when an artifact-tool call was wrong: the error, and that it may
    call again."""
    return f"{result.content}\nFix the arguments and call {result.tool} again."
