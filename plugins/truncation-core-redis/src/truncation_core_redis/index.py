"""The line index of an artifact: how many lines end before each block boundary.

The content is cut into blocks of ``block`` bytes (64 KiB by default); for each boundary
``b * block`` inside the content the index keeps the number of line terminators (``"\\n"``,
``"\\r\\n"``, lone ``"\\r"``, as in :mod:`truncation_core.retrieval.scanning`) that end at or
before it, as little-endian 64-bit integers: 128 bytes per MiB of content. A ``"\\r\\n"`` pair
that straddles a boundary ends after it, so it counts for the next one: counting from the
boundary finds its ``"\\n"``, which ends where the pair does.

With it, finding where line *n* starts, or which line holds a byte, reads one block at most,
wherever it is in the artifact.
"""

from __future__ import annotations

import bisect
import sys
from array import array
from typing import BinaryIO

from truncation_core.retrieval import line_start
from truncation_core.retrieval.scanning import CHUNK, CR, LF, count_range, file_size

__all__ = ["LineIndex", "LineIndexer"]

DEFAULT_BLOCK = 64 << 10


def _count(data: bytes, start: int, stop: int) -> int:
    """Terminators in ``data[start:stop]``, a trailing ``"\\r"`` counted as lone."""
    n = data.count(b"\n", start, stop)
    if data.find(b"\r", start, stop) != -1:
        n += data.count(b"\r", start, stop) - data.count(b"\r\n", start, stop)
    return n


class LineIndexer:
    """Builds the line index of content written in pieces of any size."""

    def __init__(self, block: int = DEFAULT_BLOCK) -> None:
        self.block = block
        #: Terminators so far, a ``"\\r"`` at the very end not counted yet (it may start a pair).
        self.terminators = 0
        self.size = 0
        self._counts = array("Q")
        self._pending_cr = False
        self._pending_at_boundary = False

    def feed(self, data: bytes) -> None:
        i, n = 0, len(data)
        while i < n:
            stop = min(n, i + self.block - self.size % self.block)
            self._count(data, i, stop)
            self.size += stop - i
            i = stop
            if self.size % self.block == 0:
                self._counts.append(self.terminators)
                self._pending_at_boundary = self._pending_cr

    def _count(self, data: bytes, start: int, stop: int) -> None:
        if self._pending_cr:
            if data[start] != LF:  # the "\r" before was lone: it ended where it stood
                self.terminators += 1
                if self._pending_at_boundary:
                    self._counts[-1] += 1
            self._pending_cr = self._pending_at_boundary = False
        if data[stop - 1] == CR:
            self._pending_cr = True
            stop -= 1
        self.terminators += _count(data, start, stop)

    def finish(self) -> bytes:
        """The index, as stored."""
        if self._pending_cr:
            self.terminators += 1
            if self._pending_at_boundary:
                self._counts[-1] += 1
            self._pending_cr = self._pending_at_boundary = False
        counts = self._counts
        if self.size and self.size % self.block == 0:
            counts = counts[:-1]  # the boundary at the very end is not inside the content
        return _pack(counts)


def _pack(counts: array[int]) -> bytes:
    if sys.byteorder == "big":
        counts = array("Q", counts)
        counts.byteswap()
    return counts.tobytes()


def _unpack(data: bytes) -> array[int]:
    counts = array("Q")
    counts.frombytes(data[: len(data) - len(data) % 8])
    if sys.byteorder == "big":
        counts.byteswap()
    return counts


class _From:
    """The part of a file from *start* on, as a seekable file."""

    def __init__(self, f: BinaryIO, start: int) -> None:
        self._f, self._start = f, start

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence == 0:
            return self._f.seek(self._start + offset) - self._start
        return self._f.seek(offset, whence) - self._start

    def read(self, n: int = -1) -> bytes:
        return self._f.read(n)


class LineIndex:
    """Lookups in a stored line index."""

    def __init__(self, block: int, data: bytes) -> None:
        self.block = block
        #: ``starts[b]``: terminators ending at or before ``b * block``; ``starts[0] == 0``.
        self.starts = array("Q", [0])
        self.starts.extend(_unpack(data))

    def line_start(self, f: BinaryIO, number: int) -> int | None:
        """Byte offset where line *number* (1-based) starts, or None past the last line: as
        :func:`truncation_core.retrieval.line_start`, reading one block at most."""
        if number <= 1:
            return 0 if file_size(f) else None
        need = number - 1  # terminators before the line
        b = bisect.bisect_left(self.starts, need) - 1  # the last boundary before them all
        start = b * self.block
        size = file_size(f)
        found = line_start(_From(f, start), need - self.starts[b] + 1)  # type: ignore[arg-type]
        return None if found is None or start + found >= size else start + found

    def line_number_at(self, f: BinaryIO, offset: int) -> int:
        """The number of the line holding the byte at *offset*: as
        :func:`truncation_core.retrieval.line_number_at`, reading one block at most."""
        if offset <= 0:
            return 1
        f.seek(offset - 1)
        stop = offset - 1 if f.read(2) == b"\r\n" else offset
        b = min(stop // self.block, len(self.starts) - 1)
        return self.starts[b] + count_range(f, b * self.block, stop, CHUNK) + 1
