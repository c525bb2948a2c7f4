"""Writing one artifact: chunks under staging keys, then one script that publishes it.

Content arrives in pieces of any size. Full chunks (about 1 MiB) go to staging keys
(``<p>:{<s>}:w:<token>:<n>``, expiring after ``staging_ttl``), sent in pipelines of a few
chunks; the sha256 and the line index are computed on the way (for a large write, while a
helper thread sends it). ``commit`` sends the last
chunk with the publish script (:data:`~truncation_core_redis.scripts.PUBLISH`), in the same
round trip as the last staged chunks: it renames the staged chunks to the artifact's keys,
writes its metadata and index, and evicts the session's oldest artifacts when over the quota,
atomically. An artifact of one chunk or less is stored in that one round trip.

A writer that dies leaves only staging keys, which nobody can see and which expire. A
writer that fails or aborts deletes them at once (best effort: Redis may be the reason).
"""

from __future__ import annotations

import errno
import hashlib
import secrets
import threading
import time
from typing import TYPE_CHECKING, Any

from truncation_core.plugin import (
    ArtifactInfo,
    ArtifactRef,
    StoreError,
    StoreFull,
    WriterBase,
    new_artifact_id,
    ref_document,
)
from truncation_core_redis.index import LineIndexer
from truncation_core_redis.scripts import PUBLISH

if TYPE_CHECKING:
    from truncation_core_redis.store import RedisStore

__all__ = ["RedisWriter"]

#: Staged chunks are sent in pipelines of about this many bytes.
PIPELINE_BYTES = 4 << 20
#: A write this large is sent on a helper thread while it is hashed and indexed.
BACKGROUND_SEND_MIN = 1 << 20


class _Sender(threading.Thread):
    """Runs one function on a helper thread; ``finish`` waits for it and raises what it
    raised."""

    def __init__(self, fn: Any, *args: Any) -> None:
        super().__init__(name="truncation-core-redis-send", daemon=True)
        self._fn, self._args = fn, args
        self._error: BaseException | None = None

    def run(self) -> None:
        try:
            self._fn(*self._args)
        except BaseException as exc:
            self._error = exc

    def finish(self) -> None:
        self.join()
        if self._error is not None:
            raise self._error


def _human(n: int) -> str:
    from truncation_core.plugin import human_size

    return human_size(n)


