"""Stable history: agents resend the whole conversation every turn.

The same tool result (call id and content) gives the same cut and the same artifact on
every turn, stored once, and the bytes sent upstream for turn N's messages are the first
bytes of turn N+1's request too, so that the provider's prompt cache keeps hitting.
"""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import pytest
from proxy_testing import (
    LOG,
    Proxy,
    Upstream,
    chat_conversation,
    messages_conversation,
    responses_conversation,
)
from test_conversation import anthropic_client, openai_client

CASES = {
    "chat": (chat_conversation, "messages", "chat_answer.json"),
    "responses": (responses_conversation, "input", "responses_answer.json"),
    "messages": (messages_conversation, "messages", "messages_answer.json"),
}


def send(proxy: Proxy, api: str, request: dict[str, Any]) -> None:
    if api == "chat":
        openai_client(proxy).chat.completions.create(**request)
    elif api == "responses":
        openai_client(proxy).responses.create(**request)
    else:
        anthropic_client(proxy).messages.create(**request)


def next_turn(api: str, request: dict[str, Any], n: int) -> dict[str, Any]:
    """The agent's next request: the whole conversation again, one exchange longer."""
    request = copy.deepcopy(request)
    key = CASES[api][1]
    answer = {"role": "assistant", "content": f"Answer {n}."}
    question = {"role": "user", "content": f"Follow-up question {n}?"}
    request[key] += [answer, question]
    return request


def prefix(body: bytes, key: str) -> bytes:
    """*body*'s bytes up to the end of its last message."""
    last = json.dumps(json.loads(body)[key][-1], ensure_ascii=False,
                      separators=(",", ":")).encode()
    return body[:body.rindex(last) + len(last)]


def turns(proxy: Proxy, upstream: Upstream, api: str, count: int) -> list[bytes]:
    make, _, answer = CASES[api]
    upstream.play(*[answer] * count)
    request = make()
    for n in range(count):
        send(proxy, api, request)
        request = next_turn(api, request, n)
    return [r.body for r in upstream.requests]


@pytest.mark.parametrize("api", list(CASES))
def test_three_turns_store_once_and_keep_the_prefix(proxy: Proxy, upstream: Upstream,
                                                    api: str) -> None:
    key = CASES[api][1]
    before = len(proxy.artifacts())
    bodies = turns(proxy, upstream, api, 3)
    assert len(proxy.artifacts()) == before + 1
    for earlier, later in itertools.pairwise(bodies):
        shared = prefix(earlier, key)
        assert len(shared) > 1000 and later.startswith(shared)
        assert json.loads(earlier)["tools"] == json.loads(later)["tools"]
    assert LOG not in bodies[0].decode()


def test_the_check_fails_when_each_turn_cuts_anew(proxy: Proxy, upstream: Upstream) -> None:
    """Negative control: a proxy that forgets its cuts stores the result again, and its
    marker names the new artifact, so the prefix changes and the cache misses."""
    before = len(proxy.artifacts())
    bodies = []
    for _ in range(2):
        proxy.cutter._memo.clear()
        bodies += turns(proxy, upstream, "chat", 1)
    assert len(proxy.artifacts()) == before + 2
    assert not bodies[1].startswith(prefix(bodies[0], "messages"))


def test_the_proxys_own_answers_are_never_cut_nor_stored(proxy: Proxy,
                                                          upstream: Upstream) -> None:
    """A conversation holding a large answer of the proxy's own tool (as an agent that
    kept one would send it) passes as it is: read back once, never stored again."""
    request = chat_conversation("short output\n")
    reading = "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(LOG.splitlines()[:3000], 1))
    request["messages"] += [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_own_1", "type": "function",
             "function": {"name": "trunc_get_artifact", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_own_1", "content": reading}]
    before = len(proxy.artifacts())
    upstream.play("chat_answer.json")
    send(proxy, "chat", request)
    assert len(proxy.artifacts()) == before
    assert upstream.requests[0].json["messages"][-1]["content"] == reading
