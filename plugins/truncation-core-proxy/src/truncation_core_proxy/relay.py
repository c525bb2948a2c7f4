"""The proxy's handling of one request, from the agent to the upstream and back.

For the three APIs (:mod:`truncation_core_proxy.apis`): read the body, cut the tool results
(:class:`~truncation_core_proxy.cutter.Cutter`), add the artifact tools when anything in the
conversation is cut, send it upstream; then, while the model calls only the proxy's tools,
answer them and ask again, and give the agent the last answer (streamed through
:mod:`truncation_core_proxy.streams`, or whole). Every other request, and any request the
proxy cannot read, passes through untouched, body and answer streamed.

Faults never become the proxy's own: an upstream error passes through as it came; a
timeout, an unreachable upstream or a stream that drops is told to the agent in the
provider's error shape. Keys and headers go upstream as they came; nothing of a request
(content, headers, query) is logged.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Collection, Mapping
from typing import Any, cast

import anyio.to_thread
import attrs
import httpx
from httpx_sse import EventSource
from sse_starlette.event import ServerSentEvent
from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from truncation_core_proxy.apis import Api, Call, api_for_path, dumps
from truncation_core_proxy.cutter import Cutter, ToolFamily
from truncation_core_proxy.streams import STREAMS, StreamState, encode, passed
from truncation_core_proxy.upstream import (
    Upstream,
    UpstreamError,
    UpstreamResponse,
    UpstreamTimeout,
)

__all__ = ["ProxyOptions", "Relay"]

log = logging.getLogger("truncation_core_proxy")

MIB = 1024 * 1024
#: Bodies larger than this are read and cut in a worker thread, off the event loop.
_THREAD_BYTES = 256 * 1024
#: A whole (unstreamed) upstream answer up to this length is read and sent on in one piece,
#: with its length: a stream through Starlette costs a task group and one more write for its
#: end, which was 0.3 to 0.5 ms of the proxy's CPU and 1.5 to 2 ms of latency per request on
#: a loaded machine (bench/bench_proxy.py); answers are a few KB.
_WHOLE_BYTES = 1 * MIB
#: Previous-response ids remembered (see :meth:`Relay._remember`).
_RESPONSE_IDS = 10_000
#: Hop-by-hop headers (RFC 9110 7.6.1) and those the proxy sets itself.
_HOP = frozenset({"connection", "keep-alive", "proxy-authenticate", "proxy-authorization",
                  "proxy-connection", "te", "trailer", "trailers", "transfer-encoding",
                  "upgrade", "host", "content-length"})
_KEEPALIVE = ServerSentEvent(comment="keep-alive", sep="\n").encode()


@attrs.frozen(kw_only=True)
class ProxyOptions:
    """How the proxy reaches the upstream, and its limits."""

    #: Base URL that requests go to (the request's path is appended).
    upstream: str
    #: Base URL for Anthropic's requests (those with an ``anthropic-version`` header, and
    #: ``/v1/messages``); None: *upstream*.
    anthropic_upstream: str | None = None
    #: Seconds to wait for the upstream between two bytes (None: no limit).
    timeout: float | None = 600.0
    connect_timeout: float = 30.0
    #: A body larger than this is forwarded uncut, streamed, with a warning.
    max_body_bytes: int = 1024 * MIB
    #: Rounds of artifact tool calls the proxy answers for one request.
    max_rounds: int = 8
    #: Seconds between keep-alive comments while the proxy works on a streamed answer.
    keepalive: float = 10.0


@attrs.frozen
class _Prepared:
    """A request body ready to go upstream."""

    data: bytes
    #: The parsed body, when the proxy may answer tool calls for it (None: pass through).
    body: dict[str, Any] | None = None
    family: ToolFamily | None = None
    #: The tool call ids of the cuts in this request -> their artifact ids: the handles the
    #: model may give for them (see :mod:`truncation_core_proxy.cutter`).
    handles: dict[str, str] = attrs.Factory(dict)


class Relay:
    """The endpoint: ``await relay.handle(request)``, once :meth:`start`'ed."""

    def __init__(self, cutter: Cutter, options: ProxyOptions) -> None:
        self.cutter = cutter
        self.options = options
        self.upstream = Upstream(timeout=options.timeout,
                                 connect_timeout=options.connect_timeout)
        #: The response id a stream showed the agent -> the id of its last round, which a
        #: later request's ``previous_response_id`` must name upstream.
        self._response_ids: OrderedDict[str, str] = OrderedDict()

    async def start(self) -> None:
        await self.upstream.start()

    async def close(self) -> None:
        await self.upstream.close()

    # -- one request -------------------------------------------------------------------------

    async def handle(self, request: Request) -> Response:
        path = request.url.path
        anthropic = "anthropic-version" in request.headers
        api = api_for_path(request.method, path, anthropic)
        to_anthropic = anthropic or (api is not None and api.provider == "anthropic")
        base = ((to_anthropic and self.options.anthropic_upstream) or self.options.upstream)
        url = (base.rstrip("/") + _raw_path(request)
               + (f"?{request.url.query}" if request.url.query else ""))
        if api is None:
            return await self._pass(request, url, request.stream(), api=None,
                                    anthropic=anthropic)
        chunks: list[bytes] = []
        size = 0
        stream = request.stream()
        async for chunk in stream:
            chunks.append(chunk)
            size += len(chunk)
            if size > self.options.max_body_bytes:
                log.warning("%s: request body over %d bytes: forwarded uncut", api.name,
                            self.options.max_body_bytes)
                return await self._pass(request, url, _chain(chunks, stream), api=api,
                                        anthropic=anthropic)
        raw = b"".join(chunks)
        if size > _THREAD_BYTES:
            prepared = await anyio.to_thread.run_sync(self._prepare, api, raw)
        else:
            prepared = self._prepare(api, raw)
        headers = _request_headers(request.headers, api=True)
        if prepared.body is None or prepared.family is None:
            return await self._forward(api, url, headers, prepared.data, None, None, {})
        return await self._forward(api, url, headers, prepared.data, prepared.body,
                                   prepared.family, prepared.handles)

    def _prepare(self, api: Api, raw: bytes) -> _Prepared:
        """Parse and cut; whatever goes wrong, the request goes as it came."""
        try:
            body = json.loads(raw)
        except (ValueError, RecursionError):
            log.warning("%s: the request body is not JSON the proxy can read (%d bytes): "
                        "forwarded unchanged", api.name, len(raw))
            return _Prepared(raw)
        if not isinstance(body, dict) or not api.is_conversation(body):
            return _Prepared(raw)
        try:
            return self._cut(api, body, raw)
        except Exception as exc:  # never fail a call the upstream would answer
            log.warning("%s: the request could not be cut (%s): forwarded unchanged", api.name,
                        type(exc).__name__)
            return _Prepared(raw)

    def _cut(self, api: Api, body: dict[str, Any], raw: bytes) -> _Prepared:
        changed = False
        previous = body.get("previous_response_id")
        if isinstance(previous, str) and previous in self._response_ids:
            body["previous_response_id"] = self._response_ids[previous]
            changed = True
        family = self.cutter.family_for(api.tool_names(body))
        if family is None:
            log.warning("%s: the agent's tools take every name the artifact tools could "
                        "have: nothing is cut", api.name)
            return _Prepared(dumps(body) if changed else raw)
        counts = [0, 0, 0]
        handles: dict[str, str] = {}

        def cut(text: str, tool: str | None, call_id: str | None) -> str | None:
            new = self.cutter.cut(family, text, tool=tool, call_id=call_id, handles=handles)
            if new is not None:
                counts[0] += 1
                counts[1] += len(text)
                counts[2] += len(new)
            return new

        cuts = api.cut(body, cut, family.shown)
        if not cuts:
            return _Prepared(dumps(body) if changed else raw)
        log.info("%s: %d tool result(s) cut, %d -> %d characters", api.name, counts[0],
                 counts[1], counts[2])
        if not api.can_loop(body):
            return _Prepared(dumps(body))
        api.add_tools(body, family.schemas(api.tools_format))
        return _Prepared(dumps(body), body, family, handles)

    async def _forward(self, api: Api, url: str, headers: Mapping[str, str], data: bytes,
                       body: dict[str, Any] | None, family: ToolFamily | None,
                       handles: Mapping[str, str]) -> Response:
        try:
            response = await self._open(url, headers, data)
        except UpstreamError as exc:
            return self._failure(api, exc)
        kind = response.headers.get("content-type", "")
        if response.status_code != 200 or (family is None and "text/event-stream" not in kind):
            return await self._relayed(api, response)
        if "text/event-stream" in kind:
            state = STREAMS[api.name](family.shown if family else ())
            out = StreamingResponse(
                self._stream(api, state, response, url, headers, body, family, handles),
                status_code=200)
            _set_headers(out, _response_headers(response.headers), length=None)
            return out
        assert body is not None and family is not None
        raw = await response.aread()
        await response.aclose()
        return await self._whole(api, url, headers, body, family, handles, response, raw)

    async def _open(self, url: str, headers: Mapping[str, str], data: bytes
                    ) -> UpstreamResponse:
        return await self.upstream.open("POST", url, headers, data, decode=True)

    async def _relayed(self, api: Api, response: UpstreamResponse) -> Response:
        """The upstream's answer as it came: whole when it is short and says its length,
        else streamed."""
        if ("text/event-stream" in response.headers.get("content-type", "")
                or not _short(response)):
            return _streamed(response)
        try:
            raw = await response.aread()
        except UpstreamError as exc:
            return self._failure(api, exc)
        finally:
            await response.aclose()
        return _whole_response(response, raw)

    def _failure(self, api: Api | None, exc: UpstreamError) -> Response:
        timeout = isinstance(exc, UpstreamTimeout)
        status, kind, code = ((504, "timeout", "upstream_timeout") if timeout else
                              (502, "server_error", "upstream_unreachable"))
        message = ("The upstream did not answer in time (trunc proxy)." if timeout else
                   f"The upstream could not be reached: {exc} (trunc proxy).")
        log.warning("upstream %s: %s", "timeout" if timeout else "unreachable", exc)
        from truncation_core_proxy.apis import API_BY_NAME

        shape = api or API_BY_NAME["chat"]
        return Response(dumps(shape.error_body(kind, message, code)), status_code=status,
                        media_type="application/json")

    # -- unstreamed --------------------------------------------------------------------------

    async def _whole(self, api: Api, url: str, headers: Mapping[str, str],
                     body: dict[str, Any], family: ToolFamily, handles: Mapping[str, str],
                     response: UpstreamResponse, raw: bytes) -> Response:
        names = family.shown
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            data = None
        calls, agent = _read_calls(api, data, names)
        if not calls:
            try:
                if isinstance(data, dict) and api.hide(data, names):
                    raw = await _dumps(data)
            except Exception:  # a shape no provider documents: as it came
                pass
            return _whole_response(response, raw)
        responses = [data]
        rounds = 0
        while calls and not agent and rounds < self.options.max_rounds:
            answers = await self._answers(family, calls, handles)
            try:
                body = api.follow_up(body, data, calls, answers)
            except Exception:
                log.warning("%s: the upstream's answer has a shape the proxy cannot read: "
                            "passed on as it came", api.name)
                return _whole_response(response, raw)
            rounds += 1
            try:
                response = await self._open(url, headers, await _dumps(body))
                raw = await response.aread()
                await response.aclose()
            except UpstreamError as exc:
                return self._failure(api, exc)
            if response.status_code != 200:
                return _whole_response(response, raw)
            try:
                data = json.loads(raw)
            except (ValueError, RecursionError):
                return _whole_response(response, raw)
            responses.append(data)
            calls, agent = _read_calls(api, data, names)
        try:
            final = await _dumps(api.final(responses, names))
        except Exception:
            log.warning("%s: the upstream's answer has a shape the proxy cannot read: passed "
                        "on as it came", api.name)
            return _whole_response(response, raw)
        out = Response(final, status_code=200)
        _set_headers(out, _response_headers(response.headers), length=str(len(final)))
        return out

    async def _answers(self, family: ToolFamily, calls: list[Call],
                       handles: Mapping[str, str]) -> list[tuple[str, bool]]:
        def run() -> list[tuple[str, bool]]:
            return [self.cutter.answer(family, call.name, call.arguments, handles)
                    for call in calls]

        answers = await anyio.to_thread.run_sync(run)
        log.info("answered %d artifact tool call(s): %s", len(calls),
                 ", ".join(call.name for call in calls))
        return answers

    # -- streamed ----------------------------------------------------------------------------

    async def _stream(self, api: Api, state: StreamState, response: UpstreamResponse,
                      url: str,
                      headers: Mapping[str, str], body: dict[str, Any] | None,
                      family: ToolFamily | None, handles: Mapping[str, str]
                      ) -> AsyncIterator[bytes]:
        rounds = 0
        current: UpstreamResponse | None = response
        try:
            while current is not None:
                state.begin()
                failure: str | None = None
                try:
                    # EventSource reads ``headers`` and ``aiter_text()``, which the
                    # upstream's answer has as an httpx response has them.
                    async for sse in EventSource(cast(httpx.Response, current)).aiter_sse():
                        for chunk in _feed(api, state, sse):
                            yield chunk
                except UpstreamTimeout:
                    failure = "timeout"
                except UpstreamError:
                    failure = "dropped"
                finally:
                    await current.aclose()
                    current = None
                end = state.end()
                if end.errored:
                    return  # the upstream's own error event is on its way to the agent
                if not end.complete:
                    log.warning("%s: the upstream stream %s before its end", api.name,
                                "timed out" if failure == "timeout" else "ended")
                    yield state.error(
                        "timeout" if failure == "timeout" else "server_error",
                        "The upstream stream " + ("timed out" if failure == "timeout" else
                                                  "ended before the response was complete")
                        + " (trunc proxy).",
                        "upstream_timeout" if failure == "timeout" else "upstream_stream_dropped")
                    return
                if (family is None or body is None or not end.calls or end.agent_calls
                        or rounds >= self.options.max_rounds):
                    for chunk in state.finish(end):
                        yield chunk
                    if rounds and api.name == "responses":
                        self._remember(state)
                    return
                loop = getattr(state, "loop", None)
                if loop is not None:
                    loop()
                answered: asyncio.Task[list[tuple[str, bool]]] = asyncio.ensure_future(
                    self._answers(family, end.calls, handles))
                async for ping in self._waiting(answered):
                    yield ping
                body = api.follow_up_streamed(body, end.turn, end.calls, answered.result())
                rounds += 1
                opened = asyncio.ensure_future(self._open_follow_up(url, headers, body))
                async for ping in self._waiting(opened):
                    yield ping
                try:
                    current = opened.result()
                except UpstreamError as exc:
                    timeout = isinstance(exc, UpstreamTimeout)
                    yield state.error("timeout" if timeout else "server_error",
                                      "The upstream did not answer (trunc proxy).",
                                      "upstream_timeout" if timeout else "upstream_unreachable")
                    return
                if (current.status_code != 200
                        or "text/event-stream" not in current.headers.get("content-type", "")):
                    raw = await current.aread()
                    await current.aclose()
                    yield _stream_error(api, state, current.status_code, raw)
                    return
        finally:
            if current is not None:
                await current.aclose()

    async def _open_follow_up(self, url: str, headers: Mapping[str, str],
                              body: dict[str, Any]) -> UpstreamResponse:
        return await self._open(url, headers, await _dumps(body))

    async def _waiting(self, task: asyncio.Future[Any]) -> AsyncIterator[bytes]:
        """Keep-alive comments every ``keepalive`` seconds until *task* is done."""
        try:
            while not task.done():
                done, _ = await asyncio.wait({task}, timeout=self.options.keepalive)
                if not done:
                    yield _KEEPALIVE
        finally:
            if not task.done():
                task.cancel()

    def _remember(self, state: StreamState) -> None:
        shown, last = getattr(state, "first_id", None), getattr(state, "last_id", None)
        if isinstance(shown, str) and isinstance(last, str) and shown != last:
            self._response_ids[shown] = last
            while len(self._response_ids) > _RESPONSE_IDS:
                self._response_ids.popitem(last=False)

    # -- passing through ---------------------------------------------------------------------

    async def _pass(self, request: Request, url: str, content: AsyncIterator[bytes], *,
                    api: Api | None, anthropic: bool) -> Response:
        headers = _request_headers(request.headers, api=False)
        # The body framed as it came: its length when it said one (aiohttp then sends no
        # chunked encoding), and no body at all when it had none.
        length = request.headers.get("content-length")
        body: AsyncIterator[bytes] | None = content
        if length is not None:
            headers["content-length"] = length
        elif "transfer-encoding" not in request.headers:
            body = None
        try:
            response = await self.upstream.open(request.method, url, headers, body,
                                                decode=False)
        except UpstreamError as exc:
            from truncation_core_proxy.apis import API_BY_NAME

            return self._failure(api or API_BY_NAME["messages" if anthropic else "chat"], exc)
        return _streamed(response, keep_encoding=True)


