"""Crash consistency: a writer killed at any moment never leaves a partial artifact visible.

reliability.md section 2: SIGKILL a child mid-write many times; the artifact is then absent
or complete, never partial, and the sweep removes leftover temporary files. A naive writer
(open the final name and write) leaves partial files under the same test: the control.
The strace test pins down the durability contract with ``fsync: true``: data fsync, then
rename, then directory fsync.
"""

from __future__ import annotations

import hashlib
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from truncation_core.storage.filesystem import ArtifactRoot, FilesystemStore
from truncation_core.types.artifacts import ArtifactInfo

CHUNK = b"".join(f"{i:07d} deterministic line of a killed writer\n".encode()
                 for i in range(16_384))  # 720 kB
CHUNKS = 40  # about 29 MB
EXPECTED = hashlib.sha256(CHUNK * CHUNKS).hexdigest()
SIZE = len(CHUNK) * CHUNKS


def _store_writer(root: str) -> None:
    store = FilesystemStore(root, "crash")
    with store.writer(ArtifactInfo(tool="killed")) as w:
        for _ in range(CHUNKS):
            w.write(CHUNK)
        w.commit()


def _naive_writer(root: str) -> None:
    directory = os.path.join(root, "naive")
    os.makedirs(directory, exist_ok=True)
    name = f"artifact-{os.getpid()}.txt"
    with open(os.path.join(directory, name), "wb") as f:
        for _ in range(CHUNKS):
            f.write(CHUNK)


def _run_child(target: Callable[[str], None], root: str, kill_after: float | None) -> float:
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: write, then leave without running any cleanup
        try:
            target(root)
        finally:
            os._exit(0)
    if kill_after is not None:
        time.sleep(kill_after)
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return time.perf_counter() - start


def _kill_trials(target: Callable[[str], None], root: str, trials: int) -> None:
    uninterrupted = _run_child(target, root, None)
    rng = random.Random(20261121)  # reproducible kill times, not a secret
    for _ in range(trials):
        _run_child(target, root, rng.uniform(0, 1.2 * uninterrupted))


@pytest.mark.timeout(180)
def test_sigkill_mid_write_never_leaves_a_partial_artifact(tmp_path: Path) -> None:
    root = str(tmp_path / "artifacts")
    _kill_trials(_store_writer, root, trials=30)
    store = FilesystemStore(root, "crash")
    refs = store.list()
    assert refs  # the uninterrupted run, at least
    for ref in refs:
        assert ref.bytes == SIZE
        assert store.checksum(ref.id) == EXPECTED  # complete, byte for byte
    directory = tmp_path / "artifacts" / "crash"
    complete = {f"{r.id}.txt" for r in refs}
    visible = {n for n in os.listdir(directory) if n.endswith(".txt")}
    assert visible == complete
    # Leftover temporary files (killed writers) go at the first sweep after the grace period.
    ArtifactRoot(root).sweep(now=time.time() + 2 * 86400)
    assert [n for n in os.listdir(directory) if n.startswith(".tmp-")] == []
    assert {n for n in os.listdir(directory) if n.endswith(".txt")} == complete


@pytest.mark.timeout(180)
def test_sigkill_control_a_naive_writer_leaves_partial_files(tmp_path: Path) -> None:
    root = str(tmp_path / "artifacts")
    partial = 0
    for _ in range(4):  # bounded: 4 rounds of 15 kills
        _kill_trials(_naive_writer, root, trials=15)
        directory = Path(root) / "naive"
        partial = sum(1 for p in directory.iterdir()
                      if hashlib.sha256(p.read_bytes()).hexdigest() != EXPECTED)
        if partial:
            break
    assert partial >= 1


_STRACE_SCRIPT = """
import sys
from truncation_core.types.artifacts import ArtifactInfo
from truncation_core.storage.filesystem import ArtifactRoot, FilesystemStore
store = FilesystemStore(ArtifactRoot(sys.argv[1], fsync=True), "traced")
with store.writer(ArtifactInfo()) as w:
    w.write(b"durable\\n" * 1000)
    print(w.commit().id)
"""


@pytest.mark.skipif(shutil.which("strace") is None,
                    reason="strace is not installed (.ci/run installs it on CI)")
def test_fsync_order_with_durability_on(tmp_path: Path) -> None:
    trace = tmp_path / "trace.txt"
    out = subprocess.run(
        ["strace", "-f", "-qq", "-o", str(trace), "-e",
         "trace=openat,fsync,fdatasync,rename,renameat,renameat2",
         sys.executable, "-c", _STRACE_SCRIPT, str(tmp_path / "artifacts")],
        capture_output=True, text=True, check=True)
    artifact_id = out.stdout.strip()
    lines = trace.read_text().splitlines()

    def index(pattern: str, start: int = 0) -> tuple[int, re.Match[str]]:
        for i in range(start, len(lines)):
            m = re.search(pattern, lines[i])
            if m:
                return i, m
        raise AssertionError(f"no syscall matching {pattern!r} in the trace")

    session_open, m = index(r'openat\(\d+, "traced", [^)]*O_DIRECTORY[^)]*\) = (\d+)')
    session_fd = m.group(1)
    tmp_open, m = index(rf'openat\(\d+, "\.tmp-{artifact_id}\.data\.[0-9a-f]+", '
                        r'[^)]*O_CREAT\|O_EXCL[^)]*, 0600\) = (\d+)', session_open)
    data_fd = m.group(1)
    data_fsync, _ = index(rf"fsync\({data_fd}\)", tmp_open)
    meta_rename, _ = index(rf'rename(at2?)?\(.*"{artifact_id}\.meta\.json"', data_fsync)
    rename, _ = index(rf'rename(at2?)?\(.*"\.tmp-{artifact_id}\.data.*"{artifact_id}\.txt"',
                      data_fsync)
    dir_fsync, _ = index(rf"fsync\({session_fd}\)", rename)
    assert tmp_open < data_fsync < meta_rename < rename < dir_fsync
