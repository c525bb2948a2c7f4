"""The ``memory`` storage backend: artifacts in a dict, for tests and short-lived processes.

Artifacts live as long as the store object (and the stores it hands out for other sessions,
which share its memory). Thread-safe.
"""

from __future__ import annotations

import hashlib
import io
import threading
import time
from typing import BinaryIO

from truncation_core.artifacts.model import (
    ArtifactInfo,
    ArtifactRef,
    WriterBase,
    new_artifact_id,
    new_session_id,
    validate_artifact_id,
    validate_session_id,
)
from truncation_core.config.model import StoreConfig
from truncation_core.errors import ArtifactNotFound
from truncation_core.retrieval import Retrieval

NAME = "memory"


class _Memory:
    """What the stores of one MemoryStore family share: session -> id -> (content, ref)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sessions: dict[str, dict[str, tuple[bytes, ArtifactRef]]] = {}


class MemoryStore(Retrieval):
    """Keeps artifacts in memory. ``MemoryStore()`` needs no configuration."""

    name = NAME

    def __init__(self, session_id: str | None = None, *, _memory: _Memory | None = None) -> None:
        self.session_id = (validate_session_id(session_id) if session_id is not None
                           else new_session_id())
        self._memory = _memory if _memory is not None else _Memory()

    @classmethod
    def from_config(cls, config: StoreConfig) -> MemoryStore:
        return cls(config.session)

    def __repr__(self) -> str:
        return f"MemoryStore(session_id={self.session_id!r})"

    def for_session(self, session_id: str) -> MemoryStore:
        return MemoryStore(session_id, _memory=self._memory)

    def writer(self, info: ArtifactInfo) -> _MemoryWriter:
        return _MemoryWriter(self, info)

    def _items(self) -> dict[str, tuple[bytes, ArtifactRef]]:
        return self._memory.sessions.setdefault(self.session_id, {})

    def _publish(self, data: bytes, ref: ArtifactRef) -> None:
        with self._memory.lock:
            self._items()[ref.id] = (data, ref)

    def _get(self, artifact_id: str) -> tuple[bytes, ArtifactRef]:
        validate_artifact_id(artifact_id)
        with self._memory.lock:
            item = self._memory.sessions.get(self.session_id, {}).get(artifact_id)
        if item is None:
            raise ArtifactNotFound(artifact_id)
        return item

    def open(self, artifact_id: str) -> BinaryIO:
        return io.BytesIO(self._get(artifact_id)[0])

    def stat(self, artifact_id: str) -> ArtifactRef:
        return self._get(artifact_id)[1]

    def list(self) -> list[ArtifactRef]:
        with self._memory.lock:
            refs = [ref for _, ref in self._memory.sessions.get(self.session_id, {}).values()]
        return sorted(refs, key=lambda r: (r.created_at, r.id))

    def delete(self, artifact_id: str) -> bool:
        validate_artifact_id(artifact_id)
        with self._memory.lock:
            return self._memory.sessions.get(self.session_id, {}).pop(artifact_id, None) is not None

    def delete_session(self) -> int:
        with self._memory.lock:
            return len(self._memory.sessions.pop(self.session_id, {}))


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

