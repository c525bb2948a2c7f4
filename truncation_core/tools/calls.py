"""Running one call of the artifact tools an agent uses to read artifacts back.

Four tools: ``get_artifact`` (line ranges, and pages), ``artifact_head``, ``artifact_tail`` and
``artifact_grep`` (their schemas are :mod:`truncation_core.tools.schemas`). :func:`call_tool`
runs one call and never raises: a bad call comes back as a
:class:`ToolResult` with a 400 or 404 error the model can read and act on. Output is
line-numbered and sized to the tool's ``inline_limit`` (configurable like any tool's:
``tools.get_artifact.inline_limit``), and every page ends by saying where the next one starts.

:meth:`Truncator.tool_schemas <truncation_core.Truncator.tool_schemas>`,
:meth:`~truncation_core.Truncator.call_tool` and :meth:`~truncation_core.Truncator.tool` are
thin wrappers over this package.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import traceback
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from truncation_core.errors import (
    ArtifactError,
    ArtifactNotFound,
    InvalidArtifactId,
    PatternError,
    StoreError,
    did_you_mean,
)
from truncation_core.retrieval import read_page, read_tail, recorded_lines
from truncation_core.tools.schemas import (
    DEFAULT_LINES,
    GREP_DEFAULT_MATCHES,
    REQUIRED,
    SPECS,
)
from truncation_core.types.artifacts import ArtifactRef
from truncation_core.types.storage import resolve_handle

if TYPE_CHECKING:
    from truncation_core.config.model import Config
    from truncation_core.retrieval import GrepResult, Page, Retrieval
    from truncation_core.types.policy import Policy
    from truncation_core.types.storage import ArtifactStore

__all__ = ["ArtifactHost", "ToolError", "ToolResult", "acall_tool", "call_tool"]


class ArtifactHost(Protocol):
    """What a call needs of its :class:`~truncation_core.Truncator`: the artifact tools'
    names, the store and reading it back, and the tools' policies."""

    @property
    def config(self) -> Config: ...

    @property
    def store(self) -> ArtifactStore: ...

    @property
    def artifacts(self) -> Retrieval: ...

    def policy(self, tool: str | None = None) -> Policy: ...

log = logging.getLogger("truncation_core")

#: The smallest page worth returning: a tool's inline_limit below it is raised to it, so that
#: a tiny global inline_limit does not leave no room for lines under the header and footer.
MIN_PAGE_CHARS = 1000

# -- results ----------------------------------------------------------------------------------


def _frozen_arguments(value: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    return None if value is None else MappingProxyType(dict(value))


@attrs.frozen(kw_only=True)
class ToolError:
    #: 400 for a bad call (arguments, tool name, pattern), 404 for an unknown artifact, 500
    #: when the store failed.
    code: int
    message: str


@attrs.frozen(kw_only=True)
class ToolResult:
    """What :func:`call_tool` returns: text for the model, and the same facts for programs."""

    tool: str
    #: What to give the model as the tool's result (the error message for an error).
    content: str
    error: ToolError | None = None
    #: The arguments of the call that reads on from here, when there is more of what the call
    #: asked for: None at the end of the artifact, and once every line up to the call's
    #: ``end_line`` (``lines`` for ``artifact_head``) is returned. Following them returns
    #: exactly the lines asked for.
    next_arguments: Mapping[str, Any] | None = attrs.field(
        default=None, converter=_frozen_arguments)

    @property
    def is_error(self) -> bool:
        return self.error is not None

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "content": self.content, "is_error": self.is_error,
                "error": attrs.asdict(self.error) if self.error else None,
                "next_arguments": dict(self.next_arguments) if self.next_arguments else None}

    def __repr__(self) -> str:  # never the content
        error = f", error={self.error.code}" if self.error else ""
        return f"ToolResult(tool={self.tool!r}, chars={len(self.content)}{error})"


class _BadCall(Exception):
    def __init__(self, message: str, code: int = 400) -> None:
        super().__init__(message)
        self.code = code


