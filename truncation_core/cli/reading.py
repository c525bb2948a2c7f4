"""Reading ``trunc apply``'s input until its end, or until a signal says to stop.

An interrupted ``trunc apply -`` keeps what arrived, as an interrupted ``trunc run`` does:
the input so far is cut, kept as a partial artifact, and shown, and the exit status is
128 + the signal's number (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP).

While the input is read, SIGINT, SIGTERM and SIGHUP only note the signal: a handler that
raised (Python's own for SIGINT) could land in the middle of a chunk's write to the stream,
which would then count lines the artifact lacks, and SIGTERM's default ends the process with
nothing kept. The wait for input wakes at once (the signal's byte arrives on a wakeup pipe,
watched beside the input), and :meth:`InputReader.read` returns ``b""`` as at the end, with
:attr:`InputReader.signal` saying which signal stopped it. A signal while the output is cut
and printed is noted too (the output is then whole); a second signal stops ``trunc`` at once,
as the signal would have without these handlers.

Only where this can work: in the main thread, on an input with a file descriptor. Anything
else (a test's in-memory input) is read as it is, and a signal acts as it would anyway.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading
from typing import TYPE_CHECKING, Any, BinaryIO

if TYPE_CHECKING:
    from types import FrameType, TracebackType

__all__ = ["STOPPING_SIGNALS", "InputReader"]

#: The signals that stop reading (those that exist here: Windows has no SIGHUP).
STOPPING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                         if hasattr(signal, name))


def _waiting(fd: int) -> int:
    """Bytes waiting to be read in pipe (or socket) *fd*; 0 for anything else, or where the
    system cannot say."""
    import stat

    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode) and not stat.S_ISSOCK(os.fstat(fd).st_mode):
            return 0
        import array
        import fcntl
        import termios

        count = array.array("i", [0])
        fcntl.ioctl(fd, termios.FIONREAD, count, True)
        return max(0, count[0])
    except (OSError, ImportError, AttributeError):
        return 0


class InputReader:
    """*source* read a chunk at a time until its end or a signal; use it as a context
    manager, which installs the handlers and restores the previous ones."""

    def __init__(self, source: BinaryIO) -> None:
        self._source = source
        #: The signal that stopped the reading (its number), or None.
        self.signal: int | None = None
        self._fd: int | None = None
        self._wake: tuple[int, int] | None = None
        self._previous: dict[int, Any] = {}
        self._previous_wakeup = -1
        #: What watches the input and the wakeup pipe (None for a regular file, which
        #: ``poll`` cannot tell from one that is ready, and which never waits).
        self._poll: select.poll | None = None
        #: Bytes still to read from the pipe once stopped (None: not asked yet).
        self._pending: int | None = None

    @property
    def signal_name(self) -> str | None:
        return None if self.signal is None else signal.Signals(self.signal).name

    def __enter__(self) -> InputReader:
        if threading.current_thread() is not threading.main_thread():
            return self
        try:
            fd = self._source.fileno()
            os.fstat(fd)
        except (OSError, ValueError, AttributeError):
            return self  # no descriptor (an in-memory input): read it as it is
        self._fd = fd
        import stat

        # A regular file never makes a read wait: the signal is seen between two reads. For
        # anything else (a pipe, a terminal, a socket), poll() watches it and a wakeup pipe.
        # (poll, not the selectors module: that import alone costs trunc apply 0.7 ms.)
        if not stat.S_ISREG(os.fstat(fd).st_mode) and hasattr(select, "poll"):
            read_end, write_end = os.pipe()
            os.set_blocking(write_end, False)
            self._wake = (read_end, write_end)
            self._poll = select.poll()
            self._poll.register(fd, select.POLLIN)
            self._poll.register(read_end, select.POLLIN)
            self._previous_wakeup = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
        for number in STOPPING_SIGNALS:
            self._previous[number] = signal.signal(number, self._note)
        return self

    def _note(self, number: int, _frame: FrameType | None) -> None:
        if self.signal is None:
            self.signal = number
            return
        # A second signal: act as it would have without these handlers.
        self._restore()
        signal.raise_signal(number)

    def read(self, size: int) -> bytes:
        """Up to *size* bytes (fewer when that much has not arrived yet); ``b""`` at the end
        of the input, or once a signal arrived."""
        if self._fd is None:
            return self._source.read(size)
        if self._poll is None:  # a file: no wait for input to watch
            return os.read(self._fd, size) if self.signal is None else b""
        while self.signal is None:
            ready = {fd for fd, _ in self._poll.poll()}
            if self._wake is not None and self._wake[0] in ready:
                with contextlib.suppress(OSError):
                    os.read(self._wake[0], 512)  # the handler has run, or runs next
                continue
            if self._fd in ready:
                return os.read(self._fd, size)
        return self._drain(size)

    def _drain(self, size: int) -> bytes:
        """Once stopped: what was already waiting in the pipe when the signal came (it had
        arrived), up to *size* bytes a call, and no more; nothing from a file, which is read
        as fast as it can be and has no end of its own to wait for."""
        if self._pending is None:
            self._pending = _waiting(self._fd) if self._fd is not None else 0
        if not self._pending:
            return b""
        try:  # (that many bytes are waiting: the read does not block)
            data = os.read(self._fd, min(size, self._pending))  # type: ignore[arg-type]
        except OSError:
            data = b""
        self._pending = len(data) and self._pending - len(data)
        return data

    def _restore(self) -> None:
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._previous = {}
        if self._wake is not None:
            signal.set_wakeup_fd(self._previous_wakeup)
            for fd in self._wake:
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._wake = None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self._restore()
        self._poll = None
