"""Faults reach the agent as the provider's own: upstream 429 and 500 (on the first round
and on a round after the proxy answered its tool), a dropped stream, a slow stream, a
timeout, an unreachable upstream, an unreadable body, a body over 100 MB, and 100 streams
at once."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest
from proxy_testing import (
    ANSWER,
    API_KEY,
    ERROR_LINE,
    RECORDED,
    Proxy,
    Reply,
    Upstream,
    big_log,
    chat_conversation,
    messages_conversation,
    responses_conversation,
    start_proxy,
)
from test_conversation import anthropic_client, openai_client

OPENAI_429 = json.loads((RECORDED / "errors_openai_429.json").read_text())
ANTHROPIC_429 = json.loads((RECORDED / "errors_anthropic_429.json").read_text())


@pytest.fixture(scope="module")
def strict_proxy(upstream: Upstream, tmp_path_factory: pytest.TempPathFactory
                 ) -> Iterator[Proxy]:
    """A proxy that waits half a second for the upstream and reads bodies up to 64 KiB."""
    yield from start_proxy(upstream.url, tmp_path_factory.mktemp("strict"), timeout=0.5,
                           max_body_bytes=64 * 1024)


# -- upstream errors ----------------------------------------------------------------------------

@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_openai_429_passes_through(proxy: Proxy, upstream: Upstream, stream: bool) -> None:
    upstream.play(Reply("errors_openai_429.json", 429,
                        {"retry-after": "5", "x-ratelimit-remaining-tokens": "155"}))
    with pytest.raises(openai.RateLimitError) as caught:
        openai_client(proxy).chat.completions.create(**chat_conversation(), stream=stream)
    assert caught.value.body == OPENAI_429["error"]
    assert caught.value.response.headers["retry-after"] == "5"
    assert caught.value.response.headers["x-ratelimit-remaining-tokens"] == "155"


def test_anthropic_500_passes_through(proxy: Proxy, upstream: Upstream) -> None:
    upstream.play(Reply("errors_anthropic_500.json", 500, {"request-id": "req_011CUqZ6"}))
    with pytest.raises(anthropic.InternalServerError) as caught:
        anthropic_client(proxy).messages.create(**messages_conversation())
    assert caught.value.body == json.loads((RECORDED / "errors_anthropic_500.json").read_text())
    assert caught.value.response.headers["request-id"] == "req_011CUqZ6"


def test_a_429_after_the_proxys_round_reaches_the_agent(proxy: Proxy,
                                                         upstream: Upstream) -> None:
    upstream.play("chat_grep.json", Reply("errors_openai_429.json", 429, {"retry-after": "7"}))
    with pytest.raises(openai.RateLimitError) as caught:
        openai_client(proxy).chat.completions.create(**chat_conversation())
    assert caught.value.body == OPENAI_429["error"]
    assert caught.value.response.headers["retry-after"] == "7"


def test_a_429_after_the_proxys_round_ends_the_stream_in_anthropics_shape(
        proxy: Proxy, upstream: Upstream) -> None:
    upstream.play("messages_grep.sse", Reply("errors_anthropic_429.json", 429))
    with pytest.raises(anthropic.APIStatusError) as caught, \
            anthropic_client(proxy).messages.stream(**messages_conversation()) as events:
        for _ in events:
            pass
    assert caught.value.body == ANTHROPIC_429


def test_a_500_after_the_proxys_round_ends_an_openai_stream_with_its_error(
        proxy: Proxy, upstream: Upstream) -> None:
    upstream.play("chat_grep.sse", Reply("errors_openai_500.json", 500))
    with pytest.raises(openai.APIError) as caught:
        for _ in openai_client(proxy).chat.completions.create(**chat_conversation(),
                                                              stream=True):
            pass
    assert caught.value.body == json.loads((RECORDED / "errors_openai_500.json").read_text())[
        "error"]


# -- streams that fail --------------------------------------------------------------------------

def test_a_dropped_chat_stream_ends_in_an_openai_error(proxy: Proxy, upstream: Upstream) -> None:
    upstream.play(Reply("chat_answer.sse", drop_after=2))
    chunks = []
    with pytest.raises(openai.APIError) as caught:
        for chunk in openai_client(proxy).chat.completions.create(**chat_conversation(),
                                                                  stream=True):
            chunks.append(chunk)
    assert [c.choices[0].delta.content for c in chunks] == ["", "The build failed at step 7: "]
    assert caught.value.body["code"] == "upstream_stream_dropped"  # type: ignore[index]


def test_a_dropped_anthropic_stream_ends_in_an_anthropic_error(proxy: Proxy,
                                                               upstream: Upstream) -> None:
    upstream.play(Reply("messages_answer.sse", drop_after=3))
    with pytest.raises(anthropic.APIStatusError) as caught, \
            anthropic_client(proxy).messages.stream(**messages_conversation()) as events:
        for _ in events:
            pass
    assert caught.value.body["error"]["type"] == "api_error"  # type: ignore[index]


def test_a_dropped_responses_stream_ends_in_an_error_event(proxy: Proxy,
                                                           upstream: Upstream) -> None:
    upstream.play(Reply("responses_answer.sse", drop_after=5))
    with openai_client(proxy).responses.stream(**responses_conversation()) as events:
        kinds = [event.type for event in events]
        with pytest.raises(RuntimeError, match=r"response\.completed"):
            events.get_final_response()
    assert kinds[-1] == "error" and "response.completed" not in kinds


def test_a_dropped_stream_the_proxy_did_not_cut_ends_in_an_error_too(
        proxy: Proxy, upstream: Upstream) -> None:
    upstream.play(Reply("chat_answer.sse", drop_after=2))
    with pytest.raises(openai.APIError):
        for _ in openai_client(proxy).chat.completions.create(
                **chat_conversation("a short result\n"), stream=True):
            pass


@pytest.mark.parametrize(("api", "hold"), [("chat", 2), ("responses", 5), ("messages", 3)])
def test_a_slow_stream_is_passed_on_as_it_comes(proxy: Proxy, upstream: Upstream, api: str,
                                                hold: int) -> None:
    """The first text reaches the agent while the upstream still holds the rest back (the
    request had its tool result cut, so this could have been a turn of the proxy's tools:
    text is passed on all the same)."""
    reply = upstream.play(Reply(f"{api}_answer.sse", hold_after=hold))[0]
    timer = threading.Timer(20, reply.release.set)  # a buffering proxy would wait forever
    timer.start()
    seen_while_held = []
    try:
        for _text in _texts(proxy, api):
            seen_while_held.append(not reply.release.is_set())
            reply.release.set()
    finally:
        timer.cancel()
    assert seen_while_held[0] is True
    assert upstream.requests and "trunc_artifact_grep" in upstream.requests[0].body.decode()


def _texts(proxy: Proxy, api: str) -> Iterator[str]:
    if api == "chat":
        for chunk in openai_client(proxy).chat.completions.create(**chat_conversation(),
                                                                  stream=True):
            if chunk.choices and chunk.choices[0].delta.content:
                yield chunk.choices[0].delta.content
    elif api == "responses":
        for event in openai_client(proxy).responses.create(**responses_conversation(),
                                                           stream=True):
            if event.type == "response.output_text.delta":
                yield event.delta
    else:
        with anthropic_client(proxy).messages.stream(**messages_conversation()) as events:
            yield from events.text_stream


def test_an_upstream_that_stops_answering_times_out_in_the_providers_shape(
        strict_proxy: Proxy, upstream: Upstream) -> None:
    reply = upstream.play(Reply("messages_answer.sse", hold_after=3))[0]
    try:
        with pytest.raises(anthropic.APIStatusError) as caught, \
                anthropic_client(strict_proxy).messages.stream(
                    **messages_conversation("short\n")) as events:
            for _ in events:
                pass
    finally:
        reply.release.set()
    assert caught.value.body["error"]["type"] == "timeout_error"  # type: ignore[index]


def test_an_unreachable_upstream_is_a_502_in_the_providers_shape(tmp_path: Path) -> None:
    for proxy in start_proxy("http://127.0.0.1:9", tmp_path):
        with pytest.raises(openai.APIStatusError) as openai_caught:
            openai_client(proxy).chat.completions.create(**chat_conversation("short\n"))
        with pytest.raises(anthropic.APIStatusError) as anthropic_caught:
            anthropic_client(proxy).messages.create(**messages_conversation("short\n"))
    assert openai_caught.value.status_code == 502
    assert openai_caught.value.body["code"] == "upstream_unreachable"  # type: ignore[index]
    assert anthropic_caught.value.status_code == 502
    assert anthropic_caught.value.body["error"]["type"] == "api_error"  # type: ignore[index]


# -- requests the proxy does not cut ------------------------------------------------------------

def test_an_unreadable_body_is_forwarded_unchanged_with_a_warning(
        proxy: Proxy, upstream: Upstream, caplog: pytest.LogCaptureFixture) -> None:
    upstream.play(Reply("errors_openai_500.json", 400))
    body = b'{"model": "gpt-4.1", "messages": [{"role": "user", "content": "hi"'
    with caplog.at_level(logging.WARNING, logger="truncation_core_proxy"):
        answer = httpx.post(proxy.url + "/v1/chat/completions", content=body,
                            headers={"authorization": f"Bearer {API_KEY}",
                                     "content-type": "application/json"})
    assert upstream.requests[0].body == body
    assert answer.status_code == 400
    assert any("not JSON" in r.getMessage() for r in caplog.records)
    assert not any(API_KEY in r.getMessage() or "hi" in r.getMessage().split()
                   for r in caplog.records)


def test_a_body_over_the_limit_is_forwarded_uncut_with_a_warning(
        strict_proxy: Proxy, upstream: Upstream, caplog: pytest.LogCaptureFixture) -> None:
    upstream.play("chat_answer.json")
    with caplog.at_level(logging.WARNING, logger="truncation_core_proxy"):
        completion = openai_client(strict_proxy).chat.completions.create(**chat_conversation())
    assert completion.choices[0].message.content == ANSWER
    assert json.loads(upstream.requests[0].body) == chat_conversation()
    assert any("forwarded uncut" in r.getMessage() for r in caplog.records)


@pytest.mark.slow
def test_a_body_over_100_mb_is_cut(proxy: Proxy, upstream: Upstream) -> None:
    log = big_log(101 * 1024 * 1024)
    upstream.play("chat_answer.json")
    completion = openai_client(proxy).chat.completions.create(**chat_conversation(log))
    assert completion.choices[0].message.content == ANSWER
    received = upstream.requests[0]
    assert len(received.body) < 64 * 1024
    assert ERROR_LINE not in received.body.decode()
    assert "trunc_artifact_grep" in received.body.decode()


@pytest.mark.slow
def test_100_concurrent_streams(proxy: Proxy, upstream: Upstream) -> None:
    upstream.play(*["chat_answer.sse"] * 100)
    log = big_log(64 * 1024)

    async def one(client: openai.AsyncOpenAI) -> str:
        texts = []
        stream = await client.chat.completions.create(**chat_conversation(log), stream=True)
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                texts.append(chunk.choices[0].delta.content)
        return "".join(texts)

    async def all_of_them() -> list[Any]:
        async with openai.AsyncOpenAI(base_url=proxy.url + "/v1", api_key=API_KEY,
                                      max_retries=0) as client:
            return await asyncio.gather(*(one(client) for _ in range(100)))

    before = len(proxy.artifacts())
    assert asyncio.run(all_of_them()) == [ANSWER] * 100
    assert len(upstream.requests) == 100
    assert len(proxy.artifacts()) == before + 1  # the same result, cut and stored once


def test_a_stream_holding_a_lone_surrogate_reaches_the_agent(proxy: Proxy,
                                                              upstream: Upstream) -> None:
    """An event whose JSON escapes half of a surrogate pair (``\\ud83d``: a character split
    between two chunks upstream) is JSON all the same, and the SDK reads it: the proxy, which
    writes the events of a cut request anew, must not fail on it (UTF-8 cannot carry it)."""
    upstream.play("chat_answer_lone_surrogate.sse")
    texts = [chunk.choices[0].delta.content
             for chunk in openai_client(proxy).chat.completions.create(
                 **chat_conversation(), stream=True)
             if chunk.choices and chunk.choices[0].delta.content]
    assert "".join(texts) == ANSWER + " \ud83d"
    assert b"trunc_artifact_grep" in upstream.requests[0].body  # the request was cut
    # The control: the SDK straight to the upstream reads the same stream.
    upstream.play("chat_answer_lone_surrogate.sse")
    with openai.OpenAI(base_url=upstream.url + "/v1", api_key=API_KEY,
                       max_retries=0) as direct:
        texts = [chunk.choices[0].delta.content
                 for chunk in direct.chat.completions.create(**chat_conversation(), stream=True)
                 if chunk.choices and chunk.choices[0].delta.content]
    assert "".join(texts) == ANSWER + " \ud83d"


# -- TLS to the upstream ------------------------------------------------------------------------

def test_an_upstream_whose_certificate_nobody_trusted_is_refused(
        tmp_path: Path, upstream: Upstream) -> None:
    """The client to the upstream verifies its certificate: an upstream over TLS with a
    self-signed one is a 502 in the provider's shape, not a conversation with whoever holds
    that key. Control: the same upstream answers a client that trusts the certificate."""
    import shutil
    import ssl
    import subprocess

    import uvicorn

    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("!!! TLS TEST NOT RUN: openssl is not installed !!!")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    server = uvicorn.Server(uvicorn.Config(upstream.app, host="127.0.0.1", port=0,
                                           log_level="warning", ssl_certfile=str(cert),
                                           ssl_keyfile=str(key)))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        while not server.started:
            assert thread.is_alive(), "the TLS upstream did not start"
            thread.join(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        tls_url = f"https://127.0.0.1:{port}"
        body = json.dumps({"model": "gpt-4.1",
                           "messages": [{"role": "user", "content": "hi"}]}).encode()
        headers = {"authorization": f"Bearer {API_KEY}", "content-type": "application/json"}
        upstream.play("chat_answer.json")
        trusted = httpx.post(tls_url + "/v1/chat/completions", content=body, headers=headers,
                             verify=ssl.create_default_context(cafile=str(cert)))
        assert trusted.status_code == 200  # the control: the upstream itself works
        for proxy in start_proxy(tls_url, tmp_path / "store"):
            answer = httpx.post(proxy.url + "/v1/chat/completions", content=body,
                                headers=headers)
        assert answer.status_code == 502
        assert answer.json()["error"]["code"] == "upstream_unreachable"
        assert "Certificate" in answer.json()["error"]["message"]
    finally:
        server.should_exit = True
        thread.join(10)
