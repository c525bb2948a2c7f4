"""The ``filesystem`` storage backend, the default: one file per artifact, one directory per
session, under ``<workspace>/.truncation/artifacts/``.

Layout (docs/artifacts.md has the full picture)::

    <root>/                                mode 0700
        .truncation-core-store             the root's marker: the store made this directory
        <session>/                         mode 0700
            .truncation-core-session       the session's marker: the store made it
            art_<ts>_<hex>.txt | .json     the content, byte for byte, mode 0600
            art_<ts>_<hex>.meta.json       its metadata (rebuilt from the content if lost)
            art_<ts>_<hex>.gone            why an evicted artifact is gone (for 404s)
            .tmp-art_<ts>_<hex>.<kind>.<8 hex>   writes in progress (swept after a grace period)

The store deletes only what it can prove it made. A root that exists, is not empty and holds
no root marker is refused (:class:`~truncation_core.errors.StoreRootRefused`), unless it is
a store from before the markers, every entry of which is a session holding only the store's
files (it is adopted: marked). Only a directory named as a session that holds the session
marker is listed, searched, swept or deleted, and deleting it removes only the files named as
the store names its files (never a link, a directory or another user's file), then the
directory if that left it empty.

The content file is the artifact: it appears by an atomic rename after it is fully written,
and its metadata is published just before it, so a reader that sees the content sees the
metadata. There is no shared index to tear; listing is a directory scan. All access goes
through :mod:`truncation_core.storage.fsio` (pinned directory handles, no symlinks followed).
"""

from __future__ import annotations

import errno
import functools
import re
import stat
import threading
import time
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, BinaryIO

import attrs

from truncation_core.errors import ArtifactNotFound, StoreError, StoreFull, StoreRootRefused, log
from truncation_core.retrieval import Retrieval
from truncation_core.retrieval.scanning import CHUNK, chunks, count_terminators
from truncation_core.storage import fsio  # fsio.os: the fault-injection tests replace it
from truncation_core.storage.fsio import Directory, is_own, store_error
from truncation_core.text.decoding import utf8_chars
from truncation_core.types.ids import (
    ARTIFACT_ID_REGEX,
    SESSION_ID_REGEX,
    content_name,
    new_artifact_id,
    new_session_id,
    validate_artifact_id,
    validate_session_id,
)
from truncation_core.types.policy import StoreConfig
from truncation_core.types.storage import WriterBase

# The store is opened by every Truncator, and most never store anything: what only storing,
# listing or cleaning uses is imported where first used: the artifact model (3.2 ms) and its
# documents (5.5 ms, with json), the session reports (1.3 ms), secrets (3.3 ms) and hashlib
# (2.9 ms) (python -X importtime, fastest of 9, 2026-12; `python -c pass` takes about 12 ms).

if TYPE_CHECKING:
    from os import stat_result

    from truncation_core.types.artifacts import ArtifactInfo, ArtifactRef
    from truncation_core.types.reports import CleanReport, SessionInfo

# The artifact model (ArtifactRef, ArtifactInfo, human_size), its metadata documents and the
# session reports are imported where they are used: opening a store (at every start-up)
# needs none of them.

__all__ = ["ArtifactRoot", "FilesystemStore"]

NAME = "filesystem"

#: Temporary files younger than this are writes in progress (a slow stream may pause for a
#: long time); older ones are leftovers of a crashed writer, and the sweep removes them.
TEMP_GRACE_SECONDS = 24 * 3600
#: A chunk this large is written on a helper thread while it is hashed (hashlib releases the
#: GIL): with a core free, storing costs about the hash instead of hash plus write. A smaller
#: one is not worth a thread.
BACKGROUND_WRITE_MIN = 1 << 20
_DAY = 86400

_CONTENT_NAME = re.compile(rf"({ARTIFACT_ID_REGEX})\.(txt|json)")
_META_NAME = re.compile(rf"({ARTIFACT_ID_REGEX})\.meta\.json")
_GONE_NAME = re.compile(rf"({ARTIFACT_ID_REGEX})\.gone")
_SESSION_NAME = re.compile(SESSION_ID_REGEX)
_EXTENSIONS = ("txt", "json")
#: A temporary file's name, as :func:`_temp_name` makes it; and the name of every file the
#: store makes in a session directory besides its marker. Not compiled at import: only
#: deleting uses them (the ``re`` module caches what it compiles).
_TEMP_FILE = rf"\.tmp-{ARTIFACT_ID_REGEX}\.(?:data|meta|gone)\.[0-9a-f]{{8}}"
_OWN_FILE = rf"{ARTIFACT_ID_REGEX}(?:\.txt|\.json|\.meta\.json|\.gone)|{_TEMP_FILE}"

