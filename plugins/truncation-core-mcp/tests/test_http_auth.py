"""``trunc mcp proxy --http`` and ``trunc mcp serve --http`` let in only requests that carry
the bearer token, and the proxy runs at most ``--max-servers`` downstream processes.

A loopback port is open to every local user: before the token, another user (as ``nobody``)
read the user's artifacts and called the user's tools through it. The negative control,
``--no-auth``, is the server as it was: it answers anyone. The real proxy runs in front of
real servers, driven by the official client and by plain HTTP requests (httpx2, the SDK's
own HTTP client)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp_testing import (
    FAULTY_SERVER,
    SESSION,
    TOKEN,
    child_env,
    free_port,
    http_host,
    listening,
    proxy_argv,
    python_server,
)

pytestmark = pytest.mark.anyio

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "plain-http", "version": "1"}}}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _proxy(trunc: str, work: Path, port: int, *options: str) -> list[str]:
    return proxy_argv(trunc, work / ".truncation.yaml", python_server(), "--http", "--port",
                      str(port), *options)


def _post(url: str, body: Any, headers: dict[str, str] | None = None) -> httpx2.Response:
    return httpx2.post(url, content=json.dumps(body), headers={**ACCEPT, **(headers or {})},
                       timeout=60)


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _works(url: str, token: str | None) -> None:
    """The official client, sending *token*, lists the tools and calls one."""
    async with http_host(url, token) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        assert "big_text" in names and "get_artifact" in names
        result = await client.call_tool("big_text", {"lines": 3})
        assert "row 0000002" in result.content[0].text


@pytest.fixture
def state(tmp_path: Path) -> Iterator[dict[str, str]]:
    """An XDG_STATE_HOME of its own (the default token file is made there), and no
    TRUNC_MCP_TOKEN."""
    yield {"XDG_STATE_HOME": str(tmp_path / "state"), "TRUNC_MCP_TOKEN": ""}


async def test_the_proxy_refuses_requests_without_the_token(
        trunc_exe: str, workspace: Path, tmp_path: Path, state: dict[str, str]) -> None:
    """By default a token is made, kept in a file of mode 0600 in a directory of mode 0700,
    printed once; a request without it, or with another, is refused (401) before anything
    runs; with it, the official client works. A second run reads the same token and does
    not print it."""
    port = free_port()
    log = tmp_path / "stderr.txt"
    with listening(_proxy(trunc_exe, workspace, port), port, env=state, stderr=log) as (url, _):
        assert _post(url, INITIALIZE).status_code == 401
        token_file = tmp_path / "state" / "truncation-core" / "mcp-token"
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        assert stat.S_IMODE(token_file.parent.stat().st_mode) == 0o700
        assert token_file.stat().st_uid == os.geteuid()
        token = token_file.read_text().strip()
        assert len(token) >= 32
        for headers in ({}, _bearer("not-the-token-0123456789"), _bearer(token[:-1]),
                        _bearer(token + "x"), {"Authorization": f"Basic {token}"},
                        {"Authorization": token}):
            refused = _post(url, INITIALIZE, headers)
            assert refused.status_code == 401, headers
            assert refused.headers["www-authenticate"].startswith("Bearer")
            assert "Unauthorized" in refused.json()["error"]["message"]
            assert token not in refused.text
        for method in ("GET", "DELETE"):
            assert httpx2.request(method, url, headers=ACCEPT).status_code == 401
        await _works(url, token)
        # The scheme's name is case-insensitive (RFC 7235).
        assert _post(url, INITIALIZE, {"Authorization": f"bearer {token}"}).status_code == 200
    assert log.read_text().count(token) == 1
    with listening(_proxy(trunc_exe, workspace, port), port, env=state, stderr=log) as (url, _):
        await _works(url, token)
    assert token not in log.read_text()
    assert f"with the token from the token file {token_file}" in log.read_text()


async def test_negative_control_without_auth_the_proxy_answers_anyone(
        trunc_exe: str, workspace: Path, tmp_path: Path, state: dict[str, str]) -> None:
    """--no-auth is the proxy as it was: any local user, with no token, starts a session,
    lists the tools and calls them."""
    port = free_port()
    log = tmp_path / "stderr.txt"
    argv = _proxy(trunc_exe, workspace, port, "--no-auth")
    with listening(argv, port, env=state, stderr=log) as (url, _):
        answer = _post(url, INITIALIZE)
        assert answer.status_code == 200 and "mcp-session-id" in answer.headers
        await _works(url, None)
    assert "WARNING: --no-auth: anyone who can reach" in log.read_text()
    assert not (tmp_path / "state").exists()


async def test_the_token_from_the_environment_or_a_token_file(
        trunc_exe: str, workspace: Path, tmp_path: Path, state: dict[str, str]) -> None:
    port = free_port()
    env = {**state, "TRUNC_MCP_TOKEN": TOKEN}
    with listening(_proxy(trunc_exe, workspace, port), port, env=env) as (url, _):
        assert _post(url, INITIALIZE).status_code == 401
        await _works(url, TOKEN)
    assert not (tmp_path / "state").exists()  # no file made when the token is given

    token_file = tmp_path / "keys" / "proxy.token"
    token_file.parent.mkdir(mode=0o700)
    argv = _proxy(trunc_exe, workspace, port, "--token-file", str(token_file))
    with listening(argv, port, env=state) as (url, _):
        assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
        await _works(url, token_file.read_text().strip())
        assert _post(url, INITIALIZE, _bearer(TOKEN)).status_code == 401


def _refused_start(argv: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(argv, env={**{k: v for k, v in child_env().items()
                                        if k != "TRUNC_MCP_TOKEN"}, **env},
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode != 0
    return done.stderr


def test_a_token_file_others_can_read_or_a_short_token_is_refused(
        trunc_exe: str, workspace: Path, tmp_path: Path) -> None:
    token_file = tmp_path / "proxy.token"
    token_file.write_text("a-token-anyone-can-read-0123456789\n")
    token_file.chmod(0o644)
    port = str(free_port())
    argv = _proxy(trunc_exe, workspace, int(port), "--token-file", str(token_file))
    error = _refused_start(argv, {"XDG_STATE_HOME": str(tmp_path / "state")})
    assert (f"Error: --token-file: other users can read or write {token_file} (mode 0644); "
            f"make it private with chmod 600 {token_file}") in error
    error = _refused_start(_proxy(trunc_exe, workspace, int(port)),
                           {"TRUNC_MCP_TOKEN": "short", "XDG_STATE_HOME": str(tmp_path)})
    assert ("Error: TRUNC_MCP_TOKEN: expected 16 to 4096 visible ASCII characters, without "
            "spaces") in error


async def test_serve_over_http_requires_the_token(trunc_exe: str, workspace: Path) -> None:
    port = free_port()
    argv = [trunc_exe, "mcp", "serve", "--config", str(workspace / ".truncation.yaml"),
            "--session", SESSION, "--http", "--port", str(port)]
    with listening(argv, port) as (url, _):
        assert _post(url, INITIALIZE).status_code == 401
        assert _post(url, INITIALIZE, _bearer("wrong-token-0123456789")).status_code == 401
        async with http_host(url) as client:
            assert "get_artifact" in [t.name for t in (await client.list_tools()).tools]


def _children(pid: int) -> list[int]:
    """The processes whose parent is *pid*."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