def _error(tool: str, code: int, message: str) -> ToolResult:
    label = {400: "bad request", 404: "not found", 500: "server error"}[code]
    return ToolResult(tool=tool, content=f"Error {code} ({label}): {message}",
                      error=ToolError(code=code, message=message))


# -- arguments ----------------------------------------------------------------------------------

_DIGITS = re.compile(r"[0-9]{1,15}")
#: How much of an unknown name an error message repeats (then escaped: ASCII only).
NAME_SHOWN_CHARS = 40


def _arguments(tool: str, raw: object) -> dict[str, Any]:
    """*raw* checked against *tool*'s published schema (:data:`SPECS`): the same properties,
    types, bounds, lengths and patterns, so that what the schema accepts is accepted. A
    ``null`` is an argument not given (strict mode sends every property). Two leniencies
    beyond the schema: integers as strings of ASCII digits, and ``"true"``/``"false"``."""
    if raw is None:
        raw = {}
    if isinstance(raw, str | bytes):
        try:
            raw = json.loads(raw or "{}")
        except (ValueError, RecursionError):
            raise _BadCall("arguments: expected a JSON object") from None
    if not isinstance(raw, Mapping):
        raise _BadCall(f"arguments: expected an object, got {type(raw).__name__}")
    _, properties = SPECS[tool]
    args: dict[str, Any] = {}
    for key, value in raw.items():
        if not isinstance(key, str) or key not in properties:
            raise _BadCall(f"unknown argument {_unknown(key, properties)}; "
                           f"the tool takes {', '.join(properties)}")
        if value is None:
            continue
        args[key] = _check(key, value, properties[key])
    for key in REQUIRED[tool]:
        if key not in args:
            raise _BadCall(f"{key}: required")
    return args


def _check(key: str, value: object, schema: Mapping[str, Any]) -> Any:
    """*value* of argument *key*, checked against its *schema* (keywords of
    :data:`~truncation_core.tools.schemas.SCHEMA_KEYWORDS`)."""
    kind = schema["type"]
    if kind == "integer":
        # Models often send numbers as strings; accept ASCII digits only ("١٢" is not 12).
        if isinstance(value, str) and _DIGITS.fullmatch(value.strip()):
            value = int(value.strip())
        # JSON Schema's integer is any number with no fraction: 10.0 is 10.
        elif isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise _BadCall(f"{key}: expected an integer, got {_describe(value)}")
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            bounds = f"from {low} to {high}" if high is not None else f"{low} or more"
            raise _BadCall(f"{key}: expected an integer {bounds}, got {value}")
        return value
    if kind == "boolean":
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        if not isinstance(value, bool):
            raise _BadCall(f"{key}: expected true or false, got {_describe(value)}")
        return value
    if kind != "string":
        raise AssertionError(f"{key}: schema type {kind!r} has no check")
    if not isinstance(value, str):
        raise _BadCall(f"{key}: expected a string, got {_describe(value)}")
    if len(value) < schema.get("minLength", 0):
        raise _BadCall(f"{key}: expected a non-empty string, got an empty one"
                       if schema["minLength"] == 1 else
                       f"{key}: at least {schema['minLength']} characters, got {len(value)}")
    if len(value) > schema.get("maxLength", len(value)):
        raise _BadCall(f"{key}: at most {schema['maxLength']} characters, got {len(value)}")
    pattern = schema.get("pattern")
    if pattern is not None and not _ecma_pattern(pattern).search(value):
        if key == "artifact_id":  # say what an id (or a tool call id) looks like
            raise _BadCall(str(InvalidArtifactId(value, handles=True))) from None
        raise _BadCall(f"{key}: does not match {pattern}")
    return value


@functools.lru_cache(maxsize=16)
def _ecma_pattern(pattern: str) -> re.Pattern[str]:
    # In the schema's (ECMA-262) regex, "$" is the end of the string; in Python's it also
    # matches before a final newline.
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


