"""A tool call's handle, ``(tool call <connection>:<request id>)`` in a marker, names that call
in that connection only. JSON-RPC request ids start again at 1 in every connection, so the
bare id would name the same-numbered call of every connection that shares the store's
session: over ``--http``, and across runs in a named session. Tested with the official
filesystem server and the official client; the negative control shows the bare request id
resolving to another connection's artifact."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_testing import (
    SESSION,
    free_port,
    host,
    http_host,
    listening,
    numbered_lines,
    proxy_argv,
    store_of,
)

from truncation_core import Truncator

pytestmark = pytest.mark.anyio

#: The handle in a marker (the call's request id at its end).
HANDLE = re.compile(r"\(tool call ([^\s)]*?)([0-9]+)\)")
#: The form of a handle: 12 hex digits naming the connection, and the request id.
SCOPED = re.compile(r"[0-9a-f]{12}:[0-9]+")


def files(root: Path) -> dict[str, Path]:
    """Two logs that tell apart whose output a page is."""
    root.mkdir(exist_ok=True)
    out = {}
    for name in ("alpha", "bravo"):
        path = root / f"{name}.log"
        path.write_text("".join(f"{name} line {i}\n" for i in range(1, 20_001)))
        out[name] = path
    return out


async def read_and_handle(client: Any, path: Path) -> tuple[str, int]:
    """Read *path* through the proxy: the handle its marker names, and the request id."""
    result = await client.call_tool("read_text_file", {"path": str(path)})
    found = HANDLE.search(result.content[0].text)
    assert found is not None, result.content[0].text[:600]
    return found.group(1) + found.group(2), int(found.group(2))


async def line_5(client: Any, artifact_id: Any) -> str:
    """Line 5 of the artifact that *artifact_id* (an id, a handle, a number) stands for."""
    page = await client.call_tool("get_artifact", {"artifact_id": artifact_id,
                                                   "start_line": 5, "end_line": 5})
    assert not page.is_error, page.content[0].text
    [(number, text)] = numbered_lines(page.content[0].text)
    assert number == 5
    return text


async def test_two_http_clients_each_follow_their_own_marker(
        trunc_exe: str, filesystem_server: str, workspace: Path, tmp_path: Path) -> None:
    """Two clients connected at once to one proxy over HTTP, each reading its own file as
    its request number 3 (say): each follows its marker's handle, or the bare number, to
    its own output. Before, client A got client B's."""
    logs = files(tmp_path / "files")
    port = free_port()
    argv = proxy_argv(trunc_exe, workspace / ".truncation.yaml",
                      [filesystem_server, str(tmp_path / "files")], "--http", "--port", str(port))
    with listening(argv, port) as (url, _):
        async with http_host(url) as a, http_host(url) as b:
            alpha, alpha_number = await read_and_handle(a, logs["alpha"])
            bravo, bravo_number = await read_and_handle(b, logs["bravo"])
            assert alpha_number == bravo_number  # what the bare request id would confuse
            assert await line_5(a, alpha) == "alpha line 5"
            assert await line_5(a, alpha_number) == "alpha line 5"
            assert await line_5(b, bravo) == "bravo line 5"
            assert await line_5(b, bravo_number) == "bravo line 5"
            assert await line_5(b, alpha) == "alpha line 5"  # a handle names one call anywhere

            async def rounds(client: Any, name: str, seen: list[str]) -> None:
                for _ in range(3):
                    handle, number = await read_and_handle(client, logs[name])
                    seen.append(await line_5(client, handle))
                    seen.append(await line_5(client, number))

            seen: dict[str, list[str]] = {"alpha": [], "bravo": []}
            with anyio.fail_after(120):
                async with anyio.create_task_group() as tasks:
                    tasks.start_soon(rounds, a, "alpha", seen["alpha"])
                    tasks.start_soon(rounds, b, "bravo", seen["bravo"])
            assert seen == {name: [f"{name} line 5"] * 6 for name in seen}


