"""The streamed side of each API: what the agent sees of one or more upstream streams.

One :class:`StreamState` follows a request's rounds (the first upstream stream, then one
more after each time the proxy answered its own tools). For each upstream event,
:meth:`~StreamState.feed` gives the events to send the agent now:

* text, thinking and the agent's own tool calls go on as they arrive, each round's blocks,
  items or calls numbered on from the last round's (the agent sees one answer, numbered as
  the provider numbers one);
* the proxy's tool calls are kept back (their start names the tool, so nothing of theirs is
  ever sent);
* the round's last events (the finish reason, ``message_delta``/``message_stop``,
  ``response.completed``, ``[DONE]``) are kept until the round is known to be the last:
  :meth:`~StreamState.end` says what the round did, and :meth:`~StreamState.finish` gives
  those events, with the usage of every round added up.

Events are parsed by httpx-sse and written by sse-starlette's ``ServerSentEvent``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Collection
from typing import Any

import attrs
from httpx_sse import ServerSentEvent as Incoming
from sse_starlette.event import ServerSentEvent

from truncation_core_proxy.apis import (
    CLIENT_CALLS,
    Call,
    Chat,
    Messages,
    Responses,
    add_usage,
    dumps,
)

__all__ = ["ChatStream", "MessagesStream", "ResponsesStream", "RoundEnd", "StreamState",
           "encode", "passed"]


def encode(data: Any = None, event: str | None = None, *, raw: str | None = None,
           id: str | None = None) -> bytes:
    """One event as bytes (``\\n`` line ends, as the providers send them); its JSON written
    as :func:`~truncation_core_proxy.apis.dumps` writes a body (ASCII escapes for a lone
    surrogate, which UTF-8 cannot carry)."""
    text = raw if raw is not None else dumps(data).decode("utf-8")
    return ServerSentEvent(data=text, event=event, id=id, sep="\n").encode()


def _json(sse: Incoming) -> Any:
    try:
        return json.loads(sse.data)
    except ValueError:
        return None


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def passed(sse: Incoming) -> bytes:
    """*sse* as the upstream sent it."""
    return encode(raw=sse.data, event=sse.event or None, id=sse.id or None)


@attrs.define
class RoundEnd:
    """What one round did, once its upstream stream ended."""

    #: The round reached its last event (a dropped stream did not).
    complete: bool
    #: The proxy's calls in the round.
    calls: list[Call]
    #: Whether the round called one of the agent's tools too.
    agent_calls: bool
    #: What the follow-up request needs of the model's turn.
    turn: Any = None
    #: The upstream sent an error event (already passed on).
    errored: bool = False


class StreamState:
    """A request's streamed rounds; one subclass per API."""

    def __init__(self, names: Collection[str]) -> None:
        self.names = frozenset(names)
        self.round = -1
        self.errored = False

    def begin(self) -> None:
        self.round += 1
        self.errored = False

    def feed(self, sse: Incoming) -> list[bytes]:
        raise NotImplementedError

    def end(self) -> RoundEnd:
        raise NotImplementedError

    def finish(self, end: RoundEnd) -> list[bytes]:
        raise NotImplementedError

    def error(self, kind: str, message: str, code: str) -> bytes:
        """An error event in the provider's shape, for a stream that cannot go on."""
        raise NotImplementedError


@attrs.define
class _ChatCall:
    id: str
    name: str | None
    proxy: bool
    shown_index: int | None
    arguments: list[str] = attrs.Factory(list)


