"""The store deletes only what it can prove it made (issue 26, item 0).

``store.root`` pointed at a directory of the user's (``~/work``, ``/tmp``, ``/etc``) once lost
every subdirectory older than the retention period: the sweep took any directory named like
a session for an expired one. Now a root that exists, is not empty and holds no root marker
is refused with nothing changed; and in a root of the store's, the sweep, ``clean``,
``delete_session`` and quota eviction delete only directories holding the session marker,
and only the store's own files in them, never following a link.

Each test builds a directory full of the user's things (old files and directories, links to
directories outside with files in them, links named like sessions, directories named like
sessions without the marker, a FIFO), runs the store over it (in this process, and as a real
``trunc`` process), and compares every entry byte for byte. The negative controls run the
old sweep (a recursive delete of every session-named directory past the retention period)
and the old eviction over the same directory: they delete the user's things.

The marker names are spelled out here rather than imported: they are the on-disk format.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from truncation_core import ArtifactNotFound, StoreError, Truncator
from truncation_core.storage.filesystem import ArtifactRoot, FilesystemStore
from truncation_core.types.artifacts import ArtifactInfo, ArtifactRef
from truncation_core.types.ids import SESSION_ID_REGEX, new_artifact_id

ROOT_MARKER = ".truncation-core-store"
SESSION_MARKER = ".truncation-core-session"
MONTH = 30 * 86400
SECRET = b"the user's own bytes\n"
#: A directory named exactly like a session the store would make, but the user's.
SESSION_LIKE = "s1700000000-0123456789abcdef"
#: A link named like a session, to a directory outside that looks like a session inside.
LINK_LIKE = "s1700000001-aaaaaaaaaaaaaaaa"


def put(store: FilesystemStore, data: bytes) -> ArtifactRef:
    with store.writer(ArtifactInfo(tool="t")) as w:
        w.write(data)
        return w.commit()


def age(path: Path, seconds: float = MONTH) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t), follow_symlinks=False)


def age_tree(path: Path) -> None:
    """Age everything under *path* (and *path*), without following links, deepest first."""
    for dirpath, dirnames, filenames in os.walk(path, topdown=False):
        for name in filenames + dirnames:
            age(Path(dirpath) / name)
    age(path)


def snapshot(path: Path) -> dict[str, tuple[Any, ...]]:
    """Every entry under *path*, links not followed: its type, mode and modification time,
    and a file's bytes or a link's target."""
    out: dict[str, tuple[Any, ...]] = {}

    def walk(p: Path, rel: str) -> None:
        st = os.lstat(p)
        if stat.S_ISLNK(st.st_mode):
            out[rel] = ("link", os.readlink(p), st.st_mtime_ns)
        elif stat.S_ISDIR(st.st_mode):
            out[rel] = ("dir", stat.S_IMODE(st.st_mode), st.st_mtime_ns)
            for name in sorted(os.listdir(p)):
                walk(p / name, f"{rel}/{name}")
        elif stat.S_ISREG(st.st_mode):
            out[rel] = ("file", stat.S_IMODE(st.st_mode), st.st_mtime_ns, st.st_nlink,
                        p.read_bytes())
        else:
            out[rel] = ("other", stat.S_IFMT(st.st_mode), st.st_mtime_ns)

    walk(path, ".")
    return out


def plant_outside(outside: Path) -> None:
    """What the user's links point to: a directory of files, and one that looks like a
    session of the store from the inside (marker, artifact, metadata)."""
    (outside / "keep" / "deeper").mkdir(parents=True)
    (outside / "keep" / "precious.txt").write_bytes(SECRET)
    (outside / "keep" / "deeper" / "more.txt").write_bytes(SECRET)
    fake = outside / "fake-session"
    fake.mkdir()
    (fake / SESSION_MARKER).write_bytes(b"")
    artifact = new_artifact_id(1_700_000_000)
    (fake / f"{artifact}.txt").write_bytes(SECRET)
    (fake / f"{artifact}.meta.json").write_bytes(b"{}")
    (outside / "file.txt").write_bytes(SECRET)
    age_tree(outside)


def plant_user_things(d: Path, outside: Path) -> list[str]:
    """The user's things in *d*, a month old; returns the names planted at the top."""
    d.mkdir(parents=True, exist_ok=True)
    (d / "photos" / "2023").mkdir(parents=True)
    (d / "photos" / "a.jpg").write_bytes(SECRET)
    (d / "photos" / "2023" / "b.jpg").write_bytes(SECRET)
    (d / "projects" / "repo" / ".git").mkdir(parents=True)
    (d / "projects" / "repo" / ".git" / "HEAD").write_bytes(b"ref: refs/heads/main\n")
    (d / "projects" / "repo" / "README.md").write_bytes(SECRET)
    # Named like a store session, holding a file named like an artifact, but no marker.
    (d / SESSION_LIKE).mkdir()
    (d / SESSION_LIKE / f"{new_artifact_id(1_700_000_000)}.txt").write_bytes(SECRET)
    (d / SESSION_LIKE / "notes.md").write_bytes(SECRET)
    (d / "empty").mkdir()
    (d / "Documents").mkdir()
    (d / "Documents" / "tax.pdf").write_bytes(SECRET)
    (d / ".config").mkdir()
    (d / ".config" / "app.ini").write_bytes(SECRET)
    (d / "notes.txt").write_bytes(SECRET)
    (d / "work").symlink_to(outside / "keep")  # a link to a directory with files
    (d / LINK_LIKE).symlink_to(outside / "fake-session")  # named like a session
    (d / "dangling").symlink_to(outside / "nowhere")
    (d / "linked-file").symlink_to(outside / "file.txt")
    os.mkfifo(d / "fifo")
    names = ["photos", "projects", SESSION_LIKE, "empty", "Documents", ".config", "notes.txt",
             "work", LINK_LIKE, "dangling", "linked-file", "fifo"]
    for name in names:
        if (d / name).is_dir() and not (d / name).is_symlink():
            age_tree(d / name)
        else:
            age(d / name)
    return names


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    plant_outside(path)
    return path


