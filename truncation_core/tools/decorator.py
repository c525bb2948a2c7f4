"""The ``@truncator.tool`` decorator: a tool function whose result goes through the processor.

The wrapper returns what the model should see, a ``str``, and says so: its signature and
annotations are the function's, with ``str`` as the return type, so that a framework that
reads them (an MCP server's ``@tool()``, pydantic-ai, LangChain) builds the right schema and
does not try to validate a ``str`` as the function's own return type.

What the function returns is turned into text first (:func:`as_content`): ``str`` and
``bytes`` as they are; pydantic models with ``model_dump_json``; attrs classes, dataclasses,
mappings, lists and tuples as JSON (so that they are cut by the ``element`` strategy, at
element boundaries); anything else with ``str``. Async functions stay async. A generator
function (sync or async) is consumed chunk by chunk through a stream, in memory bounded by
the budget: ``str`` and ``bytes`` chunks as they are, any other item as one line of JSON.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from truncation_core.pipeline.results import TruncationResult

if TYPE_CHECKING:
    from truncation_core.pipeline.results import TruncationResult
    from truncation_core.streaming.stream import AsyncStream, Stream

__all__ = ["Processor", "as_content", "wrap_tool"]


class Processor(Protocol):
    """What a wrapped tool needs of its :class:`~truncation_core.Truncator`."""

    def process(self, content: str | bytes, *, tool: str | None = None,
                **context: Any) -> TruncationResult: ...

    async def aprocess(self, content: str | bytes, *, tool: str | None = None,
                       **context: Any) -> TruncationResult: ...

    def stream(self, *, tool: str | None = None, **context: Any) -> Stream: ...

    def astream(self, *, tool: str | None = None, **context: Any) -> AsyncStream: ...


#: Arguments of a decorated tool that describe the call (they go into the artifact's summary).
_CONTEXT_ARGUMENTS = ("path", "command", "query", "url", "tool_call_id")


def _plain(value: Any) -> Any:
    """``json.dumps``' *default*: structured values inside a result, as JSON-ready data."""
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):  # pydantic v2
        return dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)

    if attrs.has(type(value)):
        return attrs.asdict(value, recurse=True)
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def _is_structured(value: object) -> bool:
    if isinstance(value, type):
        return False
    if isinstance(value, Mapping | list | tuple) or dataclasses.is_dataclass(value):
        return True
    if callable(getattr(value, "model_dump_json", None)):
        return True

    return attrs.has(type(value))


def as_content(result: object) -> str | bytes:
    """What a tool returned, as the text the processor cuts (see the module)."""
    if isinstance(result, str | bytes):
        return result
    if isinstance(result, bytearray | memoryview):
        return bytes(result)
    if result is None:
        return ""

    if isinstance(result, TruncationResult):
        return result.content
    dump_json = getattr(result, "model_dump_json", None)
    if callable(dump_json) and not isinstance(result, type):
        try:
            text = dump_json()
            if isinstance(text, str):
                return text
        except Exception:  # a model that cannot dump itself: the generic path below
            pass
    if _is_structured(result):
        try:
            return json.dumps(result, ensure_ascii=False, default=_plain)
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


def _chunk(item: object) -> str | bytes:
    if isinstance(item, str | bytes):
        return item
    content = as_content(item)
    if isinstance(content, str):
        return content + "\n"
    return content + b"\n"


def _feed(stream: Stream, items: Iterator[Any]) -> None:
    for item in items:
        stream.write(_chunk(item))


def _honest(wrapper: Callable[..., Any], signature: inspect.Signature | None) -> None:
    """Give *wrapper* the function's signature and annotations, returning ``str``."""
    annotations = dict(getattr(wrapper, "__annotations__", {}) or {})
    annotations["return"] = str
    wrapper.__annotations__ = annotations
    if signature is not None:
        wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
            return_annotation=str)


def wrap_tool(truncator: Processor, fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """*fn*, whose result goes through the processor as tool *name*; the wrapper returns
    what the model should see (see the module)."""
    try:
        signature: inspect.Signature | None = inspect.signature(fn)
    except (TypeError, ValueError):
        signature = None
    wrapper: Callable[..., Any]

    if inspect.isasyncgenfunction(fn):
        @functools.wraps(fn)
        async def agen_wrapper(*args: Any, **kwargs: Any) -> str:
            items: AsyncIterator[Any] = fn(*args, **kwargs)
            async with truncator.astream(tool=name, **_context(signature, args, kwargs)) as s:
                async for item in items:
                    await s.write(_chunk(item))
            return (await s.result()).content

        wrapper = agen_wrapper
    elif inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def gen_wrapper(*args: Any, **kwargs: Any) -> str:
            with truncator.stream(tool=name, **_context(signature, args, kwargs)) as s:
                _feed(s, fn(*args, **kwargs))
            return s.result().content

        wrapper = gen_wrapper
    elif inspect.iscoroutinefunction(fn):
        @functools.wraps(fn)
        async def async_wrapper(*args: Any, **kwargs: Any) -> str:
            result = await fn(*args, **kwargs)
            processed = await truncator.aprocess(as_content(result), tool=name,
                                                 **_context(signature, args, kwargs))
            return processed.content

        wrapper = async_wrapper
    else:
        @functools.wraps(fn)
        def sync_wrapper(*args: Any, **kwargs: Any) -> str:
            result = fn(*args, **kwargs)
            return truncator.process(as_content(result), tool=name,
                                     **_context(signature, args, kwargs)).content

        wrapper = sync_wrapper
    _honest(wrapper, signature)
    return wrapper
