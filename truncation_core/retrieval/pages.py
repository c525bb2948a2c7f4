"""Pages of an artifact: lines a to b, the last n lines, and whole lines from a byte offset.

A :class:`Page` is the text exactly as stored (line terminators included), decoded, with the
line numbers and byte offsets it spans and where the next page starts. Pages never split a
character: a line longer than a page is cut at a character boundary and continues by offset.
``read_tail`` reads backwards from the end, so its cost depends on the lines it returns.
"""

from __future__ import annotations

from typing import BinaryIO

import attrs

from truncation_core.retrieval.scanning import (
    CHUNK,
    CR,
    LF,
    chunks,
    file_size,
    line_number_at,
    line_start,
    line_starts_from_end,
    next_terminator_end,
    raw_lines,
    strip_terminator,
)
from truncation_core.text.decoding import decode, encoded_size, fit_chars, utf8_boundary_after

__all__ = ["Line", "Page", "clipped_lines", "read_lines", "read_page", "read_tail"]


@attrs.frozen(kw_only=True)
class Line:
    """One line of an artifact (without its terminator)."""

    number: int
    #: The line's content (never in the repr: content stays out of logs and messages).
    text: str = attrs.field(repr=False)
    #: Byte offset of the line's first character shown.
    offset: int
    #: True when ``text`` is only part of the line (the line is too long to show).
    clipped: bool = False


@attrs.frozen(kw_only=True)
class Page:
    """A contiguous part of an artifact, and where the next part starts."""

    artifact_id: str | None
    #: The content, exactly as stored (line terminators included), decoded (not in the repr).
    text: str = attrs.field(repr=False)
    #: Number of the line holding the first character (0 for an empty page).
    first_line: int
    #: Number of the line holding the last character (0 for an empty page).
    last_line: int
    #: Byte offsets of the page in the artifact: ``[offset, end_offset)``.
    offset: int
    end_offset: int
    #: Size of the artifact in bytes.
    total_bytes: int
    #: True when the page starts in the middle of a line (a continuation by offset).
    starts_mid_line: bool = False

    @property
    def eof(self) -> bool:
        """True when nothing follows this page."""
        return self.end_offset >= self.total_bytes

    @property
    def ends_mid_line(self) -> bool:
        """True when the page stops inside a line that is too long to show whole."""
        return not self.eof and bool(self.text) and self.text[-1] not in "\r\n"

    @property
    def next_line(self) -> int | None:
        """The line where the next page starts, or None at the end of the artifact.

        When the page stops mid-line this is that line; continue it with ``next_offset``.
        """
        if self.eof:
            return None
        return self.last_line if self.ends_mid_line else self.last_line + 1

    @property
    def next_offset(self) -> int | None:
        """The byte offset where the next page starts, or None at the end."""
        return None if self.eof else self.end_offset

    def lines(self) -> list[Line]:
        """The page split into lines (terminators removed)."""
        out: list[Line] = []
        number, offset = self.first_line, self.offset
        for raw in _split_keepends(self.text):
            body = raw[:-2] if raw.endswith("\r\n") else (
                raw[:-1] if raw.endswith(("\n", "\r")) else raw)
            clipped = (number == self.first_line and self.starts_mid_line) or (
                number == self.last_line and self.ends_mid_line)
            out.append(Line(number=number, text=body, offset=offset, clipped=clipped))
            number += 1
            offset += encoded_size(raw)
        return out

    def numbered(self, width: int = 6) -> str:
        """The page with a line number before each line, as ``cat -n`` prints it (numbers
        right-aligned in *width* columns)."""
        return "\n".join(f"{line.number:>{width}}\t{line.text}" for line in self.lines())

    @classmethod
    def empty(cls, total_bytes: int, artifact_id: str | None = None) -> Page:
        """The page past the end of an artifact of *total_bytes* bytes: no text, no lines."""
        return cls(artifact_id=artifact_id, text="", first_line=0, last_line=0,
                   offset=total_bytes, end_offset=total_bytes, total_bytes=total_bytes)


