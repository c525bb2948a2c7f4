"""What the proxy leaves alone, and what it never keeps: other paths pass through
untouched, a conversation within its limits goes byte for byte, images stay, the agent's
tool names are never taken, keys reach the upstream and nothing of a request is logged or
stored but the artifacts."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from proxy_testing import (
    API_KEY,
    ERROR_LINE,
    LOG,
    Proxy,
    Reply,
    Upstream,
    chat_conversation,
    messages_conversation,
    responses_conversation,
)
from test_conversation import anthropic_client, openai_client

TRUNC = Path(sys.executable).parent / "trunc"


def test_other_paths_pass_through_untouched(proxy: Proxy, upstream: Upstream) -> None:
    upstream.play(Reply("openai_models.json", 200, {"x-request-id": "req_models_1"}))
    answer = httpx.get(proxy.url + "/v1/models?limit=5",
                       headers={"authorization": f"Bearer {API_KEY}", "x-custom": "kept"})
    received = upstream.requests[0]
    assert (received.method, received.path) == ("GET", "/v1/models")
    assert received.headers["authorization"] == f"Bearer {API_KEY}"
    assert received.headers["x-custom"] == "kept"
    assert answer.status_code == 200
    assert answer.content == Path(__file__).with_name("recorded").joinpath(
        "openai_models.json").read_bytes()
    assert answer.headers["x-request-id"] == "req_models_1"


def test_an_upstreams_cookie_goes_to_its_agent_and_no_other(proxy: Proxy,
                                                            upstream: Upstream) -> None:
    """The proxy keeps no cookie jar: a ``set-cookie`` in one agent's answer (OpenAI's edge
    sets some) reaches that agent, and is never sent upstream with another agent's request.
    An HTTP client that keeps cookies (httpx's did, in the proxy before aiohttp) sends it
    with every later request, whoever makes it."""
    upstream.play(Reply("openai_models.json", 200, {"set-cookie": "__cf_bm=agent-a; Path=/"}),
                  Reply("openai_models.json"))
    headers = {"authorization": f"Bearer {API_KEY}"}
    first = httpx.get(proxy.url + "/v1/models", headers=headers)
    httpx.get(proxy.url + "/v1/models", headers=headers)  # another agent, its own client
    assert first.headers["set-cookie"] == "__cf_bm=agent-a; Path=/"
    assert "cookie" not in upstream.requests[1].headers


def test_passing_through_keeps_the_bodys_framing(proxy: Proxy, upstream: Upstream) -> None:
    """A request without a body goes without one, and a body of known length goes with its
    Content-Length: not as a chunked body, which some servers refuse (411 Length Required, or
    a GET with a body)."""
    upstream.play(Reply("openai_models.json"), Reply("openai_models.json"))
    headers = {"authorization": f"Bearer {API_KEY}"}
    httpx.get(proxy.url + "/v1/models", headers=headers)
    upload = b"purpose=fine-tune&data=" + b"x" * 100_000
    httpx.post(proxy.url + "/v1/files", content=upload,
               headers={**headers, "content-type": "application/x-www-form-urlencoded"})
    listed, uploaded = upstream.requests
    assert "transfer-encoding" not in listed.headers and listed.body == b""
    assert listed.headers.get("content-length", "0") == "0"
    assert "transfer-encoding" not in uploaded.headers
    assert uploaded.headers["content-length"] == str(len(upload)) and uploaded.body == upload


def test_count_tokens_is_not_cut(proxy: Proxy, upstream: Upstream) -> None:
    upstream.play("anthropic_count_tokens.json")
    request = messages_conversation()
    del request["max_tokens"]
    count = anthropic_client(proxy).messages.count_tokens(**request)
    assert count.input_tokens == 262151
    assert json.loads(upstream.requests[0].body) == request


@pytest.mark.parametrize("api", ["chat", "responses", "messages"])
def test_a_conversation_within_its_limits_goes_byte_for_byte(proxy: Proxy, upstream: Upstream,
                                                             api: str) -> None:
    path, request = {"chat": ("/v1/chat/completions", chat_conversation("ok\n")),
                     "responses": ("/v1/responses", responses_conversation("ok\n")),
                     "messages": ("/v1/messages", messages_conversation("ok\n"))}[api]
    body = json.dumps(request, indent=1).encode()  # not as the proxy would write it
    upstream.play(f"{api}_answer.json")
    answer = httpx.post(proxy.url + path, content=body,
                        headers={"content-type": "application/json", "x-api-key": API_KEY})
    assert upstream.requests[0].body == body
    recorded = Path(__file__).with_name("recorded") / f"{api}_answer.json"
    if api != "responses":  # the Responses reply echoes the request's tools
        assert answer.content == recorded.read_bytes()


def test_images_in_a_tool_result_pass_unchanged(proxy: Proxy, upstream: Upstream) -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAf"
                                                 "FcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAA"
                                                 "BJRU5ErkJggg=="}}
    request = messages_conversation()
    result = request["messages"][-1]["content"][0]
    result["content"] = [{"type": "text", "text": LOG}, image]
    upstream.play("messages_answer.json")
    anthropic_client(proxy).messages.create(**request)
    sent = upstream.requests[0].json["messages"][-1]["content"][0]["content"]
    assert sent[1] == image
    assert sent[0]["type"] == "text" and len(sent[0]["text"]) < len(LOG)


def test_the_artifact_tools_never_take_an_agents_tool_name(proxy: Proxy,
                                                           upstream: Upstream) -> None:
    request = chat_conversation()
    request["tools"].append({"type": "function", "function": {
        "name": "trunc_artifact_grep", "description": "The agent's own.",
        "parameters": {"type": "object", "properties": {}}}})
    upstream.play("chat_answer.json")
    openai_client(proxy).chat.completions.create(**request)
    sent = upstream.requests[0].json
    names = [t["function"]["name"] for t in sent["tools"]]
    assert names.count("trunc_artifact_grep") == 1
    assert "trunc2_artifact_grep" in names
    assert "trunc2_get_artifact" in sent["messages"][-1]["content"]


def test_keys_reach_the_upstream_and_nothing_is_logged_or_kept(
        proxy: Proxy, upstream: Upstream, caplog: pytest.LogCaptureFixture) -> None:
    upstream.play("chat_grep.json", "chat_answer.json")
    with caplog.at_level(logging.DEBUG):
        openai_client(proxy).chat.completions.create(
            **chat_conversation(), extra_query={"key": API_KEY})
    assert all(r.headers["authorization"] == f"Bearer {API_KEY}" for r in upstream.requests)
    # The proxy's records: not those of the test's own client (the SDKs, on httpx2).
    ours = [r for r in caplog.records
            if not r.name.startswith(("openai", "anthropic", "httpx2", "httpcore2"))]
    logged = "\n".join(r.getMessage() for r in ours)
    assert "cut" in logged  # the proxy did log, at INFO
    for secret in (API_KEY, ERROR_LINE, "Why did last night's build fail?"):
        assert secret not in logged
    root = Path(proxy.cutter.store.backend.location)
    assert list(root.rglob("art_*"))
    for path in root.rglob("*"):
        if path.is_file():
            assert API_KEY.encode() not in path.read_bytes()


def test_trunc_proxy_serves_on_loopback(upstream: Upstream, tmp_path: Path) -> None:
    config = tmp_path / ".truncation.yaml"
    config.write_text(f"store:\n  root: {tmp_path / 'store'}\ninline_limit: 8000\n")
    process = subprocess.Popen([str(TRUNC), "proxy", "--port", "0", "--upstream", upstream.url,
                                "--config", str(config), "--session", "proxytest", "-v"],
                               stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                               env={**os.environ, "NO_COLOR": "1"})
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert "listening on http://127.0.0.1:" in line and "session proxytest" in line
        url = line.split("listening on ")[1].split(",")[0]
        upstream.play("chat_grep.json", "chat_answer.json")
        with httpx.Client() as client:
            answer = client.post(url + "/v1/chat/completions", json=chat_conversation(),
                                 headers={"authorization": f"Bearer {API_KEY}"}, timeout=60)
        assert answer.json()["choices"][0]["message"]["content"].startswith("The build failed")
    finally:
        process.terminate()
        _, errors = process.communicate(timeout=30)
    assert API_KEY not in line + errors
    assert list((tmp_path / "store").rglob("art_*"))


def test_a_bad_upstream_is_a_usage_error() -> None:
    done = subprocess.run([str(TRUNC), "proxy", "--upstream", "api.openai.com"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--upstream" in done.stderr and "https://api.openai.com" in done.stderr


def test_an_upstream_with_credentials_in_it_is_refused_unshown() -> None:
    """A password in the upstream URL would be printed as the proxy starts, and httpx would
    send it as Basic auth in place of the agent's own key: refused, without repeating it."""
    done = subprocess.run([str(TRUNC), "proxy", "--upstream",
                           "https://gateway:hunter2-secret@llm.example.com"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--upstream" in done.stderr and "credentials" in done.stderr
    assert "hunter2-secret" not in done.stderr + done.stdout