@pytest.fixture
def users_dir(tmp_path: Path, outside: Path) -> Path:
    """A directory of the user's, full of their things, which is not a store."""
    d = tmp_path / "d"
    plant_user_things(d, outside)
    os.chmod(d, 0o755)
    age(d)
    return d


def naive_sweep(root: Path, retention_days: int = 7) -> list[str]:
    """Negative control: the sweep as it was. Every entry named like a session that is a
    directory (not a link: it never followed one) untouched for the retention period is
    deleted with everything in it (``shutil.rmtree`` on the directory handle)."""
    deleted = []
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        for entry in os.scandir(fd):
            if not re.fullmatch(SESSION_ID_REGEX, entry.name):
                continue
            st = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode) and st.st_mtime < time.time() - retention_days * 86400:
                shutil.rmtree(entry.name, dir_fd=fd)
                deleted.append(entry.name)
    finally:
        os.close(fd)
    return sorted(deleted)


# -- a directory of the user's as the root: refused, nothing changed -------------------------


def _store(root: ArtifactRoot) -> object:
    return put(root.session(), b"x" * 100)


@pytest.mark.parametrize("operation", [
    "store", "sweep", "clean", "sessions", "find", "delete_session", "truncator"])
def test_a_directory_of_the_users_as_root_is_refused_and_left_byte_for_byte(
        users_dir: Path, outside: Path, operation: str, caplog: pytest.LogCaptureFixture
        ) -> None:
    before, outside_before = snapshot(users_dir), snapshot(outside)
    root = ArtifactRoot(str(users_dir))
    if operation == "truncator":  # what `trunc apply` does: the result says why
        t = Truncator({"inline_limit": 200, "store": {"root": str(users_dir)}},
                      load_entrypoints=False)
        result = t.process("line\n" * 10_000)
        assert result.artifact is None and result.metadata.was_truncated
        assert result.metadata.artifact_error == "store.root is not an artifact store"
        assert "store.root is not an artifact store" in result.content
        assert f"store.root: {users_dir} is not an artifact store" in caplog.text
    else:
        run = {"store": lambda: _store(root), "sweep": root.sweep, "clean": root.clean,
               "sessions": root.sessions, "find": lambda: root.find(new_artifact_id()),
               "delete_session": lambda: root.delete_session(SESSION_LIKE)}[operation]
        with pytest.raises(StoreError) as info:
            run()
        message = str(info.value)
        assert message.startswith(f"store.root: {users_dir} is not an artifact store")
        assert "TRUNCATION_CORE_STORE__ROOT" in message and "Nothing in it was changed" in message
        for name in ("photos", "notes.txt", "a.jpg", SESSION_LIKE):  # says what, not what's in it
            assert name not in message
    root.close()
    assert snapshot(users_dir) == before  # every entry, its mode and time: nothing changed
    assert snapshot(outside) == outside_before