def _split_keepends(text: str) -> list[str]:
    """Split on the terminators of :mod:`truncation_core.text.cut` only, keeping them."""
    out: list[str] = []
    start, n = 0, len(text)
    nl = cr = -2  # not looked for yet; each is looked for again only once passed, so that a
    while start < n:  # text without "\r" is not scanned to its end for every line
        if -1 != nl < start:
            nl = text.find("\n", start)
        if -1 != cr < start:
            cr = text.find("\r", start)
        hits = [i for i in (nl, cr) if i != -1]
        if not hits:
            out.append(text[start:])
            break
        i = min(hits)
        end = i + 2 if text[i] == "\r" and i + 1 < n and text[i + 1] == "\n" else i + 1
        out.append(text[start:end])
        start = end
    return out


def _snap_offset(f: BinaryIO, offset: int, size: int) -> tuple[int, bool]:
    """Move *offset* forward out of a UTF-8 sequence or a ``\r\n`` pair, if inside one.

    Returns the offset and whether it falls in the middle of a line.
    """
    if offset <= 0 or offset >= size:
        return max(0, min(offset, size)), False
    lo = max(0, offset - 3)
    f.seek(lo)
    around = f.read(offset - lo + 3)
    i = offset - lo
    if around[i - 1] == CR and around[i] == LF:
        return offset + 1, False
    offset = lo + utf8_boundary_after(around, i)
    f.seek(offset - 1)
    return offset, f.read(1) not in (b"\n", b"\r")


def read_page(
    f: BinaryIO,
    *,
    offset: int = 0,
    first_line: int | None = None,
    max_lines: int | None = None,
    max_chars: int | None = None,
    line_cost: int = 0,
    chunk: int = CHUNK,
    artifact_id: str | None = None,
    end_line: int | None = None,
) -> Page:
    """Whole lines from byte *offset*, until *max_lines* lines or *max_chars* characters.

    Each line costs its characters (terminator included) plus *line_cost* (room for a line
    number). A line longer than what is left is cut at a character boundary, only when it is
    the first line of the page, so that paging always makes progress. *first_line* is the
    number of the line at *offset* when the caller knows it. With *end_line*, the page stops
    after that line, and is empty when *offset* lies after it.
    """
    size = file_size(f)
    offset, mid_line = _snap_offset(f, offset, size)
    if first_line is None:
        first_line = line_number_at(f, offset, chunk=chunk) if offset else 1
    if offset >= size or (end_line is not None and first_line > end_line):
        return Page.empty(size, artifact_id)
    if end_line is not None:
        to_end = end_line - first_line + 1
        max_lines = to_end if max_lines is None else min(max_lines, to_end)
    budget = max_chars
    cap = None if budget is None else 4 * budget + 8  # a longer line cannot fit
    pieces: list[str] = []
    pos = offset
    for raw, complete in raw_lines(f, offset, chunk, cap):
        text = decode(raw) if complete else ""
        if budget is not None and (not complete or len(text) + line_cost > budget):
            if not pieces:
                body = strip_terminator(raw)
                if body:
                    part, used = fit_chars(body, max(budget - line_cost, 1))
                else:  # a bare terminator: show it rather than make no progress
                    part, used = text, len(raw)
                pieces.append(part)
                pos += used
            break
        pieces.append(text)
        pos += len(raw)
        if budget is not None:
            budget -= len(text) + line_cost
        if max_lines is not None and len(pieces) >= max_lines:
            break
    text = "".join(pieces)
    last = first_line + len(pieces) - 1
    return Page(artifact_id=artifact_id, text=text, first_line=first_line, last_line=last,
                offset=offset, end_offset=pos, total_bytes=size, starts_mid_line=mid_line)


