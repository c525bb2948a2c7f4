"""The three APIs the proxy understands, request and (unstreamed) response side.

Each :class:`Api` knows, for its wire format: where the tool results of a request are and
which call (so which tool) each answers; how to add the artifact tools; which calls of a
response are the proxy's; how to send the model the proxy's answers (the follow-up
request); and what the agent gets at the end (the last response, with every round's visible
output, the proxy's calls left out and the usage of all rounds added up). The streamed side
is :mod:`truncation_core_proxy.streams`.

Only ``dict``/``list``/``str`` values this code recognises are touched; anything else in a
request or response passes as it came.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Collection, Iterator
from typing import Any

import attrs

__all__ = ["API_BY_NAME", "Api", "Call", "Chat", "Messages", "Responses", "add_usage",
           "api_for_path"]

#: Cuts one tool result: (text, tool name, call id) -> the cut, or None to leave it.
CutFn = Callable[[str, "str | None", "str | None"], "str | None"]


@attrs.define
class Call:
    """A call of one of the proxy's tools, as the model made it."""

    id: str
    name: str
    #: A JSON string (OpenAI) or an object (Anthropic).
    arguments: Any


def add_usage(total: Any, more: Any) -> Any:
    """*total* + *more*, two usage objects added field by field (numbers added, objects
    recursed, anything else taken from *more*)."""
    if not isinstance(total, dict) or not isinstance(more, dict):
        return copy.deepcopy(more) if more is not None else copy.deepcopy(total)
    out = dict(total)
    for key, value in more.items():
        old = out.get(key)
        if (isinstance(value, int | float) and not isinstance(value, bool)
                and isinstance(old, int | float) and not isinstance(old, bool)):
            out[key] = old + value
        elif isinstance(value, dict) and isinstance(old, dict):
            out[key] = add_usage(old, value)
        elif value is not None or key not in out:
            out[key] = copy.deepcopy(value)
    return out


def _str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _cut_parts(parts: list[Any], kinds: Collection[str], cut: CutFn, tool: str | None,
               call_id: str | None) -> bool:
    """Cut the text parts (``{"type": kind, "text": ...}``) of a tool result's list."""
    changed = False
    for part in parts:
        if isinstance(part, dict) and part.get("type") in kinds:
            text = part.get("text")
            if isinstance(text, str):
                new = cut(text, tool, call_id)
                if new is not None:
                    part["text"] = new
                    changed = True
    return changed


class Api:
    """What differs between the APIs; see the subclasses."""

    name: str
    #: The format of :meth:`Truncator.tool_schemas <truncation_core.Truncator.tool_schemas>`.
    tools_format: str
    #: The provider whose error shape this API's clients expect.
    provider: str = "openai"

    def is_conversation(self, body: dict[str, Any]) -> bool:
        raise NotImplementedError

    def tool_names(self, body: dict[str, Any]) -> set[str]:
        """The names of the tools the agent offers."""
        names: set[str] = set()
        for tool in body.get("tools") or ():
            if isinstance(tool, dict):
                for holder in (tool, tool.get("function"), tool.get("custom")):
                    if isinstance(holder, dict) and isinstance(holder.get("name"), str):
                        names.add(holder["name"])
        return names

    def cut(self, body: dict[str, Any], cut: CutFn, skip: Collection[str]) -> bool:
        """Cut the request's tool results in place; True when any was cut. Results of tools
        named in *skip* (the proxy's own) are never cut."""
        raise NotImplementedError

    def add_tools(self, body: dict[str, Any], schemas: list[dict[str, Any]]) -> None:
        tools = body.get("tools")
        body["tools"] = [*(tools if isinstance(tools, list) else ()), *schemas]

    def can_loop(self, body: dict[str, Any]) -> bool:
        return True

    # -- the unstreamed response -----------------------------------------------------------

    def calls(self, response: dict[str, Any], names: Collection[str]) -> tuple[list[Call], bool]:
        """The proxy's calls in *response*, and whether it calls any of the agent's tools."""
        raise NotImplementedError

    def follow_up(self, body: dict[str, Any], response: dict[str, Any], calls: list[Call],
                  answers: list[tuple[str, bool]]) -> dict[str, Any]:
        """The next request: *body* with the model's turn and the proxy's answers."""
        raise NotImplementedError

    def follow_up_streamed(self, body: dict[str, Any], turn: Any, calls: list[Call],
                           answers: list[tuple[str, bool]]) -> dict[str, Any]:
        """:meth:`follow_up` from a streamed round's *turn* (see
        :class:`truncation_core_proxy.streams.RoundEnd`)."""
        return self.follow_up(body, turn, calls, answers)

    def final(self, responses: list[dict[str, Any]], names: Collection[str]) -> dict[str, Any]:
        """What the agent gets: the last response, the proxy's calls left out, with every
        round's visible output and usage."""
        raise NotImplementedError

    def hide(self, response: dict[str, Any], names: Collection[str]) -> bool:
        """Leave the proxy's tools out of what *response* echoes of the request; True when
        there were any."""
        return False

    # -- errors ------------------------------------------------------------------------------

    def error_body(self, kind: str, message: str, code: str) -> dict[str, Any]:
        """An error in the provider's own shape. *kind* is OpenAI's ``type``."""
        return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _openai_calls(items: Iterator[dict[str, Any]], names: Collection[str]
                  ) -> tuple[list[Call], bool]:
    calls: list[Call] = []
    agent = False
    for item in items:
        name = item.get("name")
        if name in names:
            calls.append(Call(str(item.get("id")), str(name), item.get("arguments")))
        else:
            agent = True
    return calls, agent