def test_control_the_old_sweep_deletes_the_users_directories(users_dir: Path,
                                                             outside: Path) -> None:
    outside_before = snapshot(outside)
    deleted = naive_sweep(users_dir)
    assert deleted == sorted(["photos", "projects", SESSION_LIKE, "empty"])
    assert not (users_dir / "photos").exists() and not (users_dir / "projects").exists()
    assert snapshot(outside) == outside_before  # it never followed a link: it did not need to


def test_the_cli_repro_keeps_every_file(users_dir: Path, outside: Path, trunc_exe: str,
                                        trunc_env: dict[str, str], tmp_path: Path) -> None:
    """The report's reproduction, as a real process: ``seq 1 100000 | trunc apply -`` with
    TRUNCATION_CORE_STORE__ROOT set to the user's directory."""
    before, outside_before = snapshot(users_dir), snapshot(outside)
    data = "".join(f"{i}\n" for i in range(1, 100_001)).encode()
    env = {**trunc_env, "TRUNCATION_CORE_STORE__ROOT": str(users_dir)}
    done = subprocess.run([trunc_exe, "apply", "-"], input=data, capture_output=True,
                          env=env, cwd=tmp_path, timeout=120)
    stderr = done.stderr.decode()
    assert done.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert f"store.root: {users_dir} is not an artifact store" in stderr
    assert "artifact: not kept (store.root is not an artifact store)" in stderr
    assert done.stdout.startswith(b"1\n2\n3\n") and done.stdout.endswith(b"99999\n100000\n")
    assert snapshot(users_dir) == before
    assert snapshot(outside) == outside_before


@pytest.mark.parametrize("command", [["artifacts", "clean"], ["artifacts", "list"],
                                     ["artifacts", "clean", "--session", SESSION_LIKE]])
def test_trunc_artifacts_on_a_directory_of_the_users_is_a_clear_error(
        users_dir: Path, outside: Path, trunc_exe: str, trunc_env: dict[str, str],
        tmp_path: Path, command: list[str]) -> None:
    before, outside_before = snapshot(users_dir), snapshot(outside)
    env = {**trunc_env, "TRUNCATION_CORE_STORE__ROOT": str(users_dir)}
    done = subprocess.run([trunc_exe, *command], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=60)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"Error: store.root: {users_dir} is not an artifact store")
    assert snapshot(users_dir) == before
    assert snapshot(outside) == outside_before


# -- adopting: an empty directory, a store made before the markers ---------------------------


def test_an_existing_empty_directory_is_adopted(tmp_path: Path) -> None:
    d = tmp_path / "empty-root"
    d.mkdir(mode=0o755)
    ref = put(FilesystemStore(str(d), "one"), b"kept")
    assert sorted(os.listdir(d)) == [ROOT_MARKER, "one"]
    assert stat.S_IMODE(d.stat().st_mode) == 0o700  # adopted, so made private
    assert FilesystemStore(str(d), "one").read(ref.id) == b"kept"


def _legacy_store(root: Path, sessions: dict[str, int]) -> dict[str, list[str]]:
    """A store as the store made it before the markers: sessions of artifacts (one with a
    leftover temporary file and an eviction note), no marker anywhere."""
    made: dict[str, list[str]] = {}
    for name, count in sessions.items():
        store = FilesystemStore(str(root), name)
        made[name] = [put(store, f"{name} {i}\n".encode() * 50).id for i in range(count)]
        store.close()
        store.root.close()
    for name in sessions:
        (root / name / SESSION_MARKER).unlink()
    (root / ROOT_MARKER).unlink()
    first = next(iter(sessions))
    (root / first / f".tmp-{new_artifact_id()}.data.0123abcd").write_bytes(b"partial")
    (root / first / f"{new_artifact_id()}.gone").write_bytes(b'{"reason": "evicted"}')
    return made


