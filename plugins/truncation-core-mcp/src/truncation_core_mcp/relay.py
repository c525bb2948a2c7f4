"""The proxy: relays JSON-RPC between the host and the downstream server, and cuts results.

Every message passes through unchanged, with its own id, in both directions: prompts,
resources and their templates and subscriptions, completions, logging, progress,
cancellation, pings, and the server's own requests to the host (sampling, elicitation,
roots). Host and server negotiate the protocol version between themselves. The proxy steps in
only where it must:

- ``initialize`` / ``server/discover`` results gain the ``tools`` capability (the proxy
  always has tools: the artifact tools);
- ``tools/list`` results gain the artifact tools on their last page (named so as not to
  clash, see :mod:`truncation_core_mcp.naming`), and each ``outputSchema`` admits the
  reference object (see :mod:`truncation_core_mcp.results`);
- ``tools/call`` of an artifact tool is answered by the proxy; other ``tools/call`` results
  go through the :class:`~truncation_core_mcp.results.ResultProcessor`;
- a downstream server that crashes, hangs past the timeout, sends a malformed or oversized
  message, or cannot be started, gives the host a clear error that names it, and the proxy
  goes on (restarting the server on the next request with ``restart``).

A message the proxy does not change is forwarded as the bytes it received.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import re
import secrets
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import attrs

from truncation_core_mcp.downstream import DownstreamProcess, ServerLink, describe_exit
from truncation_core_mcp.framing import EDGE, Oversized
from truncation_core_mcp.naming import ToolNames
from truncation_core_mcp.results import META_KEY, CallInfo, ResultProcessor, exposed_output_schema

if TYPE_CHECKING:
    from truncation_core_mcp.shared import SharedServer

__all__ = ["UNKNOWN", "HostLink", "Outbound", "ProxyOptions", "Relay", "broken_line",
           "edge_id", "edge_id_span", "partial_json"]

log = logging.getLogger("truncation_core_mcp")

INTERNAL_ERROR = -32603
METHOD_NOT_FOUND = -32601
INVALID_REQUEST = -32600
PARSE_ERROR = -32700
#: The least time the handshake (initialize, server/discover) may take: a server that has
#: just started may be slow to answer its first request.
STARTUP_TIMEOUT = 60.0
#: Messages longer than this are parsed in a worker thread, so the relay keeps moving.
PARSE_IN_THREAD = 1024 * 1024
#: The ``_meta`` keys of a 2026-07-28 request envelope, copied to the proxy's own requests.
_ENVELOPE = "io.modelcontextprotocol/"
#: The envelope key that marks a request of the 2026-07-28 era, whose results carry a
#: ``resultType``.
_MODERN = "io.modelcontextprotocol/protocolVersion"
#: Where a 2026-07-28 result names its server.
_SERVER_INFO = "io.modelcontextprotocol/serverInfo"
#: Commands that run the server named by their first argument: errors name both.
_LAUNCHERS = re.compile(r"^(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|npx|uvx|pipx|uv|"
                        r"docker|podman|java|ruby|php|perl|dotnet)(\.exe)?$")
_HEAD_ID = re.compile(rb'^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d+|"[^"\\]{0,200}")')
_TAIL_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"[^"\\]{0,200}")\s*\}\s*$')
#: An artifact_id that is a request number (digits only): one of this connection's calls.
_REQUEST_NUMBER = re.compile(r"-?[0-9]{1,15}")


def _argv(argv: Sequence[str]) -> tuple[str, ...]:
    return tuple(str(a) for a in argv)


@attrs.frozen(kw_only=True)
class ProxyOptions:
    """How the proxy runs its downstream server."""

    argv: tuple[str, ...] = attrs.field(converter=_argv)
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    #: Start the server again on the next request after it stopped.
    restart: bool = False
    #: Seconds a request may wait for the server's answer (progress notifications for it
    #: start the wait again); None: no limit.
    timeout: float | None = 300.0
    #: The longest message accepted from the server, in bytes.
    max_message_bytes: int = 128 * 1024 * 1024


@attrs.frozen(kw_only=True)
class Outbound:
    """A message for the host: the bytes received (unchanged), or a message the proxy made."""

    raw: bytes | None = None
    data: Mapping[str, Any] | None = None
    #: The host's request this message belongs to (for transports that route by request).
    related: Any = None

    def encoded(self) -> bytes:
        if self.raw is not None:
            return self.raw
        return encode(self.data)


def encode(data: Any) -> bytes:
    """One JSON-RPC message as a line's bytes (without the newline)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: escape them, as JSON allows
        return json.dumps(data, separators=(",", ":")).encode("ascii")


