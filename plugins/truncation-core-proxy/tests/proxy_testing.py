"""What the proxy's tests share: a loopback upstream that replays recorded provider
responses and records every request it receives, the proxy in front of it, and the agent's
conversations with a 1 MB tool result.

The recorded responses (``recorded/``) follow each provider's documented formats; the
official SDKs parsing them, through the proxy, is the check. A reply can fill in what a
recording cannot know in advance: ``${ARTIFACT_ID}`` (the first artifact id in the request
the upstream received, as a model reads it in the marker) and ``${TOOLS}`` (the request's
``tools``, which the Responses API echoes back).
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anthropic
import attrs
import openai
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route
from truncation_core_proxy.cutter import Cutter
from truncation_core_proxy.relay import ProxyOptions, Relay
from truncation_core_proxy.server import METHODS, ServerThread, proxy_app

from truncation_core.config.converter import config_from_mapping

RECORDED = Path(__file__).resolve().parent / "recorded"
ARTIFACT_ID = re.compile(rb"art_[0-9]+_[0-9a-f]{32}")
#: The line the agent's log hides in its middle, which the model finds with the grep.
ERROR_LINE = "ERROR: disk quota exceeded while writing shard 4711 (step 7)"
ANSWER = "The build failed at step 7: ERROR: disk quota exceeded."
INLINE_LIMIT = 8000
API_KEY = "sk-proxytest-SECRET-0123456789abcdef"


def big_log(size: int = 1024 * 1024) -> str:
    """A build log of *size* bytes, its one error line in the middle."""
    lines = []
    total = 0
    n = 0
    while total < size:
        line = f"2026-11-21T10:{n // 600 % 60:02d}:{n // 10 % 60:02d}Z INFO worker-{n % 17:02d} " \
               f"wrote shard {n} of the nightly build, checksum ok\n"
        lines.append(line)
        total += len(line)
        n += 1
    lines[len(lines) // 2] = ERROR_LINE + "\n"
    return "".join(lines)


@attrs.define
class Reply:
    """One recorded reply: a file of ``recorded/``, its status and headers, and how it is
    sent (``drop_after``: events sent before the connection is cut; ``hold_after``: events
    sent before waiting for ``release``)."""

    name: str | None = None
    status: int = 200
    headers: dict[str, str] = attrs.Factory(dict)
    drop_after: int | None = None
    hold_after: int | None = None
    release: threading.Event = attrs.Factory(threading.Event)
    #: Set once the events before the hold are sent.
    held: threading.Event = attrs.Factory(threading.Event)
    #: The reply's text, in place of the file's (*name* still says ``.sse`` or ``.json``).
    body: str | None = None

    def text(self, request: bytes) -> str:
        assert self.name is not None
        text = (self.body if self.body is not None
                else (RECORDED / self.name).read_text(encoding="utf-8"))
        if "${ARTIFACT_ID}" in text:
            found = ARTIFACT_ID.search(request)
            text = text.replace("${ARTIFACT_ID}", found.group(0).decode() if found else "none")
        if "${TOOLS}" in text:
            tools = json.loads(request).get("tools", [])
            text = text.replace("${TOOLS}", json.dumps(tools, separators=(",", ":")))
        return text


@attrs.define
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    #: The path as it came on the wire, escapes and all.
    raw_path: bytes = b""

    @property
    def json(self) -> Any:
        return json.loads(self.body)


class Upstream:
    """A loopback server that replays the replies it is given, in order, and records
    every request it receives."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[Received] = []
        self.url = ""
        self.app = Starlette(routes=[Route("/{path:path}", self.handle, methods=METHODS)])

    def play(self, *replies: Reply | str) -> list[Reply]:
        self.replies.clear()
        self.requests.clear()
        made = [r if isinstance(r, Reply) else Reply(r) for r in replies]
        self.replies.extend(made)
        return made

    async def handle(self, request: Request) -> Response:
        body = await request.body()
        self.requests.append(Received(request.method, request.url.path,
                                      dict(request.headers), body,
                                      request.scope.get("raw_path") or b""))
        if not self.replies:
            return Response(b'{"error":{"message":"no reply recorded for this request",'
                            b'"type":"server_error","param":null,"code":null}}', 500)
        reply = self.replies.popleft()
        if reply.name is None:
            return Response(b"", reply.status, headers=reply.headers)
        text = reply.text(body)
        if reply.name.endswith(".sse"):
            return StreamingResponse(self._events(reply, text), reply.status,
                                     headers=reply.headers, media_type="text/event-stream")
        return Response(text, reply.status, headers=reply.headers,
                        media_type="application/json")

    async def _events(self, reply: Reply, text: str) -> AsyncIterator[bytes]:
        import anyio

        events = [event + "\n\n" for event in text.split("\n\n") if event.strip()]
        for n, event in enumerate(events):
            if n == reply.drop_after:
                raise ConnectionAbortedError("the recorded stream drops here")
            if n == reply.hold_after:
                reply.held.set()
                while not reply.release.is_set():
                    await anyio.sleep(0.01)
            yield event.encode()


