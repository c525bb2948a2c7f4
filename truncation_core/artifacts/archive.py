"""Exporting a session with its artifacts to one archive, and importing it back.

An archive is a gzip-compressed tar file::

    manifest.json                  format, version, session; per artifact: id, file, size, sha256
    art_<ts>_<hex>.txt | .json     the content
    art_<ts>_<hex>.meta.json       its metadata

Import trusts nothing in the archive. Every member must be a regular file whose name is
exactly one of the above (no directories, links, devices, sparse files, absolute paths,
``..``), listed in the manifest, of the size the manifest says; content is written through
the store (so the store's own checks apply) and its sha256 must match the manifest. Nothing is
extracted by :mod:`tarfile` itself. Artifact ids are kept, so references to them stay valid.

Sizes are limited before anything is read or written: each content member's declared size
against ``max_artifact_size``, and their sum against the store's quota; then again while the
content streams. What the metadata says of the content is recomputed from it (line and
character counts) or checked against it (where a cut artifact's head, marker and tail lie):
a metadata file that lies is refused, so the model is never shown numbers the content does
not bear out.
"""

from __future__ import annotations

import errno
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
from truncation_core.artifacts.limit import MARKER_RESERVE
from truncation_core.errors import ArtifactError, ArtifactNotFound
from truncation_core.retrieval import reader_for
from truncation_core.retrieval.scanning import count_terminators
from truncation_core.text.decoding import utf8_chars
from truncation_core.types.artifacts import ArtifactCut, ArtifactRef
from truncation_core.types.ids import (
    ARTIFACT_ID_REGEX,
    content_name,
    validate_artifact_id,
    validate_session_id,
)
from truncation_core.types.storage import ArtifactStore, StorageBackend

__all__ = ["ArchiveError", "ExportError", "ExportReport", "ImportLimits", "ImportReport",
           "export_session", "import_archive"]

FORMAT = "truncation-core-artifacts"
VERSION = 1
MANIFEST = "manifest.json"
#: Refuse archives with more members than this, or a manifest larger than this.
MAX_MEMBERS = 100_000
MAX_MANIFEST_BYTES = 64 << 20
#: Metadata files hold a few hundred bytes: a larger one is not ours.
MAX_META_BYTES = 64 << 10
#: The largest artifact imported when the caller names no limit: the default
#: ``max_artifact_size``.
DEFAULT_MAX_ARTIFACT_SIZE = 10 << 20

_MEMBER = re.compile(rf"({ARTIFACT_ID_REGEX})\.(txt|json|meta\.json)")

Progress = Callable[[int], None]


class ArchiveError(ArtifactError, ValueError):
    """An archive is malformed or unsafe; nothing from it was kept."""


class ExportError(ArtifactError, OSError):
    """The archive could not be written (a missing directory, a read-only filesystem, a full
    disk); nothing was left at its path."""


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
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o600)
    except OSError as exc:
        raise _export_error(target, exc) from None
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
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError) and not isinstance(exc, ArtifactError):
            raise _export_error(target, exc) from None
        raise
    return ExportReport(path=str(target), session=store.session_id, artifacts=len(entries),
                        bytes=total)


def _export_error(target: Path, exc: OSError) -> ExportError:
    code = exc.errno if exc.errno is not None else errno.EIO
    return ExportError(code, f"{target}: cannot write the archive: {os.strerror(code)}")


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
    if member.issparse():  # its declared size is what it expands to, not what it holds
        raise ArchiveError(f"archive member {shown!r} is a sparse file: only regular files "
                           "are accepted")
    if not member.isreg():
        kind = ("a symlink" if member.issym() else "a hard link" if member.islnk()
                else "a directory" if member.isdir() else "a special file")
        raise ArchiveError(f"archive member {shown!r} is {kind}: only regular files are "
                           "accepted")
    if name != MANIFEST and not _MEMBER.fullmatch(name):
        raise ArchiveError(f"archive member {shown!r}: not an artifact file (expected "
                           "manifest.json or art_<ts>_<hex>.txt|.json|.meta.json)")
    return name


@attrs.frozen(kw_only=True)
class ImportLimits:
    """What one import may write: the largest artifact, and all of them together."""

    max_artifact_size: int = DEFAULT_MAX_ARTIFACT_SIZE
    #: The store's quota for a session, if it has one.
    quota: int | None = None


