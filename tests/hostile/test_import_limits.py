"""Import enforces the limits before it writes, and recomputes what it can.

A 206-byte archive holding a sparse member expands to 256 MiB; a gzip archive of a few
hundred kilobytes to 64 MiB of zeros; a metadata file may say anything. Each negative control
imports the same archive with the check taken away, in a child process whose file size is
capped (``RLIMIT_FSIZE``): the write runs into the cap.
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path
from typing import Any

import pytest
from bounded import run_bounded

from truncation_core import Truncator
from truncation_core.artifacts.archive import (
    ArchiveError,
    _Restoring,
    export_session,
    import_archive,
)
from truncation_core.storage.filesystem import ArtifactRoot
from truncation_core.types.artifacts import ArtifactRef
from truncation_core.types.ids import new_artifact_id

SESSION = "s1700000000-0123456789abcdef"
FSIZE = 16 << 20  # the file-size cap of the negative controls


def write_archive(path: Path, artifact_id: str, content: tarfile.TarInfo,
                  data: io.BytesIO, *, size: int, sha256: str,
                  meta: dict[str, Any] | None = None) -> Path:
    """An archive of one artifact: the manifest, the content member, its metadata."""
    manifest = {"format": "truncation-core-artifacts", "version": 1, "session": SESSION,
                "artifacts": [{"id": artifact_id, "file": f"{artifact_id}.txt",
                               "bytes": size, "sha256": sha256}]}
    doc = {"id": artifact_id, "format": 1, "backend": "filesystem", "bytes": size,
           "sha256": sha256, "lines": 1, "chars": size, "created_at": 1.0, **(meta or {})}
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, blob in (("manifest.json", json.dumps(manifest).encode()),):
            info = tarfile.TarInfo(name)
            info.size = len(blob)
            tar.addfile(info, io.BytesIO(blob))
        tar.addfile(content, data)
        blob = json.dumps(doc).encode()
        info = tarfile.TarInfo(f"{artifact_id}.meta.json")
        info.size = len(blob)
        tar.addfile(info, io.BytesIO(blob))
    return path


def zeros_sha256(size: int, last: bytes = b"") -> str:
    digest = hashlib.sha256()
    block = bytes(1 << 20)
    left = size - len(last)
    while left:
        digest.update(block[:min(left, len(block))])
        left -= min(left, len(block))
    digest.update(last)
    return digest.hexdigest()


def sparse_archive(path: Path, size: int = 256 << 20) -> tuple[Path, str]:
    aid = new_artifact_id()
    info = tarfile.TarInfo(f"{aid}.txt")
    info.size = 1
    info.pax_headers = {"GNU.sparse.size": str(size), "GNU.sparse.numblocks": "1",
                        "GNU.sparse.offset": str(size - 1), "GNU.sparse.numbytes": "1"}
    write_archive(path, aid, info, io.BytesIO(b"x"), size=size,
                  sha256=zeros_sha256(size, b"x"))
    return path, aid


def gzip_bomb(path: Path, size: int = 64 << 20) -> tuple[Path, str]:
    aid = new_artifact_id()
    info = tarfile.TarInfo(f"{aid}.txt")
    info.size = size

    class Zeros(io.RawIOBase):
        left = size

        def readable(self) -> bool:
            return True

        def readinto(self, b: Any) -> int:
            n = min(len(b), self.left)
            b[:n] = bytes(n)
            self.left -= n
            return n

    write_archive(path, aid, info, io.BufferedReader(Zeros()), size=size,
                  sha256=zeros_sha256(size))
    return path, aid


NAIVE_IMPORT = """
    import resource, tarfile
    resource.setrlimit(resource.RLIMIT_FSIZE, ({fsize}, {fsize}))
    from truncation_core.artifacts.archive import import_archive
    from truncation_core.storage.filesystem import ArtifactRoot
    tarfile.TarInfo.issparse = lambda self: False  # the check taken away
    try:
        import_archive(ArtifactRoot({root!r}), {archive!r}, max_artifact_size=1 << 40)
        report(outcome="imported")
    except Exception as exc:
        report(outcome=type(exc).__name__, message=str(exc)[:200])
