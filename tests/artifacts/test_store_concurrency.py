"""Concurrency: 8 processes x 500 artifacts into one session, with a concurrent reader and a
concurrent cleaner; every artifact retrievable and byte-identical (reliability.md section 3).

Payloads are self-verifying (sha256 + body), so the reader checks every artifact it can see
while writers are still writing. The cleaner runs the retention sweep over and over (other
sessions, temporary files past the grace period): it must never remove a live artifact or a
write in progress.

Negative controls, with real processes and files: a shared JSON index updated read-modify-write
loses entries that the store (which has no index) keeps; and a sweep without its grace period
removes a slow writer's temporary file, so the write fails, where the real sweep spares it.
"""

from __future__ import annotations

import errno
import hashlib
import json
import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from truncation_core import ArtifactNotFound, StoreError
from truncation_core.storage.filesystem import ArtifactRoot, FilesystemStore
from truncation_core.types.artifacts import ArtifactInfo
from truncation_core.types.ids import new_artifact_id

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


# -- negative controls ---------------------------------------------------------------------------
#
# The store keeps no shared index (listing is a directory scan) and sweeps temporary files only
# after a grace period. Each control shows what the design avoids, with real processes on real
# files. The schedules are forced with barriers and events, so the outcome is exact, not a race
# that a loaded machine may or may not lose.

LOCKSTEP_PROCESSES = 4
LOCKSTEP_ROUNDS = 25


def _naive_index_writer(index: str, worker: int, barrier: multiprocessing.synchronize.Barrier
                        ) -> None:
    """Add one entry per round to a shared JSON index: read it, add, write it back (through a
    temporary file and a rename, so the file itself is never torn). Every process reads
    before any writes back: the interleaving that concurrent writers may always get."""
    for n in range(LOCKSTEP_ROUNDS):
        with open(index, encoding="utf-8") as f:
            entries = json.load(f)
        barrier.wait(60)
        entries.append(f"worker {worker} artifact {n}")
        temp = f"{index}.{worker}.tmp"
        with open(temp, "w", encoding="utf-8") as f:
            json.dump(entries, f)
        os.replace(temp, index)
        barrier.wait(60)


def _store_writer_in_lockstep(root: str, worker: int,
                              barrier: multiprocessing.synchronize.Barrier) -> None:
    """The same schedule through the store: every process has written its artifact before any
    commits it, and all commit at once."""
    store = FilesystemStore(root, SESSION)
    for n in range(LOCKSTEP_ROUNDS):
        with store.writer(ArtifactInfo(tool=f"w{worker}")) as w:
            w.write(_payload(worker, n))
            barrier.wait(60)
            w.commit()
        barrier.wait(60)


def _in_lockstep(target: Any, path: str) -> None:
    ctx = multiprocessing.get_context("fork")
    barrier = ctx.Barrier(LOCKSTEP_PROCESSES)
    workers = [ctx.Process(target=target, args=(path, w, barrier))
               for w in range(LOCKSTEP_PROCESSES)]
    for p in workers:
        p.start()
    for p in workers:
        p.join(120)
        assert p.exitcode == 0


@pytest.mark.timeout(120)
def test_control_a_shared_json_index_loses_entries_the_store_keeps(tmp_path: Path) -> None:
    index = tmp_path / "index.json"
    index.write_text("[]", encoding="utf-8")
    _in_lockstep(_naive_index_writer, str(index))
    entries = json.loads(index.read_text(encoding="utf-8"))
    written = LOCKSTEP_PROCESSES * LOCKSTEP_ROUNDS
    # Each round, every process wrote back what all had read plus its own entry: the last
    # rename wins, and the others' entries of that round are lost.
    assert len(entries) == LOCKSTEP_ROUNDS < written

    root = str(tmp_path / "artifacts")
    _in_lockstep(_store_writer_in_lockstep, root)
    store = FilesystemStore(root, SESSION)
    stored = {store.read(ref.id) for ref in store.list()}
    assert stored == {_payload(w, n) for w in range(LOCKSTEP_PROCESSES)
                      for n in range(LOCKSTEP_ROUNDS)}


FIRST_HALF = b"written before the sweep\n" * 4000
SECOND_HALF = b"written after the sweep\n" * 4000

_STARTUP = """
import sys
from truncation_core.types.artifacts import ArtifactInfo
from truncation_core.storage.filesystem import FilesystemStore
with FilesystemStore(sys.argv[1], "next-run").writer(ArtifactInfo()) as w:  # sweeps first
    w.write(b"a new process stores its first artifact\\n")
    w.commit()
"""