def import_archive(backend: StorageBackend, path: Path | str, *,
                   session: str | None = None, progress: Progress | None = None,
                   max_artifact_size: int = DEFAULT_MAX_ARTIFACT_SIZE) -> ImportReport:
    """Import the archive *path* into *session* of *backend* (default: the session it was
    exported from).

    Reads the archive twice, in order
    (a gzip stream cannot seek back without decompressing again from its start): the first
    pass checks every member, reads the manifest and the metadata and hashes and counts the
    content; nothing is written unless all of it is well-formed, within the limits (an
    artifact of at most *max_artifact_size* bytes, the backend's ``quota`` for all of them)
    and matches the manifest. The second pass writes the artifacts, and removes what it
    imported if anything fails.
    """
    limits = ImportLimits(max_artifact_size=max_artifact_size,
                          quota=getattr(backend, "quota", None))
    try:
        tar = tarfile.open(path, "r:*")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ArchiveError(f"{path}: not a readable archive ({type(exc).__name__})") from None
    with tar:
        index = _read_index(tar, limits)
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
    #: Metadata members' bytes, and what content members hold (sha256, lines, characters),
    #: by member name.
    metas: dict[str, bytes]
    contents: dict[str, _Content]


@attrs.frozen(kw_only=True)
class _Content:
    """What a content member holds, counted from its bytes."""

    sha256: str
    lines: int
    chars: int


def _read_index(tar: tarfile.TarFile, limits: ImportLimits) -> _Index:
    members: dict[str, tarfile.TarInfo] = {}
    manifest: bytes | None = None
    metas: dict[str, bytes] = {}
    contents: dict[str, _Content] = {}
    total = 0
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
            # The declared sizes are limited before any of the content is read.
            if member.size > limits.max_artifact_size:
                raise ArchiveError(f"archive member {name!r} declares {member.size:,} bytes, "
                                   f"more than max_artifact_size ({limits.max_artifact_size:,})")
            total += member.size
            if limits.quota is not None and total > limits.quota:
                raise ArchiveError(f"the archive's artifacts take more than the session "
                                   f"quota of {limits.quota:,} bytes")
            contents[name] = _count(tar, member)
    if manifest is None:
        raise ArchiveError("archive has no manifest.json")
    return _Index(members=members, manifest=manifest, metas=metas, contents=contents)


def _read_member(tar: tarfile.TarFile, member: tarfile.TarInfo, limit: int) -> bytes:
    if member.size > limit:
        raise ArchiveError(f"archive member {member.name!r} is too large")
    data: bytes = _extract(tar, member).read()
    return data


def _count(tar: tarfile.TarFile, member: tarfile.TarInfo) -> _Content:
    """The sha256, lines and characters of a content member, read once, in blocks that
    never end between a "\r" and its "\n"."""
    f = _extract(tar, member)
    digest = hashlib.sha256()
    terminators = chars = size = 0
    carry = last = b""
    try:
        while block := f.read(1 << 20):
            digest.update(block)
            size += len(block)
            block = carry + block
            carry = block[-1:] if block.endswith(b"\r") else b""
            block = block[:len(block) - len(carry)]
            terminators += count_terminators(block)
            chars += utf8_chars(block)
            last = block[-1:] or last
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise ArchiveError(f"archive is damaged ({type(exc).__name__})") from None
    if carry:
        terminators, chars, last = terminators + 1, chars + 1, carry
    if size != member.size:
        raise ArchiveError(f"archive member {member.name!r} holds {size:,} bytes, not the "
                           f"{member.size:,} it declares")
    lines = terminators + (1 if last not in (b"", b"\n", b"\r") else 0)
    return _Content(sha256=digest.hexdigest(), lines=lines, chars=chars)


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
        counted = index.contents[content]
        if counted.sha256 != entry["sha256"]:
            raise ArchiveError(f"artifact {aid}: content does not match its sha256")
        ref = ref_from_document(index.metas[f"{aid}.meta.json"], aid, backend="archive",
                                session=session)
        if ref is None:
            raise ArchiveError(f"archive member {aid}.meta.json is not valid metadata")
        # Sizes come from the content, whatever the metadata says.
        ref = attrs.evolve(ref, sha256=entry["sha256"], bytes=entry["bytes"],
                           lines=counted.lines, chars=counted.chars,
                           truncated=ref.cut is not None)
        if ref.cut is not None:
            problem = _cut_problem(ref.cut, ref.bytes)
            if problem is not None:
                raise ArchiveError(f"archive member {aid}.meta.json: the cut {problem}")
        refs[content] = ref
    return refs