"""


def test_a_sparse_member_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    archive, _ = sparse_archive(tmp_path / "sparse.tar.gz")
    assert archive.stat().st_size < 600
    root = ArtifactRoot(str(tmp_path / "store"))
    with pytest.raises(ArchiveError, match="is a sparse file"):
        import_archive(root, archive, max_artifact_size=1 << 40)
    assert root.sessions() == []


def test_negative_control_a_sparse_member_writes_what_it_expands_to(tmp_path: Path) -> None:
    archive, _ = sparse_archive(tmp_path / "sparse.tar.gz")
    outcome = run_bounded(NAIVE_IMPORT.format(fsize=FSIZE, root=str(tmp_path / "store"),
                                              archive=str(archive)), timeout=120)
    assert outcome.result["outcome"] == "StoreFull"  # the write ran into the 16 MiB cap


def test_a_gzip_bomb_is_refused_by_its_declared_size(tmp_path: Path) -> None:
    archive, _ = gzip_bomb(tmp_path / "bomb.tar.gz")
    assert archive.stat().st_size < 1 << 20
    root = ArtifactRoot(str(tmp_path / "store"))
    with pytest.raises(ArchiveError, match=r"declares 67,108,864 bytes, more than "
                                           r"max_artifact_size \(10,485,760\)"):
        import_archive(root, archive)
    assert root.sessions() == []


def test_negative_control_a_gzip_bomb_writes_what_it_expands_to(tmp_path: Path) -> None:
    archive, _ = gzip_bomb(tmp_path / "bomb.tar.gz")
    outcome = run_bounded(NAIVE_IMPORT.format(fsize=FSIZE, root=str(tmp_path / "store"),
                                              archive=str(archive)), timeout=120)
    assert outcome.result["outcome"] == "StoreFull"


def test_the_quota_applies_to_the_declared_sizes_before_reading(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from truncation_core.artifacts import archive as archive_module

    archive, _ = gzip_bomb(tmp_path / "bomb.tar.gz", size=4 << 20)
    read: list[str] = []
    original = archive_module._count
    monkeypatch.setattr(archive_module, "_count",
                        lambda tar, member: read.append(member.name) or original(tar, member))
    root = ArtifactRoot(str(tmp_path / "store"), quota=1 << 20)
    with pytest.raises(ArchiveError, match="more than the session quota of 1,048,576 bytes"):
        import_archive(root, archive)
    assert read == [] and root.sessions() == []


def test_the_cli_import_uses_the_largest_configured_limit(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    from click.testing import CliRunner

    from truncation_core.cli import cli

    archive, _ = gzip_bomb(tmp_path / "bomb.tar.gz", size=12 << 20)
    monkeypatch.chdir(tmp_path)
    refused = CliRunner().invoke(cli, ["artifacts", "import", str(archive)])
    assert refused.exit_code == 1 and "max_artifact_size (10,485,760)" in refused.stderr
    (tmp_path / ".truncation.yaml").write_text(
        "tools:\n  dump:\n    max_artifact_size: 16777216\n")
    done = CliRunner().invoke(cli, ["artifacts", "import", str(archive)])
    assert done.exit_code == 0, done.stderr
    assert "imported 1 artifact" in done.stdout


def test_streaming_more_than_declared_is_refused() -> None:
    ref = ArtifactRef(id=new_artifact_id(), backend="archive", bytes=10)
    source = _Restoring(io.BytesIO(b"x" * 11), ref)
    assert source.read(10) == b"x" * 10
    with pytest.raises(ArchiveError, match="more content than the manifest declares"):
        source.read(10)


# -- metadata that lies --------------------------------------------------------------------------


def exported(tmp_path: Path, data: bytes, *, limit: int | None = None) -> tuple[Path, str]:
    config: dict[str, Any] = {"store": {"root": str(tmp_path / "src"), "session": SESSION}}
    if limit is not None:
        config["max_artifact_size"] = limit
    t = Truncator(config, load_entrypoints=False)
    result = t.process(data.decode(), tool="read_file")
    assert result.artifact is not None
    export_session(t.store, tmp_path / "out.tar.gz")
    return tmp_path / "out.tar.gz", result.artifact.id


def retampered(archive: Path, artifact_id: str, change: Any) -> Path:
    """The archive with its metadata document for *artifact_id* changed by *change*."""
    out = archive.with_name("tampered.tar.gz")
    with tarfile.open(archive) as src, tarfile.open(out, "w:gz") as dst:
        for member in src.getmembers():
            data = src.extractfile(member).read()  # type: ignore[union-attr]
            if member.name == f"{artifact_id}.meta.json":
                doc = json.loads(data)
                change(doc)
                data = json.dumps(doc).encode()
                member.size = len(data)
            dst.addfile(member, io.BytesIO(data))
    return out


LOG = b"".join(b"line %d of the log\n" % i for i in range(3000))


def test_line_and_character_counts_come_from_the_content(tmp_path: Path) -> None:
    archive, aid = exported(tmp_path, LOG)
    lying = retampered(archive, aid, lambda d: d.update(lines=1, chars=7))
    root = ArtifactRoot(str(tmp_path / "dst"))
    import_archive(root, lying)
    ref = root.session(SESSION).stat(aid)
    assert (ref.lines, ref.chars) == (3000, len(LOG))


def test_huge_numbers_in_metadata_are_refused(tmp_path: Path) -> None:
    archive, aid = exported(tmp_path, LOG)
    lying = retampered(archive, aid, lambda d: d.update(lines=10 ** 4000))
    with pytest.raises(ArchiveError, match="is not valid metadata"):
        import_archive(ArtifactRoot(str(tmp_path / "dst")), lying)


def test_negative_control_trusting_the_metadata_breaks_the_page_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the store shows when a metadata file says what it likes (as imported metadata
    used to be kept): a page far over the tool's 8,000-character limit."""
    from truncation_core.artifacts import documents

    monkeypatch.setattr(documents, "MAX_NUMBER", 10 ** 5000)  # the bound taken away
    t = Truncator({"store": {"root": str(tmp_path / "st"), "session": SESSION}},
                  load_entrypoints=False)
    result = t.process(LOG.decode(), tool="read_file")
    assert result.artifact is not None
    meta = tmp_path / "st" / SESSION / f"{result.artifact.id}.meta.json"
    doc = json.loads(meta.read_text())
    doc["lines"] = 10 ** 4000
    meta.write_text(json.dumps(doc))
    page = t.call_tool("get_artifact", {"artifact_id": result.artifact.id})
    assert len(page.content) > 8000
    monkeypatch.undo()
    page = t.call_tool("get_artifact", {"artifact_id": result.artifact.id})
    assert len(page.content) <= 8000 and "3,000 lines" in page.content