class ChatStream(StreamState):
    """Chat Completions chunks: ``data: {chunk}`` ... ``data: [DONE]``."""

    def __init__(self, names: Collection[str]) -> None:
        super().__init__(names)
        self.first_id: Any = None
        self.next_tool_index = 0
        self.usage: Any = None
        self.text_sent = False

    def begin(self) -> None:
        super().begin()
        self.calls: dict[Any, _ChatCall] = {}
        self.finish_chunk: dict[str, Any] | None = None
        self.usage_chunk: dict[str, Any] | None = None
        self.done = False
        self.content: list[str] = []
        self.role_sent = self.round > 0

    def feed(self, sse: Incoming) -> list[bytes]:
        if sse.data.startswith("[DONE]"):
            self.done = True
            return []
        data = _json(sse)
        if not isinstance(data, dict):
            return [passed(sse)]
        if data.get("error"):
            self.errored = True
            return [passed(sse)]
        if self.first_id is None:
            self.first_id = data.get("id")
        elif "id" in data:
            data["id"] = self.first_id
        choices = data.get("choices")
        if not isinstance(choices, list):
            return [passed(sse)]
        if not choices:
            if data.get("usage") is not None:
                self.usage_chunk = data
                return []
            return [passed(sse)] if self.round == 0 else [encode(data)]
        if not self.names and self.round == 0:  # nothing to keep back: only the ending
            if any(isinstance(c, dict) and c.get("finish_reason") is not None for c in choices):
                self.finish_chunk = data
                return []
            return [passed(sse)]
        shown = False
        for choice in choices:
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict):
                shown |= self._delta(delta)
            if choice.get("finish_reason") is not None:
                self.finish_chunk = data
                return [self._before_end(data)] if shown else []
            shown |= bool(choice.get("logprobs"))
        return [encode(data)] if shown else []

    def _before_end(self, data: dict[str, Any]) -> bytes:
        """A last chunk that carries more than its end (a whole answer in one chunk): what it
        shows goes on now, its finish reason waits in :attr:`finish_chunk`, delta emptied,
        until the round is known to be the last (else the text would be lost)."""
        now = copy.deepcopy(data)
        for choice in now["choices"]:
            if isinstance(choice, dict):
                choice["finish_reason"] = None
        for choice in data["choices"]:
            if isinstance(choice, dict):
                choice["delta"] = {}
                choice.pop("logprobs", None)
        return encode(now)

    def _delta(self, delta: dict[str, Any]) -> bool:
        """Rewrite one choice's delta for the agent; True when anything in it is shown."""
        if self.role_sent:
            delta.pop("role", None)
        elif "role" in delta:
            self.role_sent = True
        text = delta.get("content")
        if isinstance(text, str) and text:
            if self.round > 0 and self.text_sent and not self.content:
                delta["content"] = "\n\n" + text  # the rounds' texts, as paragraphs
            self.content.append(text)
            self.text_sent = True
        calls = delta.get("tool_calls")
        if isinstance(calls, list):
            shown_calls = []
            for entry in calls:
                if not isinstance(entry, dict):
                    continue
                call = self.calls.get(entry.get("index"))
                function = _dict(entry.get("function"))
                if call is None:
                    name = function.get("name")
                    proxy = name in self.names
                    call = _ChatCall(str(entry.get("id")), name, proxy,
                                     None if proxy else self.next_tool_index)
                    if not proxy:
                        self.next_tool_index += 1
                    self.calls[entry.get("index")] = call
                if isinstance(function.get("arguments"), str):
                    call.arguments.append(function["arguments"])
                if not call.proxy:
                    entry["index"] = call.shown_index
                    shown_calls.append(entry)
            if shown_calls:
                delta["tool_calls"] = shown_calls
            else:
                del delta["tool_calls"]
        return any(value is not None and value != "" for value in delta.values())

    def end(self) -> RoundEnd:
        calls = [Call(c.id, c.name or "", "".join(c.arguments))
                 for c in self.calls.values() if c.proxy]
        agent = any(not c.proxy for c in self.calls.values())
        turn = {"role": "assistant", "content": "".join(self.content) or None,
                "tool_calls": [{"id": c.id, "type": "function",
                                "function": {"name": c.name, "arguments": c.arguments}}
                               for c in calls]}
        if self.usage_chunk is not None:
            self.usage = add_usage(self.usage, self.usage_chunk.get("usage"))
        return RoundEnd(complete=self.finish_chunk is not None, calls=calls, agent_calls=agent,
                        turn=turn, errored=self.errored)

    def finish(self, end: RoundEnd) -> list[bytes]:
        out: list[bytes] = []
        if self.finish_chunk is not None:
            chunk = self.finish_chunk
            for choice in chunk.get("choices") or ():
                if (end.calls and not end.agent_calls
                        and choice.get("finish_reason") == "tool_calls"):
                    choice["finish_reason"] = "stop"
            out.append(encode(chunk))
        if self.usage_chunk is not None:
            if self.round > 0:
                self.usage_chunk["usage"] = self.usage
            out.append(encode(self.usage_chunk))
        if self.done:
            out.append(encode(raw="[DONE]"))
        return out

    def error(self, kind: str, message: str, code: str) -> bytes:
        return encode(Chat().error_body(kind, message, code))


