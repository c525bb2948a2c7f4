"""The ``trunc`` command line.

Each command group lives in its own module and is registered on the click group,
:data:`cli` (:mod:`truncation_core.cli.group`). User errors (bad configuration, unknown names,
bad arguments) are printed to stderr as one clear message with a non-zero exit status, never
as a traceback.

This module does not import click: :func:`main` runs the plain forms of ``trunc apply`` and
``trunc run`` without it (:mod:`truncation_core.cli.plain`), and hands every other command
line to the click group.
"""

from __future__ import annotations

import errno
import io
import os
import signal
import sys
from typing import Any

__all__ = ["cli", "main"]


def __getattr__(name: str) -> Any:
    # The click group and its class, imported on first use (PEP 562).
    if name in ("cli", "TruncGroup", "BUILTIN_COMMANDS"):
        from truncation_core.cli import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
        from truncation_core.cli.plain import run_plain

        run_plain(sys.argv[1:])  # exits when it ran the command line itself
        from truncation_core.cli.group import cli

        cli(prog_name="trunc")
    except BrokenPipeError:
        # The reader closed the pipe (trunc ... | head): stop quietly, as a shell's tools do,
        # and let nothing flush into the closed pipe again on the way out.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(128 + signal.SIGPIPE)
