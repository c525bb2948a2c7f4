"""Helpers for the MCP proxy's tests: the real servers, and a host driven by the official
``mcp`` Python client.

The official Node servers (``@modelcontextprotocol/server-filesystem`` and
``server-everything``) are installed by ``.ci/run`` with npm into a cache folder
(``MCP_SERVERS_NPM_PREFIX``, default ``~/.cache/truncation-core/npm``). Where they are
missing the tests that need them skip with the command that installs them, except in CI
(``CI`` set), where they fail: CI must have them.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
PYTHON_SERVER = HERE / "servers" / "python_server.py"
FAULTY_SERVER = HERE / "servers" / "faulty_server.py"
NPM_PREFIX = Path(os.environ.get("MCP_SERVERS_NPM_PREFIX")
                  or Path.home() / ".cache" / "truncation-core" / "npm")
NODE_PACKAGES = {"mcp-server-filesystem": "@modelcontextprotocol/server-filesystem",
                 "mcp-server-everything": "@modelcontextprotocol/server-everything"}
SESSION = "proxy-tests"
#: The bearer token the HTTP tests give the servers they start (TRUNC_MCP_TOKEN).
TOKEN = "test-token-0123456789abcdef"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _node_server(name: str) -> str:
    path = NPM_PREFIX / "node_modules" / ".bin" / name
    if path.exists() and shutil.which("node"):
        return str(path)
    reason = (f"LOUD SKIP: the official MCP server {NODE_PACKAGES[name]} is not installed at "
              f"{path} (or node is missing). `bash .ci/run` installs it; by hand: apt-get "
              f"install nodejs npm && npm install --prefix {NPM_PREFIX} {NODE_PACKAGES[name]}")
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def filesystem_server() -> str:
    return _node_server("mcp-server-filesystem")


@pytest.fixture(scope="session")
def everything_server() -> str:
    return _node_server("mcp-server-everything")


@pytest.fixture(scope="session")
def trunc_exe() -> str:
    exe = Path(sys.executable).parent / "trunc"
    if not exe.exists():
        pytest.fail(f"the trunc console script is not installed next to {sys.executable}")
    return str(exe)


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with a config file that loads only this plugin (hermetic: other
    installed truncation_core plugins stay out), and a store under it."""
    work = tmp_path / "work"
    work.mkdir()
    write_config(work, {})
    monkeypatch.chdir(work)
    return work


def write_config(work: Path, extra: dict[str, Any]) -> Path:
    config = {"plugins": {"enable": ["mcp"]},
              "store": {"root": str(work / "store"), "retention_days": 0}, **extra}
    path = work / ".truncation.yaml"
    path.write_text(json.dumps(config), encoding="utf-8")  # JSON is YAML
    return path


def proxy_argv(trunc: str, config: Path, server: Sequence[str], *options: str) -> list[str]:
    return [trunc, "mcp", "proxy", "--config", str(config), "--session", SESSION, *options,
            "--", *server]


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNCATION_CORE_")}
    env["PYTHONIOENCODING"] = "utf-8"
    return env


@asynccontextmanager
async def host(argv: Sequence[str], **client_options: Any) -> AsyncIterator[Any]:
    """The official mcp Client, connected over stdio to the process *argv*."""
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=argv[0], args=list(argv[1:]), env=child_env())
    async with Client(params, **client_options) as client:
        yield client


def store_of(work: Path) -> Any:
    """The proxy's artifact store, as another process reads it (the same named session)."""
    from truncation_core import Truncator

    truncator = Truncator.from_config(work / ".truncation.yaml", environ={},
                                      overrides={"store": {"session": SESSION}},
                                      load_entrypoints=False)
    return truncator


class RawWire:
    """JSON-RPC over a subprocess's stdio, line by line, keeping the exact bytes received."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.process = subprocess.Popen(list(argv), stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env=child_env())

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def receive(self) -> bytes:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, "the process closed its stdout"
        return line

    def answer(self, message: dict[str, Any],
               skip: Callable[[dict[str, Any]], bool] = lambda m: "id" not in m) -> bytes:
        """Send a request; the exact line of its answer (notifications are skipped)."""
        self.send(message)
        while True:
            line = self.receive()
            if not skip(json.loads(line)):
                return line

    def initialize(self) -> bytes:
        line = self.answer({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw-wire", "version": "1"}}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return line

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


@pytest.fixture
def raw_wire() -> Iterator[Callable[[Sequence[str]], RawWire]]:
    opened: list[RawWire] = []

    def open_(argv: Sequence[str]) -> RawWire:
        wire = RawWire(argv)
        opened.append(wire)
        return wire

    yield open_
    for wire in opened:
        wire.close()


def numbered_lines(page: str) -> list[tuple[int, str]]:
    """The numbered lines of an artifact tool's page (``     12\\tline``)."""
    rows = []
    for line in page.split("\n")[1:]:
        number, tab, text = line.partition("\t")
        if tab and number.strip().isdigit():
            rows.append((int(number), text))
    return rows


def python_server(*args: str) -> list[str]:
    return [sys.executable, str(PYTHON_SERVER), *args]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def listening(argv: Sequence[str], port: int, *, env: Mapping[str, str] | None = None,
              stderr: Path | None = None) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Run *argv* until it accepts connections on *port*; yield the MCP URL and the process.
    *env*: added to the environment (default: the tests' token in TRUNC_MCP_TOKEN); *stderr*:
    a file for the process's stderr."""
    environment = {**child_env(), "TRUNC_MCP_TOKEN": TOKEN, **(env or {})}
    environment = {k: v for k, v in environment.items() if v}  # "" takes a variable away
    err_file = open(stderr, "wb") if stderr is not None else None
    process = subprocess.Popen(list(argv), env=environment, stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL,
                               stderr=err_file if err_file is not None else subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                message = (stderr.read_text() if stderr is not None else
                           process.stderr.read().decode() if process.stderr else "")
                pytest.fail(f"{list(argv)[:4]} did not listen: {message}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()
        if err_file is not None:
            err_file.close()


@asynccontextmanager
async def http_host(url: str, token: str | None = TOKEN) -> AsyncIterator[Any]:
    """The official mcp Client over Streamable HTTP, sending *token* as a bearer token."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    timeout = httpx2.Timeout(30.0, read=300.0)
    async with httpx2.AsyncClient(headers=headers, timeout=timeout) as http, \
            Client(streamable_http_client(url, http_client=http)) as client:
        yield client
