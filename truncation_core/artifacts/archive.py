"""Exporting a session with its artifacts to one archive, and importing it back.

An archive is a gzip-compressed tar file::

    manifest.json                  format, version, session; per artifact: id, file, size, sha256
    art_<ts>_<hex>.txt | .json     the content
    art_<ts>_<hex>.meta.json       its metadata

Import trusts nothing in the archive. Every member must be a regular file whose name is
exactly one of the above (no directories, links, devices, absolute paths, ``..``), listed in
the manifest, of the size the manifest says; content is written through the store (so the
store's own checks apply) and its sha256 must match the manifest. Nothing is extracted by
:mod:`tarfile` itself. Artifact ids are kept, so references to them stay valid.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import secrets
import tarfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from truncation_core.artifacts.documents import ref_document, ref_from_document
from truncation_core.artifacts.model import (
    ARTIFACT_ID_REGEX,
    ArtifactRef,
    content_name,
    validate_artifact_id,
    validate_session_id,
)
from truncation_core.errors import ArtifactError
from truncation_core.storage.protocol import ArtifactStore, StorageBackend

__all__ = ["ArchiveError", "ExportReport", "ImportReport", "export_session", "import_archive"]

FORMAT = "truncation-core-artifacts"
VERSION = 1
MANIFEST = "manifest.json"
#: Refuse archives with more members than this, or a manifest larger than this.
MAX_MEMBERS = 100_000
MAX_MANIFEST_BYTES = 64 << 20
#: Metadata files hold a few hundred bytes: a larger one is not ours.
MAX_META_BYTES = 64 << 10

_MEMBER = re.compile(rf"({ARTIFACT_ID_REGEX})\.(txt|json|meta\.json)")

Progress = Callable[[int], None]


class ArchiveError(ArtifactError, ValueError):
    """An archive is malformed or unsafe; nothing from it was kept."""


@attrs.frozen(kw_only=True)
class ExportReport:
    path: str
    session: str
    artifacts: int
    bytes: int


@attrs.frozen(kw_only=True)
class ImportReport:
    session: str
    imported: tuple[str, ...]
    #: Artifacts already present with the same content.
    skipped: tuple[str, ...]
    bytes: int


def export_session(store: ArtifactStore, path: Path | str, *,
                   progress: Progress | None = None) -> ExportReport:
    """Write every artifact of *store*'s session to the archive *path*.

    *progress* is called with the number of content bytes written so far.
    """
    from truncation_core.retrieval import reader_for

    reader = reader_for(store)
    refs = store.list()
    entries = []
    for ref in refs:
        sha = reader.checksum(ref.id)
        ref = attrs.evolve(ref, sha256=sha)
        name = content_name(ref.id, ref.content_type)
        entries.append((ref, name))
    manifest = {
        "format": FORMAT, "version": VERSION, "session": store.session_id,
        "artifacts": [{"id": ref.id, "file": name, "bytes": ref.bytes, "sha256": ref.sha256}
                      for ref, name in entries],
    }
    total = 0

    def report(n: int) -> None:
        if progress is not None:
            progress(total + n)

    target = Path(path)
    # The archive holds every artifact: mode 0600 whatever the umask, and a fresh temporary
    # name (O_EXCL, O_NOFOLLOW), so that nothing planted next to the target is written through.
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(4)}.partial")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        with open(fd, "wb") as out, tarfile.open(fileobj=out, mode="w:gz",
                                                 format=tarfile.PAX_FORMAT) as tar:
            _add_bytes(tar, MANIFEST, json.dumps(manifest, indent=1).encode())
            for ref, name in entries:
                with store.open(ref.id) as f:
                    info = tarfile.TarInfo(name)
                    info.size = ref.bytes
                    info.mode = 0o600
                    info.mtime = int(ref.created_at)
                    tar.addfile(info, _Counting(f, report))
                total += ref.bytes
                if progress is not None:
                    progress(total)
                _add_bytes(tar, f"{ref.id}.meta.json", ref_document(ref))
        os.replace(tmp, target)  # replaces a symlink at target, never writes through it
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return ExportReport(path=str(target), session=store.session_id, artifacts=len(entries),
                        bytes=total)


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o600
    tar.addfile(info, io.BytesIO(data))


class _Counting(io.RawIOBase):
    """A reader that reports how many bytes went through it."""

    def __init__(self, f: Any, report: Callable[[int], None]) -> None:
        self._f, self._report, self._n = f, report, 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        data: bytes = self._f.read(n)
        self._n += len(data)
        self._report(self._n)
        return data


def _check_member(member: tarfile.TarInfo) -> str:
    """The member's name if it is a plain artifact file or the manifest; else ArchiveError.

    Names are compared exactly, so ``/x``, ``../x``, ``a/b`` and any link or special file are
    refused before anything is read.
    """
    name = member.name
    shown = name if len(name) <= 80 and name.isprintable() else f"a name of {len(name)} chars"
    if not member.isreg():
        kind = ("a symlink" if member.issym() else "a hard link" if member.islnk()
                else "a directory" if member.isdir() else "a special file")
        raise ArchiveError(f"archive member {shown!r} is {kind}: only regular files are "
                           "accepted")
    if name != MANIFEST and not _MEMBER.fullmatch(name):
        raise ArchiveError(f"archive member {shown!r}: not an artifact file (expected "
                           "manifest.json or art_<ts>_<hex>.txt|.json|.meta.json)")
    return name


def import_archive(backend: StorageBackend, path: Path | str, *,
                   session: str | None = None, progress: Progress | None = None
                   ) -> ImportReport:
    """Import the archive *path* into *session* of *backend* (default: the session it was
    exported from).

    Reads the archive twice, in order
    (a gzip stream cannot seek back without decompressing again from its start): the first
    pass checks every member, reads the manifest and the metadata and hashes the content;
    nothing is written unless all of it is well-formed and matches the manifest. The second
    pass writes the artifacts, and removes what it imported if anything fails.
    """
    try:
        tar = tarfile.open(path, "r:*")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ArchiveError(f"{path}: not a readable archive ({type(exc).__name__})") from None
    with tar:
        index = _read_index(tar)
        manifest = _parse_manifest(index.manifest)
        target = session if session is not None else manifest["session"]
        validate_session_id(target)
        refs = _check_against_manifest(index, manifest, session=target)
        store = backend.session(target)
        return _restore_all(tar, index, manifest, refs, store, progress)


@attrs.frozen(kw_only=True)
class _Index:
    """What the first pass over an archive found, in archive order."""

    members: dict[str, tarfile.TarInfo]
    manifest: bytes
    #: Metadata members' bytes and content members' sha256, by member name.
    metas: dict[str, bytes]
    digests: dict[str, str]


def _read_index(tar: tarfile.TarFile) -> _Index:
    members: dict[str, tarfile.TarInfo] = {}
    manifest: bytes | None = None
    metas: dict[str, bytes] = {}
    digests: dict[str, str] = {}
    for count, member in enumerate(_members(tar)):
        if count >= MAX_MEMBERS:
            raise ArchiveError(f"archive has more than {MAX_MEMBERS} members")
        name = _check_member(member)
        if name in members:
            raise ArchiveError(f"archive member {name!r} appears twice")
        members[name] = member
        if name == MANIFEST:
            manifest = _read_member(tar, member, MAX_MANIFEST_BYTES)
        elif name.endswith(".meta.json"):
            metas[name] = _read_member(tar, member, MAX_META_BYTES)
        else:
            digests[name] = _sha256(tar, member)
    if manifest is None:
        raise ArchiveError("archive has no manifest.json")
    return _Index(members=members, manifest=manifest, metas=metas, digests=digests)


def _read_member(tar: tarfile.TarFile, member: tarfile.TarInfo, limit: int) -> bytes:
    if member.size > limit:
        raise ArchiveError(f"archive member {member.name!r} is too large")
    data: bytes = _extract(tar, member).read()
    return data


def _sha256(tar: tarfile.TarFile, member: tarfile.TarInfo) -> str:
    f = _extract(tar, member)
    digest = hashlib.sha256()
    try:
        while block := f.read(1 << 20):
            digest.update(block)
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ArchiveError(f"archive is damaged ({type(exc).__name__})") from None
    return digest.hexdigest()


def _extract(tar: tarfile.TarFile, member: tarfile.TarInfo) -> Any:
    f = tar.extractfile(member)
    assert f is not None  # members are checked to be regular files
    return f


def _members(tar: tarfile.TarFile) -> Any:
    try:
        yield from tar
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ArchiveError(f"archive is damaged ({type(exc).__name__})") from None


def _check_against_manifest(index: _Index, manifest: dict[str, Any], *, session: str
                            ) -> dict[str, ArtifactRef]:
    """Each artifact's ref from its metadata, once every member is checked against the
    manifest: listed, present, of the listed size and sha256."""
    artifacts = manifest["artifacts"]
    expected = {a["file"] for a in artifacts} | {f"{a['id']}.meta.json" for a in artifacts}
    extra = sorted(set(index.members) - expected - {MANIFEST})
    if extra:
        raise ArchiveError(f"archive member {extra[0]!r} is not in the manifest")
    refs = {}
    for entry in artifacts:
        aid, content = entry["id"], entry["file"]
        for name in (content, f"{aid}.meta.json"):
            if name not in index.members:
                raise ArchiveError(f"archive lacks {name!r}, listed in the manifest")
        if index.members[content].size != entry["bytes"]:
            raise ArchiveError(f"archive member {content!r} has {index.members[content].size} "
                               f"bytes, the manifest says {entry['bytes']}")
        if index.digests[content] != entry["sha256"]:
            raise ArchiveError(f"artifact {aid}: content does not match its sha256")
        ref = ref_from_document(index.metas[f"{aid}.meta.json"], aid, backend="archive",
                                session=session)
        if ref is None:
            raise ArchiveError(f"archive member {aid}.meta.json is not valid metadata")
        refs[content] = attrs.evolve(ref, sha256=entry["sha256"], bytes=entry["bytes"])
    return refs


def _parse_manifest(data: bytes) -> dict[str, Any]:
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        raise ArchiveError("manifest.json is not valid JSON") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ArchiveError(f"manifest.json: not a {FORMAT} archive")
    if doc.get("version") != VERSION:
        raise ArchiveError(f"manifest.json: version {doc.get('version')!r} is not supported "
                           f"(expected {VERSION})")
    try:
        validate_session_id(doc.get("session"))
    except ArtifactError:
        raise ArchiveError("manifest.json: session is not a valid session id") from None
    artifacts = doc.get("artifacts")
    if not isinstance(artifacts, list):
        raise ArchiveError("manifest.json: artifacts must be a list")
    seen = set()
    for entry in artifacts:
        if not isinstance(entry, dict):
            raise ArchiveError("manifest.json: each artifact must be an object")
        try:
            validate_artifact_id(entry.get("id"))
        except ArtifactError:
            raise ArchiveError("manifest.json: an artifact id is malformed") from None
        aid = entry["id"]
        if entry.get("file") not in (f"{aid}.txt", f"{aid}.json"):
            raise ArchiveError(f"manifest.json: artifact {aid} names an unexpected file")
        if type(entry.get("bytes")) is not int or entry["bytes"] < 0:
            raise ArchiveError(f"manifest.json: artifact {aid} has no valid size")
        sha = entry.get("sha256")
        if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{64}", sha):
            raise ArchiveError(f"manifest.json: artifact {aid} has no valid sha256")
        if aid in seen:
            raise ArchiveError(f"manifest.json: artifact {aid} is listed twice")
        seen.add(aid)
    return doc


def _restore_all(tar: tarfile.TarFile, index: _Index, manifest: dict[str, Any],
                 refs: dict[str, ArtifactRef], store: ArtifactStore, progress: Progress | None
                 ) -> ImportReport:
    imported: list[str] = []
    skipped: list[str] = []
    total = 0
    try:
        for name, member in index.members.items():  # archive order: the stream reads forward
            ref = refs.get(name)
            if ref is None:
                continue  # the manifest or metadata, read already
            existed = _exists(store, ref.id)
            restored = store.restore(ref, _extract(tar, member))
            (skipped if existed else imported).append(ref.id)
            # Checked again: the archive is read a second time, and may have changed since.
            if restored.sha256 != ref.sha256:
                raise ArchiveError(f"artifact {ref.id}: content does not match its sha256")
            total += ref.bytes
            if progress is not None:
                progress(total)
    except BaseException:
        for artifact_id in imported:
            store.delete(artifact_id)
        raise
    return ImportReport(session=store.session_id, imported=tuple(imported),
                        skipped=tuple(skipped), bytes=total)


def _exists(store: ArtifactStore, artifact_id: str) -> bool:
    from truncation_core.errors import ArtifactNotFound

    try:
        store.stat(artifact_id)
    except ArtifactNotFound:
        return False
    return True