class Chat(Api):
    """OpenAI Chat Completions (``/v1/chat/completions``)."""

    name = "chat"
    tools_format = "openai"

    def is_conversation(self, body: dict[str, Any]) -> bool:
        return isinstance(body.get("messages"), list)

    def can_loop(self, body: dict[str, Any]) -> bool:
        n = body.get("n")
        return n is None or n == 1

    def cut(self, body: dict[str, Any], cut: CutFn, skip: Collection[str]) -> bool:
        tools: dict[str, str] = {}
        changed = False
        for message in body["messages"]:
            if not isinstance(message, dict):
                continue
            role = message.get("role")
            if role == "assistant":
                for call in message.get("tool_calls") or ():
                    if isinstance(call, dict) and isinstance(call.get("id"), str):
                        function = call.get("function") or call.get("custom") or {}
                        name = function.get("name") if isinstance(function, dict) else None
                        if isinstance(name, str):
                            tools[call["id"]] = name
            elif role == "tool":
                call_id = _str(message.get("tool_call_id"))
                tool = tools.get(call_id) if call_id else None
                if tool in skip:
                    continue
                content = message.get("content")
                if isinstance(content, str):
                    new = cut(content, tool, call_id)
                    if new is not None:
                        message["content"] = new
                        changed = True
                elif isinstance(content, list):
                    changed |= _cut_parts(content, ("text",), cut, tool, call_id)
        return changed

    def calls(self, response: dict[str, Any], names: Collection[str]) -> tuple[list[Call], bool]:
        choices = response.get("choices")
        if not isinstance(choices, list) or len(choices) != 1:
            return [], False
        message = choices[0].get("message") or {}
        items = []
        for call in message.get("tool_calls") or ():
            function = call.get("function") or call.get("custom") or {}
            items.append({"id": call.get("id"), "name": function.get("name"),
                          "arguments": function.get("arguments") or function.get("input")})
        return _openai_calls(iter(items), names)

    def follow_up(self, body: dict[str, Any], response: dict[str, Any], calls: list[Call],
                  answers: list[tuple[str, bool]]) -> dict[str, Any]:
        message = response["choices"][0]["message"]
        return self.follow_up_turn(body, self.assistant_turn(message), calls, answers)

    @staticmethod
    def assistant_turn(message: dict[str, Any]) -> dict[str, Any]:
        turn = {key: value for key, value in message.items()
                if value is not None and key not in ("annotations", "refusal", "audio")}
        turn["role"] = "assistant"
        turn.setdefault("content", None)
        return turn

    def follow_up_streamed(self, body: dict[str, Any], turn: Any, calls: list[Call],
                           answers: list[tuple[str, bool]]) -> dict[str, Any]:
        return self.follow_up_turn(body, turn, calls, answers)

    def follow_up_turn(self, body: dict[str, Any], turn: dict[str, Any], calls: list[Call],
                       answers: list[tuple[str, bool]]) -> dict[str, Any]:
        tool_messages = [{"role": "tool", "tool_call_id": call.id, "content": text}
                         for call, (text, _) in zip(calls, answers, strict=True)]
        return {**body, "messages": [*body["messages"], turn, *tool_messages]}

    def final(self, responses: list[dict[str, Any]], names: Collection[str]) -> dict[str, Any]:
        last = copy.deepcopy(responses[-1])
        if len(responses) == 1 and not self.calls(last, names)[0]:
            return last
        choice = last["choices"][0]
        message = choice["message"]
        texts = [r["choices"][0]["message"].get("content") for r in responses]
        texts = [t for t in texts if isinstance(t, str) and t]
        message["content"] = "\n\n".join(texts) if texts else message.get("content")
        calls = [c for c in message.get("tool_calls") or ()
                 if (c.get("function") or c.get("custom") or {}).get("name") not in names]
        if calls:
            message["tool_calls"] = calls
        else:
            message.pop("tool_calls", None)
            if choice.get("finish_reason") == "tool_calls":
                choice["finish_reason"] = "stop"
        usage = None
        for response in responses:
            usage = add_usage(usage, response.get("usage"))
        if usage is not None:
            last["usage"] = usage
        return last


