"""The redis store: the artifacts of one session, in Redis.

Layout: :mod:`truncation_core_redis.keys`. Writing: :mod:`truncation_core_redis.writer`.
Reading: :meth:`RedisStore.open` gives a seekable file that fetches only the ranges read
(:mod:`truncation_core_redis.reader`), so everything written over ``open`` (export, grep,
``tail`` reading backwards from the end) works on any size. ``lines`` and ``page`` use the
line index (:mod:`truncation_core_redis.index`) to find a line without counting from the start:
they read the block holding it and the lines they return, wherever they are. The results are
the filesystem store's, byte for byte: the page is built by the same
:func:`~truncation_core.retrieval.read_page`.
"""

from __future__ import annotations

import errno
import time
from collections.abc import Callable
from typing import Any, BinaryIO

import attrs

from truncation_core.plugin import (
    ArtifactInfo,
    ArtifactNotFound,
    ArtifactRef,
    Retrieval,
    StoreConfig,
    StoreError,
    new_session_id,
    ref_from_document,
    validate_artifact_id,
    validate_session_id,
)
from truncation_core.retrieval import Page, read_page, read_tail, recorded_lines
from truncation_core.retrieval.scanning import CR, LF
from truncation_core.text.decoding import utf8_boundary_after
from truncation_core_redis.backend import NAME, RedisBackend, Settings
from truncation_core_redis.index import DEFAULT_BLOCK, LineIndex
from truncation_core_redis.keys import SessionKeys
from truncation_core_redis.options import (
    CHUNK_SIZE,
    DEFAULT_PREFIX,
    check_prefix,
    check_url,
    options_from_config,
)
from truncation_core_redis.reader import ArtifactFile
from truncation_core_redis.scripts import DELETE
from truncation_core_redis.writer import RedisWriter

__all__ = ["RedisStore"]

#: Bytes read from an import source at a time.
_RESTORE_BLOCK = 1 << 20


def _problem(field: str, message: str) -> Exception:
    from truncation_core.plugin import ConfigError

    return ConfigError([f"{field}: {message}"])