def _raw_path(request: Request) -> str:
    """The request's path as the agent wrote it, escapes and all. The decoded path, written
    again, is another path (``%2F`` a separator, ``%2541`` an ``A``) or no URL at all (a
    ``%00``). Bytes that cannot stand in a URL (controls, non-ASCII) are escaped."""
    raw = request.scope.get("raw_path")
    if not isinstance(raw, bytes):
        from urllib.parse import quote

        return quote(request.url.path)
    return "".join(chr(b) if 0x20 < b < 0x7F else f"%{b:02X}" for b in raw)


def _read_calls(api: Api, data: Any, names: Collection[str]) -> tuple[list[Call], bool]:
    """The proxy's calls in an upstream's answer *data*, and whether the agent's tools are
    called; none when *data* has a shape no provider documents (it goes on as it came)."""
    if not isinstance(data, dict):
        return [], False
    try:
        return api.calls(data, names)
    except Exception:
        log.warning("%s: the upstream's answer has a shape the proxy cannot read: passed on "
                    "as it came", api.name)
        return [], False


def _feed(api: Api, state: StreamState, sse: Any) -> list[bytes]:
    """*state*'s events for the agent of the upstream's *sse*; the event as it came when it
    has a shape the proxy cannot read (the provider's fault reaches the agent as it came)."""
    try:
        return state.feed(sse)
    except Exception:
        log.warning("%s: an upstream event has a shape the proxy cannot read: passed on as it "
                    "came", api.name)
        return [passed(sse)]


