"""The filesystem store: layout, metadata, permissions, ids, sessions, retention, quota."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import secrets
import stat
import threading
import time
from pathlib import Path

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import truncation_core.types.ids as artifacts_module
from truncation_core import (
    ArtifactNotFound,
    ConfigError,
    InvalidArtifactId,
    InvalidSessionId,
    StoreConfig,
    Truncator,
)
from truncation_core.storage import filesystem as filesystem_store
from truncation_core.storage.filesystem import (
    ROOT_MARKER,
    SESSION_MARKER,
    ArtifactRoot,
    FilesystemStore,
)
from truncation_core.storage.memory import MemoryStore
from truncation_core.types.artifacts import ArtifactInfo, ArtifactRef
from truncation_core.types.ids import new_artifact_id
from truncation_core.types.storage import ArtifactStore

from .conftest import put, session_dir


def test_round_trip_layout_and_metadata(store: FilesystemStore, root_path: Path) -> None:
    text_ref = put(store, b"one\ntwo\n", tool="execute_command", tool_call_id="call_1",
                   server="shell", summary="make test", chars=8, lines=2)
    json_ref = put(store, b'{"a": [1, 2]}', tool="search", content_type="application/json",
                   chars=13, lines=1)
    d = session_dir(root_path)
    names = sorted(os.listdir(d))
    assert names == sorted([SESSION_MARKER, f"{text_ref.id}.txt", f"{text_ref.id}.meta.json",
                            f"{json_ref.id}.json", f"{json_ref.id}.meta.json"])
    assert sorted(os.listdir(root_path)) == sorted([ROOT_MARKER, "test-session"])
    assert (d / f"{text_ref.id}.txt").read_bytes() == b"one\ntwo\n"
    assert json.loads((d / f"{json_ref.id}.json").read_bytes()) == {"a": [1, 2]}
    assert store.read(text_ref.id) == b"one\ntwo\n"
    ref = store.stat(text_ref.id)
    assert ref == text_ref
    assert (ref.tool, ref.tool_call_id, ref.server, ref.summary) == (
        "execute_command", "call_1", "shell", "make test")
    assert (ref.chars, ref.bytes, ref.lines, ref.session) == (8, 8, 2, "test-session")
    assert abs(ref.created_at - time.time()) < 60
    assert [r.id for r in store.list()] == [text_ref.id, json_ref.id]
    # The sha256 is in the committed ref and in the metadata file.
    digest = hashlib.sha256(b"one\ntwo\n").hexdigest()
    assert text_ref.sha256 == digest == store.checksum(text_ref.id)
    assert json.loads((d / f"{text_ref.id}.meta.json").read_bytes())["sha256"] == digest
    assert store.delete(text_ref.id) is True
    assert store.delete(text_ref.id) is False
    with pytest.raises(ArtifactNotFound):
        store.open(text_ref.id)
    assert [r.id for r in store.list()] == [json_ref.id]


def test_both_builtin_stores_satisfy_the_protocol(store: FilesystemStore) -> None:
    for s in (store, MemoryStore()):
        assert isinstance(s, ArtifactStore)
        ref = put(s, b"x\ny\n", lines=2, chars=4)
        assert s.read(ref.id) == b"x\ny\n"
        other = s.for_session("other")
        with pytest.raises(ArtifactNotFound):
            other.stat(ref.id)
        assert s.delete_session() == 1
        with pytest.raises(ArtifactNotFound):
            s.stat(ref.id)


@pytest.mark.parametrize("umask", [0o022, 0o000])
def test_files_are_0600_and_directories_0700(tmp_path: Path, umask: int) -> None:
    old = os.umask(umask)
    try:
        root = tmp_path / "ws" / ".truncation" / "artifacts"
        s = FilesystemStore(str(root), "perm")
        ref = put(s, b"secret\n")
    finally:
        os.umask(old)
    for directory in (tmp_path / "ws" / ".truncation", root, root / "perm"):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory
    names = os.listdir(root / "perm")
    assert sorted(names) == sorted([SESSION_MARKER, f"{ref.id}.txt", f"{ref.id}.meta.json"])
    assert stat.S_IMODE((root / ROOT_MARKER).stat().st_mode) == 0o600
    for name in names:
        assert stat.S_IMODE((root / "perm" / name).stat().st_mode) == 0o600, name


def test_control_naive_creation_follows_the_umask(tmp_path: Path) -> None:
    """Negative control: open() and os.makedirs() under umask 022 make files every local
    user can read (0644) and intermediate directories they can list (0755)."""
    old = os.umask(0o022)
    try:
        os.makedirs(tmp_path / "ws" / "artifacts", mode=0o700)
        (tmp_path / "ws" / "artifacts" / "a.txt").write_bytes(b"secret\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "ws").stat().st_mode) == 0o755
    assert stat.S_IMODE((tmp_path / "ws" / "artifacts" / "a.txt").stat().st_mode) == 0o644


def test_a_loose_directory_of_ours_is_made_private(root_path: Path) -> None:
    put(FilesystemStore(str(root_path), "first"), b"x")  # the store makes the root
    (root_path / "loose").mkdir(parents=True)
    os.chmod(root_path, 0o755)
    os.chmod(root_path / "loose", 0o777)
    put(FilesystemStore(str(root_path), "loose"), b"x")
    assert stat.S_IMODE(root_path.stat().st_mode) == 0o700
    assert stat.S_IMODE((root_path / "loose").stat().st_mode) == 0o700


def test_ids_come_from_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = secrets.token_hex

    def spy(n: int) -> str:
        calls.append(n)
        return real(n)

    monkeypatch.setattr(secrets, "token_hex", spy)
    artifact_id = new_artifact_id()
    assert calls == [16]  # 128 bits
    assert re.fullmatch(r"art_[0-9]+_[0-9a-f]{32}", artifact_id)
    source = Path(artifacts_module.__file__).read_text()
    assert "import random" not in source and "from random" not in source
    assert len({new_artifact_id() for _ in range(100_000)}) == 100_000


HOSTILE_IDS = [
    "", ".", "..", "../x", "a/../../x", "/etc/passwd", "//x", "a/b", "a\\b", "..\\..\\x", "C:x",
    "C:\\x", "\\\\?\\C:\\x", "\\\\server\\share", "id:stream", "CON", "NUL", "COM1", "LPT1", "x.",
    "x ", "a\0b", "art_1_" + "0" * 32 + "\n", ("art_1_" + "a" * 32).upper(), "art_1_" + "A" * 32,
    "０" * 32, "art_١٢٣_" + "0" * 32, "art_1_" + "０" * 32, "．．／x", "\u2215", "\u2024\u2024/",  # noqa: RUF001
    "%2e%2e%2f", "x" * 300, "x" * 5000, "-art_1_" + "0" * 32, "art_01_" + "0" * 32,
    "art_1_" + "0" * 31, "art_1_" + "0" * 33, " art_1_" + "0" * 32, "art_1_" + "0" * 32 + ".txt",
    "art_1_" + "0" * 32 + "/../x", b"art_1_" + b"0" * 32, 1, None, Path("art_1_" + "0" * 32),
]


class _NoFilesystem:
    """Stands in for the os module in fsio: any filesystem call fails the test."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"filesystem touched: os.{name}")