#: Items of a Responses output that the client runs (the rest the provider runs itself).
CLIENT_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call", "shell_call",
                          "apply_patch_call", "computer_call", "mcp_approval_request"})


class Responses(Api):
    """OpenAI Responses (``/v1/responses``)."""

    name = "responses"
    tools_format = "openai-responses"

    def is_conversation(self, body: dict[str, Any]) -> bool:
        return "input" in body and isinstance(body["input"], list | str)

    def cut(self, body: dict[str, Any], cut: CutFn, skip: Collection[str]) -> bool:
        items = body.get("input")
        if not isinstance(items, list):
            return False
        tools: dict[str, str] = {}
        changed = False
        for item in items:
            if not isinstance(item, dict):
                continue
            kind = item.get("type")
            if kind in ("function_call", "custom_tool_call"):
                call_id, name = _str(item.get("call_id")), _str(item.get("name"))
                if call_id and name:
                    tools[call_id] = name
            elif kind in ("function_call_output", "custom_tool_call_output"):
                call_id = _str(item.get("call_id"))
                tool = tools.get(call_id) if call_id else None
                if tool in skip:
                    continue
                output = item.get("output")
                if isinstance(output, str):
                    new = cut(output, tool, call_id)
                    if new is not None:
                        item["output"] = new
                        changed = True
                elif isinstance(output, list):
                    changed |= _cut_parts(output, ("input_text", "output_text", "text"), cut,
                                          tool, call_id)
        return changed

    def calls(self, response: dict[str, Any], names: Collection[str]) -> tuple[list[Call], bool]:
        calls: list[Call] = []
        agent = False
        for item in response.get("output") or ():
            if not isinstance(item, dict):
                continue
            if item.get("type") == "function_call" and item.get("name") in names:
                calls.append(Call(str(item.get("call_id")), str(item["name"]),
                                  item.get("arguments")))
            elif item.get("type") in CLIENT_CALLS:
                agent = True
        return calls, agent

    def follow_up(self, body: dict[str, Any], response: dict[str, Any], calls: list[Call],
                  answers: list[tuple[str, bool]]) -> dict[str, Any]:
        items = body["input"]
        if isinstance(items, str):
            items = [{"role": "user", "content": items}]
        keep_reasoning = body.get("store") is not False
        output = [item for item in response.get("output") or ()
                  if isinstance(item, dict) and (
                      item.get("type") != "reasoning" or keep_reasoning
                      or item.get("encrypted_content"))]
        outputs = [{"type": "function_call_output", "call_id": call.id, "output": text}
                   for call, (text, _) in zip(calls, answers, strict=True)]
        return {**body, "input": [*items, *output, *outputs]}

    def hide(self, response: dict[str, Any], names: Collection[str]) -> bool:
        tools = response.get("tools")
        if not isinstance(tools, list):
            return False
        kept = [t for t in tools if not (isinstance(t, dict) and t.get("name") in names)]
        response["tools"] = kept
        return len(kept) != len(tools)

    def visible(self, response: dict[str, Any], names: Collection[str]) -> list[Any]:
        return [item for item in response.get("output") or ()
                if not (isinstance(item, dict) and item.get("type") == "function_call"
                        and item.get("name") in names)]

    def final(self, responses: list[dict[str, Any]], names: Collection[str]) -> dict[str, Any]:
        last = copy.deepcopy(responses[-1])
        if len(responses) == 1 and not self.calls(last, names)[0]:
            return last
        last["output"] = [item for response in responses
                          for item in self.visible(response, names)]
        self.hide(last, names)
        usage = None
        for response in responses:
            usage = add_usage(usage, response.get("usage"))
        if usage is not None:
            last["usage"] = usage
        return last


