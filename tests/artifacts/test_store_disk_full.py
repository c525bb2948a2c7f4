"""Disk full, twice (reliability.md section 1).

1. On a real 1 MiB tmpfs mounted inside a user and mount namespace (no root needed; skipped
   only where the kernel forbids unprivileged namespaces).
2. With a fault-injection loop in SQLite's style: the k-th filesystem call fails with ENOSPC,
   for every k of a store operation, once (transient) and from then on (persistent).
3. Every errno that means "no space" (ENOSPC, EDQUOT, EFBIG) through the store, process() and
   streams, with a control showing that an errno dropped from the mapping is caught; and a
   real EFBIG from the kernel past RLIMIT_FSIZE.

Invariants after each failure: a typed StoreFull, never a half success; no partial artifact
visible; earlier artifacts intact; no temporary file left once swept; the store works again
when space returns; and a Truncator degrades to an inline truncation that says so.
"""

from __future__ import annotations

import errno
import multiprocessing
import os
import resource
import signal
import time
import types
from pathlib import Path
from typing import Any

import pytest
from namespaces import mount_private_tmpfs

from truncation_core import StoreError, StoreFull, Truncator
from truncation_core.storage import fsio
from truncation_core.storage.filesystem import (
    ROOT_MARKER,
    SESSION_MARKER,
    ArtifactRoot,
    FilesystemStore,
)

from .conftest import put


def _in_tiny_fs(q: multiprocessing.Queue, path: str, size: str, fn: Any) -> None:
    try:
        mount_private_tmpfs(path, f"size={size}")
        q.put(("ok", fn(path)))
    except OSError as exc:
        q.put(("oserror", exc.errno, str(exc)))
    except BaseException as exc:  # report anything else to the parent as a failure
        q.put(("error", repr(exc)))


def run_on_tiny_fs(fn: Any, path: Path, size: str = "1m") -> Any:
    path.mkdir(parents=True, exist_ok=True)
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_in_tiny_fs, args=(q, str(path), size, fn))
    p.start()
    result = q.get(timeout=120)
    p.join(30)
    if result[0] == "oserror" and result[1] in (errno.EPERM, errno.EACCES, errno.EINVAL):
        pytest.skip(f"user and mount namespaces are not available here: {result[2]}")
    assert result[0] == "ok", result
    return result[1]


def _fill_the_disk(path: str) -> dict[str, Any]:
    root = os.path.join(path, "artifacts")
    store = FilesystemStore(root, "full")
    payload = b"".join(b"%06d tiny filesystem\n" % i for i in range(4500))  # ~100 kB
    stored, full, other = [], 0, []
    for _ in range(40):
        try:
            stored.append(put(store, payload).id)
        except StoreFull:
            full += 1
        except StoreError as exc:
            other.append(repr(exc))
    session = os.path.join(root, "full")
    leftovers = [n for n in os.listdir(session) if n.startswith(".tmp-")]
    intact = all(store.read(i) == payload for i in stored)
    listed = sorted(r.id for r in store.list())
    # Space returns: delete some, store again.
    for artifact_id in stored[:3]:
        store.delete(artifact_id)
    again = put(store, payload).id
    # End to end: a Truncator on a full disk degrades to an inline truncation that says so.
    filler = os.path.join(path, "filler")
    with open(filler, "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    truncator = Truncator({"inline_limit": 2000, "store": {"root": root}},
                          load_entrypoints=False)
    big = "".join(f"{i:06d} build output line\n" for i in range(40_000))
    result = truncator.process(big, tool="execute_command")
    return {
        "stored": len(stored), "full": full, "other": other, "leftovers": leftovers,
        "intact": intact, "listed_ok": listed == sorted(stored),
        "again": store.read(again) == payload,
        "content": result.content, "artifact": result.artifact,
        "artifact_error": result.metadata.artifact_error,
        "was_truncated": result.metadata.was_truncated,
        "session_leftovers": [n for d in os.listdir(root) if d != ROOT_MARKER
                              for n in os.listdir(os.path.join(root, d))
                              if n.startswith(".tmp-")],
    }


