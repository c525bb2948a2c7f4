"""``trunc mcp proxy --http --share-server``: every HTTP session uses one downstream server
process, and no session's requests, answers or progress reach another. Real servers (the
SDK's MCPServer test server, the official server-everything), the official client."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_testing import FAULTY_SERVER, free_port, http_host, listening, proxy_argv, python_server
from test_http_auth import _children

pytestmark = pytest.mark.anyio


async def _pid(client: Any) -> int:
    result = await client.call_tool("pid", {})
    assert not result.is_error, result.content[0].text
    return int(result.content[0].text)


async def test_sessions_share_one_server_and_keep_their_own_answers(
        trunc_exe: str, workspace: Path) -> None:
    port = free_port()
    argv = proxy_argv(trunc_exe, workspace / ".truncation.yaml", python_server(), "--http",
                      "--port", str(port), "--share-server")
    with listening(argv, port) as (url, proxy):
        async with http_host(url) as a, http_host(url) as b:
            assert await _pid(a) == await _pid(b)
            assert len(_children(proxy.pid)) == 1
            sizes: dict[str, list[int]] = {"a": [], "b": []}

            async def calls(client: Any, name: str, lines: int) -> None:
                for _ in range(4):
                    result = await client.call_tool("big_text", {"lines": lines})
                    entry = result.meta["truncation-core/truncated"][0]
                    sizes[name].append(entry["original_chars"])
                    follow = await client.call_tool("artifact_tail", {
                        "artifact_id": entry["artifact_id"], "lines": 1})
                    assert f"row {lines - 1:07d}" in follow.content[0].text

            with anyio.fail_after(120):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(calls, a, "a", 2000)
                    tasks.start_soon(calls, b, "b", 3000)
            line = len("row 0000000 the quick brown fox jumps over the lazy dog\n")
            assert sizes == {"a": [2000 * line] * 4, "b": [3000 * line] * 4}
            # More sessions than --max-servers would allow processes: still one process.
            async with http_host(url) as c:
                assert await _pid(c) == await _pid(a)
        # The last session gone, the server stops; the next session starts a new one.
        with anyio.fail_after(30):
            while _children(proxy.pid):
                await anyio.sleep(0.1)
        async with http_host(url) as d:
            assert await _pid(d) > 0
            assert len(_children(proxy.pid)) == 1


async def test_progress_reaches_the_session_that_asked(
        trunc_exe: str, everything_server: str, workspace: Path) -> None:
    port = free_port()
    argv = proxy_argv(trunc_exe, workspace / ".truncation.yaml", [everything_server, "stdio"],
                      "--http", "--port", str(port), "--share-server")
    with listening(argv, port) as (url, proxy):
        async with http_host(url) as a, http_host(url) as b:
            progress: dict[str, list[tuple[float, float | None]]] = {"a": [], "b": []}

            async def run(client: Any, name: str, steps: int) -> None:
                async def on_progress(value: float, total: float | None,
                                      message: str | None) -> None:
                    progress[name].append((value, total))

                result = await client.call_tool("trigger-long-running-operation",
                                                {"duration": 1, "steps": steps},
                                                progress_callback=on_progress)
                assert "Long running operation completed" in result.content[0].text

            with anyio.fail_after(60):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(run, a, "a", 3)
                    tasks.start_soon(run, b, "b", 4)
            assert progress == {"a": [(1, 3), (2, 3), (3, 3)],
                                "b": [(1, 4), (2, 4), (3, 4), (4, 4)]}
            assert len(_children(proxy.pid)) == 1
    assert os.path.exists(workspace)


async def test_a_crash_reaches_every_session_and_restart_brings_one_server_back(
        trunc_exe: str, workspace: Path) -> None:
    port = free_port()
    argv = proxy_argv(trunc_exe, workspace / ".truncation.yaml", python_server(), "--http",
                      "--port", str(port), "--share-server", "--restart")
    with listening(argv, port) as (url, proxy):
        async with http_host(url) as a, http_host(url) as b:
            first = await _pid(a)
            crashed = await b.call_tool("crash", {})
            assert crashed.is_error and "exited with status 3" in crashed.content[0].text
            second = await _pid(a)
            assert second != first and await _pid(b) == second
            assert len(_children(proxy.pid)) == 1


async def test_broken_and_duplicate_answers_on_a_shared_server(
        trunc_exe: str, workspace: Path) -> None:
    port = free_port()
    argv = proxy_argv(trunc_exe, workspace / ".truncation.yaml",
                      [sys.executable, str(FAULTY_SERVER)], "--http", "--port", str(port),
                      "--share-server")
    with listening(argv, port) as (url, _):
        async with http_host(url) as a, http_host(url) as b:
            with anyio.fail_after(60):
                broken = await a.call_tool("truncated_answer", {})
            assert broken.is_error
            assert "sent an answer that is not valid JSON" in broken.content[0].text
            twice = await b.call_tool("duplicate_answer", {})
            assert len(twice.content[0].text) <= 8000
            for client in (a, b):
                assert (await client.call_tool("echo", {})).content[0].text == "echo answered"
