"""Reading artifacts back: the full content, lines a to b, head, tail, grep, and pages.

Written once, over ``store.open(id)`` (a seekable binary file), so every backend gets it: the
built-in stores inherit :class:`Retrieval`, and :func:`reader_for` adapts any other store.

Definitions are those of :mod:`truncation_core.text`: a line terminator is ``"\\n"``,
``"\\r\\n"`` or a lone ``"\\r"``; line numbers are 1-based; the last line needs no terminator.
Work happens on bytes: in UTF-8 the bytes of ``"\\n"`` and ``"\\r"`` never occur inside a
multi-byte character, so terminators are found without decoding, in invalid UTF-8 too.

Text is decoded with the ``truncation_core.surrogatepass_replace`` error handler: lone
surrogates that :meth:`Truncator.process <truncation_core.Truncator.process>` stored with
``surrogatepass`` come back as the same characters, and any other invalid byte becomes U+FFFD.
Nothing here raises on content, and no cut splits a character.

Memory stays bounded by the chunk size (64 KiB) plus what is returned: ``tail`` reads from
the end, ``grep`` scans chunk by chunk and looks up line numbers only for matches.
"""

from __future__ import annotations

import codecs
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, BinaryIO

import attrs

from truncation_core.errors import PatternError

if TYPE_CHECKING:
    from truncation_core.artifacts import ArtifactRef, ArtifactStore

__all__ = [
    "DECODE_ERRORS",
    "GrepMatch",
    "GrepResult",
    "Line",
    "Page",
    "Retrieval",
    "decode",
    "reader_for",
]

#: The decoding error handler: lone surrogates round-trip, other invalid bytes become U+FFFD.
DECODE_ERRORS = "truncation_core.surrogatepass_replace"
_surrogatepass = codecs.lookup_error("surrogatepass")