def clipped_lines(f: BinaryIO, offset: int, *, first_line: int, count: int, width: int,
                  stop: int | None = None, chunk: int = CHUNK) -> list[Line]:
    """Up to *count* lines from byte *offset* (a line start), not reading past *stop*, each
    shown as at most its first *width* characters (``clipped`` when cut).

    Memory stays bounded by *width* and the chunk, however long the lines are: a line's bytes
    past what can be shown are skipped while reading, never held.
    """
    cap = 4 * width + 8  # a character is at most 4 bytes: more cannot be shown
    out: list[Line] = []
    kept = bytearray()
    dropped = False
    line_offset = offset

    def finish() -> None:
        body = strip_terminator(bytes(kept)) if not dropped else bytes(kept)
        text = decode(body)
        clipped = dropped or len(text) > width
        if clipped:
            text, _ = fit_chars(body, width) if body else ("", 0)
        out.append(Line(number=first_line + len(out), text=text, offset=line_offset,
                        clipped=clipped))

    for base, buf in chunks(f, offset, chunk, stop):
        has_cr = buf.find(b"\r") != -1
        i = 0
        while i < len(buf):
            end = next_terminator_end(buf, i, has_cr)
            upto = len(buf) if end == -1 else end
            room = cap - len(kept)
            if room > 0:
                kept += buf[i:min(upto, i + room)]
            if upto - i > max(room, 0):
                dropped = True
            if end == -1:
                break
            finish()
            if len(out) >= count:
                return out
            kept, dropped, line_offset, i = bytearray(), False, base + end, end
    if kept or dropped:
        finish()
    return out


def read_lines(f: BinaryIO, start: int, end: int | None = None, *, max_chars: int | None = None,
               line_cost: int = 0, chunk: int = CHUNK, artifact_id: str | None = None) -> Page:
    """Lines *start* to *end* (1-based, inclusive; *end* None: to the end)."""
    if start < 1:
        raise ValueError(f"start_line: must be 1 or more, got {start}")
    if end is not None and end < start:
        raise ValueError(f"end_line: must be at least start_line ({start}), got {end}")
    offset = line_start(f, start, chunk=chunk)
    if offset is None:
        return Page.empty(file_size(f), artifact_id)
    return read_page(f, offset=offset, first_line=start,
                     max_lines=None if end is None else end - start + 1, max_chars=max_chars,
                     line_cost=line_cost, chunk=chunk, artifact_id=artifact_id)


def read_tail(f: BinaryIO, n: int, *, max_chars: int | None = None, line_cost: int = 0,
              total_lines: int | None = None, chunk: int = CHUNK,
              artifact_id: str | None = None) -> Page:
    """The last *n* lines, read from the end.

    With *max_chars*, as many of the last *n* lines as fit; when not even the last line fits,
    the beginning of the last line (the page then says where it continues). *total_lines*,
    when known (artifact metadata), numbers the lines without counting from the start.
    """
    if n < 1:
        raise ValueError(f"lines: must be 1 or more, got {n}")
    size = file_size(f)
    # Only lines within 4 bytes per character of the end can fit max_chars.
    reach = None if max_chars is None else 4 * max_chars + 8
    starts = line_starts_from_end(f, n, chunk=chunk, reach=reach)
    if not starts:
        return Page.empty(size, artifact_id)
    chosen = starts[-1]
    if max_chars is not None:
        chosen = _fitting_suffix_start(f, starts, size, max_chars, line_cost)
    if chosen == 0:
        first = 1
    elif total_lines is not None:
        first = total_lines - starts.index(chosen)
    else:
        first = line_number_at(f, chosen, chunk=chunk)
    return read_page(f, offset=chosen, first_line=first, max_chars=max_chars,
                     line_cost=line_cost, chunk=chunk, artifact_id=artifact_id)


def _fitting_suffix_start(f: BinaryIO, starts: list[int], size: int, max_chars: int,
                          line_cost: int) -> int:
    """The earliest of *starts* (last line first) from which the rest fits *max_chars*."""
    # Only lines within 4 bytes per character of the end can fit; read them once.
    reach = [s for s in starts if size - s <= 4 * max_chars + 8]
    if not reach:
        return starts[0]
    f.seek(reach[-1])
    data = f.read(size - reach[-1])
    used, chosen, end = 0, starts[0], size
    for s in reach:
        used += len(decode(data[s - reach[-1]: end - reach[-1]])) + line_cost
        if used > max_chars:
            break
        chosen, end = s, s
    return chosen