def test_a_cut_artifact_round_trips(tmp_path: Path) -> None:
    archive, aid = exported(tmp_path, LOG, limit=4096)
    root = ArtifactRoot(str(tmp_path / "dst"))
    import_archive(root, archive)
    ref = root.session(SESSION).stat(aid)
    assert ref.truncated and ref.cut is not None and ref.cut.original_lines == 3000


def shift(**deltas: int) -> Any:
    return lambda doc: doc["cut"].update({k: doc["cut"][k] + d for k, d in deltas.items()})


@pytest.mark.parametrize(("change", "message"), [
    # Consistent with itself, but not where the content has its head and marker.
    (shift(head_last_line=1, tail_artifact_line=1), "not where the content has it"),
    (shift(head_last_line=-1, tail_artifact_line=-1, first_line=-1),
     "not where the content has it"),
    (shift(head_bytes=-10, tail_bytes=10), "not where the content has it"),
    # Not even consistent with itself.
    (shift(tail_artifact_line=5), "is not consistent"),
    (shift(head_last_line=1), "is not consistent"),
    (lambda doc: doc["cut"].update(original_bytes=5), "no larger than what is kept"),
    (shift(tail_bytes=10 ** 6), "marker line"),
    (lambda doc: doc["cut"].update(first_line=10 ** 4000), "is not valid metadata"),
])
def test_a_cut_that_the_content_does_not_bear_out_is_refused(
        tmp_path: Path, change: Any, message: str) -> None:
    archive, aid = exported(tmp_path, LOG, limit=4096)
    lying = retampered(archive, aid, change)
    root = ArtifactRoot(str(tmp_path / "dst"))
    with pytest.raises(ArchiveError, match=message):
        import_archive(root, lying)
    store = root.session(SESSION)
    assert store.list() == []  # nothing kept: refused whole
