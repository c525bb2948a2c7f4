"""``max_artifact_size``: an artifact keeps at most that many bytes of an original.

:meth:`Truncator.open_artifact <truncation_core.Truncator.open_artifact>` wraps every writer
in a :class:`SizeLimitedWriter`, so the limit holds on every path that keeps content. Content
within the limit is stored exactly as written. Content beyond it is stored as its head and its
tail, cut at line boundaries where possible, with one marker line between them that says what
is missing; the committed ref then has ``truncated=True`` and an
:class:`~truncation_core.types.artifacts.ArtifactCut` that maps original line numbers to the
artifact's, so that markers never promise lines the artifact does not hold.

Memory: whatever is sure to be part of the head (up to the last line end within the head's
share of the limit) goes to the inner writer at once; the rest is held by reference (no copy)
until the size is known, so at most the tail's share of the limit plus a line. Once over the
limit, only the writes that may hold the tail are held, still by reference; the tail is cut
to its exact size once, at commit. A write larger than :data:`PIECE` is taken a piece at a
time (each copied from a view of it), so that what is held beside the content stays within
the limit plus a piece, however large the writes: the part of one large write that precedes
its tail is never copied whole. Line and character counts are computed only when content is
cut, over what is kept and dropped (the head's as it goes out, what is dropped where it lies).

Text in memory is written with :meth:`SizeLimitedWriter.write_text`, which encodes it a piece
at a time. ASCII text over the limit is encoded only for its head and for the end that holds
its tail: the middle, which is dropped, is counted without a copy (its size is its length,
its line terminators the whole text's count less those of the two ends).
"""

from __future__ import annotations

from collections import deque

import attrs

from truncation_core.retrieval.scanning import count_terminators, next_terminator_end
from truncation_core.text.decoding import utf8_boundary_before, utf8_chars
from truncation_core.types.artifacts import ArtifactCut, ArtifactInfo, ArtifactRef
from truncation_core.types.storage import ArtifactWriter, WriterBase

__all__ = ["MARKER_RESERVE", "PIECE", "SizeLimitedWriter"]

#: Bytes of the limit kept free for the marker line.
MARKER_RESERVE = 512
#: Writes larger than this are taken this many bytes at a time.
PIECE = 1 << 20

def _ends_with_terminator(data: bytes | bytearray) -> bool:
    return bool(data) and data[-1] in (0x0A, 0x0D)