@pytest.mark.timeout(120)
def test_real_enospc_on_a_tiny_tmpfs(tmp_path: Path) -> None:
    r = run_on_tiny_fs(_fill_the_disk, tmp_path / "mnt")
    assert r["stored"] >= 3 and r["full"] >= 10 and r["other"] == []
    assert r["leftovers"] == [] and r["session_leftovers"] == []
    assert r["intact"] and r["listed_ok"] and r["again"]
    assert r["was_truncated"] and r["artifact"] is None
    assert r["artifact_error"] == "the artifact store is full"
    assert "the full output could not be kept: the artifact store is full" in r["content"]
    assert len(r["content"]) <= 2000


class FaultyOS(types.ModuleType):
    """The os module, except that the k-th I/O call fails with *code* (ENOSPC by default; and,
    persistent, every one after it). ``close`` really closes before failing, as the kernel
    does."""

    CALLS = ("open", "write", "fsync", "close", "replace", "rename", "unlink", "mkdir")

    def __init__(self, k: int, persistent: bool = False, code: int = errno.ENOSPC) -> None:
        super().__init__("faulty_os")
        self.n, self.k, self.persistent, self.code = 0, k, persistent, code

    def __getattr__(self, name: str) -> Any:
        real = getattr(os, name)
        if name not in self.CALLS:
            return real

        def call(*args: Any, **kwargs: Any) -> Any:
            self.n += 1
            if self.n == self.k or (self.persistent and self.n >= self.k):
                if name == "close":
                    real(*args, **kwargs)
                raise OSError(self.code, f"injected: {os.strerror(self.code)}")
            return real(*args, **kwargs)

        return call


def _check_invariants(store: FilesystemStore, root: Path, earlier: dict[str, bytes],
                      payload: bytes, new_id: str | None) -> None:
    session = root / store.session_id
    for ref in store.list():
        expected = earlier.get(ref.id, payload)
        assert store.read(ref.id) == expected, "a visible artifact is partial"
    for artifact_id, data in earlier.items():
        assert store.read(artifact_id) == data, "an earlier artifact was damaged"
    if new_id is not None:
        assert store.read(new_id) == payload
    ArtifactRoot(str(root)).sweep(now=time.time() + 2 * 86400)
    names = os.listdir(session)
    assert [n for n in names if n.startswith(".tmp-")] == []
    contents = {n.split(".")[0] for n in names if n.endswith((".txt", ".json"))
                and not n.endswith(".meta.json")}
    metas = {n.split(".")[0] for n in names if n.endswith(".meta.json")}
    assert metas <= contents, "metadata without content was left behind"


def _fail_each_call_in_turn(monkeypatch: pytest.MonkeyPatch, store: FilesystemStore,
                            root: Path, payload: bytes, *, persistent: bool = False,
                            code: int = errno.ENOSPC) -> tuple[int, int]:
    """Put *payload* once for each I/O call k of a put, with the k-th call (and, persistent,
    every one after it) failing with *code*; check the invariants after each. Each failure
    must be a StoreFull with that errno (any other error fails the test). Returns the number
    of calls of a put and the number of puts that failed."""
    earlier = {put(store, b"earlier artifact\n").id: b"earlier artifact\n"}
    counter = FaultyOS(-1)
    monkeypatch.setattr(fsio, "os", counter)
    put(store, payload)
    monkeypatch.setattr(fsio, "os", os)
    failures = 0
    for k in range(1, counter.n + 1):
        monkeypatch.setattr(fsio, "os", FaultyOS(k, persistent, code))
        new_id = None
        try:
            new_id = put(store, payload).id
        except StoreFull as exc:
            assert exc.errno == code
            failures += 1
        finally:
            monkeypatch.setattr(fsio, "os", os)
        _check_invariants(store, root, earlier, payload, new_id)
        if new_id is not None:
            earlier[new_id] = payload
    return counter.n, failures


