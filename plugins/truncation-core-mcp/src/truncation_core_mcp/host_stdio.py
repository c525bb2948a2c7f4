"""Serving the host over the process's stdin and stdout, with linear framing.

While serving, fd 0 reads the null device and fd 1 writes to stderr, so that nothing else in
the process (a plugin's print, a library's warning) can corrupt the protocol stream; the wire
is on private duplicates of the two descriptors.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator

from truncation_core_mcp.framing import LineFramer, Oversized
from truncation_core_mcp.relay import Outbound

__all__ = ["StdioHost", "stdio_host"]

log = logging.getLogger("truncation_core_mcp")

READ_SIZE = 1024 * 1024


class _Reader(asyncio.Protocol):
    def __init__(self, framer: LineFramer, queue: asyncio.Queue[bytes | None]) -> None:
        self._framer = framer
        self._queue = queue

    def data_received(self, data: bytes) -> None:
        for item in self._framer.feed(data):
            if isinstance(item, Oversized):
                log.warning("the host sent a message of %d bytes, over the limit; dropped",
                            item.size)
            else:
                self._queue.put_nowait(item)

    def eof_received(self) -> bool:
        self._queue.put_nowait(None)
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._queue.put_nowait(None)


class _Writer(asyncio.Protocol):
    def __init__(self) -> None:
        self.can_write = asyncio.Event()
        self.can_write.set()
        self.lost = False

    def pause_writing(self) -> None:
        self.can_write.clear()

    def resume_writing(self) -> None:
        self.can_write.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.can_write.set()


class StdioHost:
    """The host end of the proxy: messages from *in_fd*, to *out_fd*."""

    def __init__(self, in_fd: int, out_fd: int, max_size: int) -> None:
        self._in_fd, self._out_fd = in_fd, out_fd
        self._framer = LineFramer(max_size)
        self._queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._write_transport: asyncio.WriteTransport | None = None
        self._writer = _Writer()
        self._read_transport: asyncio.ReadTransport | None = None
        self._read_task: asyncio.Task[None] | None = None

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        reader = os.fdopen(self._in_fd, "rb", buffering=0, closefd=False)
        try:
            self._read_transport, _ = await loop.connect_read_pipe(
                lambda: _Reader(self._framer, self._queue), reader)
        except ValueError:  # not a pipe (a regular file): read it in a thread
            self._read_task = loop.create_task(self._read_in_thread())
        writer = os.fdopen(self._out_fd, "wb", buffering=0, closefd=False)
        try:
            self._write_transport, _ = await loop.connect_write_pipe(lambda: self._writer,
                                                                     writer)
        except ValueError:
            self._write_transport = None

    async def _read_in_thread(self) -> None:
        while True:
            data = await asyncio.to_thread(os.read, self._in_fd, READ_SIZE)
            if not data:
                self._queue.put_nowait(None)
                return
            for item in self._framer.feed(data):
                if not isinstance(item, Oversized):
                    self._queue.put_nowait(item)

    async def messages(self) -> AsyncIterator[tuple[bytes, None]]:
        while True:
            line = await self._queue.get()
            if line is None:
                return
            yield line, None

    async def send(self, message: Outbound) -> None:
        data = message.encoded() + b"\n"
        if self._write_transport is None:
            await asyncio.to_thread(_write_all, self._out_fd, data)
            return
        if self._writer.lost:
            raise ConnectionError("the host closed its end")
        self._write_transport.write(data)
        if not self._writer.can_write.is_set():
            await self._writer.can_write.wait()

    def close(self) -> None:
        if self._read_transport is not None:
            self._read_transport.close()
        if self._read_task is not None:
            self._read_task.cancel()
        if self._write_transport is not None:
            self._write_transport.close()


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


@contextlib.asynccontextmanager
async def stdio_host(max_size: int) -> AsyncIterator[StdioHost]:
    """Claim stdin and stdout for the protocol while the block runs."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    saved_in, saved_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(devnull, 0)
        os.dup2(2, 1)
        host = StdioHost(wire_in, wire_out, max_size)
        await host.open()
        try:
            yield host
        finally:
            host.close()
    finally:
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        for fd in (devnull, saved_in, saved_out, wire_in, wire_out):
            with contextlib.suppress(OSError):
                os.close(fd)