def _unknown(name: object, known: Iterable[str]) -> str:
    """An unknown tool or argument name for an error message: the model must see what it
    sent wrong, so it is repeated, escaped (ASCII, quoted) and capped, with a did-you-mean
    when it is close to a known one."""
    if not isinstance(name, str):
        return f"<a key of type {type(name).__name__}>"
    shown = json.dumps(name[:NAME_SHOWN_CHARS], ensure_ascii=True)
    if len(name) > NAME_SHOWN_CHARS:
        shown += f" (first {NAME_SHOWN_CHARS} of {len(name)} characters)"
    hint = did_you_mean(name, known)
    return f"{shown} ({hint.removeprefix('; ')})" if hint else shown


def _describe(value: object) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return repr(value)
    return f"a value of type {type(value).__name__}"


# -- dispatch -----------------------------------------------------------------------------------


def call_tool(truncator: ArtifactHost, name: str, arguments: object = None, *,
              names: Mapping[str, str] | None = None) -> ToolResult:
    """Run one tool call. Never raises; see :class:`ToolResult`.

    *name* is the name the model sees (``artifact_tools:`` configures it; each tool's own
    name is understood too, unless another tool is configured to be called that).
    *names* maps a tool's own name (``get_artifact``) to the name the model knows it by, for
    this call, over the configured ones (an MCP proxy that prefixes the tools to avoid a
    clash): the calls a result suggests (``Next page: ...``) use it. The result's ``tool``
    is the name called."""
    configured = truncator.config.artifact_tools
    shown_names = {**configured.all(), **(names or {})}
    tool = configured.own_name(name) if isinstance(name, str) else None
    if tool is None and isinstance(name, str):
        tool = next((own for own, seen in shown_names.items() if seen == name), None)
    shown = name if tool is not None else "?"
    try:
        if tool is None:
            raise _BadCall(f"unknown tool {_unknown(name, shown_names.values())}; "
                           f"available: {', '.join(shown_names.values())}")
        args = _arguments(tool, arguments)
        if "artifact_id" in args:  # a tool call id stands for its newest artifact

            args["artifact_id"] = resolve_handle(truncator.store, args["artifact_id"])
        reader = truncator.artifacts
        budget = max(truncator.policy(tool).inline_limit, MIN_PAGE_CHARS)
        result = _HANDLERS[tool](_Reading(reader, budget, shown_names), args)
        return attrs.evolve(result, tool=shown) if result.tool != shown else result
    except _BadCall as exc:
        return _error(shown, exc.code, str(exc))
    except ArtifactNotFound as exc:
        return _error(shown, 404, str(exc))
    except PatternError as exc:
        return _error(shown, 400, str(exc))
    except StoreError as exc:
        # The type, not the message: a store's message may carry paths, or whatever a
        # plugin backend puts there, and this text goes to the model.
        log.warning("tool %s: store error %s", tool, type(exc).__name__)
        return _error(shown, 500, f"the artifact store failed ({type(exc).__name__})")
    except ArtifactError as exc:  # our own errors describe the value, never repeat it
        return _error(shown, 400, str(exc))
    except Exception as exc:  # never raise into the agent loop
        # The frames, not the message: an unexpected exception's message may quote content.
        log.error("tool %s failed: %s\n%s", tool, type(exc).__name__,
                  "".join(traceback.format_tb(exc.__traceback__)).rstrip())
        return _error(shown, 500, f"internal error ({type(exc).__name__})")


async def acall_tool(truncator: ArtifactHost, name: str, arguments: object = None, *,
                     names: Mapping[str, str] | None = None) -> ToolResult:
    """:func:`call_tool` in a worker thread, so that the event loop is never blocked (a
    regular expression may search for up to its deadline). Cancelling the awaiting task
    raises :class:`asyncio.CancelledError` at once; the call in the thread runs on to its
    end (bounded by the grep deadline), holds no lock, and its result is dropped."""
    # only for async code: 51 ms (python -X importtime, fastest of 9, 2026-12)
    import asyncio

    return await asyncio.to_thread(functools.partial(call_tool, truncator, name, arguments,
                                                     names=names))


@attrs.frozen
class _Reading:
    """What every handler needs: the reader, the page budget, the names the model sees."""

    reader: Retrieval
    budget: int
    names: Mapping[str, str]

    def call(self, tool: str, **arguments: Any) -> str:
        """A call of *tool* as the model would write it."""
        args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}"
                         for k, v in arguments.items())
        return f"{self.names.get(tool, tool)}({args})"