async def test_in_a_named_session_an_old_handle_keeps_pointing_at_its_own_output(
        trunc_exe: str, filesystem_server: str, workspace: Path, tmp_path: Path) -> None:
    """Two runs of the proxy in one named session, each reading its own file with the same
    request id: each handle names its own output, in any connection; a bare number names
    the call of the connection it is sent in."""
    logs = files(tmp_path / "files")
    argv = proxy_argv(trunc_exe, workspace / ".truncation.yaml",
                      [filesystem_server, str(tmp_path / "files")])
    async with host(argv) as first:
        alpha, alpha_number = await read_and_handle(first, logs["alpha"])
    async with host(argv) as second:
        bravo, bravo_number = await read_and_handle(second, logs["bravo"])
        assert alpha_number == bravo_number  # the client's count started again
        assert await line_5(second, alpha) == "alpha line 5"
        assert await line_5(second, bravo) == "bravo line 5"
        assert SCOPED.fullmatch(alpha) and SCOPED.fullmatch(bravo) and alpha != bravo
        # The number as the MCP Inspector's CLI sends it (a JSON number), and as a string.
        assert await line_5(second, bravo_number) == "bravo line 5"
        assert await line_5(second, str(bravo_number)) == "bravo line 5"
    async with host(argv) as third:
        assert await line_5(third, alpha) == "alpha line 5"
        missing = await third.call_tool("get_artifact", {"artifact_id": alpha_number})
        assert missing.is_error
        text = missing.content[0].text
        assert text.startswith("Error 404 (not found): no artifact is kept for tool call "
                               f"{alpha_number} of this connection"), text
        assert "markers name a call by its handle" in text


async def test_artifact_id_numbers_that_name_no_call(
        trunc_exe: str, filesystem_server: str, workspace: Path, tmp_path: Path) -> None:
    argv = proxy_argv(trunc_exe, workspace / ".truncation.yaml",
                      [filesystem_server, str(tmp_path)])
    async with host(argv) as client:
        for value in (2.5, True, -1):
            result = await client.call_tool("artifact_head", {"artifact_id": value})
            assert result.is_error
        assert "expected a string, got 2.5" in (await client.call_tool(
            "artifact_head", {"artifact_id": 2.5})).content[0].text


async def test_a_404_for_another_sessions_artifact_names_session(
        trunc_exe: str, filesystem_server: str, workspace: Path, tmp_path: Path) -> None:
    """An artifact kept by another run: the 404 names the session that holds it and says
    that --session is what shares artifacts between runs."""
    other: Truncator = Truncator.from_config(
        workspace / ".truncation.yaml", environ={}, overrides={"store": {"session": "elsewhere"}},
        load_entrypoints=False)
    kept = other.process("".join(f"step {i}\n" for i in range(5000)), tool="build")
    assert kept.artifact is not None
    argv = proxy_argv(trunc_exe, workspace / ".truncation.yaml",
                      [filesystem_server, str(tmp_path)])
    async with host(argv) as client:
        result = await client.call_tool("get_artifact", {"artifact_id": kept.artifact.id})
        assert result.is_error
        text = result.content[0].text
        assert text.startswith(f"Error 404 (not found): artifact {kept.artifact.id} not found")
        assert (f"It is kept in session elsewhere, not in session {SESSION}, which this server "
                "reads. Runs share artifacts through a named session: start this one with "
                "--session elsewhere") in text
        unknown = await client.call_tool("get_artifact", {"artifact_id": "art_1_" + "0" * 32})
        assert (f"This server reads session {SESSION} only: artifacts of another run are found "
                "when both runs name the same session (--session NAME, or store.session)"
                ) in unknown.content[0].text


def test_negative_control_a_bare_request_id_names_the_last_connections_output(
        workspace: Path) -> None:
    """What markers named before: the request id alone. Two connections' calls number 3
    share it, and following it from the first connection reads the second's output."""
    truncator: Truncator = store_of(workspace)
    for name in ("alpha", "bravo"):
        truncator.process("".join(f"{name} line {i}\n" for i in range(1, 20_001)),
                          tool="read_text_file", tool_call_id="3")
    page = truncator.call_tool("get_artifact", {"artifact_id": "3", "start_line": 5,
                                                "end_line": 5})
    assert numbered_lines(page.content) == [(5, "bravo line 5")]  # not the first's own
    # Handles scoped to their connection keep the two apart.
    for connection, name in (("a1a1a1a1a1a1", "alpha"), ("b2b2b2b2b2b2", "bravo")):
        truncator.process("".join(f"{name} line {i}\n" for i in range(1, 20_001)),
                          tool="read_text_file", tool_call_id=f"{connection}:3")
    for connection, name in (("a1a1a1a1a1a1", "alpha"), ("b2b2b2b2b2b2", "bravo")):
        page = truncator.call_tool("get_artifact", {"artifact_id": f"{connection}:3",
                                                    "start_line": 5, "end_line": 5})
        assert numbered_lines(page.content) == [(5, f"{name} line 5")]
