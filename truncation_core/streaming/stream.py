"""Streaming truncation: tool output of any size, in bounded memory, cut as ``process`` cuts it.

    with truncator.stream(tool="execute_command") as s:
        for chunk in source:          # str or bytes, any size
            s.write(chunk)
    result = s.result()               # == truncator.process(everything), but see below

How it keeps memory bounded and stays equal to :meth:`Truncator.process
<truncation_core.Truncator.process>` (one exception: a stream longer than the ends it keeps
gets no outline or index, which ``outline`` and ``adaptive`` add to a whole text, since
they need all of its lines; docs/strategies.md says so):

* **Counts are exact and incremental.** Characters, bytes and line terminators are counted
  per chunk. A ``"\\r\\n"`` split across two chunks counts once; a UTF-8 sequence split
  across two chunks is reassembled by an incremental decoder. An ASCII chunk (the common
  case) is counted without decoding, and so is a large chunk of valid UTF-8 once the head is
  full and the process has streamed 64 MiB (:mod:`truncation_core.text.bytecount`, with
  numpy: its newlines at some five times the speed of ``bytes.count``, its characters from
  its non-ASCII bytes alone).
* **Only the two ends are kept.** A head buffer holds the first characters and a ring the
  last ones, each sized from the budget plus a little slack (the most a cut can move while it
  snaps to a line boundary). Nothing in between is held.
* **The same pipeline cuts.** At the end the stream stands for the full text with a
  :class:`~truncation_core.pipeline.ends.KeptEnds` and hands it to the pipeline that
  ``process`` uses (:mod:`truncation_core.pipeline.pipeline`): the same hooks, in the same
  order, with the same markers, highlights and metadata. When the whole stream did fit in the
  two buffers, it is handed over as one string. A differential property test checks equality
  over random chunkings.
* **Everything is kept as it arrives.** Once the stream exceeds its limit, an artifact writer
  is opened through the pipeline (the ``store_artifact`` hook) and every chunk is written to
  it (bytes as received; text as UTF-8 with ``surrogatepass``). A stream that ends within its
  limit stores nothing, like ``process``.

A strategy cuts a stream longer than its kept ends through the
:class:`~truncation_core.types.strategy.IncrementalCut` its ``stream_cutter`` made when the
stream's text outgrew its head (fed the head, then every chunk), or through its cut when it
is ``streamable``; otherwise the stream is cut with
``head_tail`` and the notes say so (see :mod:`truncation_core.types.strategy`).
"""

from __future__ import annotations

import codecs
import contextlib
import functools
from collections import deque
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import attrs

from truncation_core.errors import StoreError, StoreFull, StoreRootRefused, log
from truncation_core.pipeline.ends import KeptEnds, window_for
from truncation_core.pipeline.results import TruncationMetadata, TruncationResult
from truncation_core.text.bytecount import count_newlines, is_ascii, utf8_chars
from truncation_core.text.measure import measure, utf8_size
from truncation_core.text.offsets import decode_suffix, raw_locator, text_locator
from truncation_core.types.checks import PositiveInt

# The modules of a cut and of highlights are imported where first used, as in the pipeline
# (pipeline/pipeline.py has their figures): a stream that ends within its limits never
# builds them. asyncio (51 ms, python -X importtime, fastest of 9, 2026-12) is imported by
# the async form only.

if TYPE_CHECKING:
    import asyncio

    from truncation_core.highlights.bank import StreamHighlights
    from truncation_core.highlights.patterns import Matcher
    from truncation_core.pipeline.pipeline import Pipeline
    from truncation_core.types.artifacts import ArtifactInfo
    from truncation_core.types.cuts import ContentFacts
    from truncation_core.types.models import Budget
    from truncation_core.types.policy import Policy
    from truncation_core.types.storage import ArtifactWriter
    from truncation_core.types.strategy import IncrementalCut

__all__ = ["AsyncStream", "Stream"]

# What only content over its limits uses (its facts, the call, the artifact's description)
# is imported where it is first used: a stream that stays within its limits (a command that
# prints little) never builds those classes.


#: A UTF-8 character is at most 4 bytes: raw buffers keep this many bytes per character
#: (and a few more: a broken sequence at the edge is up to 3 bytes).
_MAX_UTF8 = 4
#: Bytes decoded at a time (see Stream._decode).
_DECODE_PIECE = 64 * 1024
#: AsyncStream hands work to a thread once this much is pending.
_ASYNC_BATCH = 256 * 1024

AnyStr = TypeVar("AnyStr", str, bytes)
#: ``bytes``, for annotations inside :class:`Stream`, whose ``bytes`` property shadows it.
_Bytes = bytes


class _Ring(Generic[AnyStr]):
    """The last *keep* characters (or bytes) written, as a few pieces."""

    def __init__(self, keep: int, empty: AnyStr) -> None:
        self._keep = keep
        self._empty: AnyStr = empty
        self._parts: deque[AnyStr] = deque()
        self._size = 0
        #: True once anything written has been dropped.
        self.trimmed = False

    def append(self, piece: AnyStr) -> None:
        if len(piece) >= self._keep:
            if len(piece) > self._keep or self._size:
                self.trimmed = True
            piece = piece[len(piece) - self._keep:]
            self._parts.clear()
            self._size = 0
        self._parts.append(piece)
        self._size += len(piece)
        while self._size - len(self._parts[0]) >= self._keep:
            self._size -= len(self._parts.popleft())
            self.trimmed = True

    def value(self) -> AnyStr:
        joined: AnyStr = self._empty.join(self._parts)
        return joined


