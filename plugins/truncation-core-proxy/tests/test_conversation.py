"""A scripted conversation per API, streamed and not, with the official SDK as the agent.

The agent's tool returned 1 MB of build log; the upstream must receive it cut within its
budget, with the proxy's artifact tools. The scripted model calls the proxy's grep, which
the proxy answers itself with the omitted error line, and then answers. The SDK sees the
final answer and none of the proxy's calls.
"""

from __future__ import annotations

from typing import Any

import anthropic
import openai
import pytest
from proxy_testing import (
    ANSWER,
    API_KEY,
    ERROR_LINE,
    INLINE_LIMIT,
    LOG,
    Proxy,
    Upstream,
    big_log,
    chat_conversation,
    messages_conversation,
    responses_conversation,
)

PROXY_TOOLS = {"trunc_get_artifact", "trunc_artifact_head", "trunc_artifact_tail",
               "trunc_artifact_grep"}


def openai_client(proxy: Proxy) -> openai.OpenAI:
    return proxy.openai()


def anthropic_client(proxy: Proxy) -> anthropic.Anthropic:
    return proxy.anthropic()


def check_first_request(upstream: Upstream, tool_result: str, tool_names: set[str]) -> None:
    """The upstream got the log cut within budget, the error line left out, and the
    artifact tools beside the agent's."""
    assert len(tool_result) <= INLINE_LIMIT
    assert ERROR_LINE not in tool_result
    assert "trunc_get_artifact" in tool_result  # the marker says how to read the rest
    assert tool_names == {"read_build_log", *PROXY_TOOLS}
    assert upstream.requests[0].headers["authorization" if "authorization" in
                                        upstream.requests[0].headers else "x-api-key"
                                        ].endswith(API_KEY)


def check_artifact(proxy: Proxy) -> None:
    texts = [proxy.cutter.truncator.artifacts.text(ref.id) for ref in proxy.artifacts()]
    assert LOG in texts  # the full text, byte for byte


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_chat_completions(proxy: Proxy, upstream: Upstream, stream: bool) -> None:
    suffix = ".sse" if stream else ".json"
    upstream.play("chat_grep" + suffix, "chat_answer" + suffix)
    client = openai_client(proxy)
    request: dict[str, Any] = chat_conversation()
    if stream:
        with client.chat.completions.stream(**request) as events:
            seen = [event.model_dump_json(warnings=False) for event in events]
            completion = events.get_final_completion()
        assert not any("trunc_" in event for event in seen)
    else:
        completion = client.chat.completions.create(**request)
    message = completion.choices[0].message
    assert message.content == ANSWER
    assert not message.tool_calls
    assert completion.choices[0].finish_reason == "stop"

    first, second = (r.json for r in upstream.requests)
    check_first_request(upstream, first["messages"][-1]["content"],
                        {t["function"]["name"] for t in first["tools"]})
    call, answer = second["messages"][-2:]
    assert call["tool_calls"][0]["function"]["name"] == "trunc_artifact_grep"
    assert answer["role"] == "tool" and ERROR_LINE in answer["content"]
    assert second["messages"][:-2] == first["messages"]  # the prefix, unchanged
    check_artifact(proxy)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_responses(proxy: Proxy, upstream: Upstream, stream: bool) -> None:
    suffix = ".sse" if stream else ".json"
    upstream.play("responses_grep" + suffix, "responses_answer" + suffix)
    client = openai_client(proxy)
    request = responses_conversation()
    if stream:
        with client.responses.stream(**request) as events:
            seen = [event.model_dump_json(warnings=False) for event in events]
            response = events.get_final_response()
        assert not any("trunc_" in event for event in seen)
    else:
        response = client.responses.create(**request)
    assert response.output_text == ANSWER
    assert [item.type for item in response.output] == ["message"]
    assert [tool.name for tool in response.tools] == ["read_build_log"]  # type: ignore[union-attr]
    assert response.usage is not None and response.usage.input_tokens == 2510 + 2644

    first, second = (r.json for r in upstream.requests)
    check_first_request(upstream, first["input"][-1]["output"],
                        {t["name"] for t in first["tools"]})
    call, answer = second["input"][-2:]
    assert call["type"] == "function_call" and call["name"] == "trunc_artifact_grep"
    assert answer["type"] == "function_call_output" and ERROR_LINE in answer["output"]
    assert answer["call_id"] == call["call_id"]
    check_artifact(proxy)


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_anthropic_messages(proxy: Proxy, upstream: Upstream, stream: bool) -> None:
    suffix = ".sse" if stream else ".json"
    upstream.play("messages_grep" + suffix, "messages_answer" + suffix)
    client = anthropic_client(proxy)
    request = messages_conversation()
    if stream:
        with client.messages.stream(**request) as events:
            seen = [event.model_dump_json(warnings=False) for event in events]
            message = events.get_final_message()
        assert not any("trunc_" in event for event in seen)
    else:
        message = client.messages.create(**request)
    # The model's words before its grep, then its answer: two text blocks, no tool use.
    assert [block.type for block in message.content] == ["text", "text"]
    assert message.content[1].text == ANSWER  # type: ignore[union-attr]
    assert message.stop_reason == "end_turn"
    assert message.usage.input_tokens == 2510 + 2644
    assert message.usage.output_tokens == 74 + 15

    first, second = (r.json for r in upstream.requests)
    check_first_request(upstream, first["messages"][-1]["content"][0]["content"],
                        {t["name"] for t in first["tools"]})
    turn, answer = second["messages"][-2:]
    assert turn["role"] == "assistant"
    assert [b["type"] for b in turn["content"]] == ["text", "tool_use"]
    assert turn["content"][1]["input"]["pattern"] == "ERROR"
    result = answer["content"][0]
    assert result["type"] == "tool_result" and ERROR_LINE in result["content"]
    assert result["tool_use_id"] == turn["content"][1]["id"]
    check_artifact(proxy)