#: The marker file of a store's root, written when the store makes the root (or adopts an
#: empty directory, or a store from before the markers). A root that exists, is not empty and
#: lacks it is refused. A marker is proved by being there: a regular file of this user.
ROOT_MARKER = ".truncation-core-store"
#: The marker file of a session directory, written when the store makes the session (or first
#: writes into it). Only a directory holding it is a session: listed, searched, deleted.
SESSION_MARKER = ".truncation-core-session"
_ROOT_MARKER_TEXT = (
    b"This directory is a truncation-core artifact store (store.root). Its sessions are the\n"
    b"subdirectories that hold a .truncation-core-session file; the store deletes nothing\n"
    b"else here.\n")
_SESSION_MARKER_TEXT = (
    b"This directory is a session of a truncation-core artifact store. Deleting it removes\n"
    b"only the files the store names (art_*, .tmp-art_*, this marker), then the directory\n"
    b"if nothing else is left.\n")

#: Roots swept by this process (device, inode): the retention sweep runs once per process.
_SWEPT: set[tuple[int, int]] = set()
_SWEPT_LOCK = threading.Lock()


def _meta_name(artifact_id: str) -> str:
    return f"{artifact_id}.meta.json"


def _gone_name(artifact_id: str) -> str:
    return f"{artifact_id}.gone"


def _temp_name(artifact_id: str, kind: str) -> str:
    import secrets  # imported when storing, not at start-up (it imports OpenSSL)

    return f".tmp-{artifact_id}.{kind}.{secrets.token_hex(4)}"


# -- the root: sessions --------------------------------------------------------------------------


