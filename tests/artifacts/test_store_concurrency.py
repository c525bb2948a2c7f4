"""Concurrency: 8 processes x 500 artifacts into one session, with a concurrent reader and a
concurrent cleaner; every artifact retrievable and byte-identical (reliability.md section 3).

Payloads are self-verifying (sha256 + body), so the reader checks every artifact it can see
while writers are still writing. The cleaner runs the retention sweep over and over (other
sessions, temporary files past the grace period): it must never remove a live artifact or a
write in progress.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import time
from pathlib import Path

import pytest

from truncation_core import ArtifactNotFound
from truncation_core.artifacts import ArtifactInfo
from truncation_core.builtins.filesystem_store import ArtifactRoot, FilesystemStore

PROCESSES = 8
PER_PROCESS = 500
SESSION = "shared"


def _payload(worker: int, n: int) -> bytes:
    body = f"worker {worker} artifact {n}\n".encode() * (1 + (worker * 7 + n) % 40)
    return hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def _intact(data: bytes) -> bool:
    digest, _, body = data.partition(b"\n")
    return hashlib.sha256(body).hexdigest().encode() == digest


def _writer(root: str, worker: int, start: multiprocessing.synchronize.Event,
            out: multiprocessing.Queue) -> None:
    store = FilesystemStore(root, SESSION)
    start.wait()
    ids = []
    for n in range(PER_PROCESS):
        with store.writer(ArtifactInfo(tool=f"w{worker}")) as w:
            w.write(_payload(worker, n))
            ids.append(w.commit().id)
    out.put((worker, ids))


def _reader(root: str, stop: multiprocessing.synchronize.Event,
            out: multiprocessing.Queue) -> None:
    store = FilesystemStore(root, SESSION)
    reads = corrupt = 0
    while not stop.is_set():
        for ref in store.list():
            try:
                data = store.read(ref.id)
            except ArtifactNotFound:
                continue
            reads += 1
            corrupt += not _intact(data)
    out.put((reads, corrupt))


def _cleaner(root: str, stop: multiprocessing.synchronize.Event,
             out: multiprocessing.Queue) -> None:
    sweeps = 0
    while not stop.is_set():
        ArtifactRoot(root, retention_days=7).sweep()
        sweeps += 1
    out.put(sweeps)


@pytest.mark.timeout(180)
def test_many_processes_store_concurrently_with_a_reader_and_a_cleaner(tmp_path: Path) -> None:
    root = str(tmp_path / "artifacts")
    # An old session for the cleaner to delete while the others write.
    FilesystemStore(root, "stale").writer(ArtifactInfo()).commit()
    old = time.time() - 30 * 86400
    os.utime(tmp_path / "artifacts" / "stale", (old, old))
    ctx = multiprocessing.get_context("fork")
    start, stop = ctx.Event(), ctx.Event()
    ids_q, reader_q, cleaner_q = ctx.Queue(), ctx.Queue(), ctx.Queue()
    writers = [ctx.Process(target=_writer, args=(root, w, start, ids_q))
               for w in range(PROCESSES)]
    reader = ctx.Process(target=_reader, args=(root, stop, reader_q))
    cleaner = ctx.Process(target=_cleaner, args=(root, stop, cleaner_q))
    for p in (*writers, reader, cleaner):
        p.start()
    start.set()
    written = [ids for _, ids in sorted(ids_q.get(timeout=150) for _ in writers)]
    stop.set()
    reads, corrupt = reader_q.get(timeout=60)
    sweeps = cleaner_q.get(timeout=60)
    for p in (*writers, reader, cleaner):
        p.join(30)
        assert p.exitcode == 0

    all_ids = [i for ids in written for i in ids]
    assert len(all_ids) == PROCESSES * PER_PROCESS == len(set(all_ids))
    store = FilesystemStore(root, SESSION)
    listed = {ref.id for ref in store.list()}
    assert listed == set(all_ids)
    for worker, ids in enumerate(written):
        for n, artifact_id in enumerate(ids):
            assert store.read(artifact_id) == _payload(worker, n)
    assert corrupt == 0 and reads > 0 and sweeps > 0
    assert not (tmp_path / "artifacts" / "stale").exists()
    assert [n for n in os.listdir(tmp_path / "artifacts" / SESSION) if n.startswith(".tmp")] == []


def test_threads_share_one_store(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    store = FilesystemStore(str(tmp_path / "artifacts"), "threads")

    def work(n: int) -> tuple[str, bytes]:
        data = _payload(99, n)
        with store.writer(ArtifactInfo()) as w:
            w.write(data)
            ref = w.commit()
        assert store.read(ref.id) == data
        return ref.id, data

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(work, range(400)))
    assert len({i for i, _ in results}) == 400
    assert all(store.read(i) == d for i, d in results)