class Messages(Api):
    """Anthropic Messages (``/v1/messages``)."""

    name = "messages"
    tools_format = "anthropic"
    provider = "anthropic"

    def is_conversation(self, body: dict[str, Any]) -> bool:
        return isinstance(body.get("messages"), list)

    def cut(self, body: dict[str, Any], cut: CutFn, skip: Collection[str]) -> bool:
        tools: dict[str, str] = {}
        changed = False
        for message in body["messages"]:
            content = message.get("content") if isinstance(message, dict) else None
            if not isinstance(content, list):
                continue
            for block in content:
                if not isinstance(block, dict):
                    continue
                kind = block.get("type")
                if kind == "tool_use":
                    call_id, name = _str(block.get("id")), _str(block.get("name"))
                    if call_id and name:
                        tools[call_id] = name
                elif kind == "tool_result":
                    call_id = _str(block.get("tool_use_id"))
                    tool = tools.get(call_id) if call_id else None
                    if tool in skip:
                        continue
                    inner = block.get("content")
                    if isinstance(inner, str):
                        new = cut(inner, tool, call_id)
                        if new is not None:
                            block["content"] = new
                            changed = True
                    elif isinstance(inner, list):
                        changed |= _cut_parts(inner, ("text",), cut, tool, call_id)
        return changed

    def calls(self, response: dict[str, Any], names: Collection[str]) -> tuple[list[Call], bool]:
        calls: list[Call] = []
        agent = False
        for block in response.get("content") or ():
            if isinstance(block, dict) and block.get("type") == "tool_use":
                if block.get("name") in names:
                    calls.append(Call(str(block.get("id")), str(block["name"]),
                                      block.get("input")))
                else:
                    agent = True
        return calls, agent

    def follow_up(self, body: dict[str, Any], response: dict[str, Any], calls: list[Call],
                  answers: list[tuple[str, bool]]) -> dict[str, Any]:
        return self.follow_up_turn(body, list(response.get("content") or ()), calls, answers)

    def follow_up_streamed(self, body: dict[str, Any], turn: Any, calls: list[Call],
                           answers: list[tuple[str, bool]]) -> dict[str, Any]:
        return self.follow_up_turn(body, turn, calls, answers)

    def follow_up_turn(self, body: dict[str, Any], content: list[Any], calls: list[Call],
                       answers: list[tuple[str, bool]]) -> dict[str, Any]:
        results = []
        for call, (text, is_error) in zip(calls, answers, strict=True):
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.id,
                                      "content": text}
            if is_error:
                result["is_error"] = True
            results.append(result)
        return {**body, "messages": [*body["messages"],
                                     {"role": "assistant", "content": content},
                                     {"role": "user", "content": results}]}

    def visible(self, response: dict[str, Any], names: Collection[str]) -> list[Any]:
        return [block for block in response.get("content") or ()
                if not (isinstance(block, dict) and block.get("type") == "tool_use"
                        and block.get("name") in names)]

    def final(self, responses: list[dict[str, Any]], names: Collection[str]) -> dict[str, Any]:
        last = copy.deepcopy(responses[-1])
        calls, agent = self.calls(last, names)
        if len(responses) == 1 and not calls:
            return last
        last["content"] = [block for response in responses
                           for block in self.visible(response, names)]
        if calls and not agent and last.get("stop_reason") == "tool_use":
            last["stop_reason"] = "end_turn"
        usage = None
        for response in responses:
            usage = add_usage(usage, response.get("usage"))
        if usage is not None:
            last["usage"] = usage
        return last

    def error_body(self, kind: str, message: str, code: str) -> dict[str, Any]:
        anthropic_kind = {"timeout": "timeout_error", "rate_limit": "rate_limit_error",
                          "invalid_request_error": "invalid_request_error"}.get(kind, "api_error")
        return {"type": "error", "error": {"type": anthropic_kind, "message": message}}


API_BY_NAME: dict[str, Api] = {api.name: api for api in (Chat(), Responses(), Messages())}


def api_for_path(method: str, path: str, anthropic: bool) -> Api | None:
    """The API a request is for, by its path (any prefix before ``/v1`` is kept upstream);
    None for every other request, which passes through untouched. *anthropic*: the request
    carries Anthropic's ``anthropic-version`` header."""
    if method != "POST":
        return None
    path = path.rstrip("/")
    if path.endswith("/chat/completions"):
        return API_BY_NAME["chat"]
    if path.endswith("/responses"):
        return API_BY_NAME["responses"]
    # OpenAI's Assistants have .../threads/{id}/messages: without Anthropic's header, only
    # the bare /v1/messages is Anthropic's.
    if path.endswith("/v1/messages") or (anthropic and path.endswith("/messages")):
        return API_BY_NAME["messages"]
    return None


def dumps(body: Any) -> bytes:
    """*body* as the SDKs write it (compact, UTF-8); ASCII escapes if it holds a lone
    surrogate, which UTF-8 cannot carry."""
    try:
        return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(body, separators=(",", ":")).encode("ascii")