def is_interruption(exc_type: type[BaseException] | None) -> bool:
    """True for what interrupts a program rather than reports a bug: KeyboardInterrupt,
    SystemExit, task cancellation (``asyncio.CancelledError``), a closed generator."""
    return exc_type is not None and not issubclass(exc_type, Exception)


class Stream:
    """One tool result arriving in chunks. Made by :meth:`Truncator.stream
    <truncation_core.Truncator.stream>`; use it as a context manager.

    Leaving the ``with`` block normally finishes the stream (the artifact is committed).
    Leaving it interrupted (KeyboardInterrupt, SystemExit, task cancellation) finishes it as
    partial (:meth:`interrupt`): what arrived is kept, the result (``result()``, after the
    block) starts with a line saying so, and its metadata's ``interrupted`` says after how
    many lines; the interruption goes on (interrupted in the middle of a ``write``, it also
    says that the artifact may lack part of that chunk: run the writes where no signal
    handler raises, in a worker thread, as ``run_command`` does, to keep every chunk whole).
    Leaving it with an exception (a bug) aborts it:
    nothing is stored, and there is no result. A stream is not thread-safe: write to it from
    one thread at a time (:class:`AsyncStream` does that for async code).
    """

    def __init__(self, pipeline: Pipeline, *, tool: str | None, policy: Policy,
                 budget: Budget, context: Mapping[str, Any],
                 cutters: Callable[[], Mapping[str, IncrementalCut]],
                 matcher: Callable[[], Matcher] | None) -> None:
        self._pipeline = pipeline
        self._tool = tool
        self._policy = policy
        self._budget = budget
        self._context = context
        window = window_for(policy)
        self._window = window
        self._raw_window = _MAX_UTF8 * window + 8  # the same, in bytes, for a bytes stream
        # What follows the text from its start: the strategies' incremental cutters (made by
        # *cutters*) and the highlights (*matcher* compiles the detectors' patterns). A
        # stream whose text stays within its head is cut from that whole text, and needs
        # neither: they are made when the text first outgrows the head, given the head, then
        # every later piece (see _follow). So `trunc run` of a command that prints little
        # never imports the structured cutter or the highlights, nor looks for the plugins
        # that may provide others.
        self._following = False
        self._make_cutters: Callable[[], Mapping[str, IncrementalCut]] | None = cutters
        self._matcher = matcher
        self._cutters: dict[str, IncrementalCut] = {}
        self._feeding: list[IncrementalCut] = []  # the cutters that still want the content
        self._highlights: StreamHighlights | None = None
        #: What the caller writes (``str`` or ``bytes``), and how the stream holds it: text
        #: that a byte-order mark decodes (UTF-16, UTF-32) is held as ``str``.
        self._given: type | None = None
        self._mode: type | None = None
        #: A bytes stream's first bytes, held until they show whether a byte-order mark
        #: opens it (see truncation_core.text.binary.byte_order_mark), then None.
        self._opening: bytearray | None = None
        self._transcoder: codecs.IncrementalDecoder | None = None
        self._decoded_from: str | None = None
        #: Binary content (see truncation_core.text.binary): a bytes stream's first
        #: SAMPLE_BYTES decide (None until they have); the sha256 of binary content starts
        #: then, with what came before.
        self._sample = bytearray()
        self._binary: bool | None = None
        self._sha256: Any = None
        # Exact totals.
        self._chars = 0
        self._bytes = 0
        # UTF-8 size of the decoded text, which differs from the input's size where bytes are
        # not valid UTF-8 (a U+FFFD is 3 bytes); kept only under a byte limit.
        self._text_bytes = 0
        self._newlines = 0
        self._returns = 0
        self._crlfs = 0
        self._last_was_cr = False
        self._ends_with_terminator = False
        self._ascii = True
        # The two ends.
        self._head: list[str] = []
        self._head_chars = 0
        self._raw_head = bytearray()
        self._ring: _Ring[Any] | None = None
        self._decoder: codecs.IncrementalDecoder | None = None
        self._decoder_idle = True
        # The artifact.
        self._over = False
        self._prefix: list[bytes] = []
        self._writer: ArtifactWriter | None = None
        self._artifact_error: str | None = None
        self._result: TruncationResult | None = None
        self._aborted = False
        #: Why the stream is partial, once interrupted.
        self._interrupted: str | None = None
        #: Plugin failures while the stream was written, for the result's notes.
        self._failures: list[str] = []
        #: Writes begun and not finished: an exception raised in the middle of one (a signal
        #: handler's KeyboardInterrupt, say) may have counted a chunk it did not store.
        self._unfinished_writes = 0

    def __repr__(self) -> str:  # never the content
        return (f"Stream(tool={self._tool!r}, chars={self._chars}, bytes={self._bytes}, "
                f"lines={self.lines}, finished={self._result is not None})")

    # -- progress ----------------------------------------------------------------------------

    @property
    def chars(self) -> int:
        """Characters seen so far."""
        return self._chars

    @property
    def bytes(self) -> int:
        """Bytes seen so far (the chunks' own bytes; UTF-8 for text)."""
        return self._bytes

    @property
    def lines(self) -> int:
        """Lines seen so far (see :mod:`truncation_core.text.cut` for the definition)."""
        # (bytes not decoded yet are text too; binary content has bytes and no characters)
        started = self._chars or self._bytes or not self._decoder_idle
        return self._terminators() + (1 if started and not self._ends_with_terminator else 0)

    @property
    def policy(self) -> Policy:
        """The policy the stream is cut by (its ``budget`` is what ``result`` fits)."""
        return self._policy

    # -- writing -----------------------------------------------------------------------------

    def write(self, chunk: str | _Bytes | bytearray | memoryview) -> int:
        """Take the next chunk of the tool's output; returns its length.

        All chunks of one stream are ``str``, or all are bytes-like.
        """
        if self._result is not None or self._aborted:
            raise ValueError("write() on a finished stream")
        if isinstance(chunk, str):
            kind: type = str
            if type(chunk) is not str:
                chunk = str(chunk)
        elif isinstance(chunk, bytes | bytearray | memoryview):
            kind = bytes
            chunk = bytes(chunk)
        else:
            raise TypeError(f"chunk: expected str or bytes, got {type(chunk).__name__}")
        if self._given is None:
            self._given = kind
            if kind is str:
                self._start(str)
            else:
                self._opening = bytearray()
        elif kind is not self._given:
            raise TypeError(f"chunk: this stream takes {self._given.__name__} (its first chunk "
                            f"was {self._given.__name__}), got {kind.__name__}")
        if chunk:
            self._unfinished_writes += 1
            if kind is str:
                self._write_text(chunk)  # type: ignore[arg-type]
            elif self._transcoder is not None:
                self._write_decoded(chunk)  # type: ignore[arg-type]
            elif self._opening is not None:
                self._open_bytes(chunk)  # type: ignore[arg-type]
            else:
                self._write_bytes(chunk)  # type: ignore[arg-type]
            self._unfinished_writes -= 1
        return len(chunk)

    def _open_bytes(self, chunk: _Bytes, *, final: bool = False) -> None:
        """The first bytes of a bytes stream: held until they show whether a byte-order mark
        opens it (text then, decoded by it; for bytes that start like a mark, up to the
        sample that decides), then written."""
        from truncation_core.text.binary import byte_order_mark, could_be_byte_order_mark

        held = self._opening
        assert held is not None
        held += chunk
        if not final and could_be_byte_order_mark(held):
            return
        self._opening = None
        data = bytes(held)
        mark = byte_order_mark(data, complete=final)
        if mark is not None:
            self._start(str)
            self._decoded_from = mark[1]
            self._transcoder = codecs.getincrementaldecoder(mark[0])("replace")
            self._write_decoded(data)
            return
        self._start(bytes)
        if data:
            self._write_bytes(data)

    def _write_decoded(self, raw: _Bytes, *, final: bool = False) -> None:
        """Bytes of text with a byte-order mark: written as their text, and kept as they
        came."""
        text = self._transcoder.decode(raw, final)  # type: ignore[union-attr]
        if text:
            self._write_text(text, stored=raw)
        elif raw:  # (a code unit split across chunks: its text comes with the next one)
            self._bytes += len(raw)
            self._keep("", raw)

    def _start(self, kind: type) -> None:
        self._mode = kind
        if kind is str:
            self._ring = _Ring(self._window, "")
        else:
            self._ring = _Ring(self._raw_window, b"")
            self._decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def _count(self, chunk: Any, newlines: int, nl: Any, cr: Any, crlf: Any) -> bool:
        """Count the chunk's terminators (its *newlines* are counted); whether it holds a
        ``"\\r"``."""
        self._newlines += newlines
        returns: bool = chunk.find(cr) != -1  # memchr-fast; most output has no "\r" at all
        if returns:
            self._returns += chunk.count(cr)
            self._crlfs += chunk.count(crlf)
        if self._last_was_cr and chunk.startswith(nl):
            self._crlfs += 1  # a "\r\n" split across two chunks
        self._last_was_cr = chunk.endswith(cr)
        self._ends_with_terminator = chunk.endswith((nl, cr))
        return returns

    def _write_text(self, chunk: str, stored: _Bytes | None = None) -> None:
        """Text; *stored*: the bytes it was decoded from, which the artifact keeps instead
        of its UTF-8 (text with a byte-order mark)."""
        self._count(chunk, chunk.count("\n"), "\n", "\r", "\r\n")
        self._chars += len(chunk)
        data: _Bytes | None = None
        if chunk.isascii():  # O(1): CPython keeps the flag
            size = len(chunk)
        else:
            self._ascii = False
            data = chunk.encode("utf-8", "surrogatepass")
            size = len(data)
        self._bytes += size if stored is None else len(stored)
        self._text_bytes += size
        self._take_head(chunk)
        self._ring.append(chunk)  # type: ignore[union-attr]
        self._feed(chunk)
        self._keep(chunk, data if stored is None else stored)

    def _write_bytes(self, chunk: _Bytes) -> None:
        if self._binary is not False:  # undecided (the first SAMPLE_BYTES), or binary
            if self._binary:
                self._sha256.update(chunk)
            else:
                self._take_sample(chunk)
            if self._binary:
                self._write_binary(chunk)
                return
        returns = self._count(chunk, count_newlines(chunk), b"\n", b"\r", b"\r\n")
        self._bytes += len(chunk)
        pieces: list[str] | None = None  # the chunk decoded, when it had to be
        exact: _Bytes | None = chunk  # the bytes of the text this chunk adds, if known
        idle = self._decoder_idle
        chars = self._chars
        if self._decoder_idle and is_ascii(chunk):
            self._chars += len(chunk)
            self._text_bytes += len(chunk)
        elif (self._head_chars >= self._window
              and (valid := self._count_utf8(chunk)) is not None):
            exact = valid
        else:
            pieces = self._decode(chunk)
            # The bytes are the text's own when nothing was held or replaced in decoding.
            if not (idle and self._decoder_idle
                    and not any("\ufffd" in piece for piece in pieces)):
                exact = None
        if self._head_chars < self._window:
            if pieces is None:
                self._take_head(chunk[:self._window - self._head_chars].decode("ascii"))
            for piece in pieces or ():
                self._take_head(piece)
        room = self._raw_window - len(self._raw_head)
        if room > 0:
            self._raw_head += chunk[:room]
        self._ring.append(chunk)  # type: ignore[union-attr]
        if not self._following and self._chars > self._window:
            self._follow(chars)  # (before the chunk is decoded: nothing may need its text)
        if self._highlights is not None or self._feeding:
            if not (exact is not None and not returns
                    and self._skimmed(exact, self._chars - chars)):
                self._feed(exact.decode("utf-8") if pieces is None  # type: ignore[union-attr]
                           else "".join(pieces), raw=exact)
        self._keep(chunk, chunk)

    def _take_sample(self, chunk: _Bytes) -> None:
        from truncation_core.text.binary import SAMPLE_BYTES

        before = bytes(self._sample)  # all the stream held before this chunk
        self._sample += chunk[:SAMPLE_BYTES - len(before)]
        if len(self._sample) >= SAMPLE_BYTES:
            self._decide_binary(complete=False, seen=(before, chunk))

    def _decide_binary(self, *, complete: bool, seen: tuple[_Bytes, _Bytes] = (b"", b"")
                       ) -> None:
        """Binary or text, from the sample (the whole stream when *complete*). Binary, its
        sha256 starts with the bytes *seen* so far (a text stream never hashes)."""
        from truncation_core.text.binary import is_binary

        self._binary = is_binary(self._sample, complete=complete)
        if self._binary:
            import hashlib  # (only for binary: it maps OpenSSL, some 5 MB)

            self._sha256 = hashlib.sha256(seen[0] if not complete else bytes(self._sample))
            self._sha256.update(seen[1])
            self._over = True  # never shown: kept from now on, whatever its size

    def _write_binary(self, chunk: _Bytes) -> None:
        """A chunk of binary content: counted and kept, nothing else."""
        self._count(chunk, count_newlines(chunk), b"\n", b"\r", b"\r\n")
        self._bytes += len(chunk)
        self._keep(chunk, chunk)

    def _count_utf8(self, chunk: _Bytes) -> _Bytes | None:
        """Count a chunk that is valid UTF-8 (with what the decoder held before it) without
        decoding it; the bytes of the text it adds, or None (having counted nothing) when it
        is not valid UTF-8 or cannot be counted so: decode it then. The start of a character
        it ends with is held in the decoder, as decoding would."""
        decoder = self._decoder
        held = decoder.getstate()[0]  # type: ignore[union-attr]
        data = held + chunk if held else chunk
        counted = utf8_chars(data)
        if counted is None:
            return None
        chars, size = counted
        decoder.setstate((data[size:], 0))  # type: ignore[union-attr]
        self._decoder_idle = size == len(data)
        self._chars += chars
        self._text_bytes += size
        self._ascii = self._ascii and chars == size
        return data if size == len(data) else data[:size]

    def _decode(self, chunk: _Bytes, final: bool = False) -> list[str]:
        """The chunk, decoded (and counted) a piece at a time: decoding 1 MiB of text that is
        not ASCII into one string costs some three times more than in 64 KiB pieces (which
        stay in the allocator's cache), and most chunks are only counted."""
        decode = self._decoder.decode  # type: ignore[union-attr]
        view, size = memoryview(chunk), len(chunk)
        pieces = [decode(view[start:start + _DECODE_PIECE], final and start + _DECODE_PIECE >= size)
                  for start in range(0, size, _DECODE_PIECE) or (0,)]
        self._decoder_idle = not self._decoder.getstate()[0]  # type: ignore[union-attr]
        for text in pieces:
            self._chars += len(text)
            if text:
                ascii_text = text.isascii()
                self._ascii = self._ascii and ascii_text
                if self._policy.max_bytes is not None:  # only a byte limit needs it (an
                    self._text_bytes += len(text) if ascii_text else utf8_size(text)  # encode)
        return pieces

    def _take_head(self, text: str) -> None:
        need = self._window - self._head_chars
        if need > 0 and text:
            piece = text[:need]
            self._head.append(piece)
            self._head_chars += len(piece)

    def _feed(self, text: str, raw: _Bytes | None = None) -> None:
        """Give *text*, the piece just counted (and taken into the head as far as it goes),
        to the cutters and highlights, once the text has outgrown the head."""
        if not text:
            return
        if not self._following:
            if self._chars <= self._window:
                return  # the head holds all of the text so far
            self._follow(self._chars - len(text))
        if self._highlights is not None:  # (it need not count what was just counted)
            self._highlights.feed(text, raw=raw, terminators=self._terminators())
        if self._feeding:
            self._feeding = [cutter for cutter in self._feeding if self._fed(cutter, text)]

    def _follow(self, before: int) -> None:
        """Make the cutters and the highlights, now that the text outgrows the head, and give
        them its first *before* characters, what came before the piece just counted (the
        head holds them all). They take the text in any pieces alike (the differential tests
        chunk it at random)."""
        self._following = True
        prior = "".join(self._head)[:before]
        if self._make_cutters is not None:
            make_cutters, self._make_cutters = self._make_cutters, None
            self._cutters = dict(make_cutters())
            self._feeding = list(self._cutters.values())
        if self._matcher is not None:
            make_matcher, self._matcher = self._matcher, None
            self._open_highlights(make_matcher())
        if prior:
            if self._highlights is not None:
                self._highlights.feed(prior)
            if self._feeding:
                self._feeding = [cutter for cutter in self._feeding if self._fed(cutter, prior)]

    def _skimmed(self, chunk: _Bytes, chars: int) -> bool:
        """Whether the highlights, the only ones fed, took the chunk (valid UTF-8 of *chars*
        characters, without a ``"\r"``) without its text: they need little of a chunk in
        which no keyword occurs."""
        return (not self._feeding and self._highlights is not None
                and self._highlights.skim(chunk, chars=chars, terminators=self._terminators()))

    def _open_highlights(self, matcher: Matcher) -> None:
        if matcher:  # it has something to look for
            from truncation_core.highlights.bank import StreamHighlights

            self._highlights = StreamHighlights(matcher, keep=self._policy.highlights,
                                                window=self._window)

    def _fed(self, cutter: IncrementalCut, text: str) -> bool:
        """Feed *cutter*; False once it wants no more, or raised (a plugin's bug: reported,
        and the cutter is not used to finish either)."""
        try:
            return cutter.feed(text) is not False
        except Exception as exc:
            self._pipeline.failed(exc, "stream_cutter", "that cutter is not used",
                                  self._tool, self._failures, suspect=cutter)
            self._cutters = {name: c for name, c in self._cutters.items() if c is not cutter}
            return False

    def _terminators(self) -> int:
        return self._newlines + self._returns - self._crlfs

    def _is_over(self, budget: Budget) -> bool:
        return (self._chars > budget.chars
                or (budget.bytes is not None and self._text_bytes > budget.bytes)
                or (budget.lines is not None and self.lines > budget.lines))

    # -- the artifact ------------------------------------------------------------------------

    def _keep(self, chunk: str | _Bytes, data: _Bytes | None) -> None:
        """Keep the chunk for the artifact: held back while within the limit, then written."""
        if not self._over:
            self._over = self._is_over(self._budget)
        if not self._policy.spill or self._artifact_error is not None:
            return
        if data is None:
            data = chunk.encode("utf-8", "surrogatepass")  # type: ignore[union-attr]
        if self._writer is None and not self._over:
            self._prefix.append(data)
            return
        self._store(data)

    def _store(self, data: _Bytes) -> None:
        try:
            if self._writer is None:
                self._open_writer()
                if self._writer is None:
                    return
                for held in self._prefix:
                    self._writer.write(held)
                self._prefix = []
            self._writer.write(data)
        except (StoreError, OSError) as exc:
            self._store_failed(exc)

    def _open_writer(self) -> None:
        from truncation_core.pipeline.facts import PROVISIONAL_FACTS, artifact_info

        # Sizes and the content type are known only at the end: commit() gives them then.
        info = artifact_info(self._tool, self._context, PROVISIONAL_FACTS)
        writer = self._pipeline.open_artifact(info, self._policy)
        if writer is None:
            self._artifact_error = "no storage backend accepted it"
            self._prefix = []
            return
        self._writer = writer

    def _store_failed(self, exc: BaseException) -> None:
        if self._writer is not None:
            self._writer.abort()
            self._writer = None
        self._prefix = []
        full = isinstance(exc, StoreFull)
        if isinstance(exc, StoreRootRefused):  # the user's to fix: its message names store.root
            self._artifact_error = exc.reason
            log.warning("artifact not stored (tool=%s): %s", self._tool, exc)
            return
        self._artifact_error = ("the artifact store is full" if full
                                else "the artifact store failed")
        log.warning("artifact not stored (tool=%s, %d bytes so far): %s", self._tool,
                    self._bytes, "store full" if full else type(exc).__name__)

    # -- finishing ---------------------------------------------------------------------------

    def result(self, *, reserve: str = "") -> TruncationResult:
        """Finish the stream (if not finished yet) and return what the model sees.

        *reserve* is text the caller puts above the content (a command's header, say): the
        content is then cut so that both together fit the budget, in every limited unit.
        Only the call that finishes the stream uses it (leaving the ``with`` block finishes
        it too: ask for the result inside the block).
        """
        if self._result is None:
            if self._aborted:
                raise ValueError("result() of an aborted stream")
            # As in Pipeline.run: a parse made while finishing (a cutter that kept the whole
            # text) keeps the collector waiting while the parsed document lives; finished,
            # the cutters, which may hold it, go before the collector resumes (a stream kept
            # after its result would keep them alive too).
            with contextlib.ExitStack() as document_alive:
                self._result = self._finish(reserve, document_alive)
                self._cutters, self._feeding = {}, []
                self._make_cutters = self._matcher = None
        return self._result

    def interrupt(self, reason: str, *, reserve: str = "") -> TruncationResult:
        """Finish the stream as partial: what arrived so far is cut and kept like a whole
        output, the artifact records *reason* (``interrupted``), and so does the result's
        metadata, with a note. The content says nothing more: the caller says it is partial
        (``__exit__`` puts a line above it; a command's header says it). *reserve*: as for
        :meth:`result`. A stream already finished keeps its result."""
        if self._result is None and not self._aborted:
            if self._unfinished_writes:
                reason += ("; a chunk was cut short while it was written: the artifact may "
                           "lack part of it")
            self._interrupted = reason
            result = self.result(reserve=reserve)
            metadata = attrs.evolve(result.metadata, interrupted=reason,
                                    notes=(*result.metadata.notes,
                                           f"{reason}: the output is partial"))
            self._result = type(result)(result.content, artifact=result.artifact,
                                        metadata=metadata)
        return self.result()

    def finish_interrupted(self, cause: str) -> TruncationResult | None:
        """Keep what arrived, as leaving the ``with`` block interrupted does: the result
        starts with a line saying the output is partial (``[interrupted after 1,234 lines
        (SIGTERM): the output is partial]``, *cause* in the brackets), and its metadata and
        artifact say so (see :meth:`interrupt`). Never raises: a failure here is logged, the
        stream aborted, and None returned. A stream already finished keeps its result."""
        if self._result is not None or self._aborted:
            return self._result
        reason = f"interrupted after {self.lines:,} line{'' if self.lines == 1 else 's'} " \
                 f"({cause})"
        notice = f"[{reason}: the output is partial]\n"
        if self._budget.minus(measure(notice)) is None:
            notice = ""  # it does not fit the budget: the metadata says it
        try:
            result = self.interrupt(reason, reserve=notice)
            if notice:
                self._result = _with_notice(result, notice)
        except Exception as exc:
            log.warning("interrupted stream (tool=%s) could not be kept: %s", self._tool,
                        type(exc).__name__)
            self.abort()
        return self._result

    def abort(self) -> None:
        """Drop the stream: nothing is stored."""
        if self._result is None and not self._aborted:
            self._aborted = True
            if self._writer is not None:
                self._writer.abort()
                self._writer = None
            self._prefix = []

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        if is_interruption(exc_type):
            self.finish_interrupted(exc_type.__name__)  # type: ignore[union-attr]
        elif exc_type is not None:
            self.abort()
        elif not self._aborted:
            self.result()

    def _finish(self, reserve: str, scope: contextlib.ExitStack) -> TruncationResult:
        if self._opening is not None:
            self._open_bytes(b"", final=True)
        if self._mode is None:
            self._start(str)
        if self._mode is bytes and self._binary is None:
            self._decide_binary(complete=True)
        if self._binary:
            return self._with_reserve(self._finish_binary(reserve), reserve)
        if self._transcoder is not None:
            self._write_decoded(b"", final=True)
        if self._mode is bytes:
            tail = "".join(self._decode(b"", final=True))  # a broken sequence at the end
            if tail:
                self._ends_with_terminator = False
                self._take_head(tail)
                self._feed(tail)
        if self._highlights is not None:
            self._highlights.close()
        policy, budget = self._room_left(reserve)
        chars_per_token = None
        if not self._over:
            self._over = self._is_over(budget)
        if not self._over:  # within its limits in characters, bytes and lines: and tokens?
            text = "".join(self._head)
            size = measure(text)
            shown = reserve + text
            within = self._pipeline.within_tokens(
                self._policy, shown, utf8_size(shown) if reserve else size.bytes)
            if within is None or within.fits:
                self._prefix = []
                self._pipeline.record_use(
                    self._policy, size, None if reserve or within is None else within.tokens,
                    truncated=False)
                if self._decoded_from is None:
                    return TruncationResult(text, policy=self._policy)

                return TruncationResult(text, metadata=attrs.evolve(
                    TruncationMetadata.unchanged(text, self._policy),
                    decoded_from=self._decoded_from))
            self._over = True
            chars_per_token = within.chars_per_token
        if self._policy.spill and self._writer is None and self._artifact_error is None:
            self._store(b"")  # over only after the final flush: store what was held
        from truncation_core.pipeline.call import Call
        from truncation_core.pipeline.facts import content_facts

        view, raw = self._full_text()
        if isinstance(view, str):
            total = self._bytes
            facts = content_facts(view, from_bytes=self._given is bytes, encoded=raw,
                                  byte_size=(lambda: total) if self._decoded_from else None,
                                  byte_offsets=self._byte_offsets(), scope=scope)
        else:
            facts = self._kept_ends_facts(view, scope)
        notes: list[str] = list(self._failures)
        pipeline = self._pipeline
        strategy, chosen_by = pipeline.select(self._tool, facts, policy, self._context, notes)
        artifact, artifact_error = self._commit(facts)
        pools_for = None
        if not isinstance(view, str) and self._highlights is not None:
            pools_for = functools.partial(self._highlights.pools, total=self._chars)
        call = Call(tool=self._tool, policy=policy, budget=budget, context=self._context,
                    text=view, facts=facts, strategy=strategy, strategy_chosen_by=chosen_by,
                    artifact=artifact,
                    artifact_error=artifact_error,
                    byte_size_known=policy.spill or self._given is bytes,
                    cutters=self._cutters, pools_for=pools_for, above=reserve,
                    decoded_from=self._decoded_from, chars_per_token=chars_per_token)
        return self._with_reserve(pipeline.finish(call, notes), reserve)

    def _with_reserve(self, result: TruncationResult, reserve: str) -> TruncationResult:
        """*result*, cut to leave room for *reserve*, with its limits and a note saying so."""
        if not reserve:
            return result
        size = measure(reserve)
        metadata = attrs.evolve(result.metadata, limits=self._budget, notes=(
            *result.metadata.notes, f"cut to leave room for {size.chars:,} "
            f"char{'' if size.chars == 1 else 's'} / {size.lines:,} "
            f"line{'' if size.lines == 1 else 's'} above the content"))
        return type(result)(result.content, artifact=result.artifact, metadata=metadata)

    def _room_left(self, reserve: str) -> tuple[Policy, Budget]:
        """The policy and the budget with their limits less what *reserve* takes."""
        if not reserve:
            return self._policy, self._budget
        room = self._budget.minus(measure(reserve))
        if room is None:
            raise ValueError(f"reserve: {len(reserve)} characters do not fit the budget "
                             f"({self._budget})")
        return attrs.evolve(
            self._policy, inline_limit=PositiveInt(room.chars),
            max_bytes=None if room.bytes is None else PositiveInt(room.bytes),
            max_lines=None if room.lines is None else PositiveInt(room.lines)), room

    def _full_text(self) -> tuple[str | KeptEnds, _Bytes | None]:
        """The whole text when the two ends overlap, else the windows over it."""
        ring = self._ring.value()  # type: ignore[union-attr]
        head = "".join(self._head)
        if self._mode is bytes:
            if self._bytes - len(ring) <= len(self._raw_head):
                raw = bytes(self._raw_head[:self._bytes - len(ring)]) + ring
                return raw.decode("utf-8", "replace"), raw
            tail, _ = decode_suffix(ring, is_start=False)
            tail = tail[len(tail) - self._window:]
        else:
            if self._chars - len(ring) <= len(head):
                return head[:self._chars - len(ring)] + ring, None
            tail = ring
        return KeptEnds(head, tail, length=self._chars, newlines=self._newlines,
                           returns=self._returns, crlfs=self._crlfs, ascii=self._ascii), None

    def _byte_offsets(self) -> bool:
        """Whether omissions get byte offsets: as in ``process``, when the content is kept
        or came as bytes (as ``Pipeline.run`` does), and is held as it came (not text that a
        byte-order mark decoded: the offsets would be the text's, not the artifact's)."""
        return (self._policy.spill or self._mode is bytes) and self._decoded_from is None

    def _kept_ends_facts(self, view: KeptEnds, scope: contextlib.ExitStack) -> ContentFacts:
        total = self._bytes
        locate: Callable[[int], int] | None = None
        if self._mode is bytes:
            locate = raw_locator(self._raw_head, self._ring.value(),  # type: ignore[union-attr]
                                 total_chars=self._chars, total_bytes=total,
                                 tail_is_start=False)
        elif self._byte_offsets():
            locate = text_locator(view, lambda: total)
        from truncation_core.structured.sniff import looks_like_json, looks_like_xml
        from truncation_core.types.cuts import ContentFacts

        # The sniffs of content_facts, which look only at the two ends.
        json = looks_like_json(view)  # type: ignore[arg-type]
        xml = not json and looks_like_xml(view)  # type: ignore[arg-type]
        return ContentFacts(
            chars=self._chars, lines=self.lines, terminators=self._terminators(),
            looks_like_json=json, looks_like_xml=xml, from_bytes=self._given is bytes,
            byte_size=lambda: total, locate_byte=locate, scope=scope)

    def _finish_binary(self, reserve: str) -> TruncationResult:
        """The summary of binary content, kept whole (see :mod:`truncation_core.pipeline.binary`),
        as ``process()`` gives it for the same bytes."""
        from truncation_core.pipeline.binary import binary_content, binary_info

        policy, budget = self._room_left(reserve)
        found = binary_content(self._sample, self._bytes, self._sha256.hexdigest())
        lines = self.lines
        if self._policy.spill and self._writer is None and self._artifact_error is None:
            self._store(b"")  # a short stream, held until now
        info = binary_info(self._tool, self._context, found, lines)
        artifact, error = self._commit_info(info)
        return self._pipeline.binary_result(
            found, lines=lines, policy=policy, budget=budget, tool=self._tool,
            artifact=artifact, artifact_error=error, notes=list(self._failures), above=reserve)

    def _commit(self, facts: ContentFacts) -> tuple[Any, str | None]:
        if self._writer is None:
            return None, self._artifact_error
        from truncation_core.pipeline.facts import artifact_info

        return self._commit_info(artifact_info(self._tool, self._context, facts))

    def _commit_info(self, info: ArtifactInfo) -> tuple[Any, str | None]:
        if self._writer is None:
            return None, self._artifact_error
        if self._interrupted is not None:
            info = attrs.evolve(info, interrupted=self._interrupted)
        try:
            ref = self._writer.commit(info)
        except (StoreError, OSError) as exc:
            self._store_failed(exc)
            return None, self._artifact_error
        finally:
            self._writer = None
        log.debug("stored artifact %s backend=%s bytes=%d tool=%s (stream)", ref.id,
                  ref.backend, ref.bytes, self._tool)
        return ref, None