def decode(raw: bytes) -> Any:
    """Parse one message: with pydantic-core's parser (twice as fast as ``json`` on large
    messages), or ``json`` for what it refuses (a lone surrogate escape)."""
    from pydantic_core import from_json

    try:
        return from_json(raw)
    except ValueError:
        return json.loads(raw)


class HostLink(Protocol):
    async def send(self, message: Outbound) -> None: ...


@attrs.define
class _Pending:
    """A host request the downstream server has not answered yet."""

    id: Any
    method: str
    tool: str | None = None
    arguments: Mapping[str, Any] | None = None
    envelope: Mapping[str, Any] = attrs.field(factory=dict)
    progress_token: Any = None
    #: For tools/list: whether this request started a listing (no cursor).
    first_page: bool = False
    #: The server process it was sent to.
    process: ServerLink | None = None
    timer: asyncio.TimerHandle | None = None


def _object(value: Any) -> dict[str, Any]:
    """*value* if it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _key(request_id: Any) -> str:
    return json.dumps(request_id)


class Relay:
    """One host connection and its downstream server."""

    def __init__(self, host: HostLink, processor: ResultProcessor, options: ProxyOptions,
                 *, connection: str | None = None, shared: SharedServer | None = None) -> None:
        self.host = host
        #: The server process sessions share (``--share-server``), or None: one of its own.
        self.shared = shared
        self.processor = processor
        self.options = options
        #: Names this connection in its tool calls' handles (see :meth:`handle`): random, so
        #: that no two connections, in this process or another run of the same named
        #: session, share a handle.
        self.connection = connection or secrets.token_hex(6)
        self.label = _label(options.argv)
        #: The server's name, from its initialize result (serverInfo.name).
        self.server_name: str | None = None
        self.downstream: ServerLink | None = None
        self._ever_started = False
        self._stopped_because: str | None = None
        self._init_request: dict[str, Any] | None = None
        self._initialized: bytes | None = None
        self._pending: dict[str, _Pending] = {}
        self._cancelled: set[str] = set()
        self._internal: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        #: The downstream tools by name, once listed; None until then (or after a change).
        self._tools: dict[str, dict[str, Any]] | None = None
        self._listing: list[dict[str, Any]] = []
        self._start_lock = asyncio.Lock()
        self._catalogue_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closing = False
        #: Messages for the host, in order; one writer sends them.
        self._outbox: asyncio.Queue[Outbound | None] = asyncio.Queue()

    # -- naming the server and the calls ---------------------------------------------------

    def handle(self, request_id: Any) -> str:
        """The handle of this connection's tool call *request_id*, as markers show it and the
        artifact tools take it in place of an artifact id: ``<connection>:<request id>``.

        A JSON-RPC request id is the client's count, which starts again at 1 in every
        connection: alone, ``2`` would name the second call of every connection that shares
        the store's session (over ``--http``, or in a named session), and a lookup by it
        would find whichever of them was stored last."""
        return f"{self.connection}:{request_id}"

    def _own_call(self, arguments: Any) -> tuple[Any, int | None]:
        """*arguments* of an artifact tool, with an ``artifact_id`` that is a bare request id
        (a JSON number, as the MCP Inspector's CLI sends ``2``, or a string of digits) taken as
        this connection's tool call of that id; and that id, when one was taken so."""
        if not isinstance(arguments, dict):
            return arguments, None
        value = arguments.get("artifact_id")
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 53:
            number = int(value)
        elif isinstance(value, str) and _REQUEST_NUMBER.fullmatch(value):
            number = int(value)
        if number is None:
            return arguments, None
        return {**arguments, "artifact_id": self.handle(number)}, number


    @property
    def who(self) -> str:
        """The downstream server, as errors name it."""
        if self.server_name and self.server_name != self.label:
            return f"downstream MCP server {self.server_name!r} ({self.label})"
        return f"downstream MCP server {self.label!r}"

    # -- lifecycle ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the downstream server; a failure is kept and reported to the host's
        requests."""
        async with self._start_lock:
            await self._start_downstream()

    async def _start_downstream(self) -> str | None:
        """Start the server (the lock is held); return why it could not be started."""
        process: ServerLink
        if self.shared is not None:
            process = self.shared.link(self)
        else:
            process = DownstreamProcess(
                self.options.argv, env=self.options.env, cwd=self.options.cwd,
                max_size=self.options.max_message_bytes, on_message=self.from_downstream,
                on_oversized=self.oversized, on_exit=lambda code: self.exited(process, code))
        self._ever_started = True
        try:
            await process.start()
        except (OSError, ValueError) as exc:
            reason = f"could not be started ({type(exc).__name__}: {exc})"
            self._stopped_because = reason
            log.error("%s %s", self.who, reason)
            return reason
        self.downstream = process
        self._stopped_because = None
        self._tools = None
        log.info("started %s (pid %s)", self.who, process.pid)
        return None

    async def run(self, messages: Any) -> None:
        """Serve the host: *messages* yields ``(raw, data)`` for each message it sends
        (either may be None); when it ends, the host is gone."""
        await self.start()
        writer = asyncio.get_running_loop().create_task(self._write_host())
        try:
            async for raw, data in messages:
                await self.from_host(raw, data)
        finally:
            await self.close()
            self._outbox.put_nowait(None)
            with contextlib.suppress(asyncio.TimeoutError, Exception):
                await asyncio.wait_for(writer, 2.0)
            writer.cancel()

    async def _write_host(self) -> None:
        while True:
            message = await self._outbox.get()
            if message is None:
                return
            try:
                await self.host.send(message)
            except (ConnectionError, OSError) as exc:
                log.warning("could not write to the host (%s)", type(exc).__name__)
                return

    async def close(self) -> None:
        """The host is gone: stop the server."""
        self._closing = True
        if self.downstream is not None:
            await self.downstream.stop()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.TimeoutError, Exception):
                await asyncio.wait_for(asyncio.shield(task), 1.0)
            task.cancel()

    async def _running(self, envelope: Mapping[str, Any]) -> str | None:
        """Make sure the server runs (restarting it when allowed); return why it does not."""
        if self.downstream is not None and self.downstream.running:
            return None
        async with self._start_lock:
            if self.downstream is not None and self.downstream.running:
                return None
            if self._ever_started and not self.options.restart:
                return (f"is not running: it {self._stopped_because or 'stopped'}; start the "
                        "proxy with --restart to have it restarted on the next call")
            reason = await self._start_downstream()
            if reason is not None:
                return reason
            if self._init_request is not None:
                log.info("replaying the host's initialize to the restarted %s", self.who)
                try:
                    await self._request("initialize", self._init_request.get("params"),
                                        envelope={})
                except _DownstreamFailed as exc:
                    return f"was restarted, but {exc.reason}"
                if self._initialized is not None and self.downstream is not None:
                    self._send_down(self._initialized)
            return None

    # -- host -> downstream ---------------------------------------------------------------------

    async def from_host(self, raw: bytes | None, data: Any = None) -> None:
        """Handle one message from the host (*raw* bytes, or *data* already parsed)."""
        if data is None:
            try:
                data = decode(raw or b"")
            except (ValueError, RecursionError):
                self._reply_error(None, PARSE_ERROR, "Parse error: not JSON")
                return
        if not isinstance(data, dict):
            self._reply_error(None, INVALID_REQUEST, "Invalid request: not an object")
            return
        method = data.get("method")
        if isinstance(method, str) and "id" in data:
            await self._host_request(data, raw)
        elif isinstance(method, str):
            await self._host_notification(method, data, raw)
        else:  # a response to the server's own request (sampling, elicitation, roots)
            await self._forward_down(raw, data)

    async def _host_request(self, data: dict[str, Any], raw: bytes | None) -> None:
        request_id, method = data["id"], data["method"]
        params = _object(data.get("params"))
        meta = _object(params.get("_meta"))
        envelope = {k: v for k, v in meta.items() if k.startswith(_ENVELOPE)}
        if method == "tools/call":
            name = params.get("name")
            if isinstance(name, str) and await self._is_artifact_tool(name, envelope):
                self._spawn(self._answer_artifact_tool(request_id, name, params.get("arguments"),
                                                       modern=_MODERN in envelope))
                return
        if method == "initialize":  # a new server gets this one, not the last one replayed
            self._init_request = None
        problem = await self._running(envelope)
        if problem is not None:
            self._fail(request_id, method, problem, modern=_MODERN in envelope)
            return
        if method == "initialize":
            self._init_request = data
        pending = _Pending(id=request_id, method=method, envelope=envelope,
                           progress_token=meta.get("progressToken"),
                           first_page=method == "tools/list" and not params.get("cursor"),
                           process=self.downstream)
        if method == "tools/call":
            pending.tool = params.get("name") if isinstance(params.get("name"), str) else None
            arguments = params.get("arguments")
            pending.arguments = arguments if isinstance(arguments, dict) else None
        key = _key(request_id)
        self._pending[key] = pending
        self._cancelled.discard(key)
        self._arm_timer(key)
        await self._forward_down(raw, data)

    async def _host_notification(self, method: str, data: dict[str, Any],
                                 raw: bytes | None) -> None:
        if method == "notifications/initialized":
            self._initialized = raw if raw is not None else encode(data)
        if method == "notifications/cancelled":
            key = _key(_object(data.get("params")).get("requestId"))
            pending = self._pending.pop(key, None)
            if pending is None:
                return  # answered already, or one of the proxy's own tools: nothing to cancel
            self._disarm(pending)
            self._cancelled.add(key)
        if self.downstream is None or not self.downstream.running:
            return  # nothing to tell a server that is not running
        await self._forward_down(raw, data)

    async def _forward_down(self, raw: bytes | None, data: Any) -> None:
        if self.downstream is None or not self.downstream.running:
            return
        self._send_down(raw if raw is not None else encode(data))
        await self.downstream.drain()

    def _send_down(self, line: bytes) -> None:
        assert self.downstream is not None
        try:
            self.downstream.send(line)
        except ConnectionError:
            pass  # its exit is reported to every pending request

    # -- downstream -> host ---------------------------------------------------------------------

    def from_downstream(self, raw: bytes) -> None:
        """A line from the server (without its newline)."""
        if len(raw) > PARSE_IN_THREAD:
            self._spawn(self._parse_in_thread(raw))
            return
        try:
            data = decode(raw)
        except (ValueError, RecursionError):
            self._unparsable(raw, partial_json(raw))
            return
        self._dispatch(raw, data)

    async def _parse_in_thread(self, raw: bytes) -> None:
        try:
            data = await asyncio.to_thread(decode, raw)
        except (ValueError, RecursionError):
            self._unparsable(raw, await asyncio.to_thread(partial_json, raw))
            return
        self._dispatch(raw, data)

    def _dispatch(self, raw: bytes, data: Any) -> None:
        if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
            self._malformed(raw, data)
            return
        method = data.get("method")
        if isinstance(method, str):
            related = None
            if method == "notifications/progress":
                related = self._progress(data)
            elif method == "notifications/tools/list_changed":
                self._tools = None
            if "id" in data or related is None:
                related = self._only_pending_call()
            self._to_host(Outbound(raw=raw, related=related))
            return
        if "id" not in data or ("result" in data) == ("error" in data):
            self._malformed(raw, data)
            return
        key = _key(data["id"])
        future = self._internal.pop(key, None)
        if future is not None:
            if not future.done():
                future.set_result(data)
            return
        if key in self._cancelled:
            self._cancelled.discard(key)
            return  # the host no longer waits for it
        pending = self._pending.pop(key, None)
        if pending is None:
            # A second answer to a call, or one to a request never made: the host has its
            # answer (or never asked), and this one would reach it uncut.
            log.warning("%s sent an answer (%d bytes) to request %s, which is not waiting for "
                        "one: a second answer, or one never asked for; dropped", self.who,
                        len(raw), _shown_id(data["id"]))
            return
        self._disarm(pending)
        if "error" in data:
            self._error_response(pending, raw, data)
        elif not isinstance(data["result"], dict):
            self._fail_pending(pending, "sent a malformed result (not an object)")
        elif pending.method == "tools/call":
            self._spawn(self._tool_result(pending, raw, data))
        elif pending.method == "tools/list":
            self._spawn(self._tools_listed(pending, data))
        elif pending.method in ("initialize", "server/discover"):
            self._initialized_result(pending, raw, data)
        else:
            self._to_host(Outbound(raw=raw))

    def _error_response(self, pending: _Pending, raw: bytes, data: dict[str, Any]) -> None:
        error = data["error"] if isinstance(data["error"], dict) else {}
        if pending.method == "tools/list" and error.get("code") == METHOD_NOT_FOUND:
            # A server without tools: the host still gets the artifact tools.
            self._spawn(self._tools_listed(pending, {"jsonrpc": "2.0", "id": pending.id,
                                                     "result": {"tools": []}}))
            return
        if pending.method == "tools/call" and not self.processor.fits(pending.tool or "",
                                                                     len(raw)):
            self._spawn(self._tool_error(pending, raw, data, error))
            return
        self._to_host(Outbound(raw=raw))

    async def _tool_error(self, pending: _Pending, raw: bytes, data: dict[str, Any],
                          error: dict[str, Any]) -> None:
        """A JSON-RPC error answering a tools/call, over the tool's limit: its message (and
        data) cut as an error result is, and kept whole as an artifact."""
        message = error.get("message")
        text = message if isinstance(message, str) else json.dumps(message, ensure_ascii=False)
        if "data" in error:
            text += "\n" + json.dumps(error["data"], indent=1, ensure_ascii=False)
        call = CallInfo(tool=pending.tool or "", arguments=pending.arguments,
                        call_id=self.handle(pending.id), server=self.server_name or self.label)
        try:
            cut = await asyncio.to_thread(self.processor.cut_error, text, call)
        except Exception as exc:  # a bug must not cost the host its answer
            log.error("cutting the error of %s failed (%s)", call.tool, type(exc).__name__)
            cut = None
        if cut is None:
            self._to_host(Outbound(raw=raw))
            return
        shown, entry = cut
        self._to_host(Outbound(data={**data, "error": {
            "code": error.get("code", INTERNAL_ERROR), "message": shown,
            "data": {META_KEY: [entry]}}}))

    def _initialized_result(self, pending: _Pending, raw: bytes, data: dict[str, Any]) -> None:
        result = data["result"]
        meta = _object(result.get("_meta"))
        for info in (result.get("serverInfo"), meta.get(_SERVER_INFO)):
            if isinstance(info, dict) and isinstance(info.get("name"), str) and info["name"]:
                self.server_name = info["name"]
        capabilities = result.get("capabilities")
        if isinstance(capabilities, dict) and isinstance(capabilities.get("tools"), dict):
            self._to_host(Outbound(raw=raw))
            return
        capabilities = dict(capabilities) if isinstance(capabilities, dict) else {}
        capabilities["tools"] = {}
        self._to_host(Outbound(data={**data, "result": {**result, "capabilities": capabilities}}))

    async def _tools_listed(self, pending: _Pending, data: dict[str, Any]) -> None:
        result = data["result"]
        tools = result.get("tools")
        if not isinstance(tools, list):
            self._fail_pending(pending, "sent a malformed tools/list result")
            return
        if pending.first_page:
            self._listing = []
        self._listing.extend(t for t in tools if isinstance(t, dict))
        shown = [_exposed_tool(t) for t in tools]
        if not result.get("nextCursor"):
            self._set_catalogue(self._listing)
            shown.extend(self.processor.tool_definitions())
        self._to_host(Outbound(data={**data, "result": {**result, "tools": shown}}))

    async def _tool_result(self, pending: _Pending, raw: bytes, data: dict[str, Any]) -> None:
        tool = pending.tool or ""
        if self.processor.fits(tool, len(raw)):
            self._to_host(Outbound(raw=raw))
            return
        import mcp_types
        from pydantic import ValidationError

        result = data["result"]
        try:
            mcp_types.CallToolResult.model_validate(result, by_name=False)
        except ValidationError as exc:
            self._fail_pending(pending,
                             f"sent a malformed tools/call result ({exc.error_count()} "
                             "validation errors)")
            return
        try:
            tools = await self._catalogue(pending.envelope)
        except _DownstreamFailed:
            tools = {}
        declared = tools.get(tool, {}).get("outputSchema")
        call = CallInfo(tool=tool, arguments=pending.arguments, call_id=self.handle(pending.id),
                        server=self.server_name or self.label,
                        output_schema=declared if isinstance(declared, dict) else None)
        try:
            changed = await asyncio.to_thread(self.processor.process, result, call)
        except Exception as exc:  # a bug must not cost the host its result
            log.error("cutting the result of %s failed (%s); forwarded unchanged", tool,
                      type(exc).__name__)
            changed = None
        if changed is None:
            self._to_host(Outbound(raw=raw))
        else:
            self._to_host(Outbound(data={**data, "result": changed}))

    def _progress(self, data: dict[str, Any]) -> Any:
        """The host request a progress notification is about; its wait starts again."""
        token = _object(data.get("params")).get("progressToken")
        for key, pending in self._pending.items():
            if pending.progress_token is not None and pending.progress_token == token:
                self._arm_timer(key)
                return pending.id
        return None

    def _only_pending_call(self) -> Any:
        """The host request a server's own request or notification most likely belongs to:
        the only one pending, if there is one."""
        ids = [p.id for p in self._pending.values() if p.method == "tools/call"]
        return ids[0] if len(ids) == 1 else None

    # -- the proxy's own tools and requests ------------------------------------------------

    async def _is_artifact_tool(self, name: str, envelope: Mapping[str, Any]) -> bool:
        if self.processor.names.tool_for(name) is None and self._tools is not None:
            return False
        if self._tools is None:  # called before any listing: find out what clashes first
            with contextlib.suppress(_DownstreamFailed):
                await self._catalogue(envelope)
        return self.processor.names.tool_for(name) is not None

    async def _answer_artifact_tool(self, request_id: Any, name: str, arguments: Any, *,
                                    modern: bool) -> None:
        tool = self.processor.names.tool_for(name)
        assert tool is not None
        arguments, number = self._own_call(arguments)
        bare = (number, self.handle(number)) if number is not None else None
        result = await asyncio.to_thread(self.processor.call_tool, tool, arguments,
                                         bare_call=bare)
        self._to_host(Outbound(data={"jsonrpc": "2.0", "id": request_id,
                                     "result": _result(result, modern)}))

    async def _catalogue(self, envelope: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        """The downstream tools by name, listing them first if they are not known."""
        if self._tools is not None:
            return self._tools
        async with self._catalogue_lock:
            if self._tools is not None:
                return self._tools
            problem = await self._running(envelope)
            if problem is not None:
                raise _DownstreamFailed(problem)
            tools: list[dict[str, Any]] = []
            cursor = None
            for _ in range(1000):
                params: dict[str, Any] = {"cursor": cursor} if cursor else {}
                try:
                    result = await self._request("tools/list", params, envelope=envelope)
                except _DownstreamFailed as exc:
                    if exc.code == METHOD_NOT_FOUND:
                        break
                    raise
                page = result.get("tools")
                if isinstance(page, list):
                    tools.extend(t for t in page if isinstance(t, dict))
                cursor = result.get("nextCursor")
                if not cursor:
                    break
            self._set_catalogue(tools)
            return self._tools or {}

    def _set_catalogue(self, tools: Sequence[dict[str, Any]]) -> None:
        self._tools = {t["name"]: t for t in tools if isinstance(t.get("name"), str)}
        names = ToolNames.avoiding(self._tools)
        if names != self.processor.names:
            log.info("artifact tools are named %s", ", ".join(names.shown.values()))
            self.processor.rename(names)

    async def _request(self, method: str, params: Any, *,
                       envelope: Mapping[str, Any]) -> dict[str, Any]:
        """Send the proxy's own request to the server; its result, or _DownstreamFailed."""
        if self.downstream is None or not self.downstream.running:
            raise _DownstreamFailed(f"is not running: it {self._stopped_because or 'stopped'}")
        request_id = f"trunc-mcp-proxy-{next(self._ids)}"
        params = dict(params or {})
        if envelope:
            params["_meta"] = {**params.get("_meta", {}), **envelope}
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._internal[_key(request_id)] = future
        self._send_down(encode({"jsonrpc": "2.0", "id": request_id, "method": method,
                                "params": params}))
        timeout = (None if self.options.timeout is None
                   else self._timeout(method, self.downstream))
        try:
            answer = await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise _DownstreamFailed(f"did not answer {method} within {timeout:g} s") from None
        finally:
            self._internal.pop(_key(request_id), None)
        if "error" in answer:
            error = answer["error"] if isinstance(answer["error"], dict) else {}
            raise _DownstreamFailed(f"answered {method} with an error: "
                                    f"{str(error.get('message'))[:200]}", error.get("code"))
        result = answer.get("result")
        return result if isinstance(result, dict) else {}

    # -- failures -------------------------------------------------------------------------------

    def _arm_timer(self, key: str) -> None:
        pending = self._pending.get(key)
        if pending is None or self.options.timeout is None:
            return
        self._disarm(pending)
        timeout = self._timeout(pending.method, pending.process)
        pending.timer = asyncio.get_running_loop().call_later(timeout, self._timed_out, key)

    def _timeout(self, method: str, process: ServerLink | None) -> float:
        """How long a request may wait: at least STARTUP_TIMEOUT for the handshake, and for
        any request to a server that has not said anything yet (it may still be starting)."""
        assert self.options.timeout is not None
        starting = process is not None and not process.heard_from
        if starting or method in ("initialize", "server/discover"):
            return max(self.options.timeout, STARTUP_TIMEOUT)
        return self.options.timeout

    @staticmethod
    def _disarm(pending: _Pending) -> None:
        if pending.timer is not None:
            pending.timer.cancel()
            pending.timer = None

    def _timed_out(self, key: str) -> None:
        pending = self._pending.pop(key, None)
        if pending is None:
            return
        self._cancelled.add(key)
        timeout = self._timeout(pending.method, pending.process)
        reason = f"did not answer {pending.method} within {timeout:g} s"
        log.warning("%s %s", self.who, reason)
        if self.downstream is not None and self.downstream.running:
            self._send_down(encode({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                    "params": {"requestId": pending.id,
                                               "reason": f"no answer within {timeout:g} s"}}))
            if self.options.restart:  # it may be wedged: the next request starts a new one
                self.downstream.kill(f"was stopped after it {reason}")
                self._stopped_because = self.downstream.stop_reason
                reason += "; it was stopped, and the next call starts it again"
        self._fail_pending(pending, reason)

    def exited(self, process: ServerLink, returncode: int | None) -> None:
        """*process* has exited (its output read to the end)."""
        how = process.stop_reason or describe_exit(returncode)
        current = process is self.downstream
        if current:
            self._stopped_because = how
        if self._closing:
            return
        log.warning("%s %s", self.who, how)
        if current:
            for future in self._internal.values():
                if not future.done():
                    future.set_exception(_DownstreamFailed(f"{how} before answering"))
        for key, item in list(self._pending.items()):
            if item.process is not process:
                continue
            del self._pending[key]
            self._disarm(item)
            self._fail_pending(item,
                       f"{how} while handling this {item.method} request")

    def _unparsable(self, raw: bytes, partial: Any) -> None:
        """A line that is not JSON: skipped when it is not an answer, else the request it
        answers fails at once, rather than waiting out the timeout (see :func:`broken_line`)."""
        found = broken_line(raw, partial)
        if isinstance(found, str):
            log.warning("%s %s", self.who, found)
        else:
            self.answer_lost(*found)

    def answer_lost(self, request_id: Any, reason: str) -> None:
        """The answer to *request_id* came broken: fail that request. For an unknown request
        (``UNKNOWN``): the only one waiting, if only one is."""
        future: asyncio.Future[dict[str, Any]] | None = None
        pending: _Pending | None = None
        if request_id is not UNKNOWN:
            key = _key(request_id)
            future = self._internal.pop(key, None)
            pending = self._pending.pop(key, None) if future is None else None
        else:
            waiting = [f for f in self._internal.values() if not f.done()]
            if len(waiting) + len(self._pending) == 1:
                if waiting:
                    future = waiting[0]
                    self._internal = {k: f for k, f in self._internal.items() if f is not future}
                else:
                    pending = self._pending.pop(next(iter(self._pending)))
        if future is not None:
            if not future.done():
                future.set_exception(_DownstreamFailed(reason))
            log.warning("%s %s", self.who, reason)
            return
        if pending is None:
            log.warning("%s %s, for no request waiting (or for one of several it does not "
                        "name); dropped", self.who, reason)
            return
        log.warning("%s %s", self.who, reason)
        self._disarm(pending)
        self._fail_pending(pending, reason)

    def _malformed(self, raw: bytes, data: Any) -> None:
        request_id = data.get("id") if isinstance(data, dict) else None
        key = _key(request_id)
        pending = self._pending.pop(key, None) if request_id is not None else None
        log.warning("%s sent a malformed message (%d bytes, not a JSON-RPC 2.0 message)%s",
                    self.who, len(raw), "" if pending else "; ignored")
        if pending is not None:
            self._disarm(pending)
            self._fail_pending(pending,
                       "sent a malformed answer (not a JSON-RPC 2.0 message)")

    def oversized(self, message: Oversized) -> None:
        """A message from the server over the limit."""
        pending = None
        for pattern, edge in ((_HEAD_ID, message.head), (_TAIL_ID, message.tail)):
            found = pattern.search(edge)
            if found is not None:
                with contextlib.suppress(ValueError):
                    pending = self._pending.pop(_key(json.loads(found.group(1))), None)
            if pending is not None:
                break
        if pending is None:
            calls = [k for k, p in self._pending.items() if p.method == "tools/call"]
            if len(calls) == 1:
                pending = self._pending.pop(calls[0])
        reason = (f"sent a message of {message.size:,} bytes, over the proxy's limit of "
                  f"{self.options.max_message_bytes:,} (--max-message-bytes)")
        log.warning("%s %s%s", self.who, reason, "" if pending else "; dropped")
        if pending is not None:
            self._disarm(pending)
            self._fail_pending(pending, reason + " as its answer")

    def _fail_pending(self, pending: _Pending, problem: str) -> None:
        self._fail(pending.id, pending.method, problem, modern=_MODERN in pending.envelope)

    def _fail(self, request_id: Any, method: str, problem: str, *, modern: bool = False) -> None:
        """Tell the host that its request failed because of the server: a tool error for a
        tool call (the model sees it), a JSON-RPC error otherwise."""
        message = f"{self.who} {problem}."
        if method == "ping" and "not running" in problem:
            self._to_host(Outbound(data={"jsonrpc": "2.0", "id": request_id,
                                                "result": {}}))
            return
        if method == "tools/call":
            self._to_host(Outbound(data={"jsonrpc": "2.0", "id": request_id, "result": _result(
                {"content": [{"type": "text", "text": message}], "isError": True}, modern)}))
            return
        self._reply_error(request_id, INTERNAL_ERROR, message)

    def _reply_error(self, request_id: Any, code: int, message: str) -> None:
        self._to_host(Outbound(data={"jsonrpc": "2.0", "id": request_id,
                                            "error": {"code": code, "message": message}}))

    # -- plumbing -------------------------------------------------------------------------------

    def _to_host(self, message: Outbound) -> None:
        self._outbox.put_nowait(message)

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            exc = task.exception()
            log.error("proxy task failed: %s", type(exc).__name__, exc_info=exc)