class SizeLimitedWriter(WriterBase):
    """Wraps an :class:`~truncation_core.types.artifacts.ArtifactWriter` so that it stores at most
    *limit* bytes: the head (``head_share`` of the room) and the tail of anything larger."""

    def __init__(self, inner: ArtifactWriter, *, info: ArtifactInfo, limit: int,
                 head_share: float = 0.6, piece: int = PIECE) -> None:
        super().__init__()
        self._inner = inner
        self._info = info
        self._limit = limit
        self._piece = piece
        room = max(0, limit - MARKER_RESERVE)
        self._head_budget = int(room * min(max(head_share, 0.0), 1.0))
        self._tail_budget = room - self._head_budget
        self._held: list[bytes] = []  # what is not written yet, while within the limit
        self._total = 0
        self._cutting = False
        # The head written to the inner writer so far: size, line terminators, characters,
        # last byte. Until the cut, it ends just after a whole line terminator (never a "\r"
        # whose "\n" may follow), so that it is surely part of the head.
        self._head_bytes = 0
        self._head_terminators = 0
        self._head_chars = 0
        self._head_last = -1
        # Once cutting: counts over what is dropped, and the tail so far.
        self._dropped_bytes = 0
        self._dropped_terminators = 0
        self._last_dropped = -1
        self._tail: deque[bytes] = deque()  # the writes that may hold the tail
        self._tail_size = 0
        self._last_byte = -1

    @property
    def id(self) -> str | None:
        """The artifact's id when the backend knows it before commit."""
        return getattr(self._inner, "id", None)

    def write_text(self, text: str, *, terminators: int | None = None) -> int:
        """Write *text* as UTF-8, a lone surrogate as three bytes (the bytes of
        ``text.encode("utf-8", "surrogatepass")``, and the same artifact), encoding a piece
        at a time; return the number of bytes.

        When the text is ASCII and the limit cuts it, only the head and the end that may hold
        the tail are encoded: the middle is counted as dropped without being copied, its line
        terminators from *terminators* (those of the whole *text*, when known) less those of
        the two ends, else counted where they lie.
        """
        piece, end = self._piece, len(text)
        if not text.isascii():
            size = 0
            for start in range(0, end, piece):
                chunk = text[start:start + piece].encode("utf-8", "surrogatepass")
                size += len(chunk)
                self.write(chunk)
            return size
        pos = 0
        while pos < end and not self._cutting:
            self.write(text[pos:pos + piece].encode("ascii"))
            pos += piece
        # The tail is cut, at commit, from the last writes: they must hold its share and the
        # byte before it (a "\r" whose "\n" begins the tail).
        resume = end - self._tail_budget - piece
        if self._cutting and resume > pos:
            self._skip(text, pos, resume, terminators)
            pos = resume
        for start in range(pos, end, piece):
            self.write(text[start:start + piece].encode("ascii"))
        return end

    def _skip(self, text: str, start: int, end: int, terminators: int | None) -> None:
        """Count ASCII ``text[start:end]`` as written and dropped, without encoding it. The
        caller makes sure that it lies after the head and before the tail's share of what
        follows: so does everything the tail holds so far, which is dropped first."""
        if self._finished is not False:
            raise ValueError("write() after commit() or abort()")
        while self._tail:
            dropped = self._tail.popleft()
            self._tail_size -= len(dropped)
            self._drop(dropped, 0, len(dropped))
        if terminators is None:
            inside = _terminators(text, start, end)
        else:  # a "\r\n" across an edge counts once in the whole, twice in the parts
            inside = (terminators - _terminators(text, 0, start)
                      - _terminators(text, end, len(text))
                      + _pair_at(text, start) + _pair_at(text, end))
        if self._last_dropped == 0x0D and text[start] == "\n":  # a pair split between drops
            inside -= 1
        self._dropped_bytes += end - start
        self._dropped_terminators += inside
        self._last_dropped = self._last_byte = ord(text[end - 1])
        self._total += end - start

    def _write(self, data: bytes) -> None:
        if len(data) > self._piece:
            view, piece = memoryview(data), self._piece
            for start in range(0, len(view), piece):
                self._write_piece(bytes(view[start:start + piece]))
        else:
            self._write_piece(bytes(data))

    def _write_piece(self, data: bytes) -> None:
        self._total += len(data)
        self._last_byte = data[-1]
        if self._cutting:
            self._keep_tail(data)
            return
        self._held.append(data)
        if self._total > self._limit:
            self._start_cutting()
        else:
            self._forward_head(data)

    def _forward_head(self, data: bytes) -> None:
        """Write out what is held up to the last line end in *data* that lies within the
        head's budget: the head, if the content is cut, takes at least that much."""
        room = self._head_budget - (self._total - len(data))  # *data*'s bytes in the budget
        if room <= 0:
            return
        end = _last_line_end(data, min(room, len(data)))
        if end <= 0:
            return
        held, self._held = self._held, []
        last = held.pop()  # *data*
        for piece in held:
            self._write_head(piece)
        self._write_head(last[:end])
        if end < len(last):
            self._held.append(last[end:])

    def _write_head(self, piece: bytes) -> None:
        if not piece:
            return
        self._inner.write(piece)
        self._head_bytes += len(piece)
        self._head_terminators += count_terminators(piece)
        if self._head_last == 0x0D and piece[0] == 0x0A:  # a "\r\n" split between pieces
            self._head_terminators -= 1
        self._head_chars += utf8_chars(piece)
        self._head_last = piece[-1]

    def _start_cutting(self) -> None:
        self._cutting = True
        held, self._held = b"".join(self._held), []
        end = _head_end(held, self._head_budget - self._head_bytes,
                        after_line_end=self._head_bytes > 0)
        self._write_head(held[:end])
        self._keep_tail(held[end:])

    def _keep_tail(self, data: bytes) -> None:
        """Hold *data* for the tail; drop (count) the writes that can no longer be part of
        it. Writes are held by reference, not copied: the tail is cut to its exact size once,
        at commit (:meth:`_final_tail`)."""
        if not data:
            return
        tail = self._tail
        tail.append(data)
        self._tail_size += len(data)
        while tail and self._tail_size - len(tail[0]) >= self._tail_budget:
            dropped = tail.popleft()
            self._tail_size -= len(dropped)
            self._drop(dropped, 0, len(dropped))

    def _final_tail(self) -> bytes:
        """The last ``tail_budget`` bytes, counting what precedes them as dropped."""
        ring = b"".join(self._tail)
        self._tail.clear()
        overflow = len(ring) - self._tail_budget
        if overflow > 0:
            if ring[overflow - 1] == 0x0D and overflow < len(ring) and ring[overflow] == 0x0A:
                overflow += 1  # never end what is dropped between the "\r" and "\n" of a pair
            self._drop(ring, 0, overflow)
            ring = ring[overflow:]
        if self._last_dropped == 0x0D and ring[:1] == b"\n":
            # The "\n" of a pair whose "\r" is dropped (it ended a write) goes with it.
            self._drop(ring, 0, 1)
            ring = ring[1:]
        return ring

    def _drop(self, buf: bytes | bytearray, start: int, end: int) -> None:
        """Count ``buf[start:end]`` as dropped, where it lies (no copy)."""
        if end <= start:
            return
        self._dropped_bytes += end - start
        terminators = buf.count(b"\n", start, end)
        if buf.find(b"\r", start, end) != -1:
            terminators += buf.count(b"\r", start, end) - buf.count(b"\r\n", start, end)
        if self._last_dropped == 0x0D and buf[start] == 0x0A:  # a "\r\n" split between drops
            terminators -= 1
        self._dropped_terminators += terminators
        self._last_dropped = buf[end - 1]

    def _commit(self, info: ArtifactInfo | None) -> ArtifactRef:
        if not self._cutting:
            for chunk in self._held:
                self._inner.write(chunk)
            self._held = []
            return self._inner.commit(info)
        return self._inner.commit(self._cut_info(info))

    def _cut_info(self, info: ArtifactInfo | None) -> ArtifactInfo:
        tail = self._final_tail()
        # The kept tail starts at a line start when what was dropped ends a line.
        at_line_start = self._last_dropped in (0x0A, 0x0D) or not self._dropped_bytes
        if not at_line_start:
            t = next_terminator_end(tail, 0, tail.find(b"\r") != -1)
            if t != -1 and t < len(tail):
                at_line_start = True
            else:  # the last line is longer than the tail: keep it from a character start
                t = 0
                while t < len(tail) and t < 3 and 0x80 <= tail[t] < 0xC0:
                    t += 1
            self._drop(tail, 0, t)
            tail = tail[t:]
        head_terms = self._head_terminators
        head_mid_line = self._head_bytes > 0 and self._head_last not in (0x0A, 0x0D)
        tail_terms = count_terminators(tail)
        first_line = head_terms + 1
        last_line = head_terms + self._dropped_terminators + (0 if at_line_start else 1)
        tail_mid_line = bool(tail) and not at_line_start
        whole = (last_line - first_line + 1) - (1 if head_mid_line else 0) - (
            1 if tail_mid_line else 0)
        original_lines = head_terms + self._dropped_terminators + tail_terms + (
            0 if self._last_byte in (0x0A, 0x0D) else 1)
        head_lines_in_artifact = head_terms + (1 if head_mid_line else 0)
        cut = ArtifactCut(
            original_bytes=self._total,
            original_lines=original_lines,
            head_bytes=self._head_bytes,
            tail_bytes=len(tail),
            first_line=first_line,
            last_line=last_line,
            omitted_lines=max(whole, 0),
            head_last_line=head_lines_in_artifact,
            tail_first_line=last_line if not at_line_start else last_line + 1,
            tail_artifact_line=head_lines_in_artifact + 2,
        )
        marker = (("\n" if head_mid_line else "")
                  + f"[... {cut.omitted_bytes:,} bytes not kept here: original lines "
                  f"{first_line:,}-{last_line:,} ({cut.omitted_lines:,} whole lines). The "
                  f"output ({self._total:,} bytes) is larger than max_artifact_size "
                  f"({self._limit:,} bytes), so this artifact keeps only its first "
                  f"{self._head_bytes:,} and last {len(tail):,} bytes ...]\n").encode("ascii")
        self._inner.write(marker)
        if tail:
            self._inner.write(tail)
        lines = head_lines_in_artifact + 1 + tail_terms + (
            1 if tail and not _ends_with_terminator(tail) else 0)
        base = info if info is not None else self._info
        return attrs.evolve(base, chars=self._head_chars + len(marker) + utf8_chars(tail),
                            lines=lines, cut=cut)

    def _abort(self) -> None:
        self._held = []
        self._tail.clear()
        self._inner.abort()


