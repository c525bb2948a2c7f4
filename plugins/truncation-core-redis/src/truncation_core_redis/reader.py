"""An artifact's content as a seekable file that reads only what is asked of it.

Each read is one round trip: a GETRANGE on each chunk key the range touches, pipelined. Reads
that follow one another (a scan, an export) fetch ahead, up to one chunk, so that reading a
whole artifact costs one round trip per chunk; a read elsewhere (``tail`` reading backwards,
a page in the middle) fetches just its range. Memory stays bounded by a chunk plus the read.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from truncation_core.plugin import ArtifactNotFound

if TYPE_CHECKING:
    from truncation_core_redis.store import RedisStore

__all__ = ["ArtifactFile"]

#: The first read ahead of a sequential read; it doubles with each one, up to a chunk.
READ_AHEAD = 64 << 10


class ArtifactFile(io.RawIOBase):
    """The content of one stored artifact (see the module docstring)."""

    def __init__(self, store: RedisStore, artifact_id: str, *, size: int, chunks: int,
                 chunk_size: int) -> None:
        super().__init__()
        self._store = store
        self.artifact_id = artifact_id
        self.size = size
        self._chunks = chunks
        self._chunk_size = chunk_size
        self._pos = 0
        self._buffer = b""
        self._buffer_at = 0
        self._ahead = 0
        self._next = -1  # where the last fetch ended: a read from there is sequential

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence == 0:
            pos = offset
        elif whence == 1:
            pos = self._pos + offset
        elif whence == 2:
            pos = self.size + offset
        else:
            raise ValueError(f"whence: must be 0, 1 or 2, got {whence!r}")
        if pos < 0:
            raise ValueError(f"negative seek position {pos}")
        self._pos = pos
        return pos

    def read(self, size: int | None = -1) -> bytes:
        if self.closed:
            raise ValueError("read of closed file")
        start = self._pos
        stop = self.size if size is None or size < 0 else min(self.size, start + size)
        if start >= stop:
            return b""
        lo = start - self._buffer_at
        if 0 <= lo and stop <= self._buffer_at + len(self._buffer):
            data = self._buffer[lo: lo + stop - start]
        else:
            fetch_to = stop
            if start == self._next:  # sequential: fetch ahead
                self._ahead = min(max(self._ahead * 2, READ_AHEAD), self._chunk_size)
                fetch_to = min(self.size, max(stop, start + self._ahead))
            else:
                self._ahead = 0
            self._buffer, self._buffer_at = self._fetch(start, fetch_to), start
            self._next = fetch_to
            data = self._buffer[: stop - start]
        self._pos = stop
        return data

    def readall(self) -> bytes:
        return self.read(-1)

    def readinto(self, b: Any) -> int:
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._buffer = b""
        super().close()

    def _fetch(self, start: int, stop: int) -> bytes:
        """Bytes ``[start, stop)``, in one round trip; ArtifactNotFound when a chunk is gone
        (the artifact was deleted or evicted while it was read)."""
        keys = self._store.keys
        c = self._chunk_size
        ranges = [(keys.chunk(self.artifact_id, n), max(start, n * c) - n * c,
                   min(stop, (n + 1) * c) - n * c - 1)
                  for n in range(start // c, (stop - 1) // c + 1)]
        client = self._store.client

        def fetch() -> bytes:
            if len(ranges) == 1:
                key, lo, hi = ranges[0]
                return bytes(client.getrange(key, lo, hi))
            pipe = client.pipeline(transaction=False)
            for key, lo, hi in ranges:
                pipe.getrange(key, lo, hi)
            return b"".join(pipe.execute())

        data: bytes = self._store.retry(fetch, f"read {self.artifact_id}")
        if len(data) != stop - start:
            raise ArtifactNotFound(self.artifact_id,
                                   reason=self._store.gone_reason(self.artifact_id)
                                   or "deleted while it was read")
        return data