@pytest.mark.parametrize("size", [0, 10, 300_000, 3 << 20])  # 3 MiB: written beside the hash
@pytest.mark.parametrize("persistent", [False, True])
@pytest.mark.parametrize("durable", [False, True])
def test_fail_the_kth_io_call_for_every_k(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          size: int, persistent: bool, durable: bool) -> None:
    root = tmp_path / "artifacts"
    store = FilesystemStore(ArtifactRoot(str(root), fsync=durable), "faults")
    payload = (b"0123456789abcdef\n" * (size // 17 + 1))[:size]
    total, failures = _fail_each_call_in_turn(monkeypatch, store, root, payload,
                                              persistent=persistent)
    assert total >= 6  # create, write, close, meta (open, write, close, rename), rename
    assert failures >= total - 2  # only failures in cleanup after success may be absorbed
    assert store.read(put(store, payload).id) == payload  # works again


def test_process_degrades_when_the_store_fails(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    truncator = Truncator({"inline_limit": 500, "store": {"root": str(tmp_path / "a")}},
                          load_entrypoints=False)
    truncator.process("warm up\n" * 200)  # directories exist
    monkeypatch.setattr(fsio, "os", FaultyOS(2, persistent=True))
    result = truncator.process("x\n" * 5000, tool="read_file")
    monkeypatch.setattr(fsio, "os", os)
    assert result.artifact is None
    assert result.metadata.artifact_error == "the artifact store is full"
    assert "the full output could not be kept" in result.content
    assert len(result.content) <= 500


#: The errnos that mean "no space" (fsio.FULL_ERRNOS), written out here so that dropping one
#: from the mapping fails the tests below: a full disk, a full quota, a file over the size
#: limit of the process (RLIMIT_FSIZE) or of the filesystem.
NO_SPACE = [errno.ENOSPC, errno.EDQUOT, errno.EFBIG]


def _errno_name(code: int) -> str:
    return errno.errorcode[code]


@pytest.mark.parametrize("code", NO_SPACE, ids=_errno_name)
def test_every_no_space_errno_at_every_step_is_a_store_full(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    root = tmp_path / "artifacts"
    store = FilesystemStore(str(root), "errnos")
    total, failures = _fail_each_call_in_turn(monkeypatch, store, root,
                                              b"0123456789abcdef\n" * 64, code=code)
    assert failures >= total - 2  # only failures in cleanup after success may be absorbed


def _truncate_on_a_failing_disk(truncator: Truncator, monkeypatch: pytest.MonkeyPatch,
                                code: int, path: str) -> Any:
    """Truncate a 5000-line text through *path* (``process`` or ``stream``) while every
    filesystem call from the second on fails with *code*."""
    content = "".join(f"line {i} of a file\n" for i in range(5000))
    monkeypatch.setattr(fsio, "os", FaultyOS(2, persistent=True, code=code))
    try:
        if path == "process":
            return truncator.process(content, tool="read_file")
        with truncator.stream(tool="read_file") as s:
            for i in range(0, len(content), 4096):
                s.write(content[i:i + 4096])
            return s.result()
    finally:
        monkeypatch.setattr(fsio, "os", os)


@pytest.mark.parametrize("path", ["process", "stream"])
@pytest.mark.parametrize("code", NO_SPACE, ids=_errno_name)
def test_a_truncator_on_a_full_disk_degrades_inline_and_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, path: str) -> None:
    root = tmp_path / "a"
    truncator = Truncator({"inline_limit": 500, "store": {"root": str(root)}},
                          load_entrypoints=False)
    warm = truncator.process("warm up\n" * 200).artifact  # directories exist, one artifact
    assert warm is not None
    result = _truncate_on_a_failing_disk(truncator, monkeypatch, code, path)
    assert result.artifact is None and result.metadata.was_truncated
    assert result.metadata.artifact_error == "the artifact store is full"
    assert "the full output could not be kept: the artifact store is full" in result.content
    assert len(result.content) <= 500
    # No partial artifact: only the earlier one is visible, and once its temporary file is
    # swept (its cleanup failed too: the disk is still full) nothing else is left.
    assert [ref.id for ref in truncator.store.list()] == [warm.id]
    ArtifactRoot(str(root)).sweep(now=time.time() + 2 * 86400)
    assert sorted(os.listdir(root / truncator.store.session_id)) == \
        [SESSION_MARKER, f"{warm.id}.meta.json", f"{warm.id}.txt"]


def _over_the_file_size_limit(q: multiprocessing.Queue, root: str) -> None:
    """In a child: a real EFBIG from the kernel, past RLIMIT_FSIZE (SIGXFSZ ignored, so the
    write fails instead of killing the process)."""
    try:
        store = FilesystemStore(root, "fsize")
        small = put(store, b"small artifact\n").id
        truncator = Truncator({"inline_limit": 500, "store": {"root": root}},
                              load_entrypoints=False)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.RLIM_INFINITY))
        try:
            put(store, b"y" * 1_000_000)
            raised: tuple[str, int | None] = ("nothing", None)
        except StoreError as exc:
            raised = (type(exc).__name__, exc.errno)
        result = truncator.process("".join(f"row {i}\n" for i in range(100_000)))
        q.put(("ok", raised, result.metadata.artifact_error, result.artifact is None,
               [r.id for r in store.list()] == [small]))
    except BaseException as exc:  # report anything else to the parent as a failure
        q.put(("error", repr(exc)))


def test_real_efbig_past_the_file_size_limit(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_over_the_file_size_limit, args=(q, str(tmp_path / "artifacts")))
    p.start()
    outcome = q.get(timeout=60)
    p.join(30)
    assert outcome == ("ok", ("StoreFull", errno.EFBIG), "the artifact store is full", True,
                       True)


@pytest.mark.parametrize("code", NO_SPACE, ids=_errno_name)
def test_control_an_errno_left_out_of_the_mapping_is_not_reported_as_full(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    """Negative control for the two tests above: with *code* dropped from fsio.FULL_ERRNOS,
    the same faults are a plain StoreError and the result says that the store failed, so
    those tests fail if the mapping loses an errno."""
    monkeypatch.setattr(fsio, "FULL_ERRNOS", fsio.FULL_ERRNOS - {code})
    store = FilesystemStore(str(tmp_path / "artifacts"), "unmapped")
    put(store, b"warm up\n")
    monkeypatch.setattr(fsio, "os", FaultyOS(2, code=code))  # the first write
    with pytest.raises(StoreError) as caught:
        put(store, b"x\n" * 1000)
    monkeypatch.setattr(fsio, "os", os)
    assert caught.value.errno == code and not isinstance(caught.value, StoreFull)
    truncator = Truncator({"inline_limit": 500, "store": {"root": str(tmp_path / "a")}},
                          load_entrypoints=False)
    truncator.process("warm up\n" * 200)
    for path in ("process", "stream"):
        result = _truncate_on_a_failing_disk(truncator, monkeypatch, code, path)
        assert result.metadata.artifact_error == "the artifact store failed"


def test_control_a_naive_writer_breaks_both_invariants(tmp_path: Path) -> None:
    """Negative control: a single os.write (no loop) stores a truncated artifact on a short
    write, and a writer without cleanup leaves its partial temporary file on ENOSPC."""
    directory = tmp_path / "naive"
    directory.mkdir()
    payload = b"z" * 100_000

    class ShortWrites(types.ModuleType):
        def __getattr__(self, name: str) -> Any:
            if name == "write":
                return lambda fd, data: os.write(fd, bytes(data)[: max(1, len(data) // 2)])
            return getattr(os, name)

    def naive_put(osmod: Any, name: str) -> None:
        fd = osmod.open(str(directory / f".tmp-{name}"), os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            osmod.write(fd, payload)
        finally:
            os.close(fd)
        osmod.replace(str(directory / f".tmp-{name}"), str(directory / name))

    naive_put(ShortWrites("short"), "short.txt")
    assert len((directory / "short.txt").read_bytes()) < len(payload)  # silently truncated
    with pytest.raises(OSError):
        naive_put(FaultyOS(2), "full.txt")
    assert (directory / ".tmp-full.txt").exists()  # left behind

    # The store, with the same short writes, loops and stores everything.
    store = FilesystemStore(str(tmp_path / "artifacts"), "loops")
    fsio_os, fsio.os = fsio.os, ShortWrites("short")
    try:
        ref = put(store, payload)
    finally:
        fsio.os = fsio_os
    assert store.read(ref.id) == payload
