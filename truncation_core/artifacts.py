"""Artifacts: the full content of a tool result, kept so that nothing cut is ever lost.

This module holds the contract every storage backend fulfils: artifact ids, the
:class:`ArtifactRef` a stored artifact is known by, and the :class:`ArtifactStore` and
:class:`ArtifactWriter` protocols. Backends are plugins (see ``provides`` in
:mod:`truncation_core.hookspecs`); the built-in ones live in :mod:`truncation_core.builtins`.
"""

from __future__ import annotations

import re
import secrets
import time
from typing import BinaryIO, Protocol, runtime_checkable

import attrs

from truncation_core.errors import InvalidArtifactId

__all__ = [
    "ArtifactInfo",
    "ArtifactRef",
    "ArtifactStore",
    "ArtifactWriter",
    "WriterBase",
    "human_size",
    "new_artifact_id",
    "validate_artifact_id",
]

#: ``art_<unix timestamp>_<32 lowercase hex digits>``. ASCII only by construction: no ``\d``
#: (which matches other scripts' digits) and a full match (``$`` would accept a trailing "\n").
_ID_PATTERN = re.compile(r"art_[1-9][0-9]{0,15}_[0-9a-f]{32}")
_ID_MAX_LENGTH = 4 + 16 + 1 + 32

SUMMARY_MAX_CHARS = 100


def new_artifact_id(now: float | None = None) -> str:
    """A fresh, unpredictable artifact id: 128 random bits from :mod:`secrets`."""
    stamp = int(time.time() if now is None else now)
    return f"art_{max(stamp, 1)}_{secrets.token_hex(16)}"


def validate_artifact_id(value: object) -> str:
    """Return *value* if it is a well-formed artifact id, else raise :class:`InvalidArtifactId`.

    This runs before any storage access, so a hostile id never reaches the filesystem.
    """
    if (
        type(value) is not str
        or len(value) > _ID_MAX_LENGTH
        or _ID_PATTERN.fullmatch(value) is None
    ):
        raise InvalidArtifactId(value)
    return value


def human_size(n: int) -> str:
    """``2.3 MB``-style size, in decimal units as in seed 000's reference format."""
    if n < 1000:
        return f"{n} B"
    value = float(n)
    for unit in ("kB", "MB", "GB"):
        value /= 1000
        if value < 999.95:
            return f"{value:.1f} {unit}"
    return f"{value / 1000:.1f} TB"


def clip_summary(summary: str) -> str:
    """Clip a summary to the 100 characters FR-060 allows, on one line."""
    one_line = " ".join(summary.split())
    if len(one_line) <= SUMMARY_MAX_CHARS:
        return one_line
    return one_line[: SUMMARY_MAX_CHARS - 1] + "…"


@attrs.frozen(kw_only=True)
class ArtifactInfo:
    """What the processor knows about content it asks a store to keep."""

    #: The tool that produced the content.
    tool: str | None = None
    #: The id of the tool call, when the agent framework has one.
    tool_call_id: str | None = None
    #: The MCP server (or other source) the tool belongs to.
    server: str | None = None
    #: A one-line description, at most 100 characters.
    summary: str = attrs.field(default="", converter=clip_summary)
    #: ``application/json`` for JSON content, ``text/plain`` otherwise.
    content_type: str = "text/plain"
    #: Size of the original in characters and lines (bytes are counted by the store).
    chars: int = 0
    lines: int = 0


@attrs.frozen(kw_only=True)
class ArtifactRef:
    """A stored artifact: how to find it and what it holds."""

    id: str
    #: Name of the backend that holds it.
    backend: str
    tool: str | None = None
    tool_call_id: str | None = None
    server: str | None = None
    summary: str = ""
    content_type: str = "text/plain"
    #: Size of the stored content.
    chars: int = 0
    bytes: int = 0
    lines: int = 0
    #: sha256 of the stored bytes, lowercase hex.
    sha256: str = ""
    #: Creation time, seconds since the epoch.
    created_at: float = 0.0
    #: The session the artifact belongs to, for backends that have sessions.
    session: str | None = None
    #: True when the stored artifact is itself cut (content beyond ``max_artifact_size``).
    truncated: bool = False

    @property
    def size(self) -> str:
        return human_size(self.bytes)


@runtime_checkable
class ArtifactWriter(Protocol):
    """Receives the content of one artifact in chunks.

    Use it as a context manager: leaving the block with an exception aborts the write, and
    nothing becomes visible. ``commit`` publishes the artifact atomically and returns its ref.

    ``commit(info)`` replaces the :class:`ArtifactInfo` the writer was opened with: a stream
    opens its writer before it knows its size, line count or content type, and gives the
    final description when it ends.
    """

    def write(self, data: bytes) -> None: ...

    def commit(self, info: ArtifactInfo | None = None) -> ArtifactRef: ...

    def abort(self) -> None: ...

    def __enter__(self) -> ArtifactWriter: ...

    def __exit__(self, *exc_info: object) -> None: ...


@runtime_checkable
class ArtifactStore(Protocol):
    """A storage backend. Retrieval helpers (lines, head, tail, grep) build on ``open``."""

    #: The backend's name, as used in config (``store.backend``).
    name: str

    def writer(self, info: ArtifactInfo) -> ArtifactWriter:
        """Start a new artifact. Raises :class:`~truncation_core.errors.StoreError`."""
        ...

    def open(self, artifact_id: str) -> BinaryIO:
        """Open an artifact's content for reading (seekable, binary)."""
        ...

    def stat(self, artifact_id: str) -> ArtifactRef: ...

    def list(self) -> list[ArtifactRef]: ...

    def delete(self, artifact_id: str) -> bool: ...



class WriterBase:
    """Context-manager behaviour shared by writers: leaving the block uncommitted aborts.

    Subclasses implement ``_write``, ``_commit`` and ``_abort``; this class makes ``commit``
    and ``abort`` idempotent and refuses writes after either. ``_commit`` describes the
    artifact from :attr:`info`, which ``commit(info)`` replaces.
    """

    def __init__(self, info: ArtifactInfo | None = None) -> None:
        self._finished: ArtifactRef | bool = False
        #: What the artifact is (tool, summary, sizes); final once ``commit`` is called.
        self.info: ArtifactInfo = info if info is not None else ArtifactInfo()

    def write(self, data: bytes) -> None:
        if self._finished is not False:
            raise ValueError("write() after commit() or abort()")
        if data:
            self._write(data)

    def commit(self, info: ArtifactInfo | None = None) -> ArtifactRef:
        if isinstance(self._finished, ArtifactRef):
            return self._finished
        if self._finished is True:
            raise ValueError("commit() after abort()")
        if info is not None:
            self.info = info
        try:
            ref = self._commit()
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
        if not isinstance(self._finished, ArtifactRef):
            self.abort()

    def _write(self, data: bytes) -> None:
        raise NotImplementedError

    def _commit(self) -> ArtifactRef:
        raise NotImplementedError

    def _abort(self) -> None:
        raise NotImplementedError