def test_a_store_from_before_the_markers_is_adopted(tmp_path: Path) -> None:
    root_path = tmp_path / ".truncation" / "artifacts"
    made = _legacy_store(root_path, {"old-one": 2, "recent": 1})
    (root_path / "aborted").mkdir()  # an empty session directory: proves nothing
    age(root_path / "old-one", 8 * 86400)
    age(root_path / "aborted", 8 * 86400)
    root = ArtifactRoot(str(root_path))
    assert [s.id for s in root.sessions()] == ["old-one", "recent"]  # adopted: marked
    assert (root_path / ROOT_MARKER).is_file()
    assert (root_path / "old-one" / SESSION_MARKER).is_file()
    assert not (root_path / "aborted" / SESSION_MARKER).exists()
    assert root.find(made["recent"][0]).read(made["recent"][0]) == b"recent 0\n" * 50
    assert root.sweep().sessions == ("old-one",)  # and retention works on them again
    assert sorted(os.listdir(root_path)) == [ROOT_MARKER, "aborted", "recent"]


def test_a_store_from_before_the_markers_holding_something_else_is_refused(
        tmp_path: Path) -> None:
    root_path = tmp_path / "artifacts"
    _legacy_store(root_path, {"old-one": 1, "recent": 1})
    (root_path / "recent" / "notes.md").write_bytes(SECRET)  # not a name the store makes
    age_tree(root_path)
    before = snapshot(root_path)
    root = ArtifactRoot(str(root_path))
    for operation in (root.sweep, root.sessions, root.clean, lambda: _store(root)):
        with pytest.raises(StoreError, match=r"store\.root: .* is not an artifact store"):
            operation()
    assert snapshot(root_path) == before


def test_a_root_of_empty_session_named_directories_is_refused(tmp_path: Path) -> None:
    d = tmp_path / "d"
    (d / "music").mkdir(parents=True)
    (d / "videos").mkdir()
    before = snapshot(d)
    with pytest.raises(StoreError, match="only directories in which the store wrote nothing"):
        put(FilesystemStore(str(d), "s"), b"x")
    assert snapshot(d) == before


def test_a_marker_that_is_a_link_is_not_a_marker(tmp_path: Path, outside: Path) -> None:
    d = tmp_path / "d"
    d.mkdir()
    (d / ROOT_MARKER).symlink_to(outside / "file.txt")
    (d / "photos").mkdir()
    (d / "photos" / "a.jpg").write_bytes(SECRET)
    age_tree(d)
    before = snapshot(d)
    with pytest.raises(StoreError, match="not a regular file of this user"):
        ArtifactRoot(str(d)).sweep()
    assert snapshot(d) == before


# -- a root of the store's with the user's things in it: only the store's own go --------------


@pytest.fixture
def mixed_root(tmp_path: Path, outside: Path) -> tuple[Path, list[str], dict[str, Any]]:
    """A root the store made, with two of its sessions ("doomed", with the user's things
    planted in it, and "clean-one") and the user's things beside them; all a month old.
    Returns the root, the names of the user's things at the top, and a snapshot of the
    user's things inside "doomed"."""
    root_path = tmp_path / "root"
    put(FilesystemStore(str(root_path), "doomed"), b"doomed artifact\n")
    put(FilesystemStore(str(root_path), "doomed"), b"another\n")
    put(FilesystemStore(str(root_path), "clean-one"), b"clean\n")
    names = plant_user_things(root_path, outside)
    doomed = root_path / "doomed"
    own = set(snapshot(doomed))  # the store's: its marker, artifacts and metadata
    (doomed / "notes.txt").write_bytes(SECRET)  # a file of the user's in a session
    (doomed / "sub").mkdir()  # a directory, with a file named like an artifact
    (doomed / "sub" / f"{new_artifact_id()}.txt").write_bytes(SECRET)
    (doomed / f"{new_artifact_id(1)}.txt").symlink_to(outside / "file.txt")  # link, artifact name
    (doomed / f".tmp-{new_artifact_id(1)}.data.0123abcd").symlink_to(outside / "keep")
    os.link(outside / "file.txt", doomed / f"{new_artifact_id(1)}.json")  # hard link, ditto
    age_tree(root_path)
    planted = {k: v for k, v in snapshot(doomed).items() if k not in own}
    assert len(planted) == 6
    return root_path, names, planted