class ArtifactRoot:
    """The filesystem backend across its sessions (a
    :class:`~truncation_core.types.storage.StorageBackend`): the store's directory, whose
    subdirectories are sessions.

    Opened lazily: nothing is created until the first artifact is stored. Thread-safe.
    """

    name = NAME

    def __init__(self, path: str, *, fsync: bool = False, quota: int | None = None,
                 retention_days: int = 7) -> None:
        self.path = path
        self.fsync = fsync
        self.quota = quota
        self.retention_days = retention_days
        self._lock = threading.Lock()
        self._dir: Directory | None = None

    def __repr__(self) -> str:
        return f"ArtifactRoot({self.path!r})"

    @property
    def location(self) -> str:
        return self.path

    def directory(self, *, create: bool) -> Directory | None:
        """The root's directory (made if *create*; None if it does not exist). Raises
        :class:`~truncation_core.errors.StoreRootRefused` for a directory the store did not
        make, having changed nothing in it."""
        with self._lock:
            if self._dir is None:
                directory = Directory.open_path(self.path, create=create, private=False)
                if directory is None:
                    return None
                try:
                    directory.check_owner()
                    _claim_root(directory, self.path)
                    directory.make_private()
                except StoreError:
                    directory.close()
                    raise
                except OSError as exc:  # writing a marker: a full disk, a read-only one
                    directory.close()
                    raise store_error(exc, f"open {self.path}") from None
                except BaseException:
                    directory.close()
                    raise
                self._dir = directory
            return self._dir

    def close(self) -> None:
        with self._lock:
            if self._dir is not None:
                self._dir.close()
                self._dir = None

    def session(self, session_id: str | None = None) -> FilesystemStore:
        """The store of one session (a new one when *session_id* is None)."""
        return FilesystemStore(self, session_id)

    def sessions(self) -> list[SessionInfo]:
        """Every session (a directory holding the session marker), oldest first."""
        from truncation_core.types.reports import SessionInfo

        root = self.directory(create=False)
        if root is None:
            return []
        out = []
        for name, mtime in _session_dirs(root):
            try:
                count, size = _session_size(root, name)
            except (StoreError, OSError):
                continue
            out.append(SessionInfo(id=name, artifacts=count, bytes=size, modified=mtime))
        return sorted(out, key=lambda s: (s.modified, s.id))

    def find(self, artifact_id: str) -> FilesystemStore:
        """The store of the session holding *artifact_id*, whichever session that is."""
        validate_artifact_id(artifact_id)
        reason = None
        for info in self.sessions():
            store = self.session(info.id)
            try:
                store.stat(artifact_id)
                return store
            except ArtifactNotFound as exc:
                reason = reason or exc.reason
        raise ArtifactNotFound(artifact_id, reason=reason)

    def delete_session(self, session_id: str) -> int:
        """Delete a session and its artifacts; return how many artifacts it held. A
        directory without the session marker is not a session: it is left alone (0)."""
        validate_session_id(session_id)
        root = self.directory(create=False)
        if root is None:
            return 0
        try:
            count, _ = _session_size(root, session_id)
        except FileNotFoundError:
            return 0
        _remove_session(root, session_id)
        return count

    def clean(self, *, older_than: float | None = None, session: str | None = None,
              now: float | None = None) -> CleanReport:
        """Delete sessions (all, or *session*) untouched for more than *older_than* seconds."""
        from truncation_core.types.reports import CleanReport

        now = time.time() if now is None else now
        doomed = [info for info in self.sessions()
                  if (session is None or info.id == session)
                  and (older_than is None or info.modified <= now - older_than)]
        root = self.directory(create=False)
        cutoff = None if older_than is None else now - older_than
        doomed = [info for info in doomed
                  if root is not None and _remove_session(root, info.id, cutoff=cutoff)]
        return CleanReport(sessions=tuple(info.id for info in doomed),
                           artifacts=sum(info.artifacts for info in doomed),
                           bytes=sum(info.bytes for info in doomed))

    def sweep(self, *, now: float | None = None, retention_days: int | None = None,
              temp_grace: float = TEMP_GRACE_SECONDS, keep: Iterable[str] = ()) -> CleanReport:
        """Delete sessions untouched for *retention_days* (0: none) except those in *keep*,
        and, in the others, temporary files and orphan metadata older than *temp_grace*.
        Only marked sessions are considered, and only the store's own files deleted."""
        from truncation_core.types.reports import CleanReport

        now = time.time() if now is None else now
        days = self.retention_days if retention_days is None else retention_days
        root = self.directory(create=False)
        if root is None:
            return CleanReport()
        keep = set(keep)
        removed: list[str] = []
        artifacts = size = temps = 0
        for name, mtime, session_dir in _sessions(root):
            with session_dir:  # opened once, to see its marker and to sweep it
                if days and name not in keep and mtime < now - days * _DAY:
                    try:
                        sizes = [st.st_size for _, _, st in _contents(session_dir)]
                        if _remove_session(root, name, cutoff=now - days * _DAY):
                            removed.append(name)
                            artifacts += len(sizes)
                            size += sum(sizes)
                            continue
                    except (StoreError, OSError) as exc:
                        log.warning("retention sweep: session %s not deleted: %s", name,
                                    type(exc).__name__)
                        continue
                try:
                    temps += _sweep_session(session_dir, now=now, temp_grace=temp_grace,
                                            retention=days * _DAY if days else None)
                except (StoreError, OSError) as exc:
                    log.warning("retention sweep: session %s skipped: %s", name,
                                type(exc).__name__)
        if removed or temps:
            log.info("retention sweep of %s: %d sessions, %d artifacts, %d temporary files "
                     "deleted", self.path, len(removed), artifacts, temps)
        return CleanReport(sessions=tuple(removed), artifacts=artifacts, bytes=size,
                           temp_files=temps)

    def sweep_once(self, keep: str) -> None:
        """Run :meth:`sweep` if this process has not swept this root yet. Never raises."""
        root = self.directory(create=False)
        if root is None:
            return
        try:
            st = root.stat()
            key = (st.st_dev, st.st_ino)
            with _SWEPT_LOCK:
                if key in _SWEPT:
                    return
                _SWEPT.add(key)
            self.sweep(keep=(keep,))
        except Exception as exc:  # the sweep must never stop an artifact from being stored
            log.warning("retention sweep of %s failed: %s", self.path, type(exc).__name__)


def _contents(directory: Directory) -> Iterator[tuple[str, str, stat_result]]:
    """``(artifact id, file name, lstat)`` of each content file in a session directory: a
    file the store could have made (:func:`~truncation_core.storage.fsio.is_own`) named as
    the store names content (a link or anything else under such a name is not the store's);
    files deleted while it is listed are left out."""
    for entry in directory.entries():
        m = _CONTENT_NAME.fullmatch(entry.name)
        if m is None:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except FileNotFoundError:
            continue
        if is_own(st):
            yield m.group(1), entry.name, st


