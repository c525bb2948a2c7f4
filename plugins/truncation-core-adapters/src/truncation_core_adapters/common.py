"""What every adapter does the same way: cut one tool result, keep its media parts, and know
the artifact tools."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from truncation_core import Truncator, as_content

if TYPE_CHECKING:
    from truncation_core import ToolResult, TruncationResult

__all__ = ["artifact_tool_names", "check_clash", "cut", "cut_sync", "joined_text",
           "retry_message", "split_media"]


def artifact_tool_names(truncator: Truncator) -> frozenset[str]:
    """The names the model sees for the artifact tools it is given
    (``artifact_tools.published``)."""
    return frozenset(truncator.config.artifact_tools.given().values())


def check_clash(names: Iterable[str | None], truncator: Truncator, where: str) -> None:
    """Refuse a tool of *names* that an artifact tool would shadow: the model could no longer
    call one of the two."""
    taken = artifact_tool_names(truncator)
    for name in names:
        if name in taken:
            raise ValueError(f"tool {name!r}: {where} has a tool of that name; rename the "
                             "artifact tools (artifact_tools: prefix or names)")


async def cut(truncator: Truncator, value: Any, *, tool: str,
              **context: Any) -> TruncationResult | None:
    """*value* (what tool *tool* returned: text, bytes, or structured data, which becomes
    JSON) cut by *truncator* off the event loop; None when it is within its limits, so that
    the caller hands on the tool's own value unchanged."""
    content = as_content(value)
    context = {k: v for k, v in context.items() if v is not None}
    result = await truncator.aprocess(content, tool=tool, **context)
    return result if result.metadata.was_truncated else None


def cut_sync(truncator: Truncator, value: Any, *, tool: str,
             **context: Any) -> TruncationResult | None:
    """:func:`cut` for synchronous code."""
    context = {k: v for k, v in context.items() if v is not None}
    result = truncator.process(as_content(value), tool=tool, **context)
    return result if result.metadata.was_truncated else None


def split_media(value: Any, is_media: Callable[[Any], bool]) -> tuple[Any, list[Any]]:
    """*value* (a tool's result) as what is cut, and its media parts (images, files), which
    pass on unchanged: a model reads them as media, and their bytes as text would be noise.

    A media part alone gives ``(None, [value])``. A list or tuple holding media gives its
    other items (one alone as itself, several as a list, none as None) and its media items,
    in their order. Anything else gives ``(value, [])``."""
    if is_media(value):
        return None, [value]
    if isinstance(value, list | tuple) and any(is_media(item) for item in value):
        rest = [item for item in value if not is_media(item)]
        media = [item for item in value if is_media(item)]
        return (rest[0] if len(rest) == 1 else rest or None), media
    return value, []


def joined_text(rest: Any, text_of: Callable[[Any], str | None]) -> Any:
    """*rest* (what :func:`split_media` left to cut) as one text when it is a list of text
    parts (``text_of`` gives a part's text, None for a part that is not text), else as it
    is."""
    if isinstance(rest, list):
        texts = [text_of(item) for item in rest]
        if all(text is not None for text in texts):
            return "\n".join(texts)  # type: ignore[arg-type]
        return rest
    text = text_of(rest)
    return rest if text is None else text


def retry_message(result: ToolResult) -> str:
    """What the model reads when an artifact-tool call was wrong: the error, and that it may
    call again."""
    return f"{result.content}\nFix the arguments and call {result.tool} again."