#: An id that could not be read.
UNKNOWN = object()


def broken_line(raw: bytes, partial: Any) -> tuple[Any, str] | str:
    """What a line from the server that is not valid JSON is. One that does not start as a
    message does (``{``) is a stray line a server logged to its stdout, as is a JSON line cut
    short that is no answer (a log record, a notification): what to log is returned. Else it
    is an answer cut short or garbled: ``(request id, reason)``, the id read from what can
    be parsed of it (*partial*, see :func:`partial_json`) or from its ends, else ``UNKNOWN``."""
    if raw.lstrip()[:1] != b"{":
        return f"wrote a line that is not JSON ({len(raw)} bytes) to its stdout; skipped"
    if isinstance(partial, dict) and ("method" in partial or not
                                       {"jsonrpc", "id", "result", "error"} & partial.keys()):
        return (f"sent a message that is not valid JSON ({len(raw)} bytes, cut short or "
                "garbled), which is not an answer; dropped")
    reason = (f"sent an answer that is not valid JSON ({len(raw):,} bytes: cut short, or "
              "garbled)")
    if isinstance(partial, dict) and "id" in partial:
        return partial["id"], reason
    return edge_id(raw), reason


def partial_json(raw: bytes) -> Any:
    """What can be parsed of a line that is not valid JSON (its complete members, when it
    was cut short), or None."""
    from pydantic_core import from_json

    try:
        return from_json(raw, allow_partial=True)
    except (ValueError, RecursionError):
        return None