class ResponsesStream(StreamState):
    """Responses events: ``response.created`` ... ``response.completed``, each with a
    ``sequence_number`` (renumbered) and, for output, an ``output_index`` (renumbered)."""

    def __init__(self, names: Collection[str]) -> None:
        super().__init__(names)
        self.sequence = 0
        self.next_index = 0
        self.first_id: Any = None
        self.last_id: Any = None
        self.usage: Any = None
        self.shown_items: list[Any] = []

    def begin(self) -> None:
        super().begin()
        self.hidden: set[Any] = set()
        self.indexes: dict[Any, int] = {}
        self.closing: dict[str, Any] | None = None  # completed, failed or incomplete

    def _emit(self, data: dict[str, Any]) -> bytes:
        if "sequence_number" in data:
            data["sequence_number"] = self.sequence
        self.sequence += 1
        return encode(data, event=str(data.get("type")))

    def feed(self, sse: Incoming) -> list[bytes]:
        data = _json(sse)
        if not isinstance(data, dict):
            return [passed(sse)]
        kind = data.get("type", sse.event)
        if kind in ("response.created", "response.in_progress", "response.queued"):
            response = _dict(data.get("response"))
            self.last_id = response.get("id")
            Responses().hide(response, self.names)
            if self.round > 0:
                return []
            if self.first_id is None:
                self.first_id = response.get("id")
            return [self._emit(data)]
        if kind in ("response.completed", "response.failed", "response.incomplete"):
            self.closing = data
            return []
        if kind == "error":
            self.errored = True
            return [self._emit(data)]
        if "output_index" in data:
            index = data["output_index"]
            if kind == "response.output_item.added":
                item = _dict(data.get("item"))
                if item.get("type") == "function_call" and item.get("name") in self.names:
                    self.hidden.add(index)
                    return []
                self.indexes[index] = self.next_index
                self.next_index += 1
            if index in self.hidden:
                return []
            if index in self.indexes:
                data["output_index"] = self.indexes[index]
        return [self._emit(data)]

    def end(self) -> RoundEnd:
        closing = self.closing
        response = closing.get("response") if closing else None
        if not isinstance(response, dict):
            return RoundEnd(complete=False, calls=[], agent_calls=False, errored=self.errored)
        calls: list[Call] = []
        agent = False
        shown = []
        for item in response.get("output") or ():
            if not isinstance(item, dict):
                shown.append(item)
            elif item.get("type") == "function_call" and item.get("name") in self.names:
                calls.append(Call(str(item.get("call_id")), str(item["name"]),
                                  item.get("arguments")))
            else:
                agent |= item.get("type") in CLIENT_CALLS
                shown.append(item)
        self.shown_items.extend(shown)
        self.usage = add_usage(self.usage, response.get("usage"))
        complete = closing is not None and closing.get("type") == "response.completed"
        return RoundEnd(complete=complete or closing is not None, calls=calls,
                        agent_calls=agent, turn=response, errored=self.errored)

    def finish(self, end: RoundEnd) -> list[bytes]:
        if self.closing is None:
            return []
        data = self.closing
        response = data.get("response")
        if isinstance(response, dict) and (self.round > 0 or end.calls):
            response = dict(response)
            # The SDKs hold a stream to the id it started with; the last round's id (which
            # a later previous_response_id must name) is mapped by the relay.
            response["id"] = self.first_id
            response["output"] = self.shown_items
            if self.usage is not None:
                response["usage"] = self.usage
            data = {**data, "response": response}
        if isinstance(data.get("response"), dict):
            Responses().hide(data["response"], self.names)
        return [self._emit(data)]

    def error(self, kind: str, message: str, code: str) -> bytes:
        return self._emit({"type": "error", "code": code, "message": message, "param": None,
                           "sequence_number": 0})