class RedisStore(Retrieval):
    """Artifacts of one session in Redis.

    Give either *url* (``redis://``, ``rediss://`` or ``unix://``; the store connects on first
    use) or *client*, a ``redis.Redis`` or ``redis.cluster.RedisCluster`` the application
    already has (used as it is: its own retry settings apply), or a ``redis.asyncio.Redis``
    (the store makes a synchronous client with the same address, database, credentials and
    TLS settings, because it runs in ``process`` and in worker threads).

    :param session: the session; None starts a new one.
    :param prefix: what every key starts with (``<prefix>:``).
    :param quota: bytes one session may hold; storing more evicts its oldest artifacts.
    :param retention_days: every key expires this many days after it was written; 0: never.
    :param chunk_size: bytes per chunk key. *index_block*: bytes per line-index entry.
    :param socket_timeout, connect_timeout: seconds (for a *url*).
    :param retries: retries of reads, and of writes whose connection was lost.
    :param staging_ttl: seconds the chunks of a write in progress are kept.
    :param cluster: connect to *url* with the Redis Cluster protocol.
    """

    name = NAME

    def __init__(self, url: str | None = None, *, client: Any = None,
                 session: str | None = None, prefix: str = DEFAULT_PREFIX,
                 quota: int | None = None, retention_days: int = 7,
                 chunk_size: int = CHUNK_SIZE,
                 index_block: int = DEFAULT_BLOCK, socket_timeout: float = 5.0,
                 connect_timeout: float = 2.0, retries: int = 2, staging_ttl: int = 3600,
                 cluster: bool = False, _backend: RedisBackend | None = None) -> None:
        self.session_id = (validate_session_id(session) if session is not None
                           else new_session_id())
        if _backend is None:
            _backend = _new_backend(url, client, prefix=prefix, quota=quota,
                                    retention_days=retention_days, chunk_size=chunk_size,
                                    index_block=index_block, socket_timeout=socket_timeout,
                                    connect_timeout=connect_timeout, retries=retries,
                                    staging_ttl=staging_ttl, cluster=cluster)
        self._backend = _backend
        self.client = _backend.client
        self.settings = _backend.settings
        self.keys = SessionKeys(self.settings.prefix, self.session_id)
        self.log = _backend.log

    @classmethod
    def from_config(cls, config: StoreConfig) -> RedisStore:
        """The store of ``config.session`` (a new session when unset), with the redis keys of
        ``store`` (``url``, ``prefix``, ...) checked: ConfigError names each bad one."""
        o = options_from_config(config.options, fsync=config.fsync)
        return cls(o.url, session=config.session, prefix=o.prefix, quota=config.quota,
                   retention_days=config.retention_days, chunk_size=o.chunk_size,
                   socket_timeout=o.socket_timeout, connect_timeout=o.connect_timeout,
                   retries=o.retries, staging_ttl=o.staging_ttl, cluster=o.cluster)

    def __repr__(self) -> str:
        return f"RedisStore({self._backend.location!r}, session_id={self.session_id!r})"

    @property
    def backend(self) -> RedisBackend:
        return self._backend

    @property
    def location(self) -> str:
        return self._backend.location

    def for_session(self, session_id: str) -> RedisStore:
        return RedisStore(session=session_id, _backend=self._backend)

    def close(self) -> None:
        """Close the connections (the store reconnects if used again)."""
        self._backend.close()

    def retry(self, fn: Callable[[], Any], action: str, *, timeouts: bool = True) -> Any:
        return self._backend.retry(fn, action, timeouts=timeouts)

    # -- writing ------------------------------------------------------------------------------

    def writer(self, info: ArtifactInfo) -> RedisWriter:
        """Start a new artifact. Nothing is sent before the first chunk fills up, or commit."""
        return RedisWriter(self, info)

    def restore(self, ref: ArtifactRef, source: BinaryIO) -> ArtifactRef:
        """Store *source* under *ref*'s id, creation time and description (import from an
        archive), atomically and within the quota. An artifact with that id already here is
        left alone if its content is the same, and is an error otherwise."""
        validate_artifact_id(ref.id)
        try:
            existing: ArtifactRef | None = self.stat(ref.id)
        except ArtifactNotFound:
            existing = None
        if existing is not None:
            digest = self.checksum(ref.id)
            if digest != ref.sha256:
                raise StoreError(errno.EEXIST, f"{ref.id}: already in session "
                                               f"{self.session_id} with other content")
            return attrs.evolve(existing, sha256=digest)
        info = ArtifactInfo(tool=ref.tool, tool_call_id=ref.tool_call_id, server=ref.server,
                            summary=ref.summary, content_type=ref.content_type,
                            chars=ref.chars, lines=ref.lines, cut=ref.cut)
        with RedisWriter(self, info, artifact_id=ref.id, created_at=ref.created_at) as writer:
            while block := source.read(_RESTORE_BLOCK):
                writer.write(block)
            return writer.commit()

    # -- reading ------------------------------------------------------------------------------

    def gone_reason(self, artifact_id: str) -> str | None:
        """Why *artifact_id* is gone, if it was evicted (None otherwise)."""
        reason = self.retry(lambda: self.client.get(self.keys.gone(artifact_id)),
                            f"read {artifact_id}")
        return reason.decode("utf-8", "replace") if reason else None

    def _fields(self, artifact_id: str, *fields: str) -> list[Any]:
        """The artifact's metadata *fields* (one round trip); ArtifactNotFound when it is not
        here."""
        validate_artifact_id(artifact_id)
        key = self.keys.meta(artifact_id)
        values: list[Any] = self.retry(lambda: self.client.hmget(key, fields),
                                       f"read {artifact_id}")
        if values[0] is None:
            raise ArtifactNotFound(artifact_id, reason=self.gone_reason(artifact_id))
        return values

    def _ref(self, artifact_id: str, document: bytes) -> ArtifactRef:
        ref = ref_from_document(document, artifact_id, backend=NAME, session=self.session_id)
        if ref is None:
            raise StoreError(errno.EIO, f"{artifact_id}: its metadata is damaged")
        return ref

    def _file(self, artifact_id: str, size: bytes, chunks: bytes,
              chunk_size: bytes) -> ArtifactFile:
        return ArtifactFile(self, artifact_id, size=int(size), chunks=int(chunks),
                            chunk_size=int(chunk_size))

    def open(self, artifact_id: str) -> BinaryIO:
        size, chunks, chunk_size = self._fields(artifact_id, "size", "chunks", "chunk_size")
        return self._file(artifact_id, size, chunks, chunk_size)  # type: ignore[return-value]

    def stat(self, artifact_id: str) -> ArtifactRef:
        (document,) = self._fields(artifact_id, "ref")
        return self._ref(artifact_id, document)

    def _indexed(self, artifact_id: str) -> tuple[ArtifactFile, LineIndex, ArtifactRef]:
        ref, size, chunks, chunk_size, block, index = self._fields(
            artifact_id, "ref", "size", "chunks", "chunk_size", "block", "index")
        return (self._file(artifact_id, size, chunks, chunk_size),
                LineIndex(int(block), index), self._ref(artifact_id, ref))

    def list(self) -> list[ArtifactRef]:
        """This session's artifacts, oldest first."""
        def read() -> list[tuple[str, bytes | None]]:
            ids = [a.decode() for a in self.client.zrange(self.keys.index, 0, -1)]
            pipe = self.client.pipeline(transaction=False)
            for artifact_id in ids:
                pipe.hget(self.keys.meta(artifact_id), "ref")
            return list(zip(ids, pipe.execute() if ids else [], strict=True))

        found: list[tuple[str, bytes | None]] = self.retry(read, "list artifacts")
        refs = [self._ref(artifact_id, doc) for artifact_id, doc in found if doc is not None]
        return sorted(refs, key=lambda r: (r.created_at, r.id))

    # -- retrieval that the line index makes faster ---------------------------------------

    def lines(self, artifact_id: str, start: int = 1, end: int | None = None, *,
              max_chars: int | None = None, line_cost: int = 0) -> Page:
        """Lines *start* to *end*: reads the index block where *start* is, then the lines."""
        if start < 1:
            raise ValueError(f"start_line: must be 1 or more, got {start}")
        if end is not None and end < start:
            raise ValueError(f"end_line: must be at least start_line ({start}), got {end}")
        f, index, _ = self._indexed(artifact_id)
        with f:
            offset = index.line_start(f, start)  # type: ignore[arg-type]
            if offset is None:
                return Page.empty(f.size, artifact_id)
            return read_page(f, offset=offset, first_line=start,  # type: ignore[arg-type]
                             max_lines=None if end is None else end - start + 1,
                             max_chars=max_chars, line_cost=line_cost,
                             artifact_id=artifact_id)

    def page(self, artifact_id: str, offset: int = 0, *, max_chars: int = 8000) -> Page:
        """Whole lines from byte *offset*: its line number comes from the index."""
        if offset < 0:
            raise ValueError(f"offset: must be 0 or more, got {offset}")
        f, index, _ = self._indexed(artifact_id)
        with f:
            offset = _snap(f, offset)
            first = index.line_number_at(f, offset) if offset else 1  # type: ignore[arg-type]
            return read_page(f, offset=offset, first_line=first,  # type: ignore[arg-type]
                             max_chars=max_chars, artifact_id=artifact_id)

    def tail(self, artifact_id: str, n: int = 10, *, max_chars: int | None = None,
             line_cost: int = 0) -> Page:
        """The last *n* lines, read backwards from the end (one metadata read, then the
        ranges holding those lines)."""
        if n < 1:
            raise ValueError(f"lines: must be 1 or more, got {n}")
        ref, size, chunks, chunk_size = self._fields(artifact_id, "ref", "size", "chunks",
                                                     "chunk_size")
        total = recorded_lines(self._ref(artifact_id, ref))
        with self._file(artifact_id, size, chunks, chunk_size) as f:
            return read_tail(f, n, max_chars=max_chars, line_cost=line_cost,  # type: ignore[arg-type]
                             total_lines=total, artifact_id=artifact_id)

    # -- deleting -----------------------------------------------------------------------------

    def delete(self, artifact_id: str) -> bool:
        validate_artifact_id(artifact_id)
        k = self.keys
        now_ms = int(time.time() * 1000)
        deleted = self.retry(lambda: self.client.eval(
            DELETE, 4, k.meta(artifact_id), k.state, k.index, k.sizes, k.base, artifact_id,
            now_ms), f"delete {artifact_id}")
        return bool(deleted)

    def delete_session(self) -> int:
        return self._backend.delete_session(self.session_id)


