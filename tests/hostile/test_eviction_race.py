"""A reader racing an eviction gets 404 ("evicted"), never 500.

An artifact can be evicted (the session's quota is full) between the moment a reader finds
it and the moment it opens it, or between the open and the checks that follow: the file then
has no name left (``st_nlink == 0``). That is an artifact that is gone, not a damaged store.
"""

from __future__ import annotations

import errno
import os
import stat
import threading
import types
from pathlib import Path
from typing import Any

import pytest

from truncation_core import Truncator
from truncation_core.errors import StoreError
from truncation_core.storage import fsio
from truncation_core.storage.filesystem import FilesystemStore
from truncation_core.types.artifacts import ArtifactInfo, ArtifactRef

SESSION = "race-session"
QUOTA = 64 * 1024


def put(store: FilesystemStore, data: bytes) -> ArtifactRef:
    with store.writer(ArtifactInfo(tool="t")) as w:
        w.write(data)
        return w.commit()


def setup(tmp_path: Path) -> tuple[FilesystemStore, Truncator]:
    root = tmp_path / "artifacts"
    store = FilesystemStore(str(root), SESSION, quota=QUOTA)
    truncator = Truncator({"store": {"root": str(root), "session": SESSION, "quota": QUOTA}},
                          load_entrypoints=False)
    return store, truncator


class EvictOnFstat(types.ModuleType):
    """``fsio.os`` whose first ``fstat`` of a regular file lets an eviction in first: the
    reader has opened the content file, and the evictor removes it before the checks."""

    def __init__(self, store: FilesystemStore, size: int) -> None:
        super().__init__("os")
        self.store, self.size, self.fired = store, size, False

    def __getattr__(self, name: str) -> Any:
        real = getattr(os, name)
        if name != "fstat":
            return real

        def fstat(fd: int) -> os.stat_result:
            st = real(fd)
            if not self.fired and stat.S_ISREG(st.st_mode):
                self.fired = True
                directory = self.store._session_directory()
                self.store._make_room(directory, self.size, "art_1_" + "f" * 32)
                st = real(fd)
            return st

        return fstat


LINES = b"".join(b"line %d\n" % i for i in range(4000))  # about 40 kB: two do not fit


def test_eviction_between_open_and_checks_is_404_evicted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store, truncator = setup(tmp_path)
    ref = put(store, LINES)
    monkeypatch.setattr(fsio, "os", EvictOnFstat(store, len(LINES)))
    for tool, args in (("get_artifact", {"artifact_id": ref.id}),
                       ("artifact_grep", {"artifact_id": ref.id, "pattern": "line 7"})):
        result = truncator.call_tool(tool, args)
        assert result.error is not None and result.error.code == 404, result.content
        assert "evicted" in result.content
        monkeypatch.setattr(fsio.os, "fired", False)
        store = FilesystemStore(store.root.path, SESSION, quota=QUOTA)
        ref = put(store, LINES)
        monkeypatch.setattr(fsio.os, "store", store)


def test_negative_control_the_old_link_check_calls_the_evicted_file_damaged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check as it was (any link count but 1 is refused) answers the same race with a
    StoreError, which the tools report as 500."""
    store, truncator = setup(tmp_path)
    ref = put(store, LINES)

    def naive_open_file(self: fsio.Directory, name: str) -> Any:
        fd = fsio.os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.fd)
        st = fsio.os.fstat(fd)
        if st.st_nlink != 1:
            os.close(fd)
            raise fsio.refused(name, f"has {st.st_nlink} links")
        return open(fd, "rb", closefd=True)

    monkeypatch.setattr(fsio.Directory, "open_file", naive_open_file)
    monkeypatch.setattr(fsio, "os", EvictOnFstat(store, len(LINES)))
    result = truncator.call_tool("get_artifact", {"artifact_id": ref.id})
    assert result.error is not None and result.error.code == 500


def test_a_file_deleted_while_opened_is_file_not_found(tmp_path: Path) -> None:
    directory = fsio.Directory.open_path(str(tmp_path / "d"), create=True)
    assert directory is not None
    with directory:
        fd = directory.create("x")
        os.close(fd)

        class UnlinkFirst(types.ModuleType):
            def __getattr__(self, name: str) -> Any:
                if name == "fstat":
                    def fstat(fd: int) -> os.stat_result:
                        os.unlink("x", dir_fd=directory.fd)
                        return os.fstat(fd)
                    return fstat
                return getattr(os, name)

        original = fsio.os
        fsio.os = UnlinkFirst("os")  # type: ignore[assignment]
        try:
            with pytest.raises(FileNotFoundError) as caught:
                directory.open_file("x")
        finally:
            fsio.os = original  # type: ignore[assignment]
        assert caught.value.errno == errno.ENOENT
        assert not isinstance(caught.value, StoreError)


def test_readers_racing_real_evictions_never_get_500(tmp_path: Path) -> None:
    """Threads reading artifacts back while another thread stores new ones, each of which
    evicts the oldest: every answer is a page or a 404 that says it was evicted."""
    store, truncator = setup(tmp_path)
    ids = [put(store, LINES).id]
    stop = threading.Event()
    answers: list[tuple[int | None, str]] = []
    lock = threading.Lock()

    def writer() -> None:
        for _ in range(150):
            ids.append(put(store, LINES).id)
        stop.set()

    def reader() -> None:
        n = 0
        while not stop.is_set():
            aid = ids[max(0, len(ids) - 1 - n % 3)]
            tool = ("get_artifact", "artifact_tail", "artifact_grep")[n % 3]
            args: dict[str, Any] = {"artifact_id": aid}
            if tool == "artifact_grep":
                args["pattern"] = "line 39"
            result = truncator.call_tool(tool, args)
            with lock:
                answers.append((result.error.code if result.error else None,
                                result.content[:200]))
            n += 1

    threads = [threading.Thread(target=reader) for _ in range(3)]
    w = threading.Thread(target=writer)
    for t in threads:
        t.start()
    w.start()
    w.join()
    for t in threads:
        t.join()
    codes = {code for code, _ in answers}
    assert 500 not in codes, [c for c in answers if c[0] == 500][:3]
    assert None in codes  # the readers did read pages
    for code, content in answers:
        if code == 404:
            assert "evicted" in content, content
