"""The downstream MCP server: one process, its stdin and its stdout framed by
:class:`~truncation_core_mcp.framing.LineFramer`.

The process runs in its own session (process group), so that stopping it stops what it
started. Its stderr is the proxy's stderr (hosts show it in their MCP logs).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from truncation_core_mcp.framing import LineFramer, Oversized

__all__ = ["DownstreamProcess", "ServerLink", "describe_exit"]

#: Seconds the server has to exit once its stdin is closed, then after SIGTERM.
STOP_GRACE = 2.0
#: Seconds to wait for the rest of stdout once the process has exited.
EXIT_FLUSH = 1.0
#: Bytes buffered towards the server's stdin before writers wait.
WRITE_HIGH_WATER = 4 * 1024 * 1024


def describe_exit(returncode: int | None) -> str:
    if returncode is None:
        return "stopped"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"was killed by {name}"
    return f"exited with status {returncode}"


class ServerLink(Protocol):
    """What a relay needs of its downstream server: a process of its own
    (:class:`DownstreamProcess`), or its part of one that sessions share
    (:class:`~truncation_core_mcp.shared.SharedLink`)."""

    @property
    def pid(self) -> int | None: ...

    @property
    def running(self) -> bool: ...

    @property
    def heard_from(self) -> bool: ...

    @property
    def stop_reason(self) -> str | None: ...

    async def start(self) -> None: ...

    def send(self, line: bytes) -> None: ...

    async def drain(self) -> None: ...

    async def stop(self) -> None: ...

    def kill(self, reason: str) -> None: ...


class _Pipes(asyncio.SubprocessProtocol):
    def __init__(self, link: DownstreamProcess) -> None:
        self._link = link

    def pipe_data_received(self, fd: int, data: bytes) -> None:
        if fd == 1:
            self._link._received(data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self._link._stdout_closed.set()

    def process_exited(self) -> None:
        self._link._process_exited()

    def pause_writing(self) -> None:
        self._link._can_write.clear()

    def resume_writing(self) -> None:
        self._link._can_write.set()


class DownstreamProcess:
    """One run of the downstream server.

    *on_message* gets each message line (bytes, without its newline), *on_oversized* each
    message over *max_size*, *on_exit* the return code once the process has exited and its
    stdout is read to the end. All three are called on the event loop.
    """

    def __init__(self, argv: Sequence[str], *, env: Mapping[str, str] | None, cwd: str | None,
                 max_size: int, on_message: Callable[[bytes], None],
                 on_oversized: Callable[[Oversized], None],
                 on_exit: Callable[[int | None], None]) -> None:
        self.argv = tuple(argv)
        self._env = dict(env) if env is not None else None
        self._cwd = cwd
        self._framer = LineFramer(max_size)
        self._on_message = on_message
        self._on_oversized = on_oversized
        self._on_exit = on_exit
        self._transport: asyncio.SubprocessTransport | None = None
        self._stdout_closed = asyncio.Event()
        self._can_write = asyncio.Event()
        self._can_write.set()
        self._exited = asyncio.Event()
        self._ended = False
        #: Why the proxy stopped it, when it did (a timeout): errors say so.
        self.stop_reason: str | None = None
        #: Whether it has sent anything yet (a server still starting up has not).
        self.heard_from = False

    @property
    def pid(self) -> int | None:
        return self._transport.get_pid() if self._transport is not None else None

    @property
    def returncode(self) -> int | None:
        return self._transport.get_returncode() if self._transport is not None else None

    @property
    def running(self) -> bool:
        return self._transport is not None and not self._ended and self.stop_reason is None

    async def start(self) -> None:
        """Start the process. Raises :class:`OSError` when it cannot be started."""
        loop = asyncio.get_running_loop()
        self._transport, _ = await loop.subprocess_exec(
            lambda: _Pipes(self), *self.argv, stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=None, env=self._env, cwd=self._cwd,
            start_new_session=sys.platform != "win32")

    def send(self, line: bytes) -> None:
        """Write one message (without its newline)."""
        if self._transport is None or self._ended:
            raise ConnectionError("the downstream server is not running")
        pipe = self._transport.get_pipe_transport(0)
        if pipe is None or pipe.is_closing():
            raise ConnectionError("the downstream server's stdin is closed")
        pipe.write(line + b"\n")  # type: ignore[attr-defined]

    async def drain(self) -> None:
        """Wait while more than the high-water mark is buffered towards the server."""
        if not self._can_write.is_set():
            await self._can_write.wait()

    def _received(self, data: bytes) -> None:
        self.heard_from = True
        for item in self._framer.feed(data):
            if isinstance(item, Oversized):
                self._on_oversized(item)
            else:
                self._on_message(item)

    def _process_exited(self) -> None:
        self._exited.set()
        asyncio.get_running_loop().create_task(self._finish())

    async def _finish(self) -> None:
        # The last messages may still be in the pipe when the exit is seen.
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self._stdout_closed.wait(), EXIT_FLUSH)
        if not self._ended:
            self._ended = True
            self._on_exit(self.returncode)

    async def stop(self) -> None:
        """Close its stdin, then SIGTERM and SIGKILL its process group, each after a grace
        period; return once it has exited."""
        transport = self._transport
        if transport is None or self._exited.is_set():
            return
        stdin = transport.get_pipe_transport(0)
        if stdin is not None:
            stdin.close()
        for sig in (signal.SIGTERM, signal.SIGKILL, None):
            try:
                await asyncio.wait_for(self._exited.wait(), STOP_GRACE)
                return
            except TimeoutError:
                if sig is None:
                    return
                self._signal(sig)

    def kill(self, reason: str) -> None:
        """Kill the process group at once (a server that hangs); *reason* says why."""
        self.stop_reason = reason
        if self._transport is not None and not self._exited.is_set():
            self._signal(signal.SIGKILL)

    def _signal(self, sig: signal.Signals) -> None:
        pid = self.pid
        if pid is None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if sys.platform != "win32":
                os.killpg(pid, sig)
            else:
                os.kill(pid, sig)
