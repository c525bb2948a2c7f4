"""Stable history: agents resend the whole conversation every turn.

The same tool result (call id and content) gives the same cut and the same artifact on
every turn, stored once, and the bytes sent upstream for turn N's messages are the first
bytes of turn N+1's request too, so that the provider's prompt cache keeps hitting.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from proxy_testing import (
    ARTIFACT_ID,
    ERROR_LINE,
    INLINE_LIMIT,
    LOG,
    Proxy,
    Upstream,
    chat_conversation,
    messages_conversation,
    responses_conversation,
    start_proxy,
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


def test_a_cut_evicted_from_memory_is_sent_again_as_it_was(proxy: Proxy,
                                                            upstream: Upstream) -> None:
    """A cut that fell out of the proxy's memory is made again, and the session's artifact
    of that call and content is reused: the same bytes go upstream, nothing is stored."""
    bodies = turns(proxy, upstream, "chat", 1)
    stored = proxy.artifacts()
    proxy.cutter._memo.clear()
    bodies += turns(proxy, upstream, "chat", 1)
    assert proxy.artifacts() == stored
    assert bodies[1] == bodies[0] and ARTIFACT_ID.search(bodies[1])


def restarted_turns(upstream: Upstream, api: str, roots: tuple[Path, Path],
                    session: str = "stable-history", **after: Any
                    ) -> tuple[list[bytes], list[Any], list[Any]]:
    """Three turns of *api*'s conversation: two through a proxy storing under ``roots[0]``,
    then the proxy restarted (storing under ``roots[1]``, in the same *session*; *after*:
    its options) for the third. The bodies the upstream received, and the artifacts each
    proxy's store holds."""
    make, _, answer = CASES[api]
    request = make()
    bodies: list[bytes] = []
    stores: list[list[Any]] = []
    for root, count, options in ((roots[0], 2, {}), (roots[1], 1, after)):
        with contextlib.contextmanager(start_proxy)(upstream.url, root, session=session,
                                                    **options) as proxy:
            upstream.play(*[answer] * count)
            for _ in range(count):
                send(proxy, api, request)
                request = next_turn(api, request, len(bodies) + len(upstream.requests))
            bodies += [r.body for r in upstream.requests]
            stores.append(proxy.artifacts())
    return bodies, stores[0], stores[1]


@pytest.mark.parametrize("api", list(CASES))
def test_a_restarted_proxy_sends_the_same_bytes(upstream: Upstream, tmp_path: Path,
                                                api: str) -> None:
    """The proxy restarted between turns 2 and 3 (same store, same session): turn 3's
    request starts with turn 2's bytes, and the artifact is not stored again."""
    key = CASES[api][1]
    bodies, first, second = restarted_turns(upstream, api, (tmp_path, tmp_path))
    assert len(first) == 1 and [a.id for a in second] == [first[0].id]
    for earlier, later in itertools.pairwise(bodies):
        shared = prefix(earlier, key)
        assert len(shared) > 1000 and later.startswith(shared)
    assert first[0].id.encode() in prefix(bodies[2], key)


def test_without_the_stored_artifacts_a_restart_changes_the_bytes(
        upstream: Upstream, tmp_path: Path) -> None:
    """Negative control: restarted on a fresh store root (same session name), the proxy has
    nothing to reuse: it stores the result again, its marker names the new artifact, and
    turn 3's request no longer starts with turn 2's bytes (the prompt cache would miss)."""
    bodies, first, second = restarted_turns(upstream, "chat",
                                            (tmp_path / "before", tmp_path / "after"))
    assert len(first) == 1 and len(second) == 1 and second[0].id != first[0].id
    assert bodies[1].startswith(prefix(bodies[0], "messages"))
    assert not bodies[2].startswith(prefix(bodies[1], "messages"))
    assert second[0].id.encode() in bodies[2] and first[0].id.encode() not in bodies[2]


def test_an_artifact_deleted_before_the_restart_is_stored_anew(upstream: Upstream,
                                                              tmp_path: Path) -> None:
    """An artifact gone from the store (deleted, expired) is not named again: the result
    is cut into a new artifact the model can read."""
    make, _, answer = CASES["chat"]
    request = make()
    with contextlib.contextmanager(start_proxy)(upstream.url, tmp_path,
                                                session="deleted") as proxy:
        upstream.play(answer)
        send(proxy, "chat", request)
        (gone,) = proxy.artifacts()
        assert proxy.cutter.store.delete(gone.id)
    with contextlib.contextmanager(start_proxy)(upstream.url, tmp_path,
                                                session="deleted") as proxy:
        upstream.play(answer)
        send(proxy, "chat", next_turn("chat", request, 0))
        (stored,) = proxy.artifacts()
        body = upstream.requests[0].body
        assert stored.id != gone.id and gone.id.encode() not in body
        assert stored.id.encode() in body
        found, is_error = proxy.cutter.answer(
            proxy.cutter.default, "trunc_artifact_grep",
            {"artifact_id": stored.id, "pattern": "disk quota"})
        assert not is_error and ERROR_LINE in found


def test_a_changed_limit_cuts_anew_after_a_restart(upstream: Upstream,
                                                   tmp_path: Path) -> None:
    """The cut is made by the tool's policy as it is now: restarted with a smaller limit,
    the proxy sends a new cut within it, never the old one (the artifact, the same
    content, is reused)."""
    bodies, first, second = restarted_turns(upstream, "chat", (tmp_path, tmp_path),
                                            inline_limit=INLINE_LIMIT // 2)
    old = json.loads(bodies[1])["messages"][3]["content"]
    new = json.loads(bodies[2])["messages"][3]["content"]
    assert len(old) > INLINE_LIMIT // 2 >= len(new)
    assert [a.id for a in second] == [first[0].id] and first[0].id in new


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