def _claim_root(root: Directory, path: str) -> None:
    """Make sure *root* (opened as it is, nothing changed yet) is the store's, or raise
    :class:`StoreRootRefused` having changed nothing.

    It is the store's if it holds the root marker. A root this call made, or an existing
    empty directory, gets the marker. So does a root every entry of which is a session:
    marked, or from a store before the markers (a session directory holding only files the
    store names, which gets its marker first), with at least one such entry (an empty
    session directory is allowed but proves nothing, and stays unmarked). Anything else is
    refused.
    """
    if root.is_own_file(ROOT_MARKER):
        return
    if not root.created:
        shared = _shared(root.stat().st_mode)
        if shared is not None:
            raise StoreRootRefused(path, shared)
        try:
            root.lstat(ROOT_MARKER)
        except FileNotFoundError:
            pass
        else:
            raise StoreRootRefused(path, f"its {ROOT_MARKER} is not a regular file of this "
                                         "user")
        legacy: list[str] = []
        entries = proven = 0
        for entry in root.entries():
            entries += 1
            kind = (None if entry.name == ROOT_MARKER  # made since it was looked for
                    else _inspect_session(root, entry.name))
            if kind is None:
                if root.is_own_file(ROOT_MARKER):  # another process made the root meanwhile
                    return
                raise StoreRootRefused(path, "it holds files or directories the store did "
                                             f"not make, and no {ROOT_MARKER} marker")
            proven += kind != "empty"
            if kind == "legacy":
                legacy.append(entry.name)
        if entries and not proven:
            if root.is_own_file(ROOT_MARKER):
                return
            raise StoreRootRefused(path, "it holds only directories in which the store "
                                         f"wrote nothing, and no {ROOT_MARKER} marker")
        for name in legacy:
            session = root.subdir(name, create=False)
            if session is not None:
                with session:
                    st = session.stat()
                    session.create_marker(SESSION_MARKER, _SESSION_MARKER_TEXT)
                    session.set_times(st)  # its retention clock runs on
        if legacy:
            log.info("adopted the artifact store %s, made before its markers: %d sessions",
                     path, len(legacy))
    root.create_marker(ROOT_MARKER, _ROOT_MARKER_TEXT)


def _shared(mode: int) -> str | None:
    """Why a directory of *mode* is shared with other users, or None. The store makes the
    root it adopts private (0700): adopting a shared one (an empty ``/tmp`` in a fresh
    container, a team's setgid directory) would lock its other users out of it."""
    if mode & stat.S_ISVTX:
        why = "sticky"
    elif mode & stat.S_IWOTH:
        why = "writable by every user"
    elif mode & stat.S_ISGID and mode & stat.S_IWGRP:
        why = "setgid and writable by its group"
    else:
        return None
    return (f"it is a directory shared with other users ({why}: mode "
            f"{stat.S_IMODE(mode):04o}), which the store would make private")


def _inspect_session(root: Directory, name: str) -> str | None:
    """What entry *name* of an unmarked root is: ``"marked"`` (a session of the store),
    ``"legacy"`` (a session of a store from before the markers: a directory of this user,
    named as a session, holding only regular files of this user named as the store names
    its files), ``"empty"`` (such a directory, empty), or None (anything else)."""
    if not _SESSION_NAME.fullmatch(name):
        return None
    try:
        session = root.subdir(name, create=False, private=False)
    except (StoreError, OSError):  # a symlink, not a directory, unreadable
        return None
    if session is None:
        return None
    with session:
        try:
            if session.stat().st_uid != fsio.os.geteuid():
                return None
            if session.is_own_file(SESSION_MARKER):
                return "marked"
            empty = True
            for entry in session.entries():  # up to the first that is not the store's
                empty = False
                if not (re.fullmatch(_OWN_FILE, entry.name)
                        and is_own(entry.stat(follow_symlinks=False))):
                    return None
        except OSError:
            return None
        return "empty" if empty else "legacy"


def _open_session(root: Directory, name: str) -> Directory | None:
    """The directory of session *name* if it is one: a directory of this user (not a link)
    holding the session marker, opened (and made private). None for anything else, which is
    left exactly as it is."""
    try:
        session = root.subdir(name, create=False, private=False)
    except (StoreError, OSError):  # a symlink, not a directory, unreadable
        return None
    if session is None:
        return None
    try:
        if (session.stat().st_uid == fsio.os.geteuid()
                and session.is_own_file(SESSION_MARKER)):
            session.make_private()
            return session
    except OSError:
        pass
    session.close()
    return None