def _header(ref: ArtifactRef, what: str) -> str:
    source = f" | {ref.summary}" if ref.summary else ""
    lines = f"{ref.lines:,} lines, " if ref.lines else ""
    header = f"[{ref.id}: {what} | {lines}{ref.size}{source}]"
    if ref.interrupted:
        header += f"\n[This artifact is partial: its output was {ref.interrupted}.]"
    if ref.cut is not None:
        c = ref.cut
        header += (f"\n[This artifact is itself cut: original lines {c.first_line:,}-"
                   f"{c.last_line:,} ({c.omitted_bytes:,} bytes) were not kept. Line numbers "
                   f"here are the artifact's.]")
    return header + "\n"


def _width(ref: ArtifactRef) -> int:
    return max(6, len(str(max(ref.lines, 1))))


def _page_result(r: _Reading, tool: str, ref: ArtifactRef, page: Page, width: int, *,
                 end_line: int | None = None) -> ToolResult:
    if not page.text:
        return ToolResult(tool=tool, content=_header(ref, "empty") + "[The artifact is empty.]")
    span = f"lines {page.first_line:,}-{page.last_line:,}"
    if page.starts_mid_line:
        span += f" (line {page.first_line:,} continued from byte {page.offset:,})"
    body = page.numbered(width)
    # A call that asked for lines up to end_line goes on to end_line, and no further: every
    # next call keeps it, so that following them returns exactly the lines asked for.
    up_to = {} if end_line is None else {"end_line": end_line}
    nxt: dict[str, Any] | None = None
    if page.ends_mid_line:
        nxt = {"artifact_id": ref.id, "offset": page.end_offset, **up_to}
        footer = (f"[Line {page.last_line:,} continues: "
                  f"{r.call('get_artifact', **nxt)}]")
    elif page.next_line is None:
        footer = f"[End of artifact: line {page.last_line:,} is the last.]"
    elif end_line is not None and page.last_line >= end_line:
        # The lines asked for are all here: nothing more to follow (next_arguments None);
        # the model is still told how to read on.
        more = {"artifact_id": ref.id, "start_line": page.next_line}
        footer = f"[Lines {end_line + 1:,} and on: {r.call('get_artifact', **more)}]"
    else:
        nxt = {"artifact_id": ref.id, "start_line": page.next_line, **up_to}
        footer = f"[Next page: {r.call('get_artifact', **nxt)}]"
    content = _header(ref, span) + body + "\n" + footer
    return ToolResult(tool=tool, content=content, next_arguments=nxt)


def _room(r: _Reading, ref: ArtifactRef) -> int:
    """Characters left for lines once the header and the longest footers are counted."""
    longest_name = max(map(len, r.names.values()), default=0)
    frame = len(_header(ref, "x" * 80)) + 2 * (len(ref.id) + 90 + longest_name)
    return max(r.budget - frame, 1)


def _get_artifact(r: _Reading, args: dict[str, Any]) -> ToolResult:
    reader = r.reader
    ref = reader.stat(args["artifact_id"])
    width = _width(ref)
    room = _room(r, ref)
    offset, end = args.get("offset"), args.get("end_line")
    if offset is not None:
        if "start_line" in args:
            raise _BadCall("offset: use either offset or start_line, not both")
        if offset >= ref.bytes and ref.bytes:
            raise _BadCall(f"offset: {offset} is past the end of the artifact "
                           f"({ref.bytes:,} bytes)")

        with reader.open(ref.id) as f:
            page = read_page(f, offset=offset, max_chars=room, line_cost=width + 2,
                             artifact_id=ref.id, end_line=end)
        if not page.text and ref.bytes:
            raise _BadCall(f"offset: {offset} lies after end_line ({end})")
        return _page_result(r, "get_artifact", ref, page, width, end_line=end)
    start = args.get("start_line", 1)
    if end is not None and end < start:
        raise _BadCall(f"end_line: must be at least start_line ({start}), got {end}")
    page = reader.lines(ref.id, start, end, max_chars=room, line_cost=width + 2)
    if not page.text and ref.bytes:
        raise _BadCall(f"start_line: {start} is past the end; the artifact has "
                       f"{ref.lines:,} lines")
    return _page_result(r, "get_artifact", ref, page, width, end_line=end)