def _snap(f: ArtifactFile, offset: int) -> int:
    """*offset* moved forward out of a UTF-8 sequence or a ``"\\r\\n"`` pair, as
    :func:`~truncation_core.retrieval.read_page` moves it (so that the line number looked up
    is the one of the offset the page starts at)."""
    size = f.size
    if offset <= 0 or offset >= size:
        return max(0, min(offset, size))
    lo = max(0, offset - 3)
    f.seek(lo)
    around = f.read(offset - lo + 3)
    i = offset - lo
    if around[i - 1] == CR and around[i] == LF:
        return offset + 1
    return lo + utf8_boundary_after(around, i)


def _new_backend(url: str | None, client: Any, *, prefix: str, quota: int | None,
                 retention_days: int, chunk_size: int, index_block: int,
                 socket_timeout: float, connect_timeout: float, retries: int,
                 staging_ttl: int, cluster: bool) -> RedisBackend:
    from truncation_core_redis.clients import (
        client_from_url,
        describe,
        sync_client,
        url_without_password,
    )

    for field, value, low in (("chunk_size", chunk_size, 1), ("index_block", index_block, 1),
                              ("retention_days", retention_days, 0), ("retries", retries, 0),
                              ("staging_ttl", staging_ttl, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise _problem(field, f"must be an integer of {low} or more, got {value!r}")
    if quota is not None and (isinstance(quota, bool) or not isinstance(quota, int)
                              or quota < 1):
        raise _problem("quota", f"must be a positive integer or None, got {quota!r}")
    try:
        check_prefix(prefix)
    except ValueError as exc:
        raise _problem("prefix", str(exc)) from None
    if (url is None) == (client is None):
        raise _problem("url", "give either url or client (one of them)")
    if url is not None:
        try:
            check_url(url)
        except ValueError as exc:
            raise _problem("url", str(exc)) from None
        client = client_from_url(url, socket_timeout=socket_timeout,
                                 connect_timeout=connect_timeout, cluster=cluster)
        location = url_without_password(url)
    else:
        client = sync_client(client)
        location = describe(client)
    settings = Settings(prefix=prefix, quota=quota, retention_days=retention_days,
                        chunk_size=chunk_size, index_block=index_block,
                        staging_ttl=staging_ttl, retries=retries)
    return RedisBackend(client, settings, location=location)
