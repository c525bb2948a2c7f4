"""Path attacks on the store, each with a negative control showing it bites naive code.

reliability.md section 4: planted symlinks, hard links, FIFOs, a swapped directory and a
symlink-swap race. The store opens everything relative to a pinned directory handle with
O_NOFOLLOW and checks what it opened; the controls use plain paths.
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from truncation_core import ArtifactNotFound, StoreError
from truncation_core.storage.filesystem import FilesystemStore

from .conftest import put, session_dir

SECRET = b"SECRET-outside-the-store"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret"
    path.write_bytes(SECRET)
    return path


def test_planted_symlink_is_refused(store: FilesystemStore, root_path: Path, secret: Path) -> None:
    ref = put(store, b"mine")
    target = session_dir(root_path) / f"{ref.id}.txt"
    target.unlink()
    target.symlink_to(secret)
    with pytest.raises(StoreError, match="symlink"):
        store.read(ref.id)
    # Control: a plain open follows the link.
    assert target.read_bytes() == SECRET


def test_planted_hard_link_is_refused(store: FilesystemStore, root_path: Path,
                                      secret: Path) -> None:
    ref = put(store, b"mine")
    target = session_dir(root_path) / f"{ref.id}.txt"
    target.unlink()
    os.link(secret, target)
    with pytest.raises(StoreError, match="links"):
        store.read(ref.id)
    # Control: O_NOFOLLOW alone does not stop a hard link.
    fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        assert os.read(fd, 100) == SECRET
    finally:
        os.close(fd)


def test_planted_fifo_does_not_hang_a_reader(store: FilesystemStore, root_path: Path) -> None:
    ref = put(store, b"mine")
    target = session_dir(root_path) / f"{ref.id}.txt"
    target.unlink()
    os.mkfifo(target)
    with pytest.raises(StoreError, match="not a regular file"):
        store.read(ref.id)
    # Control: a plain open of the FIFO blocks (here, until the child is killed).
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run([sys.executable, "-c", f"open({str(target)!r}, 'rb').read()"],
                       timeout=0.5)


def test_symlinked_session_directory_is_refused(root_path: Path, tmp_path: Path,
                                                secret: Path) -> None:
    put(FilesystemStore(str(root_path), "real"), b"x")
    outside = tmp_path / "outside"
    outside.mkdir()
    (root_path / "evil").symlink_to(outside)
    with pytest.raises(StoreError, match="not a directory"):
        put(FilesystemStore(str(root_path), "evil"), b"y")
    assert list(outside.iterdir()) == []
    # Control: a path-based write follows the link out of the store.
    (root_path / "evil" / "x").write_bytes(b"escaped")
    assert (outside / "x").read_bytes() == b"escaped"


def test_swapped_session_directory_keeps_reading_the_original(
        store: FilesystemStore, root_path: Path, tmp_path: Path) -> None:
    ref = put(store, b"original")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / f"{ref.id}.txt").write_bytes(SECRET)
    d = session_dir(root_path)
    d.rename(root_path / "moved-away")
    d.symlink_to(outside)
    assert store.read(ref.id) == b"original"  # the pinned handle
    # Control: opening by path reads the attacker's file.
    assert (d / f"{ref.id}.txt").read_bytes() == SECRET


def _flipper(directory: str, name: str, secret: str, stop: multiprocessing.synchronize.Event
             ) -> None:
    """Flip *name* between a regular file and a symlink to *secret*, atomically, until told."""
    i = 0
    while not stop.is_set():
        i += 1
        safe = os.path.join(directory, f".flip-file-{i}")
        with open(safe, "wb") as f:
            f.write(b"SAFE")
        os.replace(safe, os.path.join(directory, name))
        link = os.path.join(directory, f".flip-link-{i}")
        os.symlink(secret, link)
        os.replace(link, os.path.join(directory, name))


def _race(directory: Path, name: str, secret: Path, read: object, attempts: int,
          stop_at_first_escape: bool) -> tuple[int, int]:
    ctx = multiprocessing.get_context("fork")
    stop = ctx.Event()
    attacker = ctx.Process(target=_flipper, args=(str(directory), name, str(secret), stop))
    attacker.start()
    escapes = safe_reads = 0
    try:
        for _ in range(attempts):
            data = read()  # type: ignore[operator]
            if data == SECRET:
                escapes += 1
                if stop_at_first_escape:
                    break
            elif data == b"SAFE":
                safe_reads += 1
    finally:
        stop.set()
        attacker.join(10)
    return escapes, safe_reads


@pytest.mark.timeout(120)
def test_symlink_swap_race_never_escapes(store: FilesystemStore, root_path: Path,
                                         secret: Path) -> None:
    ref = put(store, b"SAFE")
    directory = session_dir(root_path)

    def read_through_store() -> bytes | None:
        try:
            return store.read(ref.id)
        except (StoreError, ArtifactNotFound):
            return None

    escapes, safe_reads = _race(directory, f"{ref.id}.txt", secret, read_through_store,
                                attempts=20_000, stop_at_first_escape=False)
    assert escapes == 0
    assert safe_reads > 0  # the race really ran against regular files too

    # Control: check-then-open by path (resolve, compare, open) escapes under the same race.
    def check_then_open() -> bytes | None:
        path = directory / f"{ref.id}.txt"
        try:
            if not path.resolve().is_relative_to(directory.resolve()):
                return None
            return path.read_bytes()
        except OSError:
            return None

    escapes, _ = _race(directory, f"{ref.id}.txt", secret, check_then_open, attempts=200_000,
                       stop_at_first_escape=True)
    assert escapes >= 1


def _plant_links(session: Path, outside: Path) -> None:
    """A symlink to a directory and one to a file, both outside, inside a session."""
    (outside / "keep").mkdir(parents=True)
    (outside / "keep" / "precious").write_bytes(SECRET)
    (outside / "file").write_bytes(SECRET)
    (session / "linked-dir").symlink_to(outside / "keep")
    (session / ("art_1_" + "0" * 32 + ".txt")).symlink_to(outside / "file")


@pytest.mark.parametrize("how", ["session end", "clean", "retention sweep"])
def test_deleting_a_session_never_follows_links_out(root_path: Path, tmp_path: Path,
                                                    how: str) -> None:
    from truncation_core.storage.filesystem import ArtifactRoot

    root = ArtifactRoot(str(root_path))
    put(root.session("doomed"), b"mine")
    outside = tmp_path / "outside"
    _plant_links(session_dir(root_path, "doomed"), outside)
    if how == "session end":
        root.session("doomed").delete_session()
    elif how == "clean":
        root.clean()
    else:
        month_ago = time.time() - 30 * 86400
        os.utime(session_dir(root_path, "doomed"), (month_ago, month_ago))
        assert root.sweep().sessions == ("doomed",)
    # The store's own files are gone; the planted links are not the store's (not even the one
    # named like an artifact), so they stay, and so does the directory that holds them.
    assert sorted(os.listdir(session_dir(root_path, "doomed"))) == sorted(
        ["linked-dir", "art_1_" + "0" * 32 + ".txt"])
    assert root.sessions() == []
    assert (outside / "keep" / "precious").read_bytes() == SECRET
    assert (outside / "file").read_bytes() == SECRET


def test_control_a_naive_recursive_delete_follows_links_out(tmp_path: Path) -> None:
    """Negative control: deleting a tree by walking it with Path.is_dir() (which follows
    symlinks) deletes what the links point to."""
    session = tmp_path / "session"
    session.mkdir()
    outside = tmp_path / "outside"
    _plant_links(session, outside)

    def naive_delete(path: Path) -> None:
        for child in path.iterdir():
            if child.is_dir():
                naive_delete(child)
            else:
                child.unlink()

    naive_delete(session)
    assert not (outside / "keep" / "precious").exists()
