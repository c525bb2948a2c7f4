"""``trunc mcp proxy --http``: the proxy served over Streamable HTTP, for hosts that connect
by URL.

Each HTTP session (``Mcp-Session-Id``) is one :class:`~truncation_core_mcp.relay.Relay` with
its own downstream server, started by the session's ``initialize``; at most ``max_servers``
sessions (so processes) at once: the next ``initialize`` is refused (503) with an error that
says so. With ``share_server``, every session uses one server process instead
(:mod:`truncation_core_mcp.shared`). Every request must carry the bearer token
(:mod:`truncation_core_mcp.auth`). The wire is the SDK's
:class:`~mcp.server.streamable_http.StreamableHTTPServerTransport` (SSE streams, session
checks, DNS rebinding protection); the relay sees its messages as plain JSON-RPC. Sessions use
the handshake era (``initialize``); a client that probes ``server/discover`` first is told
the session is missing, which the official clients take as "use the handshake".
"""

from __future__ import annotations

import contextlib
import json
import logging
import uuid
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp_types as types
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER, StreamableHTTPServerTransport
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.message import ServerMessageMetadata, SessionMessage

from truncation_core_mcp.auth import Access, BearerAuth
from truncation_core_mcp.relay import Outbound, ProxyOptions, Relay
from truncation_core_mcp.results import ResultProcessor
from truncation_core_mcp.shared import SharedServer

__all__ = ["ProxyApp", "serve_proxy_http"]

log = logging.getLogger("truncation_core_mcp")

#: The largest request body accepted from the host.
MAX_BODY = 4 * 1024 * 1024
#: Seconds a session may stay without any request before it is closed.
IDLE_TIMEOUT = 30 * 60.0
#: Sessions (each with its downstream server process) at once, unless --max-servers says.
DEFAULT_MAX_SERVERS = 8


class _HttpHost:
    """The host end of one session: messages go out through the transport's write stream."""

    def __init__(self, write: Any) -> None:
        self._write = write

    async def send(self, message: Outbound) -> None:
        data = message.data if message.data is not None else json.loads(message.raw or b"")
        parsed = types.jsonrpc_message_adapter.validate_python(data, by_name=False)
        metadata = (ServerMessageMetadata(related_request_id=message.related)
                    if message.related is not None else None)
        await self._write.send(SessionMessage(parsed, metadata=metadata))


async def _messages(read: Any) -> AsyncIterator[tuple[None, Any]]:
    while True:
        try:
            item = await read.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            return  # the session ended (DELETE, idle timeout)
        if isinstance(item, Exception):
            log.warning("the host sent a message that is not JSON-RPC (%s)", type(item).__name__)
            continue
        yield None, item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)


def _security(host: str) -> TransportSecuritySettings | None:
    if host in ("127.0.0.1", "localhost", "::1"):
        return TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"])
    return None


