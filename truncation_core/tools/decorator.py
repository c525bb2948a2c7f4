"""The ``@truncator.tool`` decorator: a tool function whose result goes through the processor.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from truncation_core.truncator import Truncator

__all__ = ["wrap_tool"]


#: Arguments of a decorated tool that describe the call (they go into the artifact's summary).
_CONTEXT_ARGUMENTS = ("path", "command", "query", "url", "tool_call_id")


def _as_content(result: object) -> str | bytes:
    if isinstance(result, str | bytes):
        return result
    if isinstance(result, bytearray | memoryview):
        return bytes(result)
    if result is None:
        return ""
    if isinstance(result, Mapping | list | tuple):
        try:
            return json.dumps(result, ensure_ascii=False, default=str)
        except (TypeError, ValueError, RecursionError):
            pass
    return str(result)


def _context(signature: inspect.Signature | None, args: tuple[Any, ...],
             kwargs: dict[str, Any]) -> dict[str, Any]:
    if signature is None:
        return {}
    try:
        bound = signature.bind_partial(*args, **kwargs)
    except TypeError:
        return {}
    return {key: str(value) for key, value in bound.arguments.items()
            if key in _CONTEXT_ARGUMENTS and value is not None}


def wrap_tool(truncator: Truncator, fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """*fn*, whose result (str, bytes, or anything JSON-serialisable) goes through the
    processor; the wrapper returns what the model should see. Async functions stay async."""
    try:
        signature: inspect.Signature | None = inspect.signature(fn)
    except (TypeError, ValueError):
        signature = None

    if inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def async_wrapper(*args: Any, **kwargs: Any) -> str:
            result = await fn(*args, **kwargs)
            processed = await truncator.aprocess(_as_content(result), tool=name,
                                                 **_context(signature, args, kwargs))
            return processed.content

        return async_wrapper

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> str:
        result = fn(*args, **kwargs)
        return truncator.process(_as_content(result), tool=name,
                                 **_context(signature, args, kwargs)).content

    return wrapper
