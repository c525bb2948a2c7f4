"""grep over an artifact: literal or regular-expression search, line by line.

Literal patterns are searched on the bytes (``bytes.find``), without decoding. Regular
expressions run on RE2, on the bytes, when it accepts them (linear time), else on the
``regex`` module, with a deadline for the whole search, because the pattern comes from a
model (see :mod:`~truncation_core.text.bounded_regex` and docs/artifacts.md, "grep"). A
match never spans lines; each matching line is reported once, with its number; line numbers
are counted only up to each match, so a search that finds nothing never counts lines.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, BinaryIO

import attrs

from truncation_core.errors import PatternError
from truncation_core.retrieval.pages import Line, clipped_lines
from truncation_core.retrieval.patterns import compile_pattern
from truncation_core.retrieval.scanning import (
    CHUNK,
    CR,
    GREP_MAX_MATCHES,
    chunks,
    count_range,
    count_terminators,
    line_start,
    line_starts_from_end,
)
from truncation_core.text.decoding import decode, fit_chars, utf8_boundary_before

__all__ = ["GrepMatch", "GrepResult", "grep"]

#: Default limits for grep: matches returned (:data:`GREP_MAX_MATCHES`, defined with the
#: scanning helpers), characters shown of a long matching line, and the time a regular
#: expression may take over the whole artifact.
GREP_LINE_CHARS = 500
GREP_TIMEOUT = 2.0


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


def _clip_line(raw: bytes, match_start: int, width: int) -> tuple[str, int, bool]:
    """The text of a matching line, clipped to at most *width* characters around the match.

    Returns ``(text, byte offset of the text within the line, clipped)``.
    """
    if len(raw) <= 4 * width:  # a character takes at most 4 bytes: a longer line is too long
        text = decode(raw)
        if len(text) <= width:
            return text, 0, False
    lo = utf8_boundary_before(raw, max(0, match_start - width // 4))
    piece, _ = fit_chars(raw[lo:], width)
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

    def _search(self, text: str | bytes, pos: int = 0, endpos: int | None = None) -> Any:
        remaining = self.deadline - self.clock()
        if remaining <= 0:
            raise PatternError(_TOO_SLOW)
        try:
            return self.compiled.search(text, pos, endpos, timeout=remaining)
        except TimeoutError:
            raise PatternError(_TOO_SLOW) from None

    def _regex_matches(self, buf: bytes, has_cr: bool) -> Iterator[tuple[int, int, int, int]]:
        # RE2 searches the bytes themselves. For regex, surrogateescape keeps one character
        # per undecodable byte, so that character offsets map back to byte offsets exactly.
        text: str | bytes
        to_bytes: Callable[[int], int]
        if self.compiled.on_bytes:
            text, to_bytes = buf, _same
        elif buf.isascii():
            text, to_bytes = buf.decode("ascii"), _same
        else:
            text = buf.decode("utf-8", "surrogateescape")
            to_bytes = _OffsetMap(text).to_bytes

        def found(lo: int, hi: int, start: int, end: int) -> tuple[int, int, int, int]:
            # Mapped in increasing order: the map encodes only the text since its last call.
            lo, start, end = to_bytes(lo), to_bytes(start), to_bytes(end)
            return lo, to_bytes(hi), start, end

        pos = 0
        while pos < len(text):
            if has_cr:
                # "$" and "^" know only "\n": search line by line where "\r" ends lines.
                lo, hi = _line_bounds(text, pos, True)
                m = self._search(text[lo:hi])
                if m is not None:
                    yield found(lo, hi, lo + m.start(), lo + m.end())
                pos = _after_line(text, hi, True)
            else:
                m = self._search(text, pos)
                if m is None:
                    return
                lo, hi = _line_bounds(text, m.start(), False)
                if m.end() > hi and m.end() > m.start():
                    m = self._search(text[lo:hi])  # crossed a line end: retry within the line
                    if m is not None:
                        yield found(lo, hi, lo + m.start(), lo + m.end())
                else:
                    yield found(lo, hi, m.start(), m.end())
                pos = _after_line(text, hi, False)
            if pos == -1:
                return


def _same(offset: int) -> int:
    return offset


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
    if has_cr and buf[line_end] in ("\r", CR) and buf[line_end + 1: line_end + 2] in ("\n", b"\n"):
        return line_end + 2
    return line_end + 1


#: A line longer than this is searched in pieces (memory stays bounded).
GREP_MAX_BLOCK = 16 << 20
#: A regular expression's memory grows with the text it runs over (about 100 bytes per
#: character for a repeated group such as (a|b)+$, a gigabyte and more over a 16 MiB line),
#: so it reads in smaller chunks and searches a long line in pieces of at most twice this,
#: each repeating the end of the one before: a match up to REGEX_OVERLAP bytes long is found
#: across a split. Anchors (^, $, \b) may also match at a split, inside such a long line.
REGEX_MAX_BLOCK = 512 << 10
REGEX_OVERLAP = 4 << 10


def _line_blocks(f: BinaryIO, start: int, chunk: int, max_block: int, overlap: int
                 ) -> Iterator[tuple[int, bytes]]:
    """Pieces of whole lines, so that no line spans two pieces.

    A single line longer than *max_block* is split; the next piece repeats the last *overlap*
    bytes, so that a literal of up to ``overlap + 1`` bytes across the split is still found.
    """
    carry = b""
    carry_base = start
    for base, buf in chunks(f, start, chunk):
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
    engines: tuple[str, ...] = ("re2", "regex"),
) -> GrepResult:
    """The lines matching *pattern*, each reported once, with their numbers.

    *pattern* is a literal string unless *regex* is true. Regular expressions run on RE2
    when it accepts them (linear time), else on the ``regex`` module; the whole search has a
    deadline of *timeout* seconds, so that a pattern with catastrophic backtracking raises
    :class:`~truncation_core.errors.PatternError` instead of hanging. A match never spans
    lines. A matching line longer than *line_chars* is shown clipped around the match. Line
    numbers are counted only up to each match.
    *engines*: which engines may run a regular expression, RE2 first (see
    :func:`~truncation_core.text.bounded_regex.compile_untrusted`).
    """
    if max_matches < 1:
        raise ValueError(f"max_matches: must be 1 or more, got {max_matches}")
    if context < 0:
        raise ValueError(f"context: must be 0 or more, got {context}")
    if start_line < 1:
        raise ValueError(f"start_line: must be 1 or more, got {start_line}")
    compiled = compile_pattern(pattern, regex=regex, ignore_case=ignore_case, engines=engines)
    matcher = _Matcher(pattern, compiled, clock() + timeout, clock)
    origin = line_start(f, start_line) if start_line > 1 else 0
    found: list[GrepMatch] = []
    more = False
    counted_to, line_no = origin or 0, start_line  # line_no is the line at counted_to
    if origin is not None:
        if compiled is None:
            block, overlap = max_block, max(0, len(matcher.needle) - 1)
        else:
            block = min(max_block, REGEX_MAX_BLOCK)
            chunk, overlap = min(chunk, block), min(REGEX_OVERLAP, block // 2)
        for base, buf in _line_blocks(f, origin, chunk, block, overlap):
            for lo, hi, m_lo, _ in matcher.matches(buf):
                # Count terminators up to this line: in the block in memory, and only the
                # stretch before it that earlier matches did not cover is read again.
                if counted_to < base:
                    line_no += count_range(f, counted_to, base, chunk)
                    counted_to = base
                line_no += count_terminators(buf[counted_to - base: lo])
                counted_to = base + lo
                if found and found[-1].line.number == line_no:
                    continue  # a long line split in pieces: report it once
                if len(found) >= max_matches:
                    more = True
                    break
                text, clip_at, clipped = _clip_line(buf[lo:hi], m_lo - lo, line_chars)
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
    starts = line_starts_from_end(window, n, chunk=chunk)  # type: ignore[arg-type]
    return tuple(clipped_lines(f, starts[-1], first_line=line_no - len(starts), count=n,
                               width=width, stop=line_offset, chunk=chunk))


def _context_after(f: BinaryIO, line_end: int, line_no: int, n: int, width: int,
                   chunk: int) -> tuple[Line, ...]:
    if n <= 0:
        return ()
    f.seek(line_end)
    two = f.read(2)
    if not two:
        return ()
    skip = 2 if two == b"\r\n" else 1
    # Lines are clipped while they are read: a neighbour of a match may be any size.
    return tuple(clipped_lines(f, line_end + skip, first_line=line_no + 1, count=n,
                               width=width, chunk=chunk))


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


