"""The ``memory`` storage backend: artifacts in a dict, for tests and short-lived processes.

Artifacts live as long as the store object. Thread-safe.
"""

from __future__ import annotations

import hashlib
import io
import threading
import time
from typing import BinaryIO

import attrs

from truncation_core.artifacts import (
    ArtifactInfo,
    ArtifactRef,
    WriterBase,
    new_artifact_id,
    validate_artifact_id,
)
from truncation_core.config import StoreConfig
from truncation_core.errors import ArtifactNotFound
from truncation_core.hookspecs import hookimpl
from truncation_core.models import Provides

NAME = "memory"


class MemoryStore:
    """Keeps artifacts in memory. ``MemoryStore()`` needs no configuration."""

    name = NAME

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: dict[str, tuple[bytes, ArtifactRef]] = {}

    @classmethod
    def from_config(cls, config: StoreConfig) -> MemoryStore:
        return cls()

    def writer(self, info: ArtifactInfo) -> _MemoryWriter:
        return _MemoryWriter(self, info)

    def _publish(self, data: bytes, ref: ArtifactRef) -> None:
        with self._lock:
            self._items[ref.id] = (data, ref)

    def _get(self, artifact_id: str) -> tuple[bytes, ArtifactRef]:
        validate_artifact_id(artifact_id)
        with self._lock:
            item = self._items.get(artifact_id)
        if item is None:
            raise ArtifactNotFound(artifact_id)
        return item

    def open(self, artifact_id: str) -> BinaryIO:
        return io.BytesIO(self._get(artifact_id)[0])

    def stat(self, artifact_id: str) -> ArtifactRef:
        return self._get(artifact_id)[1]

    def list(self) -> list[ArtifactRef]:
        with self._lock:
            refs = [ref for _, ref in self._items.values()]
        return sorted(refs, key=lambda r: (r.created_at, r.id))

    def delete(self, artifact_id: str) -> bool:
        validate_artifact_id(artifact_id)
        with self._lock:
            return self._items.pop(artifact_id, None) is not None


class _MemoryWriter(WriterBase):
    def __init__(self, store: MemoryStore, info: ArtifactInfo) -> None:
        super().__init__(info)
        self._store = store
        self._chunks: list[bytes] = []

    def _write(self, data: bytes) -> None:
        self._chunks.append(bytes(data))

    def _commit(self) -> ArtifactRef:
        data = b"".join(self._chunks)
        self._chunks = []
        now = time.time()
        info = self.info
        ref = ArtifactRef(
            id=new_artifact_id(now),
            backend=NAME,
            **attrs.asdict(info, recurse=False),
            bytes=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
            created_at=now,
        )
        self._store._publish(data, ref)
        return ref

    def _abort(self) -> None:
        self._chunks = []


@hookimpl(trylast=True)
def provides() -> Provides:
    return Provides(backends={NAME: MemoryStore.from_config})
