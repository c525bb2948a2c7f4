"""One downstream server process for every HTTP session (``--share-server``).

Without it, each HTTP session of ``trunc mcp proxy --http`` starts its own server process (up
to ``--max-servers``), because an MCP server over stdio is one client's: it negotiates with
one ``initialize``, may keep state for that client (roots, subscriptions, a log level), and
numbers nothing but its own requests. A server that keeps no such state can serve every
session from one process; the user says so with ``--share-server``, and this module does
the multiplexing:

- each session's requests get an id of the shared process's own count on the way down, and
  their answers get the session's id back on the way up (a progress token likewise), so
  that two sessions' request 3 never meet;
- the first session's ``initialize`` is the server's; the sessions after it are answered
  with the same result, and only one ``notifications/initialized`` reaches the server;
- the server's requests (sampling, elicitation, roots) go to the one session with a request
  in flight, else to the oldest session; its notifications about a request go to that
  request's session, the others (list changes, log messages) to every session;
- an answer that names no request in flight is dropped with a warning, as a relay drops it;
  one cut short, or over the size limit, fails the request it names in its session.

The process starts with the first session and stops when the last one ends; when it exits,
every session hears of it, and with ``--restart`` the next request starts it again.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from typing import TYPE_CHECKING, Any

import attrs

from truncation_core_mcp.downstream import DownstreamProcess
from truncation_core_mcp.framing import Oversized
from truncation_core_mcp.relay import (
    PARSE_IN_THREAD,
    UNKNOWN,
    ProxyOptions,
    broken_line,
    decode,
    edge_id_span,
    encode,
    partial_json,
)

if TYPE_CHECKING:
    from truncation_core_mcp.relay import Relay

__all__ = ["SharedLink", "SharedServer"]

log = logging.getLogger("truncation_core_mcp")


def _key(request_id: Any) -> str:
    return json.dumps(request_id)


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


@attrs.define
class _Call:
    """A session's request in flight on the shared process."""

    link: SharedLink
    id: Any
    #: Whether it is the initialize the server answers for every session.
    initialize: bool = False


class SharedLink:
    """One session's part of the shared process, as its relay sees a process of its own
    (:class:`~truncation_core_mcp.downstream.ServerLink`)."""

    def __init__(self, shared: SharedServer, relay: Relay) -> None:
        self.shared = shared
        self.relay = relay
        self.process: DownstreamProcess | None = None
        self.ended = False
        #: Downstream id -> this session's id, of its requests in flight.
        self.calls: dict[str, Any] = {}

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def running(self) -> bool:
        return not self.ended and self.process is not None and self.process.running

    @property
    def heard_from(self) -> bool:
        return self.process is not None and self.process.heard_from

    @property
    def stop_reason(self) -> str | None:
        return self.process.stop_reason if self.process is not None else None

    async def start(self) -> None:
        self.process = await self.shared.attach(self)

    def send(self, line: bytes) -> None:
        if not self.running:
            raise ConnectionError("the downstream server is not running")
        self.shared.from_session(self, line)

    async def drain(self) -> None:
        if self.process is not None:
            await self.process.drain()

    async def stop(self) -> None:
        """The session ended: the process stops if it was the last."""
        self.ended = True
        await self.shared.detach(self)

    def kill(self, reason: str) -> None:
        """The session's request hung: the process is wedged for every session."""
        if self.process is not None:
            self.process.kill(reason)