class MessagesStream(StreamState):
    """Anthropic Messages events: ``message_start``, ``content_block_start/delta/stop``
    (each with an ``index``, renumbered), ``message_delta``, ``message_stop``."""

    def __init__(self, names: Collection[str]) -> None:
        super().__init__(names)
        self.next_index = 0
        self.usage: Any = None

    def begin(self) -> None:
        super().begin()
        self.blocks: dict[Any, dict[str, Any]] = {}
        self.json_parts: dict[Any, list[str]] = {}
        self.hidden: set[Any] = set()
        self.indexes: dict[Any, int] = {}
        self.start_usage: Any = None
        self.delta: dict[str, Any] | None = None
        self.stop: dict[str, Any] | None = None

    def feed(self, sse: Incoming) -> list[bytes]:
        data = _json(sse)
        if not isinstance(data, dict):
            return [passed(sse)]
        kind = data.get("type", sse.event)
        if kind == "message_start":
            message = _dict(data.get("message"))
            self.start_usage = message.get("usage")
            return [passed(sse)] if self.round == 0 else []
        if kind in ("content_block_start", "content_block_delta", "content_block_stop"):
            return self._block(kind, data, sse)
        if kind == "message_delta":
            self.delta = data
            return []
        if kind == "message_stop":
            self.stop = data
            return []
        if kind == "error":
            self.errored = True
        return [passed(sse)]

    def _block(self, kind: str, data: dict[str, Any], sse: Incoming) -> list[bytes]:
        index = data.get("index")
        if kind == "content_block_start":
            block = data.get("content_block")
            block = copy.deepcopy(block) if isinstance(block, dict) else {}
            self.blocks[index] = block
            if block.get("type") == "tool_use" and block.get("name") in self.names:
                self.hidden.add(index)
                return []
            self.indexes[index] = self.next_index
            self.next_index += 1
        elif kind == "content_block_delta":
            self._accumulate(index, data.get("delta"))
        elif index in self.json_parts:
            text = "".join(self.json_parts.pop(index))
            try:
                self.blocks[index]["input"] = json.loads(text) if text else {}
            except ValueError:
                self.blocks[index]["input"] = {}
        if index in self.hidden:
            return []
        if index in self.indexes:
            data["index"] = self.indexes[index]
        return [encode(data, event=sse.event or kind)]

    def _accumulate(self, index: Any, delta: Any) -> None:
        block = self.blocks.get(index)
        if block is None or not isinstance(delta, dict):
            return
        kind = delta.get("type")
        if kind == "text_delta":
            block["text"] = block.get("text", "") + str(delta.get("text", ""))
        elif kind == "thinking_delta":
            block["thinking"] = block.get("thinking", "") + str(delta.get("thinking", ""))
        elif kind == "signature_delta":
            block["signature"] = delta.get("signature")
        elif kind == "input_json_delta":
            self.json_parts.setdefault(index, []).append(str(delta.get("partial_json", "")))
        elif kind == "citations_delta":
            block.setdefault("citations", []).append(delta.get("citation"))

    def end(self) -> RoundEnd:
        calls = [Call(str(self.blocks[i].get("id")), str(self.blocks[i].get("name")),
                      self.blocks[i].get("input", {}))
                 for i in sorted(self.hidden, key=_order)]
        agent = any(block.get("type") == "tool_use" for i, block in self.blocks.items()
                    if i not in self.hidden)
        usage = self.start_usage
        if self.delta is not None and isinstance(self.delta.get("usage"), dict):
            delta_usage = {k: v for k, v in self.delta["usage"].items() if v is not None}
            usage = {**(usage if isinstance(usage, dict) else {}), **delta_usage}
        self.round_usage = usage
        turn = [self.blocks[i] for i in sorted(self.blocks, key=_order)]
        return RoundEnd(complete=self.stop is not None, calls=calls, agent_calls=agent, turn=turn,
                        errored=self.errored)

    def finish(self, end: RoundEnd) -> list[bytes]:
        out: list[bytes] = []
        if self.delta is not None:
            delta = self.delta
            if self.round > 0 or end.calls:
                total = add_usage(self.usage, self.round_usage)
                delta = copy.deepcopy(delta)
                if isinstance(total, dict):
                    delta["usage"] = {**(delta.get("usage") or {}), **total}
                inner = delta.get("delta")
                if (end.calls and not end.agent_calls and isinstance(inner, dict)
                        and inner.get("stop_reason") == "tool_use"):
                    inner["stop_reason"] = "end_turn"
            out.append(encode(delta, event="message_delta"))
        if self.stop is not None:
            out.append(encode(self.stop, event="message_stop"))
        return out

    def loop(self) -> None:
        """The round ends in the proxy's calls: its usage joins the total."""
        self.usage = add_usage(self.usage, self.round_usage)

    def error(self, kind: str, message: str, code: str) -> bytes:
        return encode(Messages().error_body(kind, message, code), event="error")


def _order(index: Any) -> tuple[int, Any]:
    return (0, index) if isinstance(index, int) else (1, str(index))


STREAMS: dict[str, type[StreamState]] = {"chat": ChatStream, "responses": ResponsesStream,
                                         "messages": MessagesStream}
