"""The ``memory`` storage backend: artifacts in a dict, for tests and short-lived processes.

Artifacts live as long as the store object (and the stores it hands out for other sessions,
which share its memory). Thread-safe.
"""

from __future__ import annotations

import errno
import hashlib
import io
import threading
import time
from typing import BinaryIO

import attrs

from truncation_core.errors import ArtifactNotFound, StoreError
from truncation_core.retrieval import Retrieval
from truncation_core.types.artifacts import ArtifactInfo, ArtifactRef
from truncation_core.types.ids import (
    new_artifact_id,
    new_session_id,
    validate_artifact_id,
    validate_session_id,
)
from truncation_core.types.policy import StoreConfig
from truncation_core.types.reports import CleanReport, SessionInfo
from truncation_core.types.storage import WriterBase

NAME = "memory"


class MemoryBackend:
    """The memory backend across its sessions: what the stores of one family share,
    session -> id -> (content, ref)."""

    name = NAME
    location = "memory"

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items: dict[str, dict[str, tuple[bytes, ArtifactRef]]] = {}
        #: Last modification of each session, seconds since the epoch.
        self.modified: dict[str, float] = {}

    def __repr__(self) -> str:
        return f"MemoryBackend(sessions={len(self.items)})"

    def session(self, session_id: str | None = None) -> MemoryStore:
        return MemoryStore(session_id, _backend=self)

    def sessions(self) -> list[SessionInfo]:
        with self.lock:
            out = [SessionInfo(id=name, artifacts=len(items),
                               bytes=sum(len(data) for data, _ in items.values()),
                               modified=self.modified.get(name, 0.0))
                   for name, items in self.items.items() if items]
        return sorted(out, key=lambda s: (s.modified, s.id))

    def find(self, artifact_id: str) -> MemoryStore:
        validate_artifact_id(artifact_id)
        with self.lock:
            owner = next((name for name, items in self.items.items() if artifact_id in items),
                         None)
        if owner is None:
            raise ArtifactNotFound(artifact_id)
        return self.session(owner)

    def delete_session(self, session_id: str) -> int:
        validate_session_id(session_id)
        with self.lock:
            self.modified.pop(session_id, None)
            return len(self.items.pop(session_id, {}))

    def clean(self, *, older_than: float | None = None,
              session: str | None = None) -> CleanReport:
        now = time.time()
        doomed = [info for info in self.sessions()
                  if (session is None or info.id == session)
                  and (older_than is None or info.modified <= now - older_than)]
        for info in doomed:
            self.delete_session(info.id)
        return CleanReport(sessions=tuple(info.id for info in doomed),
                           artifacts=sum(info.artifacts for info in doomed),
                           bytes=sum(info.bytes for info in doomed))

    def touch(self, session_id: str) -> None:
        """Record a change to *session_id* (call with :attr:`lock` held)."""
        self.modified[session_id] = time.time()


class MemoryStore(Retrieval):
    """Keeps artifacts in memory. ``MemoryStore()`` needs no configuration."""

    name = NAME

    def __init__(self, session_id: str | None = None, *,
                 _backend: MemoryBackend | None = None) -> None:
        self.session_id = (validate_session_id(session_id) if session_id is not None
                           else new_session_id())
        self._memory = _backend if _backend is not None else MemoryBackend()

    @classmethod
    def from_config(cls, config: StoreConfig) -> MemoryStore:
        return cls(config.session)

    def __repr__(self) -> str:
        return f"MemoryStore(session_id={self.session_id!r})"

    @property
    def backend(self) -> MemoryBackend:
        return self._memory

    def for_session(self, session_id: str) -> MemoryStore:
        return MemoryStore(session_id, _backend=self._memory)

    def writer(self, info: ArtifactInfo) -> _MemoryWriter:
        return _MemoryWriter(self, info)

    def _publish(self, data: bytes, ref: ArtifactRef) -> None:
        with self._memory.lock:
            self._memory.items.setdefault(self.session_id, {})[ref.id] = (data, ref)
            self._memory.touch(self.session_id)

    def _get(self, artifact_id: str) -> tuple[bytes, ArtifactRef]:
        validate_artifact_id(artifact_id)
        with self._memory.lock:
            item = self._memory.items.get(self.session_id, {}).get(artifact_id)
        if item is None:
            raise ArtifactNotFound(artifact_id)
        return item

    def open(self, artifact_id: str) -> BinaryIO:
        return io.BytesIO(self._get(artifact_id)[0])

    def stat(self, artifact_id: str) -> ArtifactRef:
        return self._get(artifact_id)[1]

    def list(self) -> list[ArtifactRef]:
        with self._memory.lock:
            refs = [ref for _, ref in self._memory.items.get(self.session_id, {}).values()]
        return sorted(refs, key=lambda r: (r.created_at, r.id))

    def delete(self, artifact_id: str) -> bool:
        validate_artifact_id(artifact_id)
        with self._memory.lock:
            deleted = self._memory.items.get(self.session_id, {}).pop(artifact_id, None)
            if deleted is not None:
                self._memory.touch(self.session_id)
        return deleted is not None

    def delete_session(self) -> int:
        return self._memory.delete_session(self.session_id)

    def restore(self, ref: ArtifactRef, source: BinaryIO) -> ArtifactRef:
        """Keep *source* under *ref*'s id and description (import from an archive)."""
        validate_artifact_id(ref.id)
        data = source.read()
        digest = hashlib.sha256(data).hexdigest()
        with self._memory.lock:
            items = self._memory.items.setdefault(self.session_id, {})
            existing = items.get(ref.id)
            if existing is not None:
                if hashlib.sha256(existing[0]).hexdigest() != digest:
                    raise StoreError(errno.EEXIST, f"{ref.id}: already in session "
                                                   f"{self.session_id} with other content")
                return existing[1]
            stored = attrs.evolve(ref, backend=NAME, session=self.session_id,
                                  bytes=len(data), sha256=digest)
            items[ref.id] = (data, stored)
            self._memory.touch(self.session_id)
        return stored


class _MemoryWriter(WriterBase):
    def __init__(self, store: MemoryStore, info: ArtifactInfo) -> None:
        super().__init__()
        self._store = store
        self._info = info
        self._chunks: list[bytes] = []

    def _write(self, data: bytes) -> None:
        self._chunks.append(bytes(data))

    def _commit(self, info: ArtifactInfo | None) -> ArtifactRef:
        data = b"".join(self._chunks)
        self._chunks = []
        now = time.time()
        ref = ArtifactRef.from_info(
            info or self._info, id=new_artifact_id(now), backend=NAME, bytes=len(data),
            sha256=hashlib.sha256(data).hexdigest(), created_at=now,
            session=self._store.session_id)
        self._store._publish(data, ref)
        return ref

    def _abort(self) -> None:
        self._chunks = []