def _in_flight_writer(root: str, written: multiprocessing.synchronize.Event,
                      resume: multiprocessing.synchronize.Event,
                      out: multiprocessing.Queue) -> None:
    """A slow writer (a stream that pauses): half its content, a pause, the rest, commit."""
    store = FilesystemStore(root, SESSION)
    try:
        with store.writer(ArtifactInfo(tool="slow")) as w:
            w.write(FIRST_HALF)
            written.set()
            if not resume.wait(60):
                raise TimeoutError("never resumed")
            w.write(SECOND_HALF)
            out.put(("stored", w.commit().id))
    except StoreError as exc:
        out.put(("failed", type(exc).__name__, exc.errno))


@pytest.mark.timeout(120)
@pytest.mark.parametrize("sweep", ["without a grace period", "at the next startup",
                                   "an hour later"])
def test_the_sweep_spares_a_write_in_progress_thanks_to_its_grace_period(
        tmp_path: Path, sweep: str) -> None:
    root = str(tmp_path / "artifacts")
    session = tmp_path / "artifacts" / SESSION
    ctx = multiprocessing.get_context("fork")
    written, resume, out = ctx.Event(), ctx.Event(), ctx.Queue()
    writer = ctx.Process(target=_in_flight_writer, args=(root, written, resume, out))
    writer.start()
    try:
        assert written.wait(60)
        in_flight = [n for n in os.listdir(session) if n.startswith(".tmp-")]
        assert len(in_flight) == 1
        # What a writer killed two days ago left behind: every sweep must remove it.
        crashed = session / f".tmp-{new_artifact_id(1)}.data.0000abcd"
        crashed.write_bytes(b"partial")
        old = time.time() - 2 * 86400
        os.utime(crashed, (old, old))
        if sweep == "without a grace period":  # the control: what a naive cleaner does
            ArtifactRoot(root).sweep(temp_grace=0, now=time.time() + 1)
        elif sweep == "at the next startup":  # the sweep a new process runs as it starts
            subprocess.run([sys.executable, "-c", _STARTUP, root], check=True, timeout=60)
        else:
            ArtifactRoot(root).sweep(now=time.time() + 3600)
        left = sorted(n for n in os.listdir(session) if n.startswith(".tmp-"))
    finally:
        resume.set()
    outcome = out.get(timeout=60)
    writer.join(30)
    assert writer.exitcode == 0
    store = FilesystemStore(root, SESSION)
    if sweep == "without a grace period":
        assert left == []  # the write in progress lost its file...
        assert outcome == ("failed", "StoreError", errno.ENOENT)  # ...and failed at commit
        assert store.list() == []
    else:
        assert left == in_flight
        assert outcome[0] == "stored"
        assert store.read(outcome[1]) == FIRST_HALF + SECOND_HALF


@pytest.mark.parametrize("cleaner", ["sweep", "clean"])
def test_a_session_written_to_after_the_cleaner_listed_it_is_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cleaner: str) -> None:
    """The retention sweep (and ``trunc artifacts clean --older-than``) lists every session
    first, then deletes the old ones one by one. A named session that a writer takes up again
    in between is no longer old: its age is read again once it is opened for deletion, and
    the write in progress survives. (The writer is started where the cleaner opens the
    session: the interleaving a slow sweep of many sessions leaves open.)"""
    from truncation_core.storage import filesystem

    path = str(tmp_path / "artifacts")
    earlier = FilesystemStore(path, "named")
    with earlier.writer(ArtifactInfo(tool="t")) as w:
        w.write(b"an artifact of last month\n")
        kept = w.commit().id
    month_ago = time.time() - 30 * 86400
    os.utime(tmp_path / "artifacts" / "named", (month_ago, month_ago))
    writers = []
    real_open = filesystem._open_session

    def taken_up(root: Any, name: str) -> Any:
        if name == "named" and not writers:  # another run of the named session starts now
            writer = FilesystemStore(path, "named").writer(ArtifactInfo(tool="t"))
            writers.append(writer)
            writer.write(FIRST_HALF)
        return real_open(root, name)

    monkeypatch.setattr(filesystem, "_open_session", taken_up)
    root = ArtifactRoot(path, retention_days=7)
    if cleaner == "sweep":
        report = root.sweep()
    else:
        report = root.clean(older_than=7 * 86400)
    monkeypatch.undo()
    assert writers and report.sessions == ()
    writers[0].write(SECOND_HALF)
    new = writers[0].commit().id
    store = FilesystemStore(path, "named")
    assert store.read(new) == FIRST_HALF + SECOND_HALF
    assert store.read(kept) == b"an artifact of last month\n"