def _session_size(root: Directory, name: str) -> tuple[int, int]:
    """``(artifacts, bytes)`` of session *name*; FileNotFoundError if there is none (no
    directory holding the session marker)."""
    session_dir = _open_session(root, name)
    if session_dir is None:
        raise FileNotFoundError(name)
    with session_dir:
        sizes = [st.st_size for _, _, st in _contents(session_dir)]
    return len(sizes), sum(sizes)


def _remove_session(root: Directory, name: str, *, cutoff: float | None = None) -> bool:
    """Delete session *name*: the store's own files in it (regular files of this user named
    as the store names them), then its marker, then the directory if that left it empty.
    Return whether it was deleted.

    Never a blind recursive delete: a link, a subdirectory or any other file in it stays,
    and so does the directory. Nothing is followed (every name is taken relative to the
    pinned handle). A directory without the marker is not a session: nothing is deleted.
    With *cutoff*, a session modified after it (written to since a cleaner listed it as
    old: a named session taken up again) is not deleted either; its age is read from the
    handle the deletion works through.
    """
    session = _open_session(root, name)
    if session is None:
        return False
    try:
        with session:
            if cutoff is not None and session.stat().st_mtime > cutoff:
                return False
            for file_name in [entry.name for entry in session.entries()]:
                if re.fullmatch(_OWN_FILE, file_name):
                    session.unlink_own(file_name)
            # The marker goes last, and only when none of the store's files is left (one
            # that could not be deleted, or a write that began meanwhile): until then the
            # directory stays a session, which the next sweep finishes.
            if not any(re.fullmatch(_OWN_FILE, entry.name) and session.is_own_file(entry.name)
                       for entry in session.entries()):
                session.unlink_own(SESSION_MARKER)
        if not root.rmdir(name):
            log.warning("session %s: its artifacts are deleted; its directory holds what the "
                        "store did not make, and is left in place", name)
    except OSError as exc:
        raise store_error(exc, f"delete session {name}") from None
    return True


def _sessions(root: Directory) -> Iterator[tuple[str, float, Directory]]:
    """``(name, mtime, opened directory)`` of each session: a directory (not a link) of this
    user, named like a session, holding the session marker. The caller closes each handle.
    Anything else is left alone."""
    uid = fsio.os.geteuid()
    found = []  # listed first: the caller may delete sessions as it goes
    for entry in root.entries():
        if not _SESSION_NAME.fullmatch(entry.name):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == uid:
            found.append((entry.name, st.st_mtime))
    for name, mtime in found:
        session = _open_session(root, name)
        if session is not None:
            yield name, mtime, session


def _session_dirs(root: Directory) -> list[tuple[str, float]]:
    """``(name, mtime)`` of each session (see :func:`_sessions`)."""
    out = []
    for name, mtime, session in _sessions(root):
        session.close()
        out.append((name, mtime))
    return out


def _sweep_session(d: Directory, *, now: float, temp_grace: float,
                   retention: float | None) -> int:
    """Delete a live session's leftovers: temporary files and orphan metadata older than
    *temp_grace*, eviction notes older than *retention*. Only files the store could have
    made (:func:`~truncation_core.storage.fsio.is_own`), named as the store names them."""
    entries = {}
    for entry in d.entries():
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if is_own(st):
            entries[entry.name] = st
    removed = 0
    contents = {m.group(1) for name in entries if (m := _CONTENT_NAME.fullmatch(name))}
    for name, st in entries.items():
        old = st.st_mtime < now - temp_grace
        if old and re.fullmatch(_TEMP_FILE, name):
            removed += d.unlink(name)
        elif (m := _META_NAME.fullmatch(name)) and old and m.group(1) not in contents:
            removed += d.unlink(name)  # the content never appeared: a failed write
        elif _GONE_NAME.fullmatch(name) and retention and st.st_mtime < now - retention:
            d.unlink(name)
    return removed


# -- one session: the store ----------------------------------------------------------------------


