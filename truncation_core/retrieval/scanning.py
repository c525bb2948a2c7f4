"""Finding lines in an artifact's bytes, without decoding and without reading it whole.

Definitions are those of :mod:`truncation_core.text.cut`: a line terminator is ``"\\n"``,
``"\\r\\n"`` or a lone ``"\\r"``; line numbers are 1-based; the last line needs no terminator.
In UTF-8 the bytes of ``"\\n"`` and ``"\\r"`` never occur inside a multi-byte character, so
terminators are found on the bytes, in invalid UTF-8 too.

Files are read in chunks (64 KiB by default) that never end between the two bytes of a
``"\\r\\n"`` pair, so counting and finding terminators never straddles two chunks. Memory stays
bounded by the chunk size plus what is returned.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO

__all__ = [
    "CHUNK",
    "chunks",
    "count_range",
    "count_terminators",
    "file_size",
    "line_number_at",
    "line_start",
    "line_starts_from_end",
    "next_terminator_end",
    "raw_lines",
    "strip_terminator",
]

#: How many matching lines grep returns by default (:mod:`~truncation_core.retrieval.searching`);
#: here, so that :class:`~truncation_core.retrieval.Retrieval` can name it without importing
#: grep.
GREP_MAX_MATCHES = 100

#: How much is read at a time.
CHUNK = 1 << 16

LF, CR = 0x0A, 0x0D


def file_size(f: BinaryIO) -> int:
    """The size of the open artifact *f*, in bytes."""
    return f.seek(0, 2)


def count_terminators(buf: bytes | bytearray) -> int:
    """Terminators in *buf*, which must not end between the two bytes of a ``\\r\\n`` pair."""
    count = buf.count(b"\n")
    if buf.find(b"\r") != -1:
        count += buf.count(b"\r") - buf.count(b"\r\n")
    return count


def next_terminator_end(buf: bytes | bytearray, pos: int, has_cr: bool) -> int:
    """Position just after the first terminator at or after *pos* in *buf*, or -1.

    *has_cr* says whether *buf* holds a ``\\r`` at all (callers look once per buffer). A
    ``\\r`` as the last byte of *buf* counts as a lone terminator: callers make sure that
    *buf* never ends between the two bytes of a pair.
    """
    nl = buf.find(b"\n", pos)
    if has_cr:
        cr = buf.find(b"\r", pos)
        if cr != -1 and (nl == -1 or cr < nl):
            return cr + 2 if cr + 1 < len(buf) and buf[cr + 1] == LF else cr + 1
    return -1 if nl == -1 else nl + 1


def strip_terminator(raw: bytes) -> bytes:
    """*raw* without the line terminator it ends with, if any."""
    if raw.endswith(b"\r\n"):
        return raw[:-2]
    if raw.endswith((b"\n", b"\r")):
        return raw[:-1]
    return raw


def chunks(f: BinaryIO, start: int, chunk: int, stop: int | None = None
           ) -> Iterator[tuple[int, bytes]]:
    """Read ``[start, stop)`` in pieces that never end between ``\\r`` and ``\\n``.

    Yields ``(offset, piece)``. A piece that would end in ``\\r`` gives that byte to the next
    piece. Each read seeks first, so the caller may use *f* in between.
    """
    pos, carry = start, b""
    while stop is None or pos < stop:
        f.seek(pos)
        data = f.read(chunk if stop is None else min(chunk, stop - pos))
        if not data:
            break
        pos += len(data)
        buf = carry + data if carry else data
        base = pos - len(buf)
        if buf[-1] == CR and (stop is None or pos < stop):
            buf, carry = buf[:-1], b"\r"
        else:
            carry = b""
        if buf:
            yield base, buf
    if carry:
        yield pos - 1, carry


def count_range(f: BinaryIO, start: int, stop: int, chunk: int) -> int:
    """Terminators ending in ``(start, stop]``; *stop* must not fall inside a pair."""
    return sum(count_terminators(buf) for _, buf in chunks(f, start, chunk, stop))


def line_start(f: BinaryIO, number: int, *, chunk: int = CHUNK, origin: int = 0) -> int | None:
    """Byte offset where line *number* (1-based) starts, or None past the last line.

    With *origin* (a line start), lines are counted from there: line 1 is the one at
    *origin*.
    """
    total = file_size(f)
    if number <= 1:
        return origin if origin < total else None
    need = number - 1
    for base, buf in chunks(f, origin, chunk):
        count = count_terminators(buf)
        if count < need:
            need -= count
            continue
        has_cr = buf.find(b"\r") != -1
        pos = 0
        for _ in range(need):
            pos = next_terminator_end(buf, pos, has_cr)
        offset = base + pos
        return offset if offset < total else None
    return None


def line_number_at(f: BinaryIO, offset: int, *, chunk: int = CHUNK) -> int:
    """The number of the line holding the byte at *offset*."""
    if offset <= 0:
        return 1
    f.seek(offset - 1)
    pair = f.read(2)
    # Inside a "\r\n" pair, the terminator ends after offset: do not count it.
    stop = offset - 1 if pair == b"\r\n" else offset
    return count_range(f, 0, stop, chunk) + 1


def line_starts_from_end(f: BinaryIO, n: int, *, chunk: int = CHUNK,
                         reach: int | None = None) -> list[int]:
    """Start offsets of the last *n* lines, last line first (fewer if there are fewer).

    Reads backwards from the end, *chunk* bytes at a time: the cost depends on the size of
    those lines, never on the size of the artifact. With *reach*, reading stops once the
    last line's start is found and *reach* bytes from the end are read: a caller that can
    show only that much needs no start further back (so a request for a billion lines costs
    no more than one for the lines that fit).
    """
    total = file_size(f)
    if total == 0 or n <= 0:
        return []
    starts: list[int] = []
    hi = total
    after: int | None = None  # the byte just after [lo, hi), to tell a lone "\r" from "\r\n"
    while hi > 0 and len(starts) < n and (reach is None or not starts or total - hi < reach):
        lo = max(0, hi - chunk)
        f.seek(lo)
        seg = f.read(hi - lo)
        # A terminator ends at e in (lo, hi] when seg[e-1-lo] is "\n", or is a "\r" not
        # followed by "\n". Each such e below the size is where a line starts.
        i = len(seg)
        while len(starts) < n:
            j = max(seg.rfind(b"\n", 0, i), seg.rfind(b"\r", 0, i))
            if j == -1:
                break
            nxt = seg[j + 1] if j + 1 < len(seg) else after
            e = lo + j + 1
            if not (seg[j] == CR and nxt == LF) and e < total:
                starts.append(e)
            i = j
        after = seg[0]
        hi = lo
    if hi == 0 and len(starts) < n:
        starts.append(0)  # read back to the start: the first line is among the last n
    return starts


def raw_lines(f: BinaryIO, offset: int, chunk: int, cap: int | None
              ) -> Iterator[tuple[bytes, bool]]:
    """The lines from *offset*, as raw bytes with their terminators.

    Yields ``(raw, complete)``. A line longer than *cap* bytes is yielded once, cut at *cap*
    or more bytes, with ``complete`` False, and iteration stops: memory stays bounded.
    """
    carry = bytearray()
    for _, piece in chunks(f, offset, chunk):
        if carry:
            scan_from = len(carry)  # the carry holds no terminator: search only what is new
            carry += piece
            buf: bytes | bytearray = carry
        else:
            scan_from, buf = 0, piece
        has_cr = buf.find(b"\r", scan_from) != -1
        start = 0
        while True:
            end = next_terminator_end(buf, max(start, scan_from), has_cr)
            if end == -1:
                break
            yield bytes(buf[start:end]), True
            start = end
            scan_from = 0
        if start or buf is not carry:
            carry = bytearray(buf[start:])
        # else: no terminator in it, and carry already holds it all (copying it again for
        # every chunk would be quadratic in the length of a long line)
        if cap is not None and len(carry) > cap:
            yield bytes(carry), False
            return
    if carry:
        yield bytes(carry), True