async def _chain(first: list[bytes], rest: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    for chunk in first:
        yield chunk
    async for chunk in rest:
        yield chunk


async def _dumps(body: Any) -> bytes:
    # A long conversation takes milliseconds to write: off the event loop.
    return await anyio.to_thread.run_sync(dumps, body)


def _request_headers(headers: Mapping[str, str], *, api: bool) -> dict[str, str]:
    out = {key: value for key, value in headers.items() if key.lower() not in _HOP}
    if api:  # the proxy reads the answer: uncompressed, whatever the agent accepts
        out = {key: value for key, value in out.items() if key.lower() != "accept-encoding"}
        out["accept-encoding"] = "identity"
    return out


def _response_headers(headers: Mapping[str, str], *, keep_encoding: bool = False
                      ) -> list[tuple[str, str]]:
    drop = _HOP if keep_encoding else _HOP | {"content-encoding"}
    # items(): every value of a repeated header (a multidict's).
    return [(key, value) for key, value in headers.items() if key.lower() not in drop]


def _short(response: UpstreamResponse) -> bool:
    length = response.headers.get("content-length", "")
    return length.isdigit() and int(length) <= _WHOLE_BYTES


def _streamed(response: UpstreamResponse, *, keep_encoding: bool = False) -> Response:
    """The upstream's answer, streamed to the agent as it came."""
    out = StreamingResponse(response.aiter_raw(), status_code=response.status_code,
                            background=BackgroundTask(response.aclose))
    _set_headers(out, _response_headers(response.headers, keep_encoding=keep_encoding),
                 length=response.headers.get("content-length") if keep_encoding else None)
    return out


def _whole_response(response: UpstreamResponse, raw: bytes) -> Response:
    out = Response(raw, status_code=response.status_code)
    _set_headers(out, _response_headers(response.headers), length=str(len(raw)))
    return out


def _set_headers(response: Response, headers: list[tuple[str, str]], *,
                 length: str | None) -> None:
    raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
    if length is not None:
        raw.append((b"content-length", length.encode("latin-1")))
    response.raw_headers = raw


def _stream_error(api: Api, state: StreamState, status: int, raw: bytes) -> bytes:
    """An upstream's HTTP error on a later round, as an error event of the stream."""
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    if api.provider == "anthropic" and isinstance(data, dict) and data.get("type") == "error":
        return encode(data, event="error")
    error = data.get("error") if isinstance(data, dict) else None
    if api.name == "chat" and isinstance(error, dict):
        return encode({"error": error})
    if isinstance(error, dict):
        return state.error(str(error.get("type") or "server_error"),
                           str(error.get("message") or f"upstream status {status}"),
                           str(error.get("code") or status))
    return state.error("server_error", f"The upstream answered status {status} (trunc proxy).",
                       str(status))