def _artifact_head(r: _Reading, args: dict[str, Any]) -> ToolResult:
    reader = r.reader
    ref = reader.stat(args["artifact_id"])
    width = _width(ref)
    n = args.get("lines", DEFAULT_LINES)
    page = reader.lines(ref.id, 1, n, max_chars=_room(r, ref),
                        line_cost=width + 2)
    return _page_result(r, "artifact_head", ref, page, width, end_line=n)


def _artifact_tail(r: _Reading, args: dict[str, Any]) -> ToolResult:
    reader = r.reader
    ref = reader.stat(args["artifact_id"])
    width = _width(ref)

    with reader.open(ref.id) as f:  # the ref is at hand: no second stat for the line count
        page = read_tail(f, args.get("lines", DEFAULT_LINES), max_chars=_room(r, ref),
                         line_cost=width + 2, total_lines=recorded_lines(ref),
                         artifact_id=ref.id)
    result = _page_result(r, "artifact_tail", ref, page, width)
    if page.first_line > 1 and page.text:
        earlier = {"artifact_id": ref.id, "start_line": max(1, page.first_line - 100),
                   "end_line": page.first_line - 1}
        content = result.content + f"\n[Earlier lines: {r.call('get_artifact', **earlier)}]"
        return attrs.evolve(result, content=content)
    return result


def _artifact_grep(r: _Reading, args: dict[str, Any]) -> ToolResult:
    reader = r.reader
    ref = reader.stat(args["artifact_id"])
    width = _width(ref)
    result = reader.grep(ref.id, args["pattern"], regex=args.get("regex", False),
                         ignore_case=args.get("ignore_case", False),
                         context=args.get("context", 0),
                         max_matches=args.get("max_matches", GREP_DEFAULT_MATCHES),
                         start_line=args.get("start_line", 1))
    return _grep_result(r, ref, result, width, args)


def _grep_result(r: _Reading, ref: ArtifactRef, result: GrepResult, width: int,
                 args: Mapping[str, Any]) -> ToolResult:
    kind = "regular expression" if result.regex else "text"
    case = ", ignoring case" if result.ignore_case else ""
    room = _room(r, ref)
    rows: list[str] = []
    used = shown = previous = 0
    stopped_at: int | None = None
    for line, is_match in result.merged():
        row = f"{line.number:>{width}}{':' if is_match else '-'}\t{line.text}" + (
            " [line clipped]" if line.clipped else "")
        gap = ["--"] if args.get("context") and previous and line.number > previous + 1 else []
        cost = sum(len(r) + 1 for r in (*gap, row))
        if is_match and shown and used + cost > room:
            stopped_at = line.number
            break
        if not is_match and used + cost > room:
            continue
        rows.extend((*gap, row))
        used += cost
        shown += is_match
        previous = line.number
    more_from = stopped_at if stopped_at is not None else result.next_line
    pattern = json.dumps(result.pattern, ensure_ascii=False)
    summary = (f"no line matches {pattern} ({kind}{case})" if not result.matches else
               f"{shown} matching line{'s' if shown != 1 else ''} for {pattern} ({kind}{case})")
    nxt = None
    if more_from is not None:
        nxt = {k: v for k, v in args.items() if k != "start_line"} | {"start_line": more_from}
        footer = f"[More matches from line {more_from:,}: {r.call('artifact_grep', **nxt)}]"
    else:
        footer = "[No more matches.]"
    body = "\n".join(rows)
    content = _header(ref, summary) + (body + "\n" if body else "") + footer
    return ToolResult(tool="artifact_grep", content=content, next_arguments=nxt)


_HANDLERS: Mapping[str, Callable[[_Reading, dict[str, Any]], ToolResult]] = (
    MappingProxyType({"get_artifact": _get_artifact, "artifact_head": _artifact_head,
                      "artifact_tail": _artifact_tail, "artifact_grep": _artifact_grep}))