@pytest.mark.parametrize("hostile", HOSTILE_IDS, ids=lambda v: repr(v)[:40])
def test_hostile_ids_are_rejected_before_any_filesystem_access(
        store: FilesystemStore, monkeypatch: pytest.MonkeyPatch, hostile: object) -> None:
    from truncation_core.storage import fsio

    monkeypatch.setattr(fsio, "os", _NoFilesystem())
    operations = (store.open, store.stat, store.delete, store.read, store.checksum,
                  store.text, lambda v: store.lines(v, 1), lambda v: store.tail(v, 1),
                  lambda v: store.page(v, 0), lambda v: store.grep(v, "x"), store.root.find,
                  lambda v: store.restore(ArtifactRef(id=v, backend="filesystem"), None))
    for operation in operations:
        with pytest.raises(InvalidArtifactId) as info:
            operation(hostile)  # type: ignore[arg-type]
        # The message describes the id without repeating it (log injection, content leaks).
        if isinstance(hostile, str) and len(hostile) > 3:
            assert hostile not in str(info.value)


def test_hostile_ids_control_a_naive_join_escapes(tmp_path: Path) -> None:
    """Negative control: without validation, the same ids reach outside the directory."""
    (tmp_path / "secret").write_text("SECRET")
    root = tmp_path / "root"
    root.mkdir()
    assert (root / "../secret").read_text() == "SECRET"
    assert Path(os.path.join(str(root), str(tmp_path / "secret"))).read_text() == "SECRET"


