"""The storage protocol: what every backend fulfils, so that everything built on it works on
every backend.

A backend has two faces:

* a :class:`StorageBackend` holds artifacts across sessions: it lists sessions, finds the
  session of an artifact, deletes sessions and cleans old ones (``trunc artifacts``);
* an :class:`ArtifactStore` is the backend bound to one session: it stores artifacts through
  an :class:`ArtifactWriter`, opens, stats, lists and deletes them, and restores them from an
  archive with their ids kept.

A plugin provides a backend as a factory ``(StoreConfig) -> ArtifactStore`` under a name
(``Provides(backends={"name": factory})``): the factory returns the store of the configured
session (``store.session``, a new one when unset), whose :attr:`ArtifactStore.backend` is the
backend. Retrieval (lines, head, tail, pages, grep) is written once over
:meth:`ArtifactStore.open` in :mod:`truncation_core.retrieval`; a store that subclasses
:class:`~truncation_core.retrieval.Retrieval` may answer those faster (a backend with a line
index reads only the chunks a page needs). Export and import
(:mod:`truncation_core.artifacts.archive`), sessions, the artifact tools and ``trunc
artifacts`` use nothing else.

An agent (or a host) knows the id of the tool call whose output was cut, not the artifact id:
:func:`resolve_handle` turns either into the artifact id, over :meth:`ArtifactStore.list`
(the newest artifact stored for a tool call wins), so every backend accepts tool call ids; a
backend with an index may answer faster with an optional method ``find_tool_call(tool_call_id)
-> ArtifactRef | None``, which :func:`find_tool_call` uses when it is there.
:func:`find_tool_call_anywhere` looks across a backend's sessions (``trunc artifacts``).

Every method taking an artifact id or a session id validates it first and raises
:class:`~truncation_core.errors.InvalidArtifactId` or
:class:`~truncation_core.errors.InvalidSessionId` before touching storage. Failures of the
storage itself raise :class:`~truncation_core.errors.StoreError` (``StoreFull`` when it is
full); the processor then degrades to an inline truncation that says the content is not kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, BinaryIO, Protocol, runtime_checkable

from truncation_core.errors import ArtifactNotFound, InvalidArtifactId
from truncation_core.types.ids import is_tool_call_id, validate_artifact_id

if TYPE_CHECKING:
    from truncation_core.types.artifacts import ArtifactInfo, ArtifactRef
    from truncation_core.types.reports import CleanReport, SessionInfo

__all__ = [
    "ArtifactStore",
    "ArtifactWriter",
    "StorageBackend",
    "WriterBase",
    "find_tool_call",
    "find_tool_call_anywhere",
    "resolve_handle",
]




@runtime_checkable
class ArtifactWriter(Protocol):
    """Receives the content of one artifact in chunks.

    Use it as a context manager: leaving the block with an exception aborts the write, and
    nothing becomes visible. ``commit`` publishes the artifact atomically and returns its ref:
    a reader never sees a half-written artifact.

    ``commit(info)`` replaces the :class:`~truncation_core.types.artifacts.ArtifactInfo` the
    writer was opened with: a stream opens its writer before it knows its size, line count
    or content type, and gives the final description when it ends.
    """

    def write(self, data: bytes) -> None: ...

    def commit(self, info: ArtifactInfo | None = None) -> ArtifactRef:
        """Publish the artifact. *info*, when given, replaces the one the writer was opened
        with: a stream knows its size in characters and lines only at its end."""
        ...

    def abort(self) -> None: ...

    def __enter__(self) -> ArtifactWriter: ...

    def __exit__(self, *exc_info: object) -> None: ...


@runtime_checkable
class ArtifactStore(Protocol):
    """A storage backend bound to one session."""

    #: The backend's name, as used in config (``store.backend``).
    name: str
    #: The session whose artifacts this store keeps.
    session_id: str

    @property
    def backend(self) -> StorageBackend:
        """The backend across all its sessions."""
        ...

    def writer(self, info: ArtifactInfo) -> ArtifactWriter:
        """Start a new artifact. Raises :class:`~truncation_core.errors.StoreError`."""
        ...

    def restore(self, ref: ArtifactRef, source: BinaryIO) -> ArtifactRef:
        """Store the content read from *source* under *ref*'s id, creation time and
        description (import from an archive), as atomically as :meth:`writer`. Returns the
        stored ref, whose ``sha256`` is that of what *source* gave. An artifact already here
        with that id is left alone when its content is the same, and is a
        :class:`~truncation_core.errors.StoreError` otherwise."""
        ...

    def open(self, artifact_id: str) -> BinaryIO:
        """Open an artifact's content for reading (seekable, binary). Raises
        :class:`~truncation_core.errors.ArtifactNotFound` for an unknown id."""
        ...

    def stat(self, artifact_id: str) -> ArtifactRef:
        """What the artifact is: sizes, lines, sha256, tool, summary, creation time."""
        ...

    def list(self) -> list[ArtifactRef]:
        """This session's artifacts, oldest first."""
        ...

    def delete(self, artifact_id: str) -> bool:
        """Delete one artifact; False when there was none with that id."""
        ...

    def for_session(self, session_id: str) -> ArtifactStore:
        """The same backend, bound to another session (created on first write)."""
        ...

    def delete_session(self) -> int:
        """Delete every artifact of this session (the session's end); return how many."""
        ...