class FilesystemStore(Retrieval):
    """Artifacts of one session, as files (see the module docstring for the layout).

    :param root: the store's directory (an :class:`ArtifactRoot`, or a path).
    :param session_id: the session; None starts a new one.
    """

    name = NAME

    def __init__(self, root: ArtifactRoot | str, session_id: str | None = None, *,
                 fsync: bool = False, quota: int | None = None,
                 retention_days: int = 7) -> None:
        if not isinstance(root, ArtifactRoot):
            root = ArtifactRoot(str(root), fsync=fsync, quota=quota,
                                retention_days=retention_days)
        self.root = root
        self.session_id = (validate_session_id(session_id) if session_id is not None
                           else new_session_id())
        self._lock = threading.Lock()
        self._dir: Directory | None = None

    @classmethod
    def from_config(cls, config: StoreConfig) -> FilesystemStore:
        config = config.resolved()
        return cls(ArtifactRoot(config.root, fsync=config.fsync, quota=config.quota,
                                retention_days=config.retention_days), config.session)

    def __repr__(self) -> str:
        return f"FilesystemStore({self.root.path!r}, session_id={self.session_id!r})"

    @property
    def path(self) -> str:
        """The session's directory."""
        return f"{self.root.path}/{self.session_id}"

    @property
    def backend(self) -> ArtifactRoot:
        return self.root

    def for_session(self, session_id: str) -> FilesystemStore:
        return FilesystemStore(self.root, session_id)

    def close(self) -> None:
        """Release the directory handle (the store reopens it if used again)."""
        with self._lock:
            if self._dir is not None:
                self._dir.close()
                self._dir = None

    def _directory(self, *, create: bool, reopen: bool = False) -> Directory | None:
        """The session's directory: made (with its marker) if *create*; else None unless it
        exists as a session (holding the marker)."""
        with self._lock:
            if reopen and self._dir is not None:
                self._dir.close()
                self._dir = None
            if self._dir is None:
                root = self.root.directory(create=create)
                if root is None:
                    return None
                if create:
                    directory = root.subdir(self.session_id, create=True)
                    assert directory is not None  # made, or found
                    try:
                        # A directory found without the marker (made by a process that has
                        # not written it yet) gains it: deleting a session removes only the
                        # store's own files, so whatever else it holds stays.
                        directory.create_marker(SESSION_MARKER, _SESSION_MARKER_TEXT)
                    except OSError as exc:
                        directory.close()
                        raise store_error(exc, f"create {self.path}") from None
                    directory.touch()
                    self._dir = directory
                else:
                    self._dir = _open_session(root, self.session_id)
            return self._dir

    # -- writing ------------------------------------------------------------------------------

    def writer(self, info: ArtifactInfo) -> FilesystemWriter:
        writer = self._new_writer(info)
        self.root.sweep_once(keep=self.session_id)
        return writer

    def _new_writer(self, info: ArtifactInfo, *, artifact_id: str | None = None,
                    created_at: float | None = None) -> FilesystemWriter:
        try:
            return FilesystemWriter(self, self._session_directory(), info,
                                    artifact_id=artifact_id, created_at=created_at)
        except FileNotFoundError:
            # The session directory was deleted under us (a cleaner): make it again, once.
            return FilesystemWriter(self, self._session_directory(reopen=True), info,
                                    artifact_id=artifact_id, created_at=created_at)

    def _session_directory(self, *, reopen: bool = False) -> Directory:
        directory = self._directory(create=True, reopen=reopen)
        if directory is None:  # created, then removed before it could be opened
            raise store_error(FileNotFoundError(errno.ENOENT, "gone"), f"open {self.path}")
        return directory

    def _make_room(self, directory: Directory, size: int, artifact_id: str) -> None:
        """Evict the session's oldest artifacts until *size* more bytes fit its quota."""
        quota = self.root.quota
        if quota is None:
            return
        import json  # not at start-up: opening a store needs none of it (six regexes compiled)

        from truncation_core.types.artifacts import human_size

        if size > quota:
            raise StoreFull(errno.EDQUOT, f"{artifact_id}: {human_size(size)} is more than the "
                                          f"session quota of {human_size(quota)}")
        stored = sorted((st.st_mtime_ns, artifact, name, st.st_size)
                        for artifact, name, st in _contents(directory))
        used = sum(item[3] for item in stored)
        reason = f"evicted: the session's quota of {human_size(quota)} was full"
        for _, victim, name, victim_size in stored:
            if used + size <= quota:
                break
            directory.write_atomic(_gone_name(victim), json.dumps({"reason": reason}).encode(),
                                   durable=False, temp=_temp_name(victim, "gone"))
            directory.unlink_own(name)
            directory.unlink_own(_meta_name(victim))
            used -= victim_size
            log.info("evicted artifact %s (%d bytes) from session %s: quota", victim,
                     victim_size, self.session_id)

    def restore(self, ref: ArtifactRef, source: BinaryIO) -> ArtifactRef:
        """Store *source* under *ref*'s id, creation time and description (import from an
        archive), the way every artifact is stored: atomically, within the quota, fsynced if
        asked. Returns the stored ref, whose sha256 is that of what *source* gave.

        An artifact with that id already here is left alone if its content is the same, and
        is an error otherwise.
        """
        from truncation_core.types.artifacts import ArtifactInfo

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
                            chars=ref.chars, lines=ref.lines, cut=ref.cut,
                            interrupted=ref.interrupted)
        with self._new_writer(info, artifact_id=ref.id, created_at=ref.created_at) as writer:
            while block := source.read(CHUNK * 16):
                writer.write(block)
            return writer.commit()

    # -- reading ------------------------------------------------------------------------------

    def _find_content(self, artifact_id: str) -> tuple[Directory, str]:
        """The session directory and the content file name of *artifact_id*."""
        validate_artifact_id(artifact_id)
        directory = self._directory(create=False)
        if directory is not None:
            for ext in _EXTENSIONS:
                name = f"{artifact_id}.{ext}"
                try:
                    directory.lstat(name)
                    return directory, name
                except FileNotFoundError:
                    continue
                except OSError as exc:
                    raise store_error(exc, f"stat {artifact_id}") from None
        raise ArtifactNotFound(artifact_id, reason=self._gone_reason(directory, artifact_id))

    def _gone_reason(self, directory: Directory | None, artifact_id: str) -> str | None:
        import json  # not at start-up, as in _make_room

        if directory is None:
            return None
        try:
            doc = json.loads(directory.read_small(_gone_name(artifact_id), 4096))
        except (OSError, ValueError):
            return None
        reason = doc.get("reason") if isinstance(doc, dict) else None
        return reason if isinstance(reason, str) else None

    def open(self, artifact_id: str) -> BinaryIO:
        directory, name = self._find_content(artifact_id)
        try:
            return directory.open_file(name)
        except FileNotFoundError:  # deleted between the lookup and the open
            raise ArtifactNotFound(artifact_id,
                                   reason=self._gone_reason(directory, artifact_id)) from None

    def stat(self, artifact_id: str) -> ArtifactRef:
        from truncation_core.artifacts.documents import ref_from_document

        directory, name = self._find_content(artifact_id)
        try:
            ref = ref_from_document(directory.read_small(_meta_name(artifact_id)), artifact_id,
                                    backend=NAME, session=self.session_id)
        except FileNotFoundError:
            ref = None
        except StoreError:
            raise
        except OSError as exc:
            raise store_error(exc, f"read metadata of {artifact_id}") from None
        return ref if ref is not None else self._rebuilt_ref(directory, name, artifact_id)

    def _rebuilt_ref(self, directory: Directory, name: str, artifact_id: str) -> ArtifactRef:
        """The metadata of an artifact whose metadata file is missing or damaged, from its
        content, read once: sizes, line count, sha256 and modification time (the tool and
        summary are lost)."""
        import hashlib  # not at start-up: it loads OpenSSL, which takes milliseconds

        from truncation_core.types.artifacts import ArtifactRef

        try:
            f = directory.open_file(name)
        except FileNotFoundError:  # deleted since it was found (an eviction): say why
            raise ArtifactNotFound(artifact_id,
                                   reason=self._gone_reason(directory, artifact_id)) from None
        terminators = chars = 0
        digest = hashlib.sha256()
        last = b""
        with f:
            st = fsio.os.fstat(f.fileno())
            for _, block in chunks(f, 0, CHUNK * 16):
                terminators += count_terminators(block)
                chars += utf8_chars(block)
                digest.update(block)
                last = block[-1:]
        lines = terminators + (1 if last not in (b"", b"\n", b"\r") else 0)
        return ArtifactRef(id=artifact_id, backend=NAME, session=self.session_id,
                           content_type="application/json" if name.endswith(".json")
                           else "text/plain", chars=chars, bytes=st.st_size, lines=lines,
                           sha256=digest.hexdigest(), created_at=st.st_mtime)

    def list(self) -> list[ArtifactRef]:
        directory = self._directory(create=False)
        if directory is None:
            return []
        refs = []
        for artifact_id, _, _ in _contents(directory):
            try:
                refs.append(self.stat(artifact_id))
            except ArtifactNotFound:
                continue  # deleted while listing
        return sorted(refs, key=lambda r: (r.created_at, r.id))

    def usage(self) -> int:
        """Bytes of content this session holds."""
        directory = self._directory(create=False)
        if directory is None:
            return 0
        return sum(st.st_size for _, _, st in _contents(directory))

    # -- deleting ----------------------------------------------------------------------------

    def delete(self, artifact_id: str) -> bool:
        try:
            directory, name = self._find_content(artifact_id)
        except ArtifactNotFound:
            return False
        deleted = directory.unlink_own(name)  # a link or anything else there is not the store's
        if deleted:
            directory.unlink_own(_meta_name(artifact_id))
        return deleted

    def delete_session(self) -> int:
        self.close()
        return self.root.delete_session(self.session_id)


