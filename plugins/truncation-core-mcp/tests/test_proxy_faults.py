"""A downstream server that crashes, hangs, breaks the protocol, sends an oversized message or
cannot be started: the host gets a clear error naming the server, the proxy goes on, and
with --restart the next call reaches a new server. Each defence has a negative control: the
stock client straight to the same server fails (it raises, or never gets an answer)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_testing import FAULTY_SERVER, host, proxy_argv, python_server, store_of

pytestmark = pytest.mark.anyio

WHO = "downstream MCP server 'python-test-server' (python"


def _argv(trunc: str, work: Path, *options: str, server: list[str] | None = None) -> list[str]:
    return proxy_argv(trunc, work / ".truncation.yaml", server or python_server(), *options)


def _faulty(size: int = 3_000_000) -> list[str]:
    return [sys.executable, str(FAULTY_SERVER), str(size)]


async def _pid(client: Any) -> int:
    result = await client.call_tool("pid", {})
    assert not result.is_error, result.content[0].text
    return int(result.content[0].text)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_crash_mid_call_is_a_clear_error_and_restart_brings_the_server_back(
        trunc_exe: str, workspace: Path, mode: str) -> None:
    """In both protocol eras: per-request envelopes (auto, with this server), and the
    initialize handshake (legacy), which the proxy replays to the new server."""
    async with host(_argv(trunc_exe, workspace, "--restart"), mode=mode) as client:
        first = await _pid(client)
        crashed = await client.call_tool("crash", {})
        assert crashed.is_error
        text = crashed.content[0].text
        assert text.startswith(WHO), text
        assert "exited with status 3 while handling this tools/call request" in text
        assert await _pid(client) != first  # a new server, started for this call
        assert not (await client.call_tool("big_text", {"lines": 3})).is_error


async def test_without_restart_the_next_call_says_the_server_is_not_running(
        trunc_exe: str, workspace: Path) -> None:
    async with host(_argv(trunc_exe, workspace)) as client:
        await client.call_tool("crash", {})
        again = await client.call_tool("pid", {})
        assert again.is_error
        assert "is not running: it exited with status 3; start the proxy with --restart" in \
            again.content[0].text
        # The proxy itself still answers: its own tools work without the server.
        tools = await client.call_tool("artifact_tail", {"artifact_id": "art_1_" + "0" * 32})
        assert "Error 404" in tools.content[0].text


async def test_negative_control_a_crash_breaks_the_stock_client(workspace: Path) -> None:
    with pytest.raises(Exception):  # noqa: B017 - whatever the SDK raises
        async with host(python_server()) as client:
            await client.call_tool("crash", {})


async def test_a_hang_times_out_with_a_clear_error_and_restart_replaces_the_server(
        trunc_exe: str, workspace: Path) -> None:
    async with host(_argv(trunc_exe, workspace, "--restart", "--timeout", "2")) as client:
        first = await _pid(client)
        with anyio.fail_after(30):
            hung = await client.call_tool("hang", {"seconds": 120})
        assert hung.is_error
        assert hung.content[0].text.startswith(WHO)
        assert "did not answer tools/call within 2 s; it was stopped, and the next call " \
            "starts it again" in hung.content[0].text
        assert await _pid(client) != first


async def test_negative_control_a_hang_leaves_the_stock_client_waiting(workspace: Path) -> None:
    async with host(python_server()) as client:
        with anyio.move_on_after(3) as scope:
            await client.call_tool("hang", {"seconds": 8})
        assert scope.cancelled_caught


async def test_cancellation_reaches_the_server(trunc_exe: str, workspace: Path) -> None:
    marker = workspace / "cancelled.txt"
    async with host(_argv(trunc_exe, workspace)) as client:
        with anyio.move_on_after(2):
            await client.call_tool("until_cancelled", {"marker": str(marker)})
        with anyio.fail_after(15):
            while not marker.exists():
                await anyio.sleep(0.1)
        assert marker.read_text() == "cancelled"
        assert (await _pid(client)) > 0  # and the connection goes on


@pytest.mark.parametrize(("tool", "expected"), [
    ("result_not_an_object", "sent a malformed result (not an object)"),
    ("not_jsonrpc", "sent a malformed answer (not a JSON-RPC 2.0 message)"),
    ("oversized", "sent a message of 3,000,"),
])
async def test_malformed_and_oversized_answers_are_clear_errors(
        trunc_exe: str, workspace: Path, tool: str, expected: str) -> None:
    argv = _argv(trunc_exe, workspace, "--max-message-bytes", "1048576", server=_faulty())
    async with host(argv) as client:
        result = await client.call_tool(tool, {})
        assert result.is_error
        text = result.content[0].text
        assert text.startswith("downstream MCP server 'faulty-server' (python"), text
        assert expected in text
        if tool == "oversized":
            assert "over the proxy's limit of 1,048,576 (--max-message-bytes)" in text
        # The proxy and the server go on.
        echo = await client.call_tool("echo", {})
        assert echo.content[0].text == "echo answered"


async def test_a_line_that_is_not_json_is_skipped(trunc_exe: str, workspace: Path) -> None:
    async with host(_argv(trunc_exe, workspace, server=_faulty())) as client:
        result = await client.call_tool("garbage_then_answer", {})
        assert result.content[0].text == "garbage_then_answer answered"


@pytest.mark.parametrize("tool", ["result_not_an_object", "not_jsonrpc"])
async def test_negative_control_a_malformed_answer_breaks_the_stock_client(tool: str) -> None:
    async with host(_faulty()) as client:
        with anyio.move_on_after(5) as scope:
            try:
                result = await client.call_tool(tool, {})
            except Exception:
                return
        assert scope.cancelled_caught or result is None


async def test_a_server_that_cannot_be_started_is_named_and_the_proxy_stays_up(
        trunc_exe: str, workspace: Path, raw_wire: Any) -> None:
    wire = raw_wire(_argv(trunc_exe, workspace, server=[str(workspace / "no-such-server")]))
    answer = json.loads(wire.initialize())
    assert answer["error"]["message"].startswith(
        "downstream MCP server 'no-such-server' is not running: it could not be started "
        "(FileNotFoundError")
    ping = json.loads(wire.answer({"jsonrpc": "2.0", "id": 5, "method": "ping"}))
    assert ping == {"jsonrpc": "2.0", "id": 5, "result": {}}


# -- one answer per call; a broken answer fails its call at once ------------------------------


def _read_until(wire: Any, ids: set[Any]) -> list[bytes]:
    """The lines the proxy sends until it has answered every request in *ids*."""
    lines = []
    while ids:
        line = wire.receive()
        lines.append(line)
        ids.discard(json.loads(line).get("id"))
    return lines


def _texts(message: dict[str, Any]) -> list[str]:
    result = message.get("result") or {}
    return [b.get("text", "") for b in result.get("content", []) if isinstance(b, dict)]


@pytest.mark.parametrize("tool", ["duplicate_answer", "unsolicited_answer"])
async def test_a_second_or_unsolicited_answer_never_reaches_the_host(
        trunc_exe: str, workspace: Path, raw_wire: Any, tool: str) -> None:
    """The server answers the call twice (300,003 characters each), or answers requests never
    made: the host gets one answer per call, cut to the limit, and nothing else; before the
    fix the second answer reached it raw."""
    wire = raw_wire(_argv(trunc_exe, workspace, server=_faulty()))
    wire.initialize()
    wire.send({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
               "params": {"name": tool, "arguments": {}}})
    wire.send({"jsonrpc": "2.0", "id": 8, "method": "ping"})
    lines = _read_until(wire, {7, 8})
    # One more round trip: whatever the proxy sent after the call's answer is in by then.
    wire.send({"jsonrpc": "2.0", "id": 9, "method": "ping"})
    lines += _read_until(wire, {9})
    messages = [json.loads(line) for line in lines]
    assert [m.get("id") for m in messages if "result" in m or "error" in m].count(7) == 1
    assert all(m.get("id") in (7, 8, 9) for m in messages), [m.get("id") for m in messages]
    for line, message in zip(lines, messages, strict=True):
        assert len(line) < 16_000, (message.get("id"), len(line))
        assert all(len(text) <= 8000 for text in _texts(message))
    answer = next(m for m in messages if m.get("id") == 7)
    if tool == "duplicate_answer":
        assert "first answer: the quick brown fox" in _texts(answer)[0]
    else:
        assert _texts(answer) == ["unsolicited_answer answered"]


async def test_a_duplicate_answer_through_the_official_client(
        trunc_exe: str, workspace: Path) -> None:
    async with host(_argv(trunc_exe, workspace, server=_faulty())) as client:
        for _ in range(3):
            result = await client.call_tool("duplicate_answer", {})
            assert len(result.content[0].text) <= 8000
            assert result.meta["truncation-core/truncated"][0]["original_chars"] == 300_003
        assert (await client.call_tool("echo", {})).content[0].text == "echo answered"


async def test_an_error_answer_over_the_limit_is_cut_and_kept(
        trunc_exe: str, workspace: Path, raw_wire: Any) -> None:
    wire = raw_wire(_argv(trunc_exe, workspace, server=_faulty()))
    wire.initialize()
    line = wire.answer({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                        "params": {"name": "error_too_long", "arguments": {}}})
    assert len(line) < 16_000, len(line)
    error = json.loads(line)["error"]
    assert error["code"] == -32603
    assert len(error["message"]) <= 8000 and "fatal: out of cheese" in error["message"]
    [entry] = error["data"]["truncation-core/truncated"]
    stored = store_of(workspace).artifacts.text(entry["artifact_id"])
    assert len(stored) == 300_003 + len("\nfatal: out of cheese")


@pytest.mark.parametrize("tool", ["truncated_answer", "truncated_answer_id_last",
                                  "malformed_answer"])
async def test_a_broken_answer_fails_its_call_at_once_and_the_proxy_goes_on(
        trunc_exe: str, workspace: Path, tool: str) -> None:
    """A line cut short (the id at its start, or lost with its end, as the TypeScript SDK
    orders members) or garbled: the call fails at once with a clear error, instead of
    waiting out --timeout (300 s), and the proxy and the server go on."""
    async with host(_argv(trunc_exe, workspace, server=_faulty())) as client:
        with anyio.fail_after(60):  # the default --timeout is 300 s: this is a hang guard
            result = await client.call_tool(tool, {})
        assert result.is_error
        text = result.content[0].text
        assert text.startswith("downstream MCP server 'faulty-server' (python"), text
        assert "sent an answer that is not valid JSON" in text
        assert (await client.call_tool("echo", {})).content[0].text == "echo answered"


async def test_a_json_log_line_cut_short_is_skipped(trunc_exe: str, workspace: Path) -> None:
    async with host(_argv(trunc_exe, workspace, server=_faulty())) as client:
        result = await client.call_tool("truncated_log_line", {})
        assert result.content[0].text == "truncated_log_line answered"


async def test_negative_control_a_broken_answer_leaves_the_stock_client_waiting() -> None:
    """The official client, straight to the server, logs the line and waits on."""
    async with host(_faulty()) as client:
        with anyio.move_on_after(3) as scope:
            await client.call_tool("truncated_answer", {})
        assert scope.cancelled_caught
