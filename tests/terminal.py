"""Running a real command with its stderr on a pseudo-terminal, as a person at a terminal does
(progress displays are drawn only there)."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import termios
from collections.abc import Sequence
from pathlib import Path

__all__ = ["run_with_stderr_on_a_terminal"]


def run_with_stderr_on_a_terminal(argv: Sequence[str], *, cwd: Path | str,
                                  env: dict[str, str] | None = None, columns: int = 120,
                                  timeout: float = 120) -> tuple[int, str, str]:
    """Run *argv* with stdout piped and stderr on a new pseudo-terminal of *columns* columns.

    Returns the exit code, stdout, and everything written to the terminal (escape sequences
    included), decoded.
    """
    leader, follower = pty.openpty()
    try:
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
        try:
            proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=follower, cwd=cwd, env=env)
        finally:
            os.close(follower)
        screen = bytearray()
        while True:
            try:
                data = os.read(leader, 65536)
            except OSError:  # EIO: the terminal's last writer is gone
                break
            if not data:
                break
            screen += data
        out, _ = proc.communicate(timeout=timeout)
    finally:
        os.close(leader)
    return proc.returncode, out.decode("utf-8", "replace"), screen.decode("utf-8", "replace")
