"""``trunc mcp serve`` (the artifact tools alone, over stdio and HTTP) and ``trunc mcp proxy
--http``, driven by the official mcp client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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

TOOLS = ["get_artifact", "artifact_head", "artifact_tail", "artifact_grep"]


def _stored(work: Path) -> str:
    """An artifact in the tests' session, as trunc run or an agent's Truncator leaves it."""
    truncator: Truncator = store_of(work)
    result = truncator.process("".join(f"build step {i}\n" for i in range(5000))
                               + "error: linker failed\n", tool="execute_command")
    assert result.artifact is not None
    return result.artifact.id


async def _read_back(client: Any, artifact_id: str) -> None:
    assert [t.name for t in (await client.list_tools()).tools] == TOOLS
    page = await client.call_tool("get_artifact", {"artifact_id": artifact_id,
                                                   "start_line": 10, "end_line": 12})
    assert numbered_lines(page.content[0].text) == [
        (10, "build step 9"), (11, "build step 10"), (12, "build step 11")]
    grep = await client.call_tool("artifact_grep", {"artifact_id": artifact_id,
                                                    "pattern": "error:"})
    assert "5001:\terror: linker failed" in grep.content[0].text
    missing = await client.call_tool("artifact_head", {"artifact_id": "art_1_" + "0" * 32})
    assert missing.is_error and missing.content[0].text.startswith("Error 404")
    assert (f"This server reads session {SESSION} only: artifacts of another run are found "
            "when both runs name the same session (--session NAME, or store.session)."
            ) in missing.content[0].text


async def test_serve_over_stdio_reads_what_another_process_stored(
        trunc_exe: str, workspace: Path) -> None:
    artifact_id = _stored(workspace)
    argv = [trunc_exe, "mcp", "serve", "--config", str(workspace / ".truncation.yaml"),
            "--store", str(workspace / "store"), "--session", SESSION]
    async with host(argv) as client:
        await _read_back(client, artifact_id)


async def test_serve_over_http(trunc_exe: str, workspace: Path) -> None:
    artifact_id = _stored(workspace)
    port = free_port()
    argv = [trunc_exe, "mcp", "serve", "--config", str(workspace / ".truncation.yaml"),
            "--session", SESSION, "--http", "--port", str(port)]
    with listening(argv, port) as (url, _):
        async with http_host(url) as client:
            await _read_back(client, artifact_id)


async def test_proxy_over_http(trunc_exe: str, filesystem_server: str, workspace: Path,
                               tmp_path: Path) -> None:
    root = tmp_path / "files"
    root.mkdir()
    (root / "log.txt").write_text("".join(f"entry {i}\n" for i in range(100_000)))
    port = free_port()
    argv = proxy_argv(trunc_exe, workspace / ".truncation.yaml", [filesystem_server, str(root)],
                      "--http", "--port", str(port))
    with listening(argv, port) as (url, _):
        for _ in range(2):  # two sessions, each with its own server
            async with http_host(url) as client:
                names = [t.name for t in (await client.list_tools()).tools]
                assert names[-4:] == TOOLS and "read_text_file" in names
                result = await client.call_tool("read_text_file",
                                                {"path": str(root / "log.txt")})
                text = result.content[0].text
                assert len(text) <= 8000 and "entry 99999" in text
                artifact_id = result.meta["truncation-core/truncated"][0]["artifact_id"]
                page = await client.call_tool("get_artifact", {
                    "artifact_id": artifact_id, "start_line": 50_001, "end_line": 50_001})
                assert numbered_lines(page.content[0].text) == [(50_001, "entry 50000")]
