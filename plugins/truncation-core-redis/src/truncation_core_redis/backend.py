"""The redis backend across its sessions: listing, finding, deleting and cleaning sessions.

Sessions are found with SCAN over their ``<prefix>:{*}:session`` hashes, and only the
store's count (the marker, or the shape of a session stored before it:
:func:`~truncation_core_redis.keys.is_owned`): a prefix may be shared with other data. A
session is deleted with SCAN over its keys and UNLINK in batches (never KEYS, which blocks
the server) of the keys named as the store names them, its session hash last; any other key
under the session's base stays. Old sessions need no sweeper: every key has the TTL of the
retention period, renewed for the session's own keys each time an artifact is stored.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

import attrs

from truncation_core.plugin import (
    ArtifactNotFound,
    CleanReport,
    SessionInfo,
    validate_artifact_id,
    validate_session_id,
)
from truncation_core_redis.errors import retrying
from truncation_core_redis.keys import SessionKeys, is_owned, session_from_key, sessions_pattern

if TYPE_CHECKING:
    from collections.abc import Callable

    from truncation_core_redis.store import RedisStore

__all__ = ["RedisBackend", "Settings"]

NAME = "redis"
log = logging.getLogger("truncation_core.redis")

#: Keys deleted per UNLINK, and the COUNT hint of each SCAN step.
UNLINK_BATCH = 500
SCAN_COUNT = 1000
#: How long the reason an evicted artifact is gone is kept when there is no retention.
GONE_DAYS = 7


@attrs.frozen(kw_only=True)
class Settings:
    """How a backend stores artifacts (shared by the stores of all its sessions)."""

    prefix: str
    quota: int | None = None
    retention_days: int = 7
    chunk_size: int = (1 << 20) - 64
    index_block: int = 64 << 10
    staging_ttl: int = 3600
    retries: int = 2

    @property
    def gone_ttl_ms(self) -> int:
        return (self.retention_days or GONE_DAYS) * 86_400_000


class RedisBackend:
    """The redis backend across its sessions (a
    :class:`~truncation_core.types.storage.StorageBackend`). Thread-safe; connects on first
    use."""

    name = NAME

    def __init__(self, client: Any, settings: Settings, *, location: str) -> None:
        self.client = client
        self.settings = settings
        self._location = location
        self.log = log

    def __repr__(self) -> str:
        return f"RedisBackend({self._location!r}, prefix={self.settings.prefix!r})"

    @property
    def location(self) -> str:
        """The server, without its password, and the key prefix."""
        return f"{self._location} (prefix {self.settings.prefix})"

    def retry(self, fn: Callable[[], Any], action: str, *, timeouts: bool = True) -> Any:
        return retrying(fn, action=action, location=self._location,
                        retries=self.settings.retries, timeouts=timeouts)

    def session(self, session_id: str | None = None) -> RedisStore:
        from truncation_core_redis.store import RedisStore

        return RedisStore(session=session_id, _backend=self)

    def close(self) -> None:
        """Close the client's connections (it reconnects if used again)."""
        self.client.close()

    # -- sessions ---------------------------------------------------------------------------

    def session_ids(self) -> list[str]:
        """Every session of the store's here (sorted): a session hash under the prefix that
        :func:`~truncation_core_redis.keys.is_owned` proves the store's."""
        prefix = self.settings.prefix

        def scan() -> list[str]:
            found = {session_from_key(prefix, key) for key in self.client.scan_iter(
                match=sessions_pattern(prefix), count=SCAN_COUNT, _type="HASH")}
            names = sorted(s for s in found if s is not None)
            return [name for name, owned in zip(names, self._owned(names), strict=True)
                    if owned]

        return self.retry(scan, "list sessions")  # type: ignore[no-any-return]

    def _owned(self, names: list[str]) -> list[bool]:
        """Whether each session of *names* is the store's (one round trip)."""
        if not names:
            return []
        # What the scripts' check reads, with the commands the store's ACL user has: a command
        # on a key of another type fails (WRONGTYPE), which says the key is not the store's.
        pipe = self.client.pipeline(transaction=False)
        for name in names:
            keys = SessionKeys(self.settings.prefix, name)
            pipe.hgetall(keys.state)
            pipe.zrange(keys.index, 0, 0)
            pipe.hget(keys.sizes, "art_")
        found = pipe.execute(raise_on_error=False)
        owned = []
        for i in range(len(names)):
            fields, first, size = found[3 * i: 3 * i + 3]
            owned.append(not any(isinstance(r, Exception) for r in (fields, first, size))
                         and is_owned(fields))
        return owned

    def sessions(self) -> list[SessionInfo]:
        """Every session, oldest first."""
        names = self.session_ids()
        if not names:
            return []
        keys = [SessionKeys(self.settings.prefix, name) for name in names]

        def read() -> list[SessionInfo]:
            pipe = self.client.pipeline(transaction=False)
            for k in keys:
                pipe.zrange(k.index, 0, -1)
                pipe.hgetall(k.sizes)
                pipe.hget(k.state, "modified")
            found = pipe.execute()
            pipe = self.client.pipeline(transaction=False)
            listed = []
            for i, k in enumerate(keys):
                ids = [a.decode() for a in found[3 * i]]
                listed.append((k, ids, found[3 * i + 1], found[3 * i + 2]))
                for artifact_id in ids:
                    pipe.exists(k.meta(artifact_id))
            alive = iter(pipe.execute())
            out = []
            for k, ids, sizes, modified in listed:
                live = [a for a in ids if next(alive)]
                out.append(SessionInfo(id=k.session, artifacts=len(live),
                                       bytes=sum(int(sizes.get(a.encode(), 0)) for a in live),
                                       modified=int(modified or 0) / 1000))
            return out

        infos: list[SessionInfo] = self.retry(read, "list sessions")
        return sorted(infos, key=lambda s: (s.modified, s.id))

    def find(self, artifact_id: str) -> RedisStore:
        """The store of the session holding *artifact_id*, whichever session that is."""
        validate_artifact_id(artifact_id)
        names = self.session_ids()
        keys = [SessionKeys(self.settings.prefix, name) for name in names]

        def look() -> tuple[str | None, str | None]:
            pipe = self.client.pipeline(transaction=False)
            for k in keys:
                pipe.exists(k.meta(artifact_id))
            for k in keys:
                pipe.get(k.gone(artifact_id))
            found = pipe.execute()
            owner = next((n for n, hit in zip(names, found, strict=False) if hit), None)
            reason = next((r for r in found[len(keys):] if r), None)
            return owner, reason.decode("utf-8", "replace") if reason else None

        owner, reason = self.retry(look, f"find {artifact_id}")
        if owner is None:
            raise ArtifactNotFound(artifact_id, reason=reason)
        return self.session(owner)

    def delete_session(self, session_id: str) -> int:
        """Delete the keys of a session (SCAN and UNLINK in batches) that are named as the
        store names them, its session hash last; return how many artifacts it held. A
        session that is not the store's (see :func:`~truncation_core_redis.keys.is_owned`)
        is left alone: 0."""
        keys = SessionKeys(self.settings.prefix, validate_session_id(session_id))
        artifacts = 0

        def delete() -> None:
            nonlocal artifacts
            if not self._owned([session_id])[0]:
                return
            batch: list[bytes] = []
            for key in self.client.scan_iter(match=keys.everything, count=SCAN_COUNT):
                # Another application's key under the session's base stays; the session
                # hash (the marker) goes last, so an interrupted delete can be finished.
                if not keys.is_own_key(key) or key == keys.state.encode():
                    continue
                batch.append(key)
                if len(batch) >= UNLINK_BATCH:
                    artifacts += self._unlink(batch, keys)
                    batch = []
            if batch:
                artifacts += self._unlink(batch, keys)
            self.client.unlink(keys.state)

        self.retry(delete, f"delete session {session_id}")
        return artifacts

    def _unlink(self, batch: list[bytes], keys: SessionKeys) -> int:
        self.client.unlink(*batch)
        prefix = keys.meta_prefix.encode()
        return sum(1 for key in batch if key.startswith(prefix))

    def clean(self, *, older_than: float | None = None,
              session: str | None = None) -> CleanReport:
        """Delete sessions (all, or *session*) untouched for more than *older_than* seconds.
        Artifacts past the retention period need no cleaning: their keys expire."""
        now = time.time()
        doomed = [info for info in self.sessions()
                  if (session is None or info.id == session)
                  and (older_than is None or info.modified <= now - older_than)]
        for info in doomed:
            self.delete_session(info.id)
        return CleanReport(sessions=tuple(info.id for info in doomed),
                           artifacts=sum(info.artifacts for info in doomed),
                           bytes=sum(info.bytes for info in doomed))