class RedisWriter(WriterBase):
    """Writes one artifact to a session in Redis (see the module docstring)."""

    def __init__(self, store: RedisStore, info: ArtifactInfo, *, artifact_id: str | None = None,
                 created_at: float | None = None) -> None:
        super().__init__()
        self._store = store
        self._info = info
        self._created = time.time() if created_at is None else created_at
        #: The artifact's id, known before it is committed (given when importing).
        self.id = new_artifact_id(self._created) if artifact_id is None else artifact_id
        self._token = secrets.token_hex(12)
        self._sha256 = hashlib.sha256()
        self._index = LineIndexer(store.settings.index_block)
        self._written = 0
        self._pending: list[bytes] = []
        self._pending_size = 0
        self._staged = 0  # chunks sent, or queued in the pipeline
        self._queue: list[tuple[str, Any]] = []
        self._queued_bytes = 0
        self._refreshed = time.monotonic()

    # -- writing ----------------------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        if not isinstance(data, bytes):
            data = bytes(data)  # the caller may reuse its buffer once write() returns
        quota = self._store.settings.quota
        if quota is not None and self._written + len(data) > quota:
            raise StoreFull(errno.EDQUOT, f"{self.id}: more than the session quota of "
                                          f"{_human(quota)}")
        self._written += len(data)
        chunks = self._full_chunks(data)
        if chunks and len(data) >= BACKGROUND_SEND_MIN:
            # Send on a helper thread while this one hashes and indexes: sockets and sha256
            # release the GIL, so with a core free storing costs about the sending alone.
            # The chunks are views of the caller's bytes: one pipeline holds no more memory.
            sender = _Sender(self._stage_all, chunks, True)
            sender.start()
            try:
                self._digest(data)
            finally:
                sender.finish()
        else:
            self._digest(data)
            self._stage_all(chunks)

    def _digest(self, data: bytes) -> None:
        self._sha256.update(data)
        self._index.feed(data)

    def _full_chunks(self, data: bytes) -> list[Any]:
        """The chunks *data* completes (views, no copies of a large write); the rest waits."""
        size = self._store.settings.chunk_size
        if self._pending:
            if self._pending_size + len(data) < size:
                self._pending.append(data)
                self._pending_size += len(data)
                return []
            data = b"".join([*self._pending, data])
        whole = len(data) - len(data) % size
        view = memoryview(data)
        rest = data[whole:]
        self._pending, self._pending_size = ([rest] if rest else []), len(rest)
        return [view[at: at + size] for at in range(0, whole, size)]

    def _stage_all(self, chunks: list[Any], at_once: bool = False) -> None:
        for chunk in chunks:
            self._stage(chunk, send=not at_once)
        if at_once and self._queue:
            self._send()

    def _stage(self, chunk: Any, *, send: bool = True) -> None:
        key = self._store.keys.staging(self._token, self._staged)
        self._staged += 1
        self._queue.append((key, chunk))
        self._queued_bytes += len(chunk)
        if send and self._queued_bytes >= PIPELINE_BYTES:
            self._send()

    def _send(self, publish: tuple[list[str], list[Any]] | None = None) -> Any:
        """Send the queued chunks (and the publish script, when given) in one pipeline;
        return the script's result."""
        store = self._store
        ttl_ms = store.settings.staging_ttl * 1000
        queue, self._queue, self._queued_bytes = self._queue, [], 0
        refresh: list[str] = []
        now = time.monotonic()
        if self._staged > len(queue) and now - self._refreshed > store.settings.staging_ttl / 3:
            # A slow stream: keep the chunks staged long ago from expiring before the commit.
            refresh = [store.keys.staging(self._token, n)
                       for n in range(self._staged - len(queue))]
            self._refreshed = now

        def send() -> Any:
            pipe = store.client.pipeline(transaction=False)
            for key, chunk in queue:
                pipe.set(key, chunk, px=ttl_ms)
            for key in refresh:
                pipe.pexpire(key, ttl_ms)
            if publish is not None:
                keys, args = publish
                pipe.execute_command("EVAL", PUBLISH, len(keys), *keys, *args)
            results = pipe.execute(raise_on_error=False)
            for result in results:  # the first failure: out of memory, read-only, ...
                if isinstance(result, Exception):
                    raise result
            return results[-1] if publish is not None else None

        # Setting a staged chunk twice, or running the publish script twice, does what doing
        # it once does: safe to repeat when the connection was lost.
        return store.retry(send, f"store {self.id}", timeouts=False)

    # -- publishing -------------------------------------------------------------------------

    def _commit(self, info: ArtifactInfo | None) -> ArtifactRef:
        store = self._store
        settings = store.settings
        last = b"".join(self._pending)
        self._pending, self._pending_size = [], 0
        index = self._index.finish()
        ref = ArtifactRef.from_info(info or self._info, id=self.id, backend=store.name,
                                    bytes=self._written, sha256=self._sha256.hexdigest(),
                                    created_at=self._created, session=store.session_id)
        keys = store.keys
        now_ms = int(time.time() * 1000)
        ttl_ms = settings.retention_days * 86_400_000
        quota = settings.quota or 0
        reason = f"evicted: the session's quota of {_human(quota)} was full" if quota else ""
        args = [keys.base, self.id, self._token, self._staged, last, self._written, ttl_ms,
                now_ms, ref_document(ref), index, settings.chunk_size, settings.index_block,
                quota, settings.gone_ttl_ms, reason, "1" if last else "0"]
        result = self._send(([keys.meta(self.id), keys.state, keys.index, keys.sizes], args))
        outcome = result[0].decode() if result else "?"
        if outcome == "published":
            self._staged = 0  # renamed: nothing left to clean up
            evicted = [v.decode() for v in result[1:]]
            for victim in evicted:
                store.log.info("evicted artifact %s from session %s: quota", victim,
                               store.session_id)
            return ref
        if outcome == "too_big":
            raise StoreFull(errno.EDQUOT, f"{self.id}: {_human(self._written)} is more than the "
                                          f"session quota of {_human(quota)}")
        if outcome == "exists":
            raise StoreError(errno.EEXIST, f"{self.id}: already in session {store.session_id}")
        if outcome == "foreign":
            raise StoreError(errno.EEXIST, (
                f"session {store.session_id}: the key {keys.state} exists and was not made by "
                "truncation-core (another application shares store.prefix "
                f"{settings.prefix!r}); nothing was changed. Expected a prefix of the store's "
                "own, or a session name no other data uses: set store.prefix or "
                "store.session"))
        raise StoreError(errno.EIO, f"{self.id}: the write was interrupted (its staged chunks "
                                    "are gone: the session was deleted, or they expired)")

    def _abort(self) -> None:
        self._pending, self._queue = [], []
        if not self._staged:
            return
        store = self._store
        staged = [store.keys.staging(self._token, n) for n in range(self._staged)]
        self._staged = 0
        try:
            store.client.unlink(*staged)
        except Exception as exc:  # they expire anyway
            store.log.debug("staged chunks of %s not deleted (%s): they expire", self.id,
                            type(exc).__name__)
