"""Export and import: references survive; a hostile archive is refused whole.

The negative control extracts the same hostile archives with tarfile's trusting extraction,
which writes outside the target directory.
"""

from __future__ import annotations

import io
import json
import os
import stat
import tarfile
import time
from pathlib import Path

import pytest

from truncation_core import Truncator
from truncation_core.artifacts.archive import ArchiveError, export_session, import_archive
from truncation_core.storage.filesystem import ArtifactRoot, FilesystemStore

from .conftest import put


def test_export_import_round_trip_keeps_references(tmp_path: Path) -> None:
    t = Truncator({"store": {"root": str(tmp_path / "a"), "session": "work"}},
                  load_entrypoints=False)
    big = "".join(f"{i} log line\n" for i in range(5000))
    result = t.process(big, tool="execute_command", tool_call_id="c1")
    jsonish = t.process(json.dumps([{"i": i} for i in range(3000)]), tool="search_files")
    reported = []
    report = export_session(t.store, tmp_path / "work.tar.gz", progress=reported.append)
    assert report.artifacts == 2 and reported and reported[-1] == report.bytes
    other = ArtifactRoot(str(tmp_path / "elsewhere"))
    imported = import_archive(other, tmp_path / "work.tar.gz")
    assert imported.session == "work" and len(imported.imported) == 2
    store = other.session("work")
    for ref in (result.artifact, jsonish.artifact):
        assert ref is not None
        assert store.read(ref.id) == t.artifacts.read(ref.id)
        copy = store.stat(ref.id)
        assert (copy.tool, copy.summary, copy.lines, copy.content_type) == (
            ref.tool, ref.summary, ref.lines, ref.content_type)
    # The same reference works through the tools of a Truncator on the imported store.
    reader = Truncator({"store": {"root": str(tmp_path / "elsewhere"), "session": "work"}},
                       load_entrypoints=False)
    call = reader.call_tool("artifact_tail", {"artifact_id": result.artifact.id, "lines": 1})
    assert "4999 log line" in call.content
    # Importing again skips what is already there; into another session works too.
    again = import_archive(other, tmp_path / "work.tar.gz")
    assert again.imported == () and len(again.skipped) == 2
    renamed = import_archive(other, tmp_path / "work.tar.gz", session="copy")
    assert renamed.session == "copy" and len(renamed.imported) == 2