class ProxyApp:
    """The ASGI application: one relay per HTTP session, at *path*, at most *max_servers*
    of them at once."""

    def __init__(self, processor: ResultProcessor, options: ProxyOptions, *, path: str,
                 host: str, max_servers: int = DEFAULT_MAX_SERVERS,
                 share_server: bool = False) -> None:
        if max_servers < 1:
            raise ValueError(f"max_servers: expected 1 or more, got {max_servers}")
        self.processor = processor
        self.options = options
        self.path = path
        self.max_servers = max_servers
        #: With --share-server, the one server process of every session.
        self.shared = SharedServer(options) if share_server else None
        self._security = _security(host)
        self._sessions: dict[str, StreamableHTTPServerTransport] = {}
        self._tasks: anyio.abc.TaskGroup | None = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if scope["path"].rstrip("/") != self.path.rstrip("/"):
            await _plain(send, 404, "Not Found")
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        session_id = headers.get(MCP_SESSION_ID_HEADER.lower())
        if session_id is not None:
            transport = self._sessions.get(session_id)
            if transport is None:
                await _jsonrpc_error(send, 404, "Session not found")
                return
            await transport.handle_request(scope, receive, send)
            if transport.is_terminated:
                self._sessions.pop(session_id, None)
            return
        if scope["method"] != "POST":
            await _jsonrpc_error(send, 400, "Bad Request: Missing session ID")
            return
        body = await _body(receive)
        if body is None:
            await _jsonrpc_error(send, 413, "Request body too large")
            return
        message = _initialize(body)
        if message is None:
            await _jsonrpc_error(send, 400, "Bad Request: Missing session ID")
            return
        if self.shared is None and len(self._sessions) >= self.max_servers:
            log.warning("refused a new session: %d sessions run, each with its server "
                        "(--max-servers %d)", len(self._sessions), self.max_servers)
            await _jsonrpc_error(
                send, 503, f"trunc mcp proxy runs {len(self._sessions)} downstream servers "
                "already, one for each HTTP session, and may run no more (--max-servers "
                f"{self.max_servers}): end a session (an HTTP DELETE, or closing the client), "
                "wait for an idle one to close (after 30 minutes without a request), or "
                "start the proxy with a higher --max-servers",
                request_id=message.get("id"), code=-32000)
            return
        transport = await self._open_session()
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await transport.handle_request(scope, replay, send)

    async def _open_session(self) -> StreamableHTTPServerTransport:
        assert self._tasks is not None, "the app runs without its lifespan"
        session_id = uuid.uuid4().hex
        transport = StreamableHTTPServerTransport(
            mcp_session_id=session_id, security_settings=self._security,
            idle_timeout=IDLE_TIMEOUT)
        self._sessions[session_id] = transport

        async def run(*, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
            started = False
            try:
                async with transport.connect() as (read, write):
                    task_status.started()
                    started = True
                    relay = Relay(_HttpHost(write), self.processor, self.options,
                                  shared=self.shared)
                    scope = transport.idle_scope or anyio.CancelScope()
                    with scope:
                        await relay.run(_messages(read))
                    if scope.cancelled_caught:
                        await relay.close()
            except Exception as exc:  # one session's end must not end the others
                if not started:
                    raise
                if not isinstance(exc, (anyio.ClosedResourceError, anyio.BrokenResourceError)):
                    log.error("session %s ended with %s", session_id, type(exc).__name__,
                              exc_info=exc)
            finally:
                self._sessions.pop(session_id, None)
                with anyio.CancelScope(shield=True):
                    await transport.terminate()

        await self._tasks.start(run)
        return transport

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self._stack = contextlib.AsyncExitStack()
                self._tasks = await self._stack.enter_async_context(anyio.create_task_group())
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                for transport in list(self._sessions.values()):
                    await transport.terminate()
                if self._tasks is not None:
                    self._tasks.cancel_scope.cancel()
                await self._stack.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return


async def _body(receive: Any) -> bytes | None:
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b""
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


def _initialize(body: bytes) -> dict[str, Any] | None:
    """The request in *body* if it is an ``initialize``, else None."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None
    if isinstance(message, dict) and message.get("method") == "initialize":
        return message
    return None


async def _plain(send: Any, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": text.encode()})


async def _jsonrpc_error(send: Any, status: int, message: str, *, request_id: Any = None,
                         code: int = -32600) -> None:
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        request_id = None
    body = json.dumps({"jsonrpc": "2.0", "id": request_id,
                       "error": {"code": code, "message": message}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


def serve_proxy_http(processor: ResultProcessor, options: ProxyOptions, *, host: str,
                     port: int, path: str, access: Access,
                     max_servers: int = DEFAULT_MAX_SERVERS, share_server: bool = False) -> None:
    import uvicorn

    app: Any = ProxyApp(processor, options, path=path, host=host, max_servers=max_servers,
                        share_server=share_server)
    if access.token is not None:
        app = BearerAuth(app, access.token)
    log.warning("serving the proxy at http://%s:%d%s", host, port, path)
    uvicorn.run(app, host=host, port=port, log_level="warning", lifespan="on")