@settings(max_examples=300, deadline=None)
@given(value=st.text(max_size=80))
def test_any_text_outside_the_id_form_is_rejected(value: str) -> None:
    if re.fullmatch(r"art_[1-9][0-9]{0,15}_[0-9a-f]{32}", value, flags=re.ASCII) and (
            "\n" not in value):
        return
    with pytest.raises(InvalidArtifactId):
        artifacts_module.validate_artifact_id(value)


@pytest.mark.parametrize("bad", ["", ".", "..", "../x", "A", "a/b", ".hidden", "x" * 65, "a b",
                                 "ä", "a\n", "a\0b", 5, None])
def test_hostile_session_ids_are_rejected(root_path: Path, bad: object,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from truncation_core.storage import fsio

    root = ArtifactRoot(str(root_path))
    store = root.session("fine")
    monkeypatch.setattr(fsio, "os", _NoFilesystem())  # rejected before any filesystem access
    for operation in (lambda v: FilesystemStore(str(root_path), v), root.session,
                      store.for_session, root.delete_session):
        if bad is None and operation is not root.delete_session:
            continue  # None means "a new session" there
        with pytest.raises(InvalidSessionId):
            operation(bad)  # type: ignore[arg-type]
    monkeypatch.undo()
    if bad is not None:
        with pytest.raises(ConfigError, match="session"):
            StoreConfig(session=bad)  # type: ignore[arg-type]


def test_store_config_validation_names_the_field() -> None:
    with pytest.raises(ConfigError, match="retention_days"):
        StoreConfig(retention_days=-1)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="quota"):
        StoreConfig(quota=0)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="root"):
        StoreConfig(root="")  # type: ignore[arg-type]


def test_default_backend_is_the_filesystem_under_the_workspace(tmp_path: Path) -> None:
    (tmp_path / ".truncation.yaml").write_text("inline_limit: 100\n")
    sub = tmp_path / "deep" / "er"
    sub.mkdir(parents=True)
    t = Truncator.from_config(start=sub, environ={}, load_entrypoints=False)
    assert isinstance(t.store, FilesystemStore)
    assert t.store.root.path == str(tmp_path / ".truncation" / "artifacts")
    assert not (tmp_path / ".truncation").exists()  # nothing is created until needed
    result = t.process("x\n" * 200)
    assert result.artifact is not None
    assert (tmp_path / ".truncation" / "artifacts" / t.store.session_id).is_dir()


def test_missing_metadata_is_rebuilt_from_the_content(store: FilesystemStore,
                                                      root_path: Path) -> None:
    ref = put(store, "a\r\nb\rc é".encode(), tool="t", chars=8, lines=3)
    meta = session_dir(root_path) / f"{ref.id}.meta.json"
    own = f'{{"id": "{ref.id}", '
    for damaged in (None, "{not json", '{"id": "art_1_' + "0" * 32 + '"}', '{"id": 5}',
                    own + '"lines": -5}', own + '"created_at": NaN}', own + '"bytes": 1e999}'):
        meta.unlink(missing_ok=True)
        if damaged is not None:
            meta.write_text(damaged)
        rebuilt = store.stat(ref.id)
        assert (rebuilt.id, rebuilt.bytes, rebuilt.lines, rebuilt.chars, rebuilt.sha256) == (
            ref.id, ref.bytes, 3, 8, ref.sha256)
        assert [r.id for r in store.list()] == [ref.id]


def test_unknown_and_evicted_ids_raise_not_found_with_a_reason(root_path: Path) -> None:
    s = FilesystemStore(ArtifactRoot(str(root_path), quota=250), "q")
    first = put(s, b"a" * 100)
    time.sleep(0.01)
    second = put(s, b"b" * 100)
    time.sleep(0.01)
    third = put(s, b"c" * 100)  # 300 > 250: the oldest goes
    with pytest.raises(ArtifactNotFound) as info:
        s.open(first.id)
    assert info.value.reason is not None and "quota" in info.value.reason
    assert s.read(second.id) == b"b" * 100 and s.read(third.id) == b"c" * 100
    assert s.usage() == 200
    with pytest.raises(ArtifactNotFound) as unknown:
        s.open(new_artifact_id())
    assert unknown.value.reason is None


def test_an_artifact_larger_than_the_quota_is_store_full(root_path: Path) -> None:
    from truncation_core import StoreFull

    s = FilesystemStore(ArtifactRoot(str(root_path), quota=100), "q")
    kept = put(s, b"k" * 50)
    with pytest.raises(StoreFull):
        put(s, b"x" * 101)
    assert s.read(kept.id) == b"k" * 50
    assert [n for n in os.listdir(session_dir(root_path, "q")) if n.startswith(".tmp")] == []