def edge_id(raw: bytes) -> Any:
    """The id a message's first or last bytes give (``{"jsonrpc": "2.0", "id": 7, ...`` or
    ``..., "id": 7}``), else ``UNKNOWN``."""
    found = edge_id_span(raw[:EDGE], raw[-EDGE:])
    return UNKNOWN if found is None else found[0]


def edge_id_span(head: bytes, tail: bytes) -> tuple[Any, str, int, int] | None:
    """The id in *head* (a message's first bytes) or *tail* (its last), where the common
    orders of members put it: ``(id, "head" or "tail", start, end)``, the span being that of
    the id's JSON in that edge; None when neither holds one."""
    for where, pattern, edge in (("head", _HEAD_ID, head), ("tail", _TAIL_ID, tail)):
        found = pattern.search(edge)
        if found is not None:
            with contextlib.suppress(ValueError):
                return json.loads(found.group(1)), where, found.start(1), found.end(1)
    return None


def _shown_id(request_id: Any) -> str:
    """A request id for a log line: JSON, at most 40 characters."""
    text = json.dumps(request_id, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


class _DownstreamFailed(Exception):
    def __init__(self, reason: str, code: Any = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


def _label(argv: Sequence[str]) -> str:
    """The command, as errors name it: ``mcp-server-filesystem``, ``python server.py``."""
    if not argv:
        return "?"
    name = os.path.basename(argv[0])
    if _LAUNCHERS.match(name):
        script = next((a for a in argv[1:] if not a.startswith("-")), None)
        if script is not None:
            return f"{name} {os.path.basename(script)}"
    return name


def _result(result: dict[str, Any], modern: bool) -> dict[str, Any]:
    """A result the proxy makes, in the era of the request it answers."""
    return {**result, "resultType": "complete"} if modern else result


def _exposed_tool(tool: Any) -> Any:
    """A downstream tool as the host sees it: unchanged, but for an ``outputSchema`` that
    also admits the reference object."""
    if isinstance(tool, dict) and isinstance(tool.get("outputSchema"), dict):
        return {**tool, "outputSchema": exposed_output_schema(tool["outputSchema"])}
    return tool