def _terminators(text: str, start: int, end: int) -> int:
    """Line terminators inside ``text[start:end]``, a ``"\r\n"`` pair once (as
    :func:`~truncation_core.retrieval.scanning.count_terminators` counts them in bytes)."""
    count = text.count("\n", start, end)
    if text.find("\r", start, end) != -1:
        count += text.count("\r", start, end) - text.count("\r\n", start, end)
    return count


def _pair_at(text: str, i: int) -> int:
    """1 when a ``"\r\n"`` pair spans position *i* (its ``"\r"`` before, its ``"\n"`` at)."""
    return int(0 < i < len(text) and text[i - 1] == "\r" and text[i] == "\n")


def _last_line_end(data: bytes, within: int) -> int:
    """Just after the last line terminator that starts in ``data[:within]`` (a ``"\r\n"``
    pair whole), or 0. A ``"\r"`` ending *data* is not taken: it may be the first half of
    a pair whose ``"\n"`` has not arrived."""
    i = max(data.rfind(b"\n", 0, within), data.rfind(b"\r", 0, within))
    if i != -1 and data[i] == 0x0D and i + 1 == len(data):
        i = max(data.rfind(b"\n", 0, i), data.rfind(b"\r", 0, i))
    if i != -1 and data[i] == 0x0D and data[i + 1: i + 2] == b"\n":
        return i + 2
    return i + 1


def _head_end(data: bytes, budget: int, *, after_line_end: bool = False) -> int:
    """Where the kept head ends in *data*: after the last line terminator within *budget*
    bytes; else where *data* starts, when what precedes it ends a line (*after_line_end*);
    else, for a first line longer than the budget, at a character boundary."""
    if budget <= 0:
        return 0
    i = max(data.rfind(b"\n", 0, budget), data.rfind(b"\r", 0, budget))
    if i == -1:
        return 0 if after_line_end else utf8_boundary_before(data, min(budget, len(data)))
    if data[i] == 0x0D and data[i + 1: i + 2] == b"\n":
        return i + 2
    return i + 1