@attrs.define
class Proxy:
    url: str
    cutter: Cutter
    relay: Relay
    _clients: dict[str, Any] = attrs.Factory(dict)

    def artifacts(self) -> list[Any]:
        return list(self.cutter.store.list())

    def openai(self) -> openai.OpenAI:
        """The official OpenAI client, pointed at the proxy (one per proxy, closed with it)."""
        if "openai" not in self._clients:
            self._clients["openai"] = openai.OpenAI(base_url=self.url + "/v1", api_key=API_KEY,
                                                    max_retries=0)
        return self._clients["openai"]  # type: ignore[no-any-return]

    def anthropic(self) -> anthropic.Anthropic:
        if "anthropic" not in self._clients:
            self._clients["anthropic"] = anthropic.Anthropic(base_url=self.url, api_key=API_KEY,
                                                             max_retries=0)
        return self._clients["anthropic"]  # type: ignore[no-any-return]

    def close(self) -> None:
        for client in self._clients.values():
            client.close()


def start_proxy(upstream_url: str, root: Path, *, session: str | None = None,
                inline_limit: int = INLINE_LIMIT, **options: Any) -> Iterator[Proxy]:
    """A proxy in front of *upstream_url*, its artifacts under *root* (in *session*, else a
    new session)."""
    # No highlights: the error line must be omitted, for the model to find it with the grep.
    store: dict[str, str] = {"root": str(root)}
    if session is not None:
        store["session"] = session
    config = config_from_mapping({"store": store, "inline_limit": inline_limit,
                                  "highlights": 0})
    cutter = Cutter(config)
    relay = Relay(cutter, ProxyOptions(upstream=upstream_url, **options))
    with ServerThread(proxy_app(relay)) as server:
        proxy = Proxy(server.url, cutter, relay)
        try:
            yield proxy
        finally:
            proxy.close()


@pytest.fixture(scope="module")
def upstream() -> Iterator[Upstream]:
    replaying = Upstream()
    with ServerThread(replaying.app) as server:
        replaying.url = server.url
        yield replaying


@pytest.fixture(scope="module")
def proxy(upstream: Upstream, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxy]:
    yield from start_proxy(upstream.url, tmp_path_factory.mktemp("store"))


# -- the agent's side ---------------------------------------------------------------------------

LOG = big_log()
READ_LOG = {"name": "read_build_log", "description": "Read the nightly build's log.",
            "parameters": {"type": "object", "properties": {"build": {"type": "string"}},
                           "required": ["build"], "additionalProperties": False}}


def chat_conversation(log: str = LOG) -> dict[str, Any]:
    return {"model": "gpt-4.1", "tools": [{"type": "function", "function": READ_LOG}],
            "messages": [
                {"role": "system", "content": "You are a build assistant."},
                {"role": "user", "content": "Why did last night's build fail?"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_read_7f3a", "type": "function",
                     "function": {"name": "read_build_log",
                                  "arguments": '{"build":"nightly"}'}}]},
                {"role": "tool", "tool_call_id": "call_read_7f3a", "content": log}]}


def responses_conversation(log: str = LOG) -> dict[str, Any]:
    return {"model": "gpt-4.1", "tools": [{"type": "function", "strict": True, **READ_LOG}],
            "input": [
                {"role": "user", "content": "Why did last night's build fail?"},
                {"type": "function_call", "call_id": "call_read_9b2c",
                 "name": "read_build_log", "arguments": '{"build":"nightly"}'},
                {"type": "function_call_output", "call_id": "call_read_9b2c", "output": log}]}


def messages_conversation(log: str = LOG) -> dict[str, Any]:
    tool = {"name": READ_LOG["name"], "description": READ_LOG["description"],
            "input_schema": READ_LOG["parameters"]}
    return {"model": "claude-opus-4-7", "max_tokens": 1024, "tools": [tool],
            "messages": [
                {"role": "user", "content": "Why did last night's build fail?"},
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "toolu_read_7f3a", "name": "read_build_log",
                     "input": {"build": "nightly"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_read_7f3a",
                     "content": log}]}]}