def _cut_problem(cut: ArtifactCut, size: int) -> str | None:
    """Why a cut artifact's description cannot be right for *size* stored bytes, or None.

    What the stored bytes bear out is checked when they are written (:class:`_Restoring`);
    the rest (the original's size and lines, which are gone) must at least be consistent.
    """
    marker = size - cut.head_bytes - cut.tail_bytes
    if not 0 < marker <= MARKER_RESERVE + 1:
        return "does not leave one marker line between its head and tail"
    if cut.original_bytes <= cut.head_bytes + cut.tail_bytes:
        return "says the original is no larger than what is kept"
    if not (1 <= cut.first_line <= cut.last_line + 1 <= cut.original_lines + 1):
        return "has lines out of order"
    if cut.tail_first_line not in (cut.last_line, cut.last_line + 1) \
            or cut.tail_artifact_line != cut.head_last_line + 2 \
            or cut.omitted_lines > cut.last_line - cut.first_line + 1 \
            or cut.original_lines > cut.original_bytes + 1:
        return "is not consistent"
    return None


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
            source = _Restoring(_extract(tar, member), ref)
            restored = store.restore(ref, source)  # type: ignore[arg-type]
            (skipped if existed else imported).append(ref.id)
            if not existed:
                source.check()
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


class _Restoring:
    """The content of one artifact as the store reads it: never more than the manifest
    declares, and measured where a cut artifact's head ends and its tail starts, so that
    :meth:`check` can hold its description against the bytes written."""

    def __init__(self, f: Any, ref: ArtifactRef) -> None:
        self._f, self._ref, self._read = f, ref, 0
        cut = ref.cut
        #: Offsets where the head ends and the tail starts, and what is counted up to each.
        self._marks: tuple[int, ...] = (() if cut is None
                                        else (cut.head_bytes, ref.bytes - cut.tail_bytes))
        self._terminators = [0, 0]
        self._between = bytearray()  # the marker line
        self._before_head_end = b""
        self._pending_cr = False

    def read(self, n: int = -1) -> bytes:
        data: bytes = self._f.read(n)
        if self._read + len(data) > self._ref.bytes:
            raise ArchiveError(f"artifact {self._ref.id}: more content than the manifest "
                               "declares")
        if self._marks:
            self._measure(data)
        self._read += len(data)
        return data

    def _measure(self, data: bytes) -> None:
        start = self._read
        for i, mark in enumerate(self._marks):
            if start < mark:
                piece = data[:mark - start]
                # A "\r\n" split between reads counts once: the "\n" is not a new one.
                self._terminators[i] += count_terminators(piece) - (
                    1 if self._pending_cr and piece[:1] == b"\n" else 0)
        head_end, tail_start = self._marks
        lo, hi = max(head_end, start), min(tail_start, start + len(data))
        if lo < hi:
            self._between += data[lo - start:hi - start]
        if start < head_end <= start + len(data):
            self._before_head_end = data[head_end - start - 1:head_end - start]
        self._pending_cr = data.endswith(b"\r")

    def check(self) -> None:
        """Raise ArchiveError if the cut the metadata describes is not where it says."""
        cut = self._ref.cut
        if cut is None:
            return
        if self._read != self._ref.bytes:
            raise ArchiveError(f"artifact {self._ref.id}: less content than the manifest "
                               "declares")
        head_terms = self._terminators[0]
        mid_line = cut.head_bytes > 0 and self._before_head_end not in (b"\n", b"\r")
        marker = bytes(self._between)
        if (cut.head_last_line != head_terms + (1 if mid_line else 0)
                or cut.first_line != head_terms + 1
                or not marker.endswith(b"\n")
                or marker.count(b"\n") + marker.count(b"\r") != (2 if mid_line else 1)):
            raise ArchiveError(f"archive member {self._ref.id}.meta.json: the cut it "
                               "describes is not where the content has it")


def _exists(store: ArtifactStore, artifact_id: str) -> bool:
    try:
        store.stat(artifact_id)
    except ArtifactNotFound:
        return False
    return True