def _archive(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def _file(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _valid_members(tmp_path: Path) -> list[tuple[tarfile.TarInfo, bytes | None]]:
    store = FilesystemStore(str(tmp_path / "src"), "src")
    put(store, b"payload\n")
    export_session(store, tmp_path / "valid.tar.gz")
    with tarfile.open(tmp_path / "valid.tar.gz") as tar:
        return [(m, tar.extractfile(m).read()) for m in tar.getmembers()]  # type: ignore[union-attr]


def _hostile(kind: str, members: list[tuple[tarfile.TarInfo, bytes | None]]
             ) -> list[tuple[tarfile.TarInfo, bytes | None]]:
    manifest = next(d for m, d in members if m.name == "manifest.json")
    doc = json.loads(manifest)  # type: ignore[arg-type]
    content_name = doc["artifacts"][0]["file"]
    out = list(members)
    if kind == "absolute":
        out.append(_file("/tmp/evil-absolute", b"x"))
    elif kind == "dotdot":
        out.append(_file("../escaped", b"x"))
    elif kind == "nested":
        out.append(_file("dir/" + content_name, b"x"))
    elif kind in ("symlink", "hardlink"):
        out = [(m, d) for m, d in out if m.name != content_name]
        link = tarfile.TarInfo(content_name)
        link.type = tarfile.SYMTYPE if kind == "symlink" else tarfile.LNKTYPE
        link.linkname = "/etc/passwd"
        out.append((link, None))
    elif kind == "directory":
        d = tarfile.TarInfo("art_1_" + "0" * 32 + ".txt")
        d.type = tarfile.DIRTYPE
        out.append((d, None))
    elif kind == "device":
        d = tarfile.TarInfo("art_1_" + "0" * 32 + ".txt")
        d.type = tarfile.CHRTYPE
        out.append((d, None))
    elif kind == "unlisted":
        out.append(_file("art_1_" + "1" * 32 + ".txt", b"smuggled"))
    elif kind == "tampered":
        out = [(m, d) if m.name != content_name else _file(content_name, b"PAYLOAD\n")
               for m, d in out]
    elif kind == "no-manifest":
        out = [(m, d) for m, d in out if m.name != "manifest.json"]
    elif kind == "bad-session":
        doc["session"] = "../../x"
        out = [(m, d) if m.name != "manifest.json" else _file("manifest.json",
                                                              json.dumps(doc).encode())
               for m, d in out]
    elif kind == "bad-metadata":
        meta_name = content_name.split(".")[0] + ".meta.json"
        meta = json.loads(next(d for m, d in members if m.name == meta_name))  # type: ignore[arg-type]
        meta["created_at"] = float("nan")
        out = [(m, d) if m.name != meta_name else _file(meta_name, json.dumps(meta).encode())
               for m, d in out]
    elif kind == "duplicate":
        out.append(next((m, d) for m, d in members if m.name == content_name))
    return out


KINDS = ["absolute", "dotdot", "nested", "symlink", "hardlink", "directory", "device",
         "unlisted", "tampered", "no-manifest", "bad-session", "bad-metadata", "duplicate"]


@pytest.mark.parametrize("kind", KINDS)
def test_hostile_archives_are_refused_whole(tmp_path: Path, kind: str) -> None:
    members = _valid_members(tmp_path)
    path = _archive(tmp_path / f"{kind}.tar.gz", _hostile(kind, members))
    target = ArtifactRoot(str(tmp_path / "target"))
    with pytest.raises(ArchiveError):
        import_archive(target, path)
    assert target.session("src").list() == []
    assert not (tmp_path / "escaped").exists()
    assert not Path("/tmp/evil-absolute").exists()


def test_not_an_archive(tmp_path: Path) -> None:
    (tmp_path / "junk.tar.gz").write_bytes(b"not a tar at all")
    with pytest.raises(ArchiveError, match="not a readable archive"):
        import_archive(ArtifactRoot(str(tmp_path / "t")), tmp_path / "junk.tar.gz")


@pytest.mark.parametrize("kind", ["dotdot", "symlink"])
def test_control_trusting_extraction_escapes(tmp_path: Path, kind: str) -> None:
    members = _valid_members(tmp_path)
    path = _archive(tmp_path / f"{kind}.tar.gz", _hostile(kind, members))
    target = tmp_path / "naive" / "inside"
    target.mkdir(parents=True)
    with tarfile.open(path) as tar:
        tar.extractall(target, filter="fully_trusted")
    if kind == "dotdot":
        assert (tmp_path / "naive" / "escaped").exists()  # written outside the target
    else:
        link = next(p for p in target.iterdir() if p.name.startswith("art_") and
                    p.name.endswith(".txt"))
        assert link.is_symlink() and link.resolve() == Path("/etc/passwd").resolve()


def test_export_is_private_and_never_writes_through_a_link(tmp_path: Path) -> None:
    store = FilesystemStore(str(tmp_path / "src"), "src")
    put(store, b"secret payload\n")
    victim = tmp_path / "victim"
    victim.write_bytes(b"untouched")
    target = tmp_path / "out" / "export.tar.gz"
    target.parent.mkdir()
    target.symlink_to(victim)
    old = os.umask(0o022)
    try:
        export_session(store, target)
    finally:
        os.umask(old)
    assert victim.read_bytes() == b"untouched"
    assert not target.is_symlink() and stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in target.parent.iterdir()] == ["export.tar.gz"]  # no temporary left
    with tarfile.open(target) as tar:
        assert "manifest.json" in tar.getnames()


def test_control_a_plain_open_is_world_readable_and_follows_the_link(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"untouched")
    target = tmp_path / "export.tar.gz"
    target.symlink_to(victim)
    old = os.umask(0o022)
    try:
        with tarfile.open(target, "w:gz"):
            pass
        (tmp_path / "plain").write_bytes(b"x")
    finally:
        os.umask(old)
    assert victim.read_bytes() != b"untouched"  # clobbered through the link
    assert stat.S_IMODE((tmp_path / "plain").stat().st_mode) == 0o644


def test_import_reads_the_archive_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A gzip stream seeks back only by decompressing again from its start: importing must
    read forward (twice at most), or n artifacts cost n times the archive."""
    import gzip

    store = FilesystemStore(str(tmp_path / "src"), "src")
    for i in range(30):
        put(store, f"artifact {i}\n".encode() * 100)
    export_session(store, tmp_path / "many.tar.gz")
    rewinds = []
    real_rewind = gzip._GzipReader._rewind  # type: ignore[attr-defined]

    def counting_rewind(self: object) -> None:
        rewinds.append(1)
        real_rewind(self)

    monkeypatch.setattr(gzip._GzipReader, "_rewind", counting_rewind)  # type: ignore[attr-defined]
    report = import_archive(ArtifactRoot(str(tmp_path / "dst")), tmp_path / "many.tar.gz")
    assert len(report.imported) == 30
    assert len(rewinds) <= 2


def test_import_is_stored_like_any_artifact_quota_included(tmp_path: Path) -> None:
    """Import goes through the store's writer: the same atomic write, sha256 and quota. An
    archive whose artifacts cannot all fit the quota is refused before anything is written
    (importing it would evict its own artifacts); one that fits evicts the session's oldest."""
    source = FilesystemStore(str(tmp_path / "src"), "src")
    refs = []
    for i in range(3):
        refs.append(put(source, bytes([97 + i]) * 100))
        time.sleep(0.01)  # distinct creation times, oldest first
    export_session(source, tmp_path / "three.tar.gz")
    target = ArtifactRoot(str(tmp_path / "dst"), quota=250)
    with pytest.raises(ArchiveError, match="more than the session quota of 250 bytes"):
        import_archive(target, tmp_path / "three.tar.gz")
    assert target.sessions() == []
    target = ArtifactRoot(str(tmp_path / "dst2"), quota=350)
    store = target.session("src")
    old = put(store, b"z" * 100)
    report = import_archive(target, tmp_path / "three.tar.gz")
    assert report.imported == tuple(r.id for r in refs)
    assert store.usage() <= 350
    assert [r.id for r in store.list()] == [r.id for r in refs]  # the older one evicted
    assert old.id not in {r.id for r in store.list()}
    for ref in refs:
        copy = store.stat(ref.id)
        assert (copy.sha256, copy.created_at, copy.bytes) == (ref.sha256, ref.created_at, 100)