def _surrogatepass_replace(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    try:
        return _surrogatepass(exc)
    except UnicodeDecodeError:
        return "\ufffd", exc.end


codecs.register_error(DECODE_ERRORS, _surrogatepass_replace)

#: How much is read at a time.
CHUNK = 1 << 16
#: Default limits for grep: matches returned, characters shown of a long matching line, and
#: the time a regular expression may take over the whole artifact.
GREP_MAX_MATCHES = 100
GREP_LINE_CHARS = 500
GREP_TIMEOUT = 2.0
#: Longest pattern accepted (a model may send anything).
PATTERN_MAX_CHARS = 1000

_LF, _CR = 0x0A, 0x0D


def decode(data: bytes) -> str:
    """Decode artifact bytes: UTF-8, lone surrogates kept, invalid bytes replaced."""
    return data.decode("utf-8", DECODE_ERRORS)


def _encoded_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


# -- value objects ---------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class Line:
    """One line of an artifact (without its terminator)."""

    number: int
    text: str
    #: Byte offset of the line's first character shown.
    offset: int
    #: True when ``text`` is only part of the line (the line is too long to show).
    clipped: bool = False


@attrs.frozen(kw_only=True)
class Page:
    """A contiguous part of an artifact, and where the next part starts."""

    artifact_id: str | None
    #: The content, exactly as stored (line terminators included), decoded.
    text: str
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
            offset += _encoded_size(raw)
        return out

    def numbered(self) -> str:
        """The page with a line number before each line, as ``cat -n`` prints it."""
        return "\n".join(f"{line.number:>6}\t{line.text}" for line in self.lines())


@attrs.frozen(kw_only=True)
class GrepMatch:
    """A matching line, with the lines around it when context was asked for."""

    line: Line
    before: tuple[Line, ...] = ()
    after: tuple[Line, ...] = ()


@attrs.frozen(kw_only=True)
class GrepResult:
    artifact_id: str | None
    pattern: str = attrs.field(repr=False)
    regex: bool
    ignore_case: bool
    matches: tuple[GrepMatch, ...]
    #: True when the search stopped at ``max_matches``: more lines may match after the last.
    more: bool

    @property
    def next_line(self) -> int | None:
        """Where to continue the search (``start_line``) when it stopped at ``max_matches``."""
        return self.matches[-1].line.number + 1 if self.more and self.matches else None

    def merged(self) -> list[tuple[Line, bool]]:
        """Matching and context lines in order, each once: ``(line, is_match)``, as grep
        prints them (a gap in line numbers is where grep prints ``--``)."""
        lines: dict[int, tuple[Line, bool]] = {}
        for m in self.matches:
            for c in (*m.before, *m.after):
                lines.setdefault(c.number, (c, False))
            lines[m.line.number] = (m.line, True)
        return [lines[n] for n in sorted(lines)]


def _split_keepends(text: str) -> list[str]:
    """Split on the terminators of :mod:`truncation_core.text` only, keeping them."""
    out: list[str] = []
    start, n = 0, len(text)
    while start < n:
        nl, cr = text.find("\n", start), text.find("\r", start)
        hits = [i for i in (nl, cr) if i != -1]
        if not hits:
            out.append(text[start:])
            break
        i = min(hits)
        end = i + 2 if text[i] == "\r" and i + 1 < n and text[i + 1] == "\n" else i + 1
        out.append(text[start:end])
        start = end
    return out


# -- byte-level scanning -----------------------------------------------------------------------


def _size(f: BinaryIO) -> int:
    return f.seek(0, 2)


def _count_terminators(buf: bytes) -> int:
    """Terminators in *buf*, which must not end between the two bytes of a ``\r\n`` pair."""
    count = buf.count(b"\n")
    if buf.find(b"\r") != -1:
        count += buf.count(b"\r") - buf.count(b"\r\n")
    return count


def _next_terminator_end(buf: bytes, pos: int, has_cr: bool) -> int:
    """Position just after the first terminator at or after *pos* in *buf*, or -1.

    A ``\r`` as the last byte of *buf* counts as a lone terminator: callers make sure that
    *buf* never ends between the two bytes of a pair.
    """
    nl = buf.find(b"\n", pos)
    if has_cr:
        cr = buf.find(b"\r", pos)
        if cr != -1 and (nl == -1 or cr < nl):
            return cr + 2 if cr + 1 < len(buf) and buf[cr + 1] == _LF else cr + 1
    return -1 if nl == -1 else nl + 1


def _chunks(f: BinaryIO, start: int, chunk: int, stop: int | None = None
            ) -> Iterator[tuple[int, bytes]]:
    """Read ``[start, stop)`` in pieces that never end between ``\r`` and ``\n``.

    Yields ``(offset, piece)``. A piece that would end in ``\r`` gives that byte to the next
    piece, so counting and finding terminators never straddles two pieces. Each read seeks
    first, so the caller may use *f* in between.
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
        if buf[-1] == _CR and (stop is None or pos < stop):
            buf, carry = buf[:-1], b"\r"
        else:
            carry = b""
        if buf:
            yield base, buf
    if carry:
        yield pos - 1, carry


def _count_range(f: BinaryIO, start: int, stop: int, chunk: int) -> int:
    """Terminators ending in ``(start, stop]``; *stop* must not fall inside a pair."""
    return sum(_count_terminators(buf) for _, buf in _chunks(f, start, chunk, stop))


def line_start(f: BinaryIO, number: int, *, chunk: int = CHUNK) -> int | None:
    """Byte offset where line *number* (1-based) starts, or None past the last line."""
    size = _size(f)
    if number <= 1:
        return 0 if size else None
    need = number - 1
    for base, buf in _chunks(f, 0, chunk):
        count = _count_terminators(buf)
        if count < need:
            need -= count
            continue
        has_cr = buf.find(b"\r") != -1
        pos = 0
        for _ in range(need):
            pos = _next_terminator_end(buf, pos, has_cr)
        offset = base + pos
        return offset if offset < size else None
    return None


def line_number_at(f: BinaryIO, offset: int, *, chunk: int = CHUNK) -> int:
    """The number of the line holding the byte at *offset*."""
    if offset <= 0:
        return 1
    f.seek(offset - 1)
    pair = f.read(2)
    # Inside a "\r\n" pair, the terminator ends after offset: do not count it.
    stop = offset - 1 if pair == b"\r\n" else offset
    return _count_range(f, 0, stop, chunk) + 1


def _line_starts_from_end(f: BinaryIO, n: int, *, chunk: int = CHUNK) -> list[int]:
    """Start offsets of the last *n* lines, last line first (fewer if there are fewer).

    Reads backwards from the end, *chunk* bytes at a time: the cost depends on the size of
    those lines, never on the size of the artifact.
    """
    size = _size(f)
    if size == 0 or n <= 0:
        return []
    starts: list[int] = []
    hi = size
    after: int | None = None  # the byte just after [lo, hi), to tell a lone "\r" from "\r\n"
    while hi > 0 and len(starts) < n:
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
            if not (seg[j] == _CR and nxt == _LF) and e < size:
                starts.append(e)
            i = j
        after = seg[0]
        hi = lo
    if len(starts) < n:
        starts.append(0)
    return starts


def _raw_lines(f: BinaryIO, offset: int, chunk: int, cap: int | None
               ) -> Iterator[tuple[bytes, bool]]:
    """The lines from *offset*, as raw bytes with their terminators.

    Yields ``(raw, complete)``. A line longer than *cap* bytes is yielded once, cut at *cap*
    or more bytes, with ``complete`` False, and iteration stops: memory stays bounded.
    """
    carry = bytearray()
    for _, piece in _chunks(f, offset, chunk):
        if carry:
            scan_from = len(carry)  # the carry holds no terminator: search only what is new
            carry += piece
            buf: bytes | bytearray = carry
        else:
            scan_from, buf = 0, piece
        has_cr = buf.find(b"\r", scan_from) != -1
        start = 0
        while True:
            end = _next_terminator_end(buf, max(start, scan_from), has_cr)
            if end == -1:
                break
            yield bytes(buf[start:end]), True
            start = end
            scan_from = 0
        rest = buf[start:]
        carry = bytearray(rest)
        if cap is not None and len(carry) > cap:
            yield bytes(carry), False
            return
    if carry:
        yield bytes(carry), True


# -- decoding without splitting a character ------------------------------------------------


def _utf8_boundary_before(data: bytes, i: int) -> int:
    """The largest ``j <= i`` such that ``data[:j]`` does not end inside a UTF-8 sequence."""
    for back in range(1, 4):
        k = i - back
        if k < 0:
            return i
        b = data[k]
        if b < 0x80:
            return i
        if b >= 0xC0:
            length = 2 if b < 0xE0 else 3 if b < 0xF0 else 4 if b < 0xF8 else 1
            return k if back < length else i
    return i  # only continuation bytes: not UTF-8 here, any cut is as good


def _utf8_boundary_after(data: bytes, i: int) -> int:
    """The smallest ``j >= i`` that is not inside a UTF-8 sequence started before *i*.

    Only continuation bytes are skipped, and no more than the sequence's lead byte announces.
    """
    j = _utf8_boundary_before(data, i)
    if j == i:
        return i
    b = data[j]
    stop = min(len(data), j + (2 if b < 0xE0 else 3 if b < 0xF0 else 4))
    k = i
    while k < stop and 0x80 <= data[k] < 0xC0:
        k += 1
    return k


def _fit_chars(data: bytes, max_chars: int) -> tuple[str, int]:
    """The longest prefix of *data* whose text has at most *max_chars* characters.

    Returns ``(text, bytes used)``, at least one byte of a non-empty *data*. Never splits a
    character: characters are counted on a ``surrogateescape`` decoding (one character per
    undecodable byte), which never counts fewer than :func:`decode` produces.
    """
    window = data[: max_chars * 4]
    escaped = window.decode("utf-8", "surrogateescape")
    end = len(escaped[:max_chars].encode("utf-8", "surrogateescape"))
    if end < len(data):
        # Back off to a character boundary; if that leaves nothing, the first "character" is
        # an invalid sequence: take all of it (it decodes to one replacement character).
        end = _utf8_boundary_before(data, end) or _utf8_boundary_after(data, end)
    return decode(data[:end]), end


def _strip_terminator(raw: bytes) -> bytes:
    if raw.endswith(b"\r\n"):
        return raw[:-2]
    if raw.endswith((b"\n", b"\r")):
        return raw[:-1]
    return raw


# -- pages -------------------------------------------------------------------------------------


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
    if around[i - 1] == _CR and around[i] == _LF:
        return offset + 1, False
    offset = lo + _utf8_boundary_after(around, i)
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
) -> Page:
    """Whole lines from byte *offset*, until *max_lines* lines or *max_chars* characters.

    Each line costs its characters (terminator included) plus *line_cost* (room for a line
    number). A line longer than what is left is cut at a character boundary, only when it is
    the first line of the page, so that paging always makes progress. *first_line* is the
    number of the line at *offset* when the caller knows it.
    """
    size = _size(f)
    offset, mid_line = _snap_offset(f, offset, size)
    if first_line is None:
        first_line = line_number_at(f, offset, chunk=chunk) if offset else 1
    if offset >= size:
        return Page(artifact_id=artifact_id, text="", first_line=0, last_line=0, offset=size,
                    end_offset=size, total_bytes=size)
    budget = max_chars
    cap = None if budget is None else 4 * budget + 8  # a longer line cannot fit
    pieces: list[str] = []
    pos = offset
    for raw, complete in _raw_lines(f, offset, chunk, cap):
        text = decode(raw) if complete else ""
        if budget is not None and (not complete or len(text) + line_cost > budget):
            if not pieces:
                body = _strip_terminator(raw)
                if body:
                    part, used = _fit_chars(body, max(budget - line_cost, 1))
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


def read_lines(f: BinaryIO, start: int, end: int | None = None, *, max_chars: int | None = None,
               line_cost: int = 0, chunk: int = CHUNK, artifact_id: str | None = None) -> Page:
    """Lines *start* to *end* (1-based, inclusive; *end* None: to the end)."""
    if start < 1:
        raise ValueError(f"start_line: must be 1 or more, got {start}")
    if end is not None and end < start:
        raise ValueError(f"end_line: must be at least start_line ({start}), got {end}")
    offset = line_start(f, start, chunk=chunk)
    if offset is None:
        size = _size(f)
        return Page(artifact_id=artifact_id, text="", first_line=0, last_line=0, offset=size,
                    end_offset=size, total_bytes=size)
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
    size = _size(f)
    starts = _line_starts_from_end(f, n, chunk=chunk)
    if not starts:
        return Page(artifact_id=artifact_id, text="", first_line=0, last_line=0, offset=size,
                    end_offset=size, total_bytes=size)
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


# -- grep --------------------------------------------------------------------------------------


def _compile(pattern: str, *, regex: bool, ignore_case: bool) -> Any:
    if not isinstance(pattern, str) or not pattern:
        raise PatternError("pattern: expected a non-empty string")
    if len(pattern) > PATTERN_MAX_CHARS:
        raise PatternError(f"pattern: at most {PATTERN_MAX_CHARS} characters, "
                           f"got {len(pattern)}")
    if not regex and not ignore_case:
        return None
    import regex as regex_module  # only when asked for (see docs/artifacts.md, "grep")

    source = pattern if regex else regex_module.escape(pattern)
    flags = regex_module.MULTILINE | (regex_module.IGNORECASE | regex_module.FULLCASE
                                      if ignore_case else 0)
    try:
        return regex_module.compile(source, flags)
    except regex_module.error as exc:
        raise PatternError(f"pattern: not a valid regular expression: {exc}") from None
    except (ValueError, OverflowError, RecursionError) as exc:
        raise PatternError(
            f"pattern: not a valid regular expression: {type(exc).__name__}") from None


_TOO_SLOW = ("pattern: the search took too long (nested repetition such as (a+)+ can "
             "backtrack exponentially); use a literal, or a simpler pattern")


def _line_bounds(buf: bytes | str, pos: int, has_cr: bool) -> tuple[int, int]:
    """``(start, end)`` of the line holding position *pos*, terminator excluded."""
    nl, cr = ("\n", "\r") if isinstance(buf, str) else (b"\n", b"\r")
    start = buf.rfind(nl, 0, pos)  # type: ignore[arg-type]
    if has_cr:
        start = max(start, buf.rfind(cr, 0, pos))  # type: ignore[arg-type]
    end = buf.find(nl, pos)  # type: ignore[arg-type]
    end = len(buf) if end == -1 else end
    if has_cr:
        c = buf.find(cr, pos, end)  # type: ignore[arg-type]
        if c != -1:
            end = c
    return start + 1, end


def _clip_line(raw: bytes, match_start: int, match_end: int, width: int) -> tuple[str, int, bool]:
    """The text of a matching line, clipped to at most *width* characters around the match.

    Returns ``(text, byte offset of the text within the line, clipped)``.
    """
    if len(raw) <= width:  # at most width bytes: at most width characters
        return decode(raw), 0, False
    text = decode(raw)
    if len(text) <= width:
        return text, 0, False
    lo = _utf8_boundary_before(raw, max(0, match_start - width // 4))
    piece, _ = _fit_chars(raw[lo:], width)
    return piece, lo, True


class _Matcher:
    """Finds the next matching line in a block of whole lines (bytes)."""

    def __init__(self, pattern: str, compiled: Any, deadline: float,
                 clock: Callable[[], float]) -> None:
        self.needle = pattern.encode("utf-8", "surrogatepass")
        self.compiled = compiled
        self.deadline = deadline
        self.clock = clock
        # A literal holding a terminator can never match inside one line.
        self.impossible = compiled is None and (b"\n" in self.needle or b"\r" in self.needle)

    def matches(self, buf: bytes) -> Iterator[tuple[int, int, int, int]]:
        """Each matching line once: ``(line start, line end, match start, match end)``."""
        if self.impossible:
            return
        has_cr = buf.find(b"\r") != -1
        if self.compiled is None:
            pos = 0
            while True:
                i = buf.find(self.needle, pos)
                if i == -1:
                    return
                lo, hi = _line_bounds(buf, i, has_cr)
                yield lo, hi, i, i + len(self.needle)
                pos = _after_line(buf, hi, has_cr)
                if pos == -1:
                    return
        else:
            yield from self._regex_matches(buf, has_cr)

    def _search(self, text: str, pos: int = 0, endpos: int | None = None) -> Any:
        remaining = self.deadline - self.clock()
        if remaining <= 0:
            raise PatternError(_TOO_SLOW)
        try:
            if endpos is None:
                return self.compiled.search(text, pos, timeout=remaining)
            return self.compiled.search(text, pos, endpos, timeout=remaining)
        except TimeoutError:
            raise PatternError(_TOO_SLOW) from None

    def _regex_matches(self, buf: bytes, has_cr: bool) -> Iterator[tuple[int, int, int, int]]:
        # surrogateescape keeps one character per undecodable byte, so that character
        # offsets map back to byte offsets exactly.
        ascii_only = buf.isascii()
        text = buf.decode("ascii") if ascii_only else buf.decode("utf-8", "surrogateescape")
        to_bytes = (lambda c: c) if ascii_only else _OffsetMap(text).to_bytes
        pos = 0
        while pos < len(text):
            if has_cr:
                # "$" and "^" know only "\n": search line by line where "\r" ends lines.
                lo, hi = _line_bounds(text, pos, True)
                m = self._search(text[lo:hi])
                if m is not None:
                    yield (to_bytes(lo), to_bytes(hi), to_bytes(lo + m.start()),
                           to_bytes(lo + m.end()))
                pos = _after_line(text, hi, True)
            else:
                m = self._search(text, pos)
                if m is None:
                    return
                lo, hi = _line_bounds(text, m.start(), False)
                if m.end() > hi and m.end() > m.start():
                    m = self._search(text[lo:hi])  # crossed a line end: retry within the line
                    if m is not None:
                        yield (to_bytes(lo), to_bytes(hi), to_bytes(lo + m.start()),
                               to_bytes(lo + m.end()))
                else:
                    yield to_bytes(lo), to_bytes(hi), to_bytes(m.start()), to_bytes(m.end())
                pos = _after_line(text, hi, False)
            if pos == -1:
                return


class _OffsetMap:
    """Character offsets of a ``surrogateescape``-decoded text to byte offsets, for
    increasing offsets (each call encodes only the text since the previous one)."""

    def __init__(self, text: str) -> None:
        self.text, self.char, self.byte = text, 0, 0

    def to_bytes(self, c: int) -> int:
        if c < self.char:
            self.char, self.byte = 0, 0
        self.byte += len(self.text[self.char:c].encode("utf-8", "surrogateescape"))
        self.char = c
        return self.byte


def _after_line(buf: bytes | str, line_end: int, has_cr: bool) -> int:
    """Start of the line after the one ending (terminator excluded) at *line_end*; -1 at end."""
    if line_end >= len(buf):
        return -1
    if has_cr and buf[line_end] in ("\r", _CR) and buf[line_end + 1: line_end + 2] in ("\n", b"\n"):
        return line_end + 2
    return line_end + 1


#: A line longer than this is searched in pieces (memory stays bounded).
GREP_MAX_BLOCK = 16 << 20


def _line_blocks(f: BinaryIO, start: int, chunk: int, max_block: int, overlap: int
                 ) -> Iterator[tuple[int, bytes]]:
    """Pieces of whole lines, so that no line spans two pieces.

    A single line longer than *max_block* is split; the next piece repeats the last *overlap*
    bytes, so that a literal of up to ``overlap + 1`` bytes across the split is still found.
    """
    carry = b""
    carry_base = start
    for base, buf in _chunks(f, start, chunk):
        data = carry + buf if carry else buf
        data_base = carry_base if carry else base
        cut = max(data.rfind(b"\n"), data.rfind(b"\r")) + 1
        if cut == 0:
            if len(data) > max_block:
                yield data_base, data
                keep = min(overlap, len(data))
                carry, carry_base = data[len(data) - keep:], data_base + len(data) - keep
            else:
                carry, carry_base = data, data_base
            continue
        yield data_base, data[:cut]
        carry, carry_base = data[cut:], data_base + cut
    if carry:
        yield carry_base, carry


def grep(
    f: BinaryIO,
    pattern: str,
    *,
    regex: bool = False,
    ignore_case: bool = False,
    context: int = 0,
    max_matches: int = GREP_MAX_MATCHES,
    start_line: int = 1,
    line_chars: int = GREP_LINE_CHARS,
    timeout: float = GREP_TIMEOUT,
    chunk: int = CHUNK * 16,
    max_block: int = GREP_MAX_BLOCK,
    artifact_id: str | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> GrepResult:
    """The lines matching *pattern*, each reported once, with their numbers.

    *pattern* is a literal string unless *regex* is true. Regular expressions run on the
    ``regex`` module with a deadline of *timeout* seconds for the whole search, so that a
    pattern with catastrophic backtracking raises :class:`~truncation_core.errors.PatternError`
    instead of hanging. A match never spans lines. A matching line longer than *line_chars*
    is shown clipped around the match. Line numbers are counted only up to each match.
    """
    if max_matches < 1:
        raise ValueError(f"max_matches: must be 1 or more, got {max_matches}")
    if context < 0:
        raise ValueError(f"context: must be 0 or more, got {context}")
    if start_line < 1:
        raise ValueError(f"start_line: must be 1 or more, got {start_line}")
    compiled = _compile(pattern, regex=regex, ignore_case=ignore_case)
    matcher = _Matcher(pattern, compiled, clock() + timeout, clock)
    origin = line_start(f, start_line) if start_line > 1 else 0
    found: list[GrepMatch] = []
    more = False
    counted_to, line_no = origin or 0, start_line  # line_no is the line at counted_to
    if origin is not None:
        overlap = max(0, len(matcher.needle) - 1) if compiled is None else 0
        for base, buf in _line_blocks(f, origin, chunk, max_block, overlap):
            for lo, hi, m_lo, m_hi in matcher.matches(buf):
                # Count terminators up to this line: in the block in memory, and only the
                # stretch before it that earlier matches did not cover is read again.
                if counted_to < base:
                    line_no += _count_range(f, counted_to, base, chunk)
                    counted_to = base
                line_no += _count_terminators(buf[counted_to - base: lo])
                counted_to = base + lo
                if found and found[-1].line.number == line_no:
                    continue  # a long line split in pieces: report it once
                if len(found) >= max_matches:
                    more = True
                    break
                text, clip_at, clipped = _clip_line(buf[lo:hi], m_lo - lo, m_hi - lo,
                                                    line_chars)
                line = Line(number=line_no, text=text, offset=base + lo + clip_at,
                            clipped=clipped)
                found.append(GrepMatch(
                    line=line,
                    before=_context_before(f, base + lo, line_no, context, line_chars, chunk),
                    after=_context_after(f, base + hi, line_no, context, line_chars, chunk)))
            if more:
                break
    return GrepResult(artifact_id=artifact_id, pattern=pattern, regex=regex,
                      ignore_case=ignore_case, matches=tuple(found), more=more)


def _context_before(f: BinaryIO, line_offset: int, line_no: int, n: int, width: int,
                    chunk: int) -> tuple[Line, ...]:
    if n <= 0 or line_offset == 0:
        return ()
    window = _BoundedView(f, line_offset)
    starts = _line_starts_from_end(window, n, chunk=chunk)  # type: ignore[arg-type]
    page = read_page(window, offset=starts[-1], first_line=line_no - len(starts),  # type: ignore[arg-type]
                     chunk=chunk)
    return tuple(_clip(line, width) for line in page.lines())


def _context_after(f: BinaryIO, line_end: int, line_no: int, n: int, width: int,
                   chunk: int) -> tuple[Line, ...]:
    if n <= 0:
        return ()
    f.seek(line_end)
    two = f.read(2)
    if not two:
        return ()
    skip = 2 if two == b"\r\n" else 1
    page = read_page(f, offset=line_end + skip, first_line=line_no + 1, max_lines=n,
                     chunk=chunk)
    return tuple(_clip(line, width) for line in page.lines())


def _clip(line: Line, width: int) -> Line:
    if len(line.text) <= width:
        return line
    return attrs.evolve(line, text=line.text[:width], clipped=True)


class _BoundedView:
    """The first *size* bytes of a file, as a seekable file (to read context backwards)."""

    def __init__(self, f: BinaryIO, size: int) -> None:
        self._f, self._size, self._pos = f, size, 0

    def seek(self, offset: int, whence: int = 0) -> int:
        base = (0, self._pos, self._size)[whence]
        self._pos = max(0, min(base + offset, self._size))
        return self._pos

    def read(self, n: int = -1) -> bytes:
        left = self._size - self._pos
        n = left if n is None or n < 0 else min(n, left)
        self._f.seek(self._pos)
        data = self._f.read(n)
        self._pos += len(data)
        return data


# -- on stores -----------------------------------------------------------------------------------


class Retrieval:
    """Retrieval methods for a store: mixed into the built-in stores, and available for any
    store through :func:`reader_for`. Each method opens the artifact, reads only what it
    needs, and closes it. An unknown id raises
    :class:`~truncation_core.errors.ArtifactNotFound`; a malformed one
    :class:`~truncation_core.errors.InvalidArtifactId`."""

    def open(self, artifact_id: str) -> BinaryIO:
        raise NotImplementedError

    def stat(self, artifact_id: str) -> ArtifactRef:
        raise NotImplementedError

    def read(self, artifact_id: str) -> bytes:
        """The full content, byte for byte as stored."""
        with self.open(artifact_id) as f:
            return f.read()

    def text(self, artifact_id: str) -> str:
        """The full content as text (the original ``str``, lone surrogates included)."""
        return decode(self.read(artifact_id))

    def lines(self, artifact_id: str, start: int = 1, end: int | None = None, *,
              max_chars: int | None = None, line_cost: int = 0) -> Page:
        """Lines *start* to *end*, 1-based and inclusive (*end* None: to the end).

        With *max_chars*, stops before the first line that would exceed it (each line
        costing *line_cost* more, e.g. room for its number); ``page.next_line`` says where
        to go on.
        """
        with self.open(artifact_id) as f:
            return read_lines(f, start, end, max_chars=max_chars, line_cost=line_cost,
                              artifact_id=artifact_id)

    def head(self, artifact_id: str, n: int = 10, *, max_chars: int | None = None) -> Page:
        """The first *n* lines."""
        if n < 1:
            raise ValueError(f"lines: must be 1 or more, got {n}")
        return self.lines(artifact_id, 1, n, max_chars=max_chars)

    def tail(self, artifact_id: str, n: int = 10, *, max_chars: int | None = None,
             line_cost: int = 0) -> Page:
        """The last *n* lines, read from the end of the artifact."""
        total = self.known_lines(artifact_id)
        with self.open(artifact_id) as f:
            return read_tail(f, n, max_chars=max_chars, line_cost=line_cost,
                             total_lines=total, artifact_id=artifact_id)

    def known_lines(self, artifact_id: str) -> int | None:
        """The artifact's line count from its metadata, or None when not recorded."""
        ref = self.stat(artifact_id)
        return ref.lines if ref.lines or not ref.bytes else None

    def checksum(self, artifact_id: str) -> str:
        """The sha256 of the stored bytes, lowercase hex (read in chunks)."""
        import hashlib

        digest = hashlib.sha256()
        with self.open(artifact_id) as f:
            while chunk := f.read(CHUNK * 16):
                digest.update(chunk)
        return digest.hexdigest()

    def page(self, artifact_id: str, offset: int = 0, *, max_chars: int = 8000) -> Page:
        """Whole lines from byte *offset* up to *max_chars* characters; ``page.next_offset``
        is where the next page starts."""
        if offset < 0:
            raise ValueError(f"offset: must be 0 or more, got {offset}")
        with self.open(artifact_id) as f:
            return read_page(f, offset=offset, max_chars=max_chars, artifact_id=artifact_id)

    def grep(self, artifact_id: str, pattern: str, *, regex: bool = False,
             ignore_case: bool = False, context: int = 0,
             max_matches: int = GREP_MAX_MATCHES, start_line: int = 1) -> GrepResult:
        """Lines matching *pattern* (literal unless *regex*), see :func:`grep`."""
        with self.open(artifact_id) as f:
            return grep(f, pattern, regex=regex, ignore_case=ignore_case, context=context,
                        max_matches=max_matches, start_line=start_line,
                        artifact_id=artifact_id)


class _StoreReader(Retrieval):
    def __init__(self, store: ArtifactStore) -> None:
        self._store = store

    def open(self, artifact_id: str) -> BinaryIO:
        return self._store.open(artifact_id)

    def stat(self, artifact_id: str) -> ArtifactRef:
        return self._store.stat(artifact_id)


def reader_for(store: ArtifactStore) -> Retrieval:
    """Retrieval over *store*: the store itself when it has the methods, else an adapter."""
    return store if isinstance(store, Retrieval) else _StoreReader(store)