async def test_sessions_and_their_server_processes_are_bounded(
        trunc_exe: str, workspace: Path) -> None:
    """40 initialize requests made 40 server processes. Now the proxy runs at most
    --max-servers (8 by default), one per session: past it, initialize is refused with a
    clear error (503), and a session that ends frees its place."""
    port = free_port()
    argv = proxy_argv(trunc_exe, workspace / ".truncation.yaml",
                      [sys.executable, str(FAULTY_SERVER)], "--http", "--port", str(port))
    with listening(argv, port) as (url, proxy):
        answers = [_post(url, {**INITIALIZE, "id": i}, _bearer(TOKEN)) for i in range(10)]
        assert [a.status_code for a in answers] == [200] * 8 + [503] * 2
        assert answers[8].json()["id"] == 8
        assert answers[8].json()["error"]["message"].startswith(
            "trunc mcp proxy runs 8 downstream servers already, one for each HTTP session, "
            "and may run no more (--max-servers 8)")
        with anyio.fail_after(30):
            while len(_children(proxy.pid)) < 8:
                await anyio.sleep(0.1)
        assert len(_children(proxy.pid)) == 8
        ended = httpx2.delete(url, headers={**_bearer(TOKEN), "mcp-session-id":
                                            answers[0].headers["mcp-session-id"]})
        assert ended.status_code == 200
        with anyio.fail_after(30):
            while len(_children(proxy.pid)) > 7:
                await anyio.sleep(0.1)
        assert _post(url, INITIALIZE, _bearer(TOKEN)).status_code == 200  # a place is free
        assert _post(url, INITIALIZE, _bearer(TOKEN)).status_code == 503
        assert len(_children(proxy.pid)) <= 8


def test_max_servers_is_checked(trunc_exe: str, workspace: Path) -> None:
    error = _refused_start(_proxy(trunc_exe, workspace, free_port(), "--max-servers", "0"), {})
    assert "Invalid value for '--max-servers': 0 is not in the range x>=1" in error