def _assert_only_the_stores_own_went(root_path: Path, names: list[str],
                                     planted: dict[str, Any], users: dict[str, Any],
                                     outside: Path, outside_before: dict[str, Any]) -> None:
    for name in names:  # the user's things at the top, byte for byte
        assert snapshot(root_path / name) == users[name], name
    left = snapshot(root_path / "doomed")
    # The session's own files and its marker are gone; the user's things in it stay, and so
    # does the directory holding them.
    assert {k: v for k, v in left.items() if k != "."} == {
        k: v for k, v in planted.items() if k != "."}
    assert not (root_path / "clean-one").exists()
    assert snapshot(outside) == outside_before
    assert sorted(os.listdir(root_path)) == sorted([ROOT_MARKER, "doomed", *names])
    assert ArtifactRoot(str(root_path)).sessions() == []


@pytest.mark.parametrize("how", ["retention sweep", "clean", "clean each", "delete each",
                                 "session end"])
def test_deleting_sessions_removes_only_the_stores_own_files(
        mixed_root: tuple[Path, list[str], dict[str, Any]], outside: Path, how: str) -> None:
    root_path, names, planted = mixed_root
    users = {name: snapshot(root_path / name) for name in names}
    outside_before = snapshot(outside)
    root = ArtifactRoot(str(root_path))
    session_named = [name for name in names if re.fullmatch(SESSION_ID_REGEX, name)]
    deleted: Any = None
    if how == "retention sweep":
        deleted = root.sweep()
    elif how == "clean":
        deleted = root.clean()
    elif how == "clean each":  # naming the user's directories does nothing to them
        deleted = [root.clean(session=name).sessions for name in [*session_named, "doomed",
                                                                  "clean-one"]]
    elif how == "delete each":
        deleted = {name: root.delete_session(name)
                   for name in [*session_named, "doomed", "clean-one"]}
    else:
        deleted = {name: FilesystemStore(root, name).delete_session()
                   for name in [*session_named, "doomed", "clean-one"]}
    root.close()
    _assert_only_the_stores_own_went(root_path, names, planted, users, outside, outside_before)
    if how in ("retention sweep", "clean"):
        assert sorted(deleted.sessions) == ["clean-one", "doomed"] and deleted.artifacts == 3
    elif how == "clean each":
        assert [s for s in deleted if s] == [("doomed",), ("clean-one",)]
    else:
        assert deleted == {**dict.fromkeys(session_named, 0), "doomed": 2, "clean-one": 1}


def test_only_marked_sessions_are_listed_and_searched(
        mixed_root: tuple[Path, list[str], dict[str, Any]]) -> None:
    """Not the user's directories named like sessions, nor the link named like one (whose
    target looks like a session inside), nor a file named like an artifact in either."""
    root_path = mixed_root[0]
    root = ArtifactRoot(str(root_path))
    assert sorted(s.id for s in root.sessions()) == ["clean-one", "doomed"]
    users_artifact = next((root_path / SESSION_LIKE).glob("art_*.txt")).name[:-4]
    with pytest.raises(ArtifactNotFound):
        root.find(users_artifact)
    assert FilesystemStore(root, SESSION_LIKE).list() == []
    with pytest.raises(ArtifactNotFound):
        FilesystemStore(root, SESSION_LIKE).read(users_artifact)


