"""The ``trunc`` command line.

Each command group lives in its own module and is registered on the click group,
:data:`cli` (:mod:`truncation_core.cli.group`). User errors (bad configuration, unknown names,
bad arguments) are printed to stderr as one clear message with a non-zero exit status, never
as a traceback.

click parses every command line (:func:`main`).
"""

from __future__ import annotations

import errno
import io
import os
import signal
import sys
from typing import Any

from truncation_core.cli.group import TruncGroup, cli

__all__ = ["TruncGroup", "cli", "main"]


def _closed(*_args: object) -> Any:
    raise OSError(errno.EBADF, "standard output is closed")


class _ClosedBinaryOutput(io.RawIOBase):
    """The bytes side of :class:`_ClosedOutput`."""

    def writable(self) -> bool:
        return True

    write = _closed


class _ClosedOutput(io.TextIOBase):
    """Standard output when the process started with it closed (``trunc ... >&-``): writing
    fails with a clear error, and nothing is left to fail again when Python exits."""

    encoding = "utf-8"
    buffer = _ClosedBinaryOutput()
    write = _closed

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return False


def main() -> None:
    if sys.stdout is None:  # started with descriptor 1 closed (trunc ... >&-)
        sys.stdout = _ClosedOutput()
    try:
        cli(prog_name="trunc")
    except BrokenPipeError:
        # The reader closed the pipe (trunc ... | head): stop quietly, as a shell's tools do,
        # and let nothing flush into the closed pipe again on the way out.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(128 + signal.SIGPIPE)