class SharedServer:
    """The one downstream process of ``--share-server``, and its sessions (see the
    module)."""

    def __init__(self, options: ProxyOptions) -> None:
        self.options = options
        self.process: DownstreamProcess | None = None
        self._links: list[SharedLink] = []
        self._lock = asyncio.Lock()
        self._ids = itertools.count(1)
        self._calls: dict[str, _Call] = {}
        #: Downstream progress token -> (session, its own token).
        self._tokens: dict[str, tuple[SharedLink, Any]] = {}
        #: The server's requests in flight -> the session asked.
        self._asked: dict[str, SharedLink] = {}
        #: The initialize result of the running process, once it has answered.
        self._init_result: dict[str, Any] | None = None
        #: Sessions whose initialize waits for the first one's answer.
        self._init_waiting: list[tuple[SharedLink, Any]] | None = None
        self._initialized_sent = False
        self._tasks: set[asyncio.Task[Any]] = set()

    def link(self, relay: Relay) -> SharedLink:
        return SharedLink(self, relay)

    @property
    def sessions(self) -> int:
        return len(self._links)

    async def attach(self, link: SharedLink) -> DownstreamProcess:
        """The running process (started when none runs) for *link*. Raises :class:`OSError`
        or :class:`ValueError` as :meth:`DownstreamProcess.start` does."""
        async with self._lock:
            if self.process is None or not self.process.running:
                process = DownstreamProcess(
                    self.options.argv, env=self.options.env, cwd=self.options.cwd,
                    max_size=self.options.max_message_bytes, on_message=self._received,
                    on_oversized=self._oversized,
                    on_exit=lambda code: self._exited(process, code))
                await process.start()
                self.process = process
                self._init_result = None
                self._init_waiting = None
                self._initialized_sent = False
                log.info("started the shared downstream server (pid %s)", process.pid)
            if link not in self._links:
                self._links.append(link)
            return self.process

    async def detach(self, link: SharedLink) -> None:
        if link in self._links:
            self._links.remove(link)
        for key in list(link.calls):
            call = self._calls.get(key)
            if call is not None and not call.initialize:  # the others wait for that answer
                del self._calls[key]
        link.calls.clear()
        self._tokens = {k: v for k, v in self._tokens.items() if v[0] is not link}
        self._asked = {k: v for k, v in self._asked.items() if v is not link}
        if not self._links and self.process is not None:
            process, self.process = self.process, None
            await process.stop()

    # -- sessions -> server ---------------------------------------------------------------------

    def from_session(self, link: SharedLink, line: bytes) -> None:
        """One message a session's relay sends its server."""
        try:
            data = decode(line)
        except (ValueError, RecursionError):
            return  # the relay sends only what it parsed
        if not isinstance(data, dict) or self.process is None:
            return
        method = data.get("method")
        if isinstance(method, str) and "id" in data:
            self._request(link, data, method)
        elif method == "notifications/initialized":
            if not self._initialized_sent:
                self._initialized_sent = True
                self._send(line)
        elif method == "notifications/cancelled":
            params = _object(data.get("params"))
            own = params.get("requestId")
            down = next((k for k, v in link.calls.items() if _key(v) == _key(own)), None)
            if down is not None:
                self._send(encode({**data, "params": {**params,
                                                      "requestId": json.loads(down)}}))
        elif isinstance(method, str):
            self._send(line)
        else:  # an answer to the server's own request: from the session it was put to
            key = _key(data.get("id"))
            if self._asked.get(key) is link:
                del self._asked[key]
                self._send(line)

    def _request(self, link: SharedLink, data: dict[str, Any], method: str) -> None:
        if method == "initialize":
            if self._init_result is not None:
                link.relay.from_downstream(encode({"jsonrpc": "2.0", "id": data["id"],
                                                   "result": self._init_result}))
                return
            if self._init_waiting is not None:
                self._init_waiting.append((link, data["id"]))
                return
            self._init_waiting = []
        down = next(self._ids)
        key = _key(down)
        self._calls[key] = _Call(link=link, id=data["id"], initialize=method == "initialize")
        link.calls[key] = data["id"]
        params = data.get("params")
        if isinstance(params, dict) and isinstance(params.get("_meta"), dict) and \
                "progressToken" in params["_meta"]:
            token = f"trunc-shared-{down}"
            self._tokens[_key(token)] = (link, params["_meta"]["progressToken"])
            params = {**params, "_meta": {**params["_meta"], "progressToken": token}}
            data = {**data, "params": params}
        self._send(encode({**data, "id": down}))

    def _send(self, line: bytes) -> None:
        if self.process is None:
            return
        try:
            self.process.send(line)
        except ConnectionError:
            pass  # its exit is reported to every session

    # -- server -> sessions ---------------------------------------------------------------------

    def _received(self, raw: bytes) -> None:
        if len(raw) > PARSE_IN_THREAD:
            task = asyncio.get_running_loop().create_task(self._parse_in_thread(raw))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return
        try:
            data = decode(raw)
        except (ValueError, RecursionError):
            self._broken(raw, partial_json(raw))
            return
        self._route(raw, data)

    async def _parse_in_thread(self, raw: bytes) -> None:
        try:
            data = await asyncio.to_thread(decode, raw)
        except (ValueError, RecursionError):
            self._broken(raw, await asyncio.to_thread(partial_json, raw))
            return
        self._route(raw, data)

    def _route(self, raw: bytes, data: Any) -> None:
        if not isinstance(data, dict):
            self._everyone(raw)  # each relay reports it
            return
        method = data.get("method")
        if isinstance(method, str):
            if "id" in data:  # the server's request: to the session it is most likely about
                link = self._busiest()
                if link is not None:
                    self._asked[_key(data["id"])] = link
                    link.relay.from_downstream(raw)
                return
            params = _object(data.get("params"))
            token = params.get("progressToken")
            if method == "notifications/progress" and token is not None:
                found = self._tokens.get(_key(token))
                if found is not None:
                    link, own = found
                    link.relay.from_downstream(encode(
                        {**data, "params": {**params, "progressToken": own}}))
                return
            if method == "notifications/cancelled":  # the server gave up its own request
                asked = self._asked.pop(_key(params.get("requestId")), None)
                if asked is not None:
                    asked.relay.from_downstream(raw)
                return
            self._everyone(raw)
            return
        if "id" not in data:
            self._everyone(raw)
            return
        call = self._calls.pop(_key(data["id"]), None)
        if call is None:
            log.warning("the shared downstream server sent an answer (%d bytes) that no "
                        "session waits for: a second answer, or one never asked for; dropped",
                        len(raw))
            return
        call.link.calls.pop(_key(data["id"]), None)
        if call.initialize:
            self._initialized(call, data)
            return
        call.link.relay.from_downstream(_with_id(raw, data, call.id))

    def _initialized(self, call: _Call, data: dict[str, Any]) -> None:
        waiting, self._init_waiting = self._init_waiting or [], None
        if isinstance(data.get("result"), dict):
            self._init_result = data["result"]
        for link, own in [(call.link, call.id), *waiting]:
            if not link.ended:
                link.relay.from_downstream(encode({**data, "id": own}))

    def _broken(self, raw: bytes, partial: Any) -> None:
        found = broken_line(raw, partial)
        if isinstance(found, str):
            log.warning("the shared downstream server %s", found)
            return
        down, reason = found
        call = self._call_for(down)
        if call is None:
            log.warning("the shared downstream server %s, for no request it names; dropped",
                        reason)
            return
        call.link.relay.answer_lost(call.id, reason)

    def _oversized(self, message: Oversized) -> None:
        found = edge_id_span(message.head, message.tail)
        call = self._call_for(found[0] if found is not None else UNKNOWN)
        if call is None:
            log.warning("the shared downstream server sent a message of %d bytes, over the "
                        "limit, that names no request in flight; dropped", message.size)
            return
        if found is not None:  # the session's own id, where the server's was
            _, where, start, end = found
            own = json.dumps(call.id).encode()
            if where == "head":
                head = message.head[:start] + own + message.head[end:]
                message = attrs.evolve(message, head=head)
            else:
                tail = message.tail[:start] + own + message.tail[end:]
                message = attrs.evolve(message, tail=tail)
        call.link.relay.oversized(message)

    def _call_for(self, down: Any) -> _Call | None:
        """The request *down* (an id of the shared process's, or ``UNKNOWN``: the only one
        in flight, if only one is) names, taken out of those in flight."""
        if down is UNKNOWN:
            if len(self._calls) != 1:
                return None
            key = next(iter(self._calls))
        else:
            key = _key(down)
        call = self._calls.pop(key, None)
        if call is not None:
            call.link.calls.pop(key, None)
        return call

    def _busiest(self) -> SharedLink | None:
        """The session the server's own request is most likely for: the one session with a
        request in flight, else the oldest session."""
        busy = [link for link in self._links if link.calls]
        if len(busy) == 1:
            return busy[0]
        return self._links[0] if self._links else None

    def _everyone(self, raw: bytes) -> None:
        for link in list(self._links):
            link.relay.from_downstream(raw)

    def _exited(self, process: DownstreamProcess, returncode: int | None) -> None:
        if process is self.process:
            self._calls.clear()
            self._tokens.clear()
            self._asked.clear()
            self._init_result = None
            self._init_waiting = None
        gone = [link for link in self._links if link.process is process]
        # A relay that goes on starts (with --restart) a new process through a new link.
        self._links = [link for link in self._links if link.process is not process]
        for link in gone:
            link.calls.clear()
            link.relay.exited(link, returncode)


def _with_id(raw: bytes, data: dict[str, Any], own: Any) -> bytes:
    """*raw* (an answer) with the session's id *own* in place of the server's: spliced in
    where the id is found at an end (a large answer is not encoded again), else the
    message made anew."""
    found = edge_id_span(raw[:4096], raw[-4096:])
    if found is not None and _key(found[0]) == _key(data["id"]):
        _, where, start, end = found
        if where == "tail":
            offset = max(0, len(raw) - 4096)
            start, end = start + offset, end + offset
        return raw[:start] + json.dumps(own).encode() + raw[end:]
    return encode({**data, "id": own})