def test_a_tool_call_id_names_this_conversations_result(proxy: Proxy,
                                                        upstream: Upstream) -> None:
    """The marker names the tool call (``(tool call call_read_7f3a)``), and the artifact
    tools take its id for the artifact. Another conversation through the same proxy (another
    agent, or another user of the machine) may use the same call id, as agents that number
    their calls do: the model's call id must still read its own conversation's result, never
    the other's, though the other's was stored last."""
    other_line = "ERROR: the other agent's private result"
    other = big_log(64 * 1024).replace(ERROR_LINE, other_line)
    client = openai_client(proxy)
    upstream.play("chat_answer.json", "chat_answer.json", "chat_grep_by_call.json",
                  "chat_answer.json")
    client.chat.completions.create(**chat_conversation())  # this conversation's first turn
    client.chat.completions.create(**chat_conversation(other))  # another's, same call id
    client.chat.completions.create(**chat_conversation())  # this one again: the model greps
    assert other_line not in upstream.requests[2].body.decode()
    answer = upstream.requests[3].json["messages"][-1]
    assert answer["role"] == "tool" and ERROR_LINE in answer["content"]
    assert other_line not in answer["content"]
    # The control: the store's own lookup by call id, which the proxy used, finds the
    # result stored last under that id: the other conversation's.
    naive = proxy.cutter.truncator.call_tool(
        "trunc_artifact_grep", {"artifact_id": "call_read_7f3a", "pattern": "ERROR"})
    assert other_line in naive.content


def test_a_tool_call_id_this_conversation_did_not_cut_is_not_found(
        proxy: Proxy, upstream: Upstream) -> None:
    """A call id no result of this conversation was cut under reads nothing: not another
    conversation's result of that id."""
    request = chat_conversation()
    request["messages"][-1]["content"] = LOG
    for message in request["messages"]:
        for call in message.get("tool_calls") or ():
            call["id"] = "call_mine_1"
    request["messages"][-1]["tool_call_id"] = "call_mine_1"
    upstream.play("chat_answer.json", "chat_grep_by_call.json", "chat_answer.json")
    client = openai_client(proxy)
    client.chat.completions.create(**chat_conversation())  # call_read_7f3a: someone else's
    client.chat.completions.create(**request)  # the model asks for call_read_7f3a
    answer = upstream.requests[2].json["messages"][-1]
    assert answer["role"] == "tool" and ERROR_LINE not in answer["content"]
    assert "404" in answer["content"] and "art_" in answer["content"]  # what to give instead


def test_a_round_in_one_chunk_keeps_its_text(proxy: Proxy, upstream: Upstream) -> None:
    """Servers that send a whole answer as one chunk (a gateway faking a stream, or a short
    answer) put its text, its tool calls and its finish reason in the same chunk. When the
    call is the proxy's, the text must reach the agent all the same."""
    upstream.play("chat_grep_one_chunk.sse", "chat_answer.sse")
    with openai_client(proxy).chat.completions.stream(**chat_conversation()) as events:
        completion = events.get_final_completion()
    message = completion.choices[0].message
    assert message.content == "Searching the log.\n\n" + ANSWER
    assert not message.tool_calls and completion.choices[0].finish_reason == "stop"
    assert upstream.requests[1].json["messages"][-2]["content"] == "Searching the log."