class FilesystemWriter(WriterBase):
    """Writes one artifact to a temporary file, and publishes it by renaming."""

    def __init__(self, store: FilesystemStore, directory: Directory, info: ArtifactInfo, *,
                 artifact_id: str | None = None, created_at: float | None = None) -> None:
        import hashlib  # not at start-up: it loads OpenSSL, which takes milliseconds

        super().__init__()
        self._store = store
        self._dir = directory
        self._info = info
        self._created = time.time() if created_at is None else created_at
        #: The artifact's id, known before it is committed (given when importing).
        self.id = new_artifact_id(self._created) if artifact_id is None else artifact_id
        self._temp = _temp_name(self.id, "data")
        self._written = 0
        self._sha256 = hashlib.sha256()
        try:
            self._fd: int | None = directory.create(self._temp)
        except OSError as exc:
            if exc.errno == errno.ENOENT:
                raise
            raise store_error(exc, f"create {self.id}") from None

    def _write(self, data: bytes) -> None:
        assert self._fd is not None
        hash_it = functools.partial(self._sha256.update, data)
        try:
            if len(data) >= BACKGROUND_WRITE_MIN:
                self._dir.write_all(self._fd, data, meanwhile=hash_it)
            else:
                hash_it()
                self._dir.write_all(self._fd, data)
        except OSError as exc:
            raise store_error(exc, f"write {self.id}") from None
        self._written += len(data)
        quota = self._store.root.quota
        if quota is not None and self._written > quota:
            from truncation_core.types.artifacts import human_size

            raise StoreFull(errno.EDQUOT, f"{self.id}: more than the session quota of "
                                          f"{human_size(quota)}")

    def _close_file(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            fsio.os.close(fd)

    def _commit(self, info: ArtifactInfo | None) -> ArtifactRef:
        from truncation_core.artifacts.documents import ref_document
        from truncation_core.types.artifacts import ArtifactRef

        d, durable = self._dir, self._store.root.fsync
        name = content_name(self.id, (info or self._info).content_type)
        ref = ArtifactRef.from_info(info or self._info, id=self.id, backend=NAME,
                                    bytes=self._written, sha256=self._sha256.hexdigest(),
                                    created_at=self._created, session=self._store.session_id)
        try:
            try:
                if durable and self._fd is not None:
                    fsio.os.fsync(self._fd)  # a failed fsync is a failed write: never retried
            finally:
                self._close_file()  # close errors surface here, not in a finalizer
            self._store._make_room(d, self._written, self.id)
            # A session deleted while this was written may have lost its marker and kept
            # its directory: an artifact is published only in a marked session.
            d.create_marker(SESSION_MARKER, _SESSION_MARKER_TEXT)
            d.write_atomic(_meta_name(self.id), ref_document(ref), durable=durable,
                           temp=_temp_name(self.id, "meta"))
            try:
                d.replace(self._temp, name)
            except BaseException:
                d.unlink(_meta_name(self.id))
                raise
            if durable:
                try:
                    d.fsync()  # make the rename durable
                except BaseException:
                    # Keep "error => no artifact": the caller is told it failed.
                    d.unlink(name)
                    d.unlink(_meta_name(self.id))
                    raise
        except StoreError:
            raise
        except OSError as exc:
            raise store_error(exc, f"store {self.id}") from None
        return ref

    def _abort(self) -> None:
        try:
            self._close_file()
        except OSError:
            pass
        self._dir.unlink(self._temp)