@runtime_checkable
class StorageBackend(Protocol):
    """A backend across all its sessions."""

    #: The backend's name, as used in config (``store.backend``).
    name: str

    @property
    def location(self) -> str:
        """Where the artifacts are, for messages: a directory, or a server address without
        its password."""
        ...

    def session(self, session_id: str | None = None) -> ArtifactStore:
        """The store of one session (a new session when *session_id* is None)."""
        ...

    def sessions(self) -> list[SessionInfo]:
        """Every session that holds artifacts, oldest first."""
        ...

    def find(self, artifact_id: str) -> ArtifactStore:
        """The store of the session holding *artifact_id*, whichever it is. Raises
        :class:`~truncation_core.errors.ArtifactNotFound` when no session has it."""
        ...

    def delete_session(self, session_id: str) -> int:
        """Delete a session and its artifacts; return how many artifacts it held."""
        ...

    def clean(self, *, older_than: float | None = None,
              session: str | None = None) -> CleanReport:
        """Delete sessions (all, or *session*) untouched for more than *older_than*
        seconds, and return what was deleted."""
        ...


class WriterBase:
    """Context-manager behaviour shared by writers: leaving the block uncommitted aborts.

    Subclasses implement ``_write``, ``_commit`` (given the replacement info or None) and
    ``_abort``; this class makes ``commit`` and ``abort`` idempotent and refuses writes after
    either.
    """

    def __init__(self) -> None:
        #: False while open, True once aborted, the ref once committed.
        self._finished: ArtifactRef | bool = False

    def write(self, data: bytes) -> None:
        if self._finished is not False:
            raise ValueError("write() after commit() or abort()")
        if data:
            self._write(data)

    def commit(self, info: ArtifactInfo | None = None) -> ArtifactRef:
        if not isinstance(self._finished, bool):
            return self._finished
        if self._finished is True:
            raise ValueError("commit() after abort()")
        try:
            ref = self._commit(info)
        except BaseException:
            self.abort()
            raise
        self._finished = ref
        return ref

    def abort(self) -> None:
        if self._finished is False:
            self._finished = True
            self._abort()

    def __enter__(self) -> WriterBase:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if isinstance(self._finished, bool):
            self.abort()

    def _write(self, data: bytes) -> None:
        raise NotImplementedError

    def _commit(self, info: ArtifactInfo | None) -> ArtifactRef:
        raise NotImplementedError

    def _abort(self) -> None:
        raise NotImplementedError


# -- tool call ids as handles -----------------------------------------------------------------


def _newest(refs: list[ArtifactRef], tool_call_id: str) -> ArtifactRef | None:
    """The newest of *refs* (oldest first) stored for *tool_call_id*; on equal times, the
    later one listed."""
    found: ArtifactRef | None = None
    for ref in refs:
        if ref.tool_call_id == tool_call_id and (found is None
                                                 or ref.created_at >= found.created_at):
            found = ref
    return found


def find_tool_call(store: ArtifactStore, tool_call_id: str) -> ArtifactRef | None:
    """The newest artifact of *store*'s session stored for tool call *tool_call_id*, or None.

    Uses the store's own ``find_tool_call`` when it has one, else reads :meth:`ArtifactStore.list`.
    """
    # the artifact model: 3.2 ms, not needed to open a store (python -X importtime, 2026-12)
    from truncation_core.types.artifacts import ArtifactRef

    own = getattr(store, "find_tool_call", None)
    if callable(own):
        found = own(tool_call_id)
        if found is None or isinstance(found, ArtifactRef):
            return found
    return _newest(store.list(), tool_call_id)


def resolve_handle(store: ArtifactStore, handle: object) -> str:
    """The artifact id *handle* stands for: *handle* itself when it is an artifact id, else
    the newest artifact *store* keeps for the tool call of that id.

    Raises :class:`~truncation_core.errors.InvalidArtifactId` for anything else (described,
    never echoed) and :class:`~truncation_core.errors.ArtifactNotFound` when no artifact was
    kept for that tool call.
    """
    if is_tool_call_id(handle):
        ref = find_tool_call(store, handle)  # type: ignore[arg-type]
        if ref is None:
            raise ArtifactNotFound.for_tool_call(str(handle))
        return ref.id
    try:
        return validate_artifact_id(handle)
    except InvalidArtifactId:
        raise InvalidArtifactId(handle, handles=True) from None


def find_tool_call_anywhere(backend: StorageBackend, tool_call_id: str
                            ) -> tuple[ArtifactStore, ArtifactRef] | None:
    """The newest artifact stored for *tool_call_id* in any session of *backend*, with the
    store of its session; None when there is none."""
    found: tuple[ArtifactStore, ArtifactRef] | None = None
    for info in backend.sessions():
        store = backend.session(info.id)
        ref = find_tool_call(store, tool_call_id)
        if ref is not None and (found is None or ref.created_at >= found[1].created_at):
            found = (store, ref)
    return found
