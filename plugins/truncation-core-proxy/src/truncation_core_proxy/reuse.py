"""Reusing the artifact a tool result already has in the store: the cut survives a restart.

The :class:`~truncation_core_proxy.cutter.Cutter` remembers its cuts in memory. A proxy
restarted (or an entry evicted) would cut the result again into a *new* artifact, and the
new id in the marker would change the bytes sent upstream: the provider's prompt cache
would miss. Instead, the proxy's Truncators carry :class:`ReusedArtifacts`, a
``store_artifact`` wrapper: the writer it returns hashes what the processor writes, and at
commit, when the store's session already holds an artifact of the same tool call with the
same sha256 and size, it drops what it wrote and returns that artifact. The cut is made
again by the tool's policy as it is now (a changed limit gives a changed cut, never an old
one), and with the same policy and the same artifact it is the same text, byte for byte.

Nothing new is kept: the memory is the artifacts themselves, as every backend stores them
(tool call id, sha256, size), read through ``list`` and ``stat``. An artifact deleted or
expired is no longer there, and the result is stored anew. Artifact ids stay the store's
random ones. The session's artifacts are listed once, on the first cut; the artifacts
stored after that are added as they are committed.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Generator
from typing import TYPE_CHECKING

from truncation_core.errors import ArtifactNotFound, StoreError
from truncation_core.plugin import WriterBase, hookimpl

if TYPE_CHECKING:
    from truncation_core.types.artifacts import ArtifactInfo, ArtifactRef
    from truncation_core.types.storage import ArtifactStore, ArtifactWriter

__all__ = ["ReusedArtifacts"]

#: What reusing an artifact needs to know of it: its id, sha256 and size in bytes.
_Known = tuple[str, "str | None", int]


class ReusedArtifacts:
    """The plugin: the artifacts of each session, by tool call id, and the writers that
    reuse them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: session id -> tool call id -> its artifacts (those listed, then those committed),
        #: as (id, sha256, bytes): a few hundred bytes each.
        self._sessions: dict[str, dict[str, list[_Known]]] = {}

    @hookimpl(wrapper=True)
    def store_artifact(self, store: ArtifactStore, info: ArtifactInfo
                       ) -> Generator[None, ArtifactWriter | None, ArtifactWriter | None]:
        writer = yield
        if writer is None or info.tool_call_id is None:
            return writer
        return _ReusingWriter(self, store, writer, info.tool_call_id)

    def candidates(self, store: ArtifactStore, tool_call_id: str) -> list[_Known]:
        known = self._known(store)
        with self._lock:
            return list(known.get(tool_call_id, ()))

    def add(self, store: ArtifactStore, ref: ArtifactRef) -> None:
        known = self._known(store)
        if ref.tool_call_id is not None:
            with self._lock:
                known.setdefault(ref.tool_call_id, []).append(_known(ref))

    def _known(self, store: ArtifactStore) -> dict[str, list[_Known]]:
        with self._lock:
            known = self._sessions.get(store.session_id)
            if known is not None:
                return known
            known = {}
            try:
                refs = store.list()
            except StoreError:
                refs = []  # an unreadable session: nothing to reuse, the next cut tries again
            else:
                self._sessions[store.session_id] = known
            for ref in refs:
                if ref.tool_call_id is not None:
                    known.setdefault(ref.tool_call_id, []).append(_known(ref))
            return known


def _known(ref: ArtifactRef) -> _Known:
    return ref.id, ref.sha256, ref.bytes


class _ReusingWriter(WriterBase):
    """Writes through to the store's writer, hashing; at commit, the session's artifact of
    the same tool call and content if there is one (the write is then dropped)."""

    def __init__(self, plugin: ReusedArtifacts, store: ArtifactStore, writer: ArtifactWriter,
                 tool_call_id: str) -> None:
        super().__init__()
        self._plugin = plugin
        self._store = store
        self._writer = writer
        self._tool_call_id = tool_call_id
        self._hash = hashlib.sha256()
        self._size = 0

    def _write(self, data: bytes) -> None:
        self._writer.write(data)
        self._hash.update(data)
        self._size += len(data)

    def _commit(self, info: ArtifactInfo | None) -> ArtifactRef:
        digest = self._hash.hexdigest()
        for artifact_id, sha256, size in reversed(
                self._plugin.candidates(self._store, self._tool_call_id)):
            if sha256 != digest or size != self._size:
                continue
            try:
                ref = self._store.stat(artifact_id)  # still there (not deleted, not expired)
            except (ArtifactNotFound, StoreError):
                continue
            if ref.sha256 == digest and ref.bytes == self._size:
                self._writer.abort()
                return ref
        ref = self._writer.commit(info)
        self._plugin.add(self._store, ref)
        return ref

    def _abort(self) -> None:
        self._writer.abort()