def test_quota_eviction_is_seen_by_the_tool_as_404_with_reason(root_path: Path) -> None:
    t = Truncator({"inline_limit": 100, "store": {"root": str(root_path), "quota": 3000}},
                  load_entrypoints=False)
    first = t.process("x" * 2000)
    time.sleep(0.01)
    t.process("y" * 2000)
    result = t.call_tool("get_artifact", {"artifact_id": first.artifact.id})
    assert result.error is not None and result.error.code == 404
    assert "evicted" in result.content and "quota" in result.content


def _age(path: Path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


def test_retention_sweep_deletes_old_sessions_and_old_temp_files(root_path: Path) -> None:
    root = ArtifactRoot(str(root_path), retention_days=7)
    old = root.session("old-one")
    kept = put(root.session("fresh"), b"fresh")
    put(old, b"old")
    leftover = f".tmp-{new_artifact_id()}.data.0123abcd"
    in_progress = f".tmp-{new_artifact_id()}.meta.4567cdef"
    (session_dir(root_path, "fresh") / leftover).write_bytes(b"partial")
    (session_dir(root_path, "fresh") / in_progress).write_bytes(b"partial")
    _age(session_dir(root_path, "fresh") / leftover, 2 * 86400)
    _age(session_dir(root_path, "old-one"), 8 * 86400)
    outside = root_path.parent / "not-a-session"
    outside.mkdir()
    (root_path / "link-session").symlink_to(outside)
    report = root.sweep()
    assert report.sessions == ("old-one",)
    assert report.temp_files == 1
    assert not session_dir(root_path, "old-one").exists()
    assert sorted(os.listdir(session_dir(root_path, "fresh"))) == sorted(
        [SESSION_MARKER, f"{kept.id}.txt", f"{kept.id}.meta.json", in_progress])
    assert outside.is_dir() and (root_path / "link-session").is_symlink()


def test_retention_sweep_runs_lazily_once_per_process(root_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    put(FilesystemStore(str(root_path), "old-one"), b"old")
    _age(session_dir(root_path, "old-one"), 8 * 86400)
    monkeypatch.setattr(filesystem_store, "_SWEPT", set())  # as in a new process
    t = Truncator({"inline_limit": 10, "store": {"root": str(root_path)}},
                  load_entrypoints=False)
    assert session_dir(root_path, "old-one").exists()  # constructing sweeps nothing
    t.process("short")  # nor does the pass-through path
    assert session_dir(root_path, "old-one").exists()
    t.process("x" * 100)  # the first artifact stored sweeps
    assert not session_dir(root_path, "old-one").exists()
    put(FilesystemStore(str(root_path), "old-two"), b"old")
    _age(session_dir(root_path, "old-two"), 8 * 86400)
    t.process("y" * 100)
    Truncator({"inline_limit": 10, "store": {"root": str(root_path)}},
              load_entrypoints=False).process("z" * 100)
    assert session_dir(root_path, "old-two").exists()  # once per process


def test_retention_zero_never_deletes(root_path: Path) -> None:
    root = ArtifactRoot(str(root_path), retention_days=0)
    put(root.session("ancient"), b"x")
    _age(session_dir(root_path, "ancient"), 1000 * 86400)
    assert root.sweep().sessions == ()


def test_session_end_deletes_its_artifacts_unless_kept(truncator: Truncator,
                                                       root_path: Path) -> None:
    big = "line\n" * 3000
    with truncator.session() as s:
        ref = truncator.process(big).artifact
        assert ref is not None and ref.session == s.id
        assert truncator.artifacts.read(ref.id) == big.encode()
        assert truncator.call_tool("artifact_head", {"artifact_id": ref.id}).error is None
    assert not session_dir(root_path, s.id).exists()
    with pytest.raises(ArtifactNotFound):
        truncator.store.for_session(s.id).stat(ref.id)
    outside = truncator.process(big).artifact
    assert outside is not None and outside.session == truncator.store.session_id
    with truncator.session("kept-one", keep=True):
        kept = truncator.process(big).artifact
    assert FilesystemStore(str(root_path), "kept-one").read(kept.id) == big.encode()
    with truncator.session() as late:
        late_ref = truncator.process(big).artifact
        late.keep = True
    assert truncator.store.for_session(late.id).read(late_ref.id) == big.encode()


def test_sessions_are_per_context_and_async(truncator: Truncator, root_path: Path) -> None:
    big = "row\n" * 3000

    async def task(name: str) -> tuple[str, str]:
        async with truncator.session(name) as s:
            await asyncio.sleep(0)
            result = await truncator.aprocess(big, tool="execute_command")
            await asyncio.sleep(0)
            assert result.artifact is not None and result.artifact.session == s.id
            assert truncator.store.session_id == name
            return s.id, result.artifact.id

    async def main() -> list[tuple[str, str]]:
        return await asyncio.gather(task("task-a"), task("task-b"))

    done = asyncio.run(main())
    assert sorted(s for s, _ in done) == ["task-a", "task-b"]
    for s, _ in done:
        assert not session_dir(root_path, s).exists()
    assert truncator.store.session_id not in ("task-a", "task-b")


def test_store_works_after_its_session_directory_is_removed(store: FilesystemStore,
                                                            root_path: Path) -> None:
    put(store, b"one")
    import shutil

    shutil.rmtree(session_dir(root_path))
    ref = put(store, b"two")
    assert store.read(ref.id) == b"two"


def test_other_users_directories_are_refused(root_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from truncation_core import StoreError

    put(FilesystemStore(str(root_path), "mine"), b"x")
    real_geteuid = os.geteuid
    monkeypatch.setattr(os, "geteuid", lambda: real_geteuid() + 1)
    with pytest.raises(StoreError, match="refused"):
        put(FilesystemStore(str(root_path), "mine"), b"y")


@pytest.mark.parametrize("kind", [bytes, bytearray, memoryview])
def test_sha256_of_large_chunks_hashed_beside_the_write(store: FilesystemStore, kind: type) -> None:
    """Chunks of a megabyte and more are written on a helper thread while they are hashed;
    both are done when write() returns, so the caller may reuse its buffer at once."""
    chunks = [kind(bytearray(os.urandom(64)) * (3 << 14)) for _ in range(3)]  # 3 MiB each
    chunks.insert(1, kind(b"small\n"))
    expected = hashlib.sha256(b"".join(bytes(c) for c in chunks))
    with store.writer(ArtifactInfo()) as w:
        for chunk in chunks:
            w.write(chunk)
            if isinstance(chunk, bytearray):
                chunk[:] = b"\0" * len(chunk)  # reused by the caller right away
        ref = w.commit()
    assert ref.sha256 == expected.hexdigest() == hashlib.sha256(store.read(ref.id)).hexdigest()
    assert store.stat(ref.id).sha256 == ref.sha256


def test_a_failed_background_write_is_reported_and_leaves_nothing(
        store: FilesystemStore, root_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from truncation_core import StoreFull
    from truncation_core.storage import fsio

    from .test_store_disk_full import FaultyOS

    big = os.urandom(3 << 20)
    with store.writer(ArtifactInfo()) as w:  # the session directory exists
        w.write(b"x")
        w.commit()
    writers: set[int] = set()

    class Recording(FaultyOS):
        def __getattr__(self, name: str) -> object:
            call = super().__getattr__(name)
            if name != "write":
                return call

            def write(*args: object) -> object:
                writers.add(threading.get_ident())
                return call(*args)  # type: ignore[operator]

            return write

    monkeypatch.setattr(fsio, "os", Recording(3))  # the 3rd call: the write's 2nd 1 MiB piece
    with pytest.raises(StoreFull), store.writer(ArtifactInfo()) as w:
        w.write(big)
    monkeypatch.setattr(fsio, "os", os)
    assert writers and threading.get_ident() not in writers  # it failed on the helper thread
    assert [n for n in os.listdir(session_dir(root_path)) if n.startswith(".tmp")] == []
    assert len(store.list()) == 1


def test_sha256_is_none_when_a_backend_does_not_record_it(store: FilesystemStore) -> None:
    """ArtifactRef.sha256 never pretends: a plugin backend that does not hash leaves it None,
    and checksum() then hashes the content."""
    from truncation_core.retrieval import reader_for

    ref = put(store, b"some content\n")

    class Minimal:  # only what the ArtifactStore protocol asks for reading
        def open(self, artifact_id: str) -> object:
            return store.open(artifact_id)

        def stat(self, artifact_id: str) -> ArtifactRef:
            return attrs.evolve(store.stat(artifact_id), sha256=None)

    assert ArtifactRef(id=ref.id, backend="plugin").sha256 is None
    reader = reader_for(Minimal())  # type: ignore[arg-type]
    assert reader.stat(ref.id).sha256 is None
    assert reader.checksum(ref.id) == hashlib.sha256(b"some content\n").hexdigest()