def test_trunc_artifacts_clean_removes_only_the_stores_own_files(
        mixed_root: tuple[Path, list[str], dict[str, Any]], outside: Path, trunc_exe: str,
        trunc_env: dict[str, str], tmp_path: Path) -> None:
    root_path, names, planted = mixed_root
    users = {name: snapshot(root_path / name) for name in names}
    outside_before = snapshot(outside)
    env = {**trunc_env, "TRUNCATION_CORE_STORE__ROOT": str(root_path)}
    done = subprocess.run([trunc_exe, "artifacts", "clean"], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    _assert_only_the_stores_own_went(root_path, names, planted, users, outside, outside_before)
    assert done.stdout.startswith("deleted 2 sessions, 3 artifacts")


def test_the_sweep_a_real_trunc_apply_runs_removes_only_the_stores_own_files(
        mixed_root: tuple[Path, list[str], dict[str, Any]], outside: Path, trunc_exe: str,
        trunc_env: dict[str, str], tmp_path: Path) -> None:
    root_path, names, planted = mixed_root
    users = {name: snapshot(root_path / name) for name in names}
    outside_before = snapshot(outside)
    env = {**trunc_env, "TRUNCATION_CORE_STORE__ROOT": str(root_path)}
    data = "".join(f"{i}\n" for i in range(1, 100_001)).encode()
    done = subprocess.run([trunc_exe, "apply", "-"], input=data, capture_output=True,
                          env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    stored = re.search(rb"^artifact: (art_[0-9]+_[0-9a-f]{32}) ", done.stderr, re.M)
    assert stored is not None, done.stderr
    for name in names:
        assert snapshot(root_path / name) == users[name], name
    left = snapshot(root_path / "doomed")
    assert {k: v for k, v in left.items() if k != "."} == {
        k: v for k, v in planted.items() if k != "."}
    assert snapshot(outside) == outside_before
    new = [s.id for s in ArtifactRoot(str(root_path)).sessions()]
    assert len(new) == 1  # the run's own session, which holds its artifact
    assert (root_path / new[0] / f"{stored.group(1).decode()}.txt").read_bytes() == data


def test_control_the_old_sweep_deletes_the_users_things_in_a_root_of_the_stores(
        mixed_root: tuple[Path, list[str], dict[str, Any]], outside: Path) -> None:
    root_path, _, _ = mixed_root
    deleted = naive_sweep(root_path)
    assert deleted == sorted(["clean-one", "doomed", "photos", "projects", SESSION_LIKE,
                              "empty"])
    assert not (root_path / "photos").exists()
    assert not (root_path / "doomed").exists()  # with the user's notes.txt in it
    assert (outside / "file.txt").read_bytes() == SECRET  # it never followed a link


# -- quota eviction -----------------------------------------------------------------------


def _plant_in_session(session: Path, outside: Path) -> dict[str, Any]:
    """The user's entries named like the oldest artifacts of a session: a link to a file
    outside, a hard link to it, a directory. Returns their snapshot."""
    old = 1_600_000_000
    (session / f"{new_artifact_id(old)}.txt").symlink_to(outside / "file.txt")
    os.link(outside / "file.txt", session / f"{new_artifact_id(old)}.txt")
    (session / f"{new_artifact_id(old)}.json").mkdir()
    for entry in session.iterdir():
        if entry.name.startswith(f"art_{old}_"):
            age(entry, 5 * 365 * 86400)  # older than any artifact: first in line
    return {k: v for k, v in snapshot(session).items() if f"art_{old}_" in k}


def test_quota_eviction_removes_only_the_stores_own_artifacts(tmp_path: Path,
                                                              outside: Path) -> None:
    root = ArtifactRoot(str(tmp_path / "root"), quota=250)
    store = FilesystemStore(root, "q")
    first = put(store, b"a" * 100)
    planted = _plant_in_session(tmp_path / "root" / "q", outside)
    outside_before = snapshot(outside)
    second = put(store, b"b" * 100)
    third = put(store, b"c" * 100)  # 300 > 250: the oldest of the store's goes
    after = snapshot(tmp_path / "root" / "q")
    assert {k: v for k, v in after.items() if k in planted} == planted
    assert snapshot(outside) == outside_before
    assert [r.id for r in store.list()] == [second.id, third.id]
    assert not (tmp_path / "root" / "q" / f"{first.id}.txt").exists()


def test_control_the_old_eviction_removes_the_users_entries(tmp_path: Path,
                                                            outside: Path) -> None:
    """Negative control: eviction as it was, oldest first over every entry named like
    content (``lstat``, no check of what it is), unlinks the user's link and hard link."""
    session = tmp_path / "q"
    session.mkdir()
    planted = _plant_in_session(session, outside)
    fd = os.open(session, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        named = sorted((os.stat(n, dir_fd=fd, follow_symlinks=False).st_mtime_ns, n)
                       for n in os.listdir(fd)
                       if re.fullmatch(r"art_[0-9]+_[0-9a-f]{32}\.(txt|json)", n))
        for _, name in named:
            try:
                os.unlink(name, dir_fd=fd)
            except OSError:  # the old cleanup swallowed errors (a directory cannot be unlinked)
                pass
    finally:
        os.close(fd)
    after = snapshot(session)
    lost = [k for k in planted if k not in after]
    assert len(lost) == 2 and all(planted[k][0] in ("link", "file") for k in lost)