def _with_notice(result: TruncationResult, notice: str) -> TruncationResult:
    """*result* with *notice* above its content (room for it was reserved, tokens included:
    the pipeline counts what is ``above`` the content, as for a command's header)."""
    content = notice + result.content
    metadata = attrs.evolve(result.metadata, truncated_size=len(content))
    return type(result)(content, artifact=result.artifact, metadata=metadata)


class AsyncStream:
    """The async form of :class:`Stream` (``async with truncator.astream(...) as s``).

    Chunks are gathered and handed to a worker thread in batches of about 256 KiB, so that
    counting and artifact writes never block the event loop. Batching changes nothing in the
    result: a stream's result does not depend on how its content is chunked.
    """

    def __init__(self, stream: Stream) -> None:
        self._stream = stream
        self._pending: list[Any] = []
        self._pending_size = 0
        # The batch being written in a thread. Cancelling a writer's await does not stop the
        # thread, so the next batch waits for it: the stream never sees two at once.
        self._inflight: asyncio.Future[Any] | None = None

    @property
    def stream(self) -> Stream:
        """The underlying stream (its ``chars``, ``bytes`` and ``lines`` show progress)."""
        return self._stream

    async def write(self, chunk: str | bytes | bytearray | memoryview) -> int:
        if self._pending and type(chunk) is not type(self._pending[0]):
            await self.flush()
        self._pending.append(chunk)
        self._pending_size += len(chunk)
        if self._pending_size >= _ASYNC_BATCH:
            await self.flush()
        return len(chunk)

    async def flush(self) -> None:
        """Hand the chunks gathered so far to the stream (its counters then include them)."""
        if not self._pending:
            return
        first = self._pending[0]
        batch = ("" if isinstance(first, str) else b"").join(self._pending)
        self._pending, self._pending_size = [], 0
        await self._run(self._stream.write, batch)

    async def _run(self, function: Callable[..., Any], *args: Any) -> Any:
        import asyncio  # loaded already by whoever runs the event loop

        if self._inflight is not None:
            await asyncio.shield(self._inflight)
        self._inflight = asyncio.ensure_future(asyncio.to_thread(function, *args))
        return await asyncio.shield(self._inflight)

    async def result(self, *, reserve: str = "") -> TruncationResult:
        """Finish the stream and return what the model sees (*reserve*: as for
        :meth:`Stream.result`)."""
        await self.flush()
        return await self._run(  # type: ignore[no-any-return]
            functools.partial(self._stream.result, reserve=reserve))

    def abort(self) -> None:
        """Drop the stream (after the batch being written, if any): nothing is stored."""
        self._pending = []
        if self._inflight is not None and not self._inflight.done():
            self._inflight.add_done_callback(lambda _: self._stream.abort())
        else:
            self._stream.abort()

    async def __aenter__(self) -> AsyncStream:
        return self

    async def interrupt(self, reason: str, *, reserve: str = "") -> TruncationResult:
        """Finish the stream as partial (see :meth:`Stream.interrupt`)."""
        await self.flush()
        return await self._run(  # type: ignore[no-any-return]
            functools.partial(self._stream.interrupt, reason, reserve=reserve))

    async def __aexit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        if is_interruption(exc_type):
            # Cancelled (or interrupted): keep what arrived. The work runs in a thread that a
            # second cancellation cannot stop half-way; the result is the stream's.
            pending, self._pending, self._pending_size = self._pending, [], 0

            def finish() -> None:
                if pending:
                    self._stream.write(("" if isinstance(pending[0], str) else b"")
                                       .join(pending))
                self._stream.finish_interrupted(exc_type.__name__)  # type: ignore[union-attr]

            import asyncio  # loaded already by whoever runs the event loop

            await asyncio.shield(self._run(finish))
        elif exc_type is not None:
            self.abort()
        else:
            await self.result()
