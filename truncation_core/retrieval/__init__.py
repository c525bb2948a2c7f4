"""Reading artifacts back: the full content, lines a to b, head, tail, pages, and grep.

Written once, over ``store.open(id)`` (a seekable binary file), so every backend gets it: the
built-in stores inherit :class:`Retrieval`, and :func:`reader_for` adapts any other store.
Each concept has its module:

- :mod:`~truncation_core.retrieval.scanning`: finding lines in bytes (terminators, line
  starts, reading backwards from the end);
- :mod:`~truncation_core.text.decoding` (in the text layer): bytes to text, never splitting
  a character;
- :mod:`~truncation_core.retrieval.pages`: :class:`Page`, lines a to b, tail, paging by offset;
- :mod:`~truncation_core.retrieval.searching`: literal and regular-expression search;
- :mod:`~truncation_core.retrieval.patterns`: checking and compiling a model's pattern.
- :mod:`~truncation_core.retrieval.asynchronous`: the same methods for async code, in a
  worker thread.

Nothing here raises on content. Memory stays bounded by the chunk size plus what is
returned: ``tail`` reads from the end, ``grep`` scans chunk by chunk and counts line numbers
only for matches.
"""

from __future__ import annotations

import importlib
import io
from typing import TYPE_CHECKING, Any, BinaryIO

from truncation_core.retrieval.scanning import CHUNK, GREP_MAX_MATCHES, line_number_at, line_start
from truncation_core.text.decoding import DECODE_ERRORS, decode

# Every store inherits this module's Retrieval, and reading back is rarer than storing: pages
# (3.7 ms), grep (27 ms, with the bounded regular expressions) and hashlib (2.9 ms) are
# imported on first use (python -X importtime, fastest of 9, 2026-12).

if TYPE_CHECKING:
    from collections.abc import Callable

    from truncation_core.retrieval.pages import Line, Page, read_lines, read_page, read_tail
    from truncation_core.retrieval.searching import GrepMatch, GrepResult, grep
    from truncation_core.types.artifacts import ArtifactRef
    from truncation_core.types.storage import ArtifactStore

#: Names of :mod:`.pages` and :mod:`.grep`, loaded on first use: a store is opened on every
#: start-up, and reading an artifact back is rarer.
_LAZY = {
    "GrepMatch": "truncation_core.retrieval.searching",
    "GrepResult": "truncation_core.retrieval.searching",
    "grep": "truncation_core.retrieval.searching",
    "Line": "truncation_core.retrieval.pages",
    "Page": "truncation_core.retrieval.pages",
    "read_lines": "truncation_core.retrieval.pages",
    "read_page": "truncation_core.retrieval.pages",
    "read_tail": "truncation_core.retrieval.pages",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _lazy(name)


def _lazy(name: str) -> Any:
    """The lazily loaded *name*, kept as this package's attribute with the other names of its
    module, so that later lookups skip ``__getattr__``. (No submodule is named like a name
    it exports: importing a submodule sets the package's attribute of its name to the
    module, and a module ``grep`` replaced the function ``grep`` once anything had imported
    it directly.)"""
    module = importlib.import_module(_LAZY[name])
    for other, where in _LAZY.items():
        if where == module.__name__:
            globals()[other] = getattr(module, other)
    return globals()[name]


__all__ = [
    "DECODE_ERRORS",
    "GrepMatch",
    "GrepResult",
    "Line",
    "Page",
    "Retrieval",
    "decode",
    "grep",
    "line_number_at",
    "line_start",
    "read_lines",
    "read_page",
    "read_tail",
    "reader_for",
    "recorded_lines",
]


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
        """The full content as text (the original ``str``, lone surrogates included; text
        with a UTF-16 or UTF-32 byte-order mark decoded by it)."""
        data = self.read(artifact_id)
        from truncation_core.text.binary import byte_order_mark, decode_with_mark

        mark = byte_order_mark(data)
        return decode(data) if mark is None else decode_with_mark(data, mark[0])

    def _open_text(self, artifact_id: str) -> BinaryIO:
        """The artifact, for reading as UTF-8 text: as stored, or, when a UTF-16 or UTF-32
        byte-order mark opens it (the tool's bytes are kept as they came), its text as UTF-8,
        made in memory (an artifact holds at most ``max_artifact_size`` bytes). Line numbers
        are then the text's, as the markers give them."""
        from truncation_core.text.binary import SAMPLE_BYTES, byte_order_mark, decode_with_mark

        f = self.open(artifact_id)
        try:  # decided on the same bytes as when it was kept
            start = f.read(SAMPLE_BYTES + 1)
            mark = byte_order_mark(start, complete=len(start) <= SAMPLE_BYTES)
            if mark is None:
                f.seek(0)
                return f
            data = start + f.read()
        except BaseException:
            f.close()
            raise
        f.close()

        return io.BytesIO(decode_with_mark(data, mark[0]).encode("utf-8", "surrogatepass"))

    def lines(self, artifact_id: str, start: int = 1, end: int | None = None, *,
              max_chars: int | None = None, line_cost: int = 0) -> Page:
        """Lines *start* to *end*, 1-based and inclusive (*end* None: to the end).

        With *max_chars*, stops before the first line that would exceed it (each line
        costing *line_cost* more, e.g. room for its number); ``page.next_line`` says where
        to go on.
        """
        from truncation_core.retrieval.pages import read_lines

        with self._open_text(artifact_id) as f:
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
        from truncation_core.retrieval.pages import read_tail

        total = self.known_lines(artifact_id)
        with self._open_text(artifact_id) as f:
            return read_tail(f, n, max_chars=max_chars, line_cost=line_cost,
                             total_lines=total, artifact_id=artifact_id)

    def known_lines(self, artifact_id: str) -> int | None:
        """The artifact's line count from its metadata, or None when not recorded."""
        return recorded_lines(self.stat(artifact_id))

    def checksum(self, artifact_id: str) -> str:
        """The sha256 of the stored bytes, lowercase hex: the one the backend recorded when
        it stored the artifact, or else computed from the content (read in chunks)."""
        recorded = self.stat(artifact_id).sha256
        if recorded:
            return recorded
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
        from truncation_core.retrieval.pages import read_page

        with self._open_text(artifact_id) as f:
            return read_page(f, offset=offset, max_chars=max_chars, artifact_id=artifact_id)

    def grep(self, artifact_id: str, pattern: str, *, regex: bool = False,
             ignore_case: bool = False, context: int = 0,
             max_matches: int = GREP_MAX_MATCHES, start_line: int = 1) -> GrepResult:
        """Lines matching *pattern* (literal unless *regex*), see :func:`grep`."""
        search: Callable[..., GrepResult] = _lazy("grep")  # (not imported by name: _lazy)
        with self._open_text(artifact_id) as f:
            return search(f, pattern, regex=regex, ignore_case=ignore_case, context=context,
                        max_matches=max_matches, start_line=start_line,
                        artifact_id=artifact_id)


def recorded_lines(ref: ArtifactRef) -> int | None:
    """*ref*'s line count, or None when the backend did not record it (0 lines for a
    non-empty artifact)."""
    return ref.lines if ref.lines or not ref.bytes else None


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
