"""The store's markers under attack: planted, linked, foreign, shared, raced.

The store deletes only what it can prove it made, and the proof is a marker: a regular file
of this user with one link (``.truncation-core-store`` in the root, ``.truncation-core-session``
in each session). These tests plant every kind of false proof (a link to a file of the
user's, a hard link, a file of another user, a directory, a FIFO; a root or a session made by
another user) and check that the store refuses or ignores it with nothing changed, byte for
byte. They also point the store at a directory shared with other users (an empty ``/tmp`` in
a fresh container), at a place another user redirected with a link, and race real ``trunc``
processes for a new root.

Files are planted as ``nobody`` (CI runs as root; the tests skip where ``chown`` is
impossible, and say so). The marker names are spelled out: they are the on-disk format.
"""

from __future__ import annotations

import json
import os
import pwd
import stat
import subprocess
from pathlib import Path

import pytest
from hostile.test_store_root import SECRET, age_tree, snapshot

from truncation_core import StoreError
from truncation_core.storage import filesystem
from truncation_core.storage.filesystem import ArtifactRoot
from truncation_core.types.artifacts import ArtifactInfo
from truncation_core.types.ids import new_session_id

ROOT_MARKER = ".truncation-core-store"
SESSION_MARKER = ".truncation-core-session"


def nobody() -> int:
    try:
        return pwd.getpwnam("nobody").pw_uid
    except KeyError:
        pytest.skip("no user 'nobody' on this machine to plant files as")


def as_nobody(path: Path) -> None:
    uid = nobody()
    try:
        os.chown(path, uid, uid, follow_symlinks=False)
    except PermissionError:
        pytest.skip("planting a file owned by another user needs chown, which needs root "
                    "(CI runs as root)")


def plant_marker(directory: Path, name: str, kind: str, elsewhere: Path) -> None:
    """A false marker *name* in *directory*: what it is instead of a regular file of this
    user with one link."""
    marker = directory / name
    if kind == "link":
        (elsewhere / "target").write_bytes(b"")
        marker.symlink_to(elsewhere / "target")
    elif kind == "hard link":
        (elsewhere / "target").write_bytes(b"")
        os.link(elsewhere / "target", marker)
    elif kind == "nobody's":
        marker.write_bytes(b"")
        as_nobody(marker)
    elif kind == "directory":
        marker.mkdir()
    elif kind == "fifo":
        os.mkfifo(marker)
    else:
        raise AssertionError(kind)


FALSE_MARKERS = ["link", "hard link", "nobody's", "directory", "fifo"]


# -- the root's marker --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", FALSE_MARKERS)
def test_a_false_root_marker_proves_nothing(tmp_path: Path, kind: str) -> None:
    """A directory of the user's holding a false root marker is refused, whatever the store
    is asked to do, and is left byte for byte (links, targets and modes included)."""
    d, elsewhere = tmp_path / "d", tmp_path / "elsewhere"
    d.mkdir()
    elsewhere.mkdir()
    (d / "photos").mkdir()
    (d / "photos" / "a.jpg").write_bytes(SECRET)
    plant_marker(d, ROOT_MARKER, kind, elsewhere)
    age_tree(d)
    before, elsewhere_before = snapshot(d), snapshot(elsewhere)
    root = ArtifactRoot(str(d), retention_days=1)
    for operation in (root.sweep, root.clean, lambda: root.session().writer(ArtifactInfo())):
        with pytest.raises(StoreError, match="is not an artifact store"):
            operation()
    assert snapshot(d) == before
    assert snapshot(elsewhere) == elsewhere_before


def test_a_root_another_user_made_is_refused(tmp_path: Path) -> None:
    """A root made by ``nobody``, marker and a session included (as another user could make
    it in a shared directory, where the store would make the user's), is never used."""
    d = tmp_path / "shared" / "store"
    d.mkdir(parents=True)
    (d / ROOT_MARKER).write_bytes(b"")
    session = d / new_session_id()
    session.mkdir()
    (session / SESSION_MARKER).write_bytes(b"")
    for path in (d, d / ROOT_MARKER, session, session / SESSION_MARKER):
        as_nobody(path)
    age_tree(d)
    before = snapshot(d)
    root = ArtifactRoot(str(d), retention_days=1)
    with pytest.raises(StoreError, match="owned by uid"):
        root.session().writer(ArtifactInfo())
    with pytest.raises(StoreError, match="owned by uid"):
        root.sweep()
    assert snapshot(d) == before


# -- a session's marker -------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [*FALSE_MARKERS, "directory nobody's"])
def test_a_planted_session_is_never_listed_swept_or_deleted(tmp_path: Path, kind: str) -> None:
    """In a root of the store's, a directory named like an expired session whose proof is
    false (its marker, or the directory itself another user's) is never listed, searched,
    swept, cleaned or deleted."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = ArtifactRoot(str(tmp_path / "root"), retention_days=1)
    own = root.session()
    with own.writer(ArtifactInfo(tool="t")) as w:
        w.write(b"the store's own\n")
        ref = w.commit()
    name = new_session_id(1_700_000_000)
    planted = tmp_path / "root" / name
    planted.mkdir()
    (planted / f"{ref.id}.txt").write_bytes(SECRET)  # named like an artifact of the store's
    if kind == "directory nobody's":
        (planted / SESSION_MARKER).write_bytes(b"")
        as_nobody(planted / f"{ref.id}.txt")
        as_nobody(planted / SESSION_MARKER)
        as_nobody(planted)
    else:
        plant_marker(planted, SESSION_MARKER, kind, elsewhere)
    age_tree(planted)
    before = snapshot(planted)
    assert name not in [s.id for s in root.sessions()]
    root.sweep()
    root.clean()
    root.delete_session(name)
    assert snapshot(planted) == before


# -- a directory shared with other users --------------------------------------------------------


SHARED_MODES = {"sticky, like /tmp": 0o1777, "writable by all": 0o777,
                "a team's setgid directory": 0o2775}


@pytest.mark.parametrize("mode", SHARED_MODES.values(), ids=SHARED_MODES.keys())
def test_an_empty_shared_directory_is_refused_and_keeps_its_mode(tmp_path: Path,
                                                                 mode: int) -> None:
    """``store.root: /tmp`` in a fresh container, where ``/tmp`` is empty: adopting it made it
    0700, and every other user lost ``/tmp``. It is refused, its mode unchanged."""
    d = tmp_path / "tmp"
    d.mkdir()
    d.chmod(mode)
    before = snapshot(d)
    with pytest.raises(StoreError, match=r"shared with other users .*mode "
                                         f"{mode:04o}"):
        ArtifactRoot(str(d)).session().writer(ArtifactInfo())
    assert snapshot(d) == before
    assert stat.S_IMODE(d.stat().st_mode) == mode


def test_control_adopting_a_shared_directory_locked_its_users_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative control: without the check (the store as it was), the empty sticky directory
    is adopted and made 0700: no other user can use it any more."""
    d = tmp_path / "tmp"
    d.mkdir()
    d.chmod(0o1777)
    monkeypatch.setattr(filesystem, "_shared", lambda mode: None)
    with ArtifactRoot(str(d)).session().writer(ArtifactInfo()) as w:
        w.write(b"x\n")
        w.commit()
    assert stat.S_IMODE(d.stat().st_mode) == 0o700
    assert (d / ROOT_MARKER).is_file()


def test_trunc_apply_on_an_empty_shared_directory_says_so_and_changes_nothing(
        tmp_path: Path, trunc_exe: str, trunc_env: dict[str, str]) -> None:
    d = tmp_path / "tmp"
    d.mkdir()
    d.chmod(0o1777)
    data = "".join(f"{i}\n" for i in range(1, 100_001)).encode()
    done = subprocess.run([trunc_exe, "apply", "-"], input=data, capture_output=True,
                          env={**trunc_env, "TRUNCATION_CORE_STORE__ROOT": str(d)},
                          cwd=tmp_path, timeout=120)
    stderr = done.stderr.decode()
    assert done.returncode == 0, stderr
    assert "shared with other users (sticky: mode 1777)" in stderr
    assert "artifact: not kept (store.root is not an artifact store)" in stderr
    assert list(d.iterdir()) == []
    assert stat.S_IMODE(d.stat().st_mode) == 0o1777


# -- a root another user redirected -------------------------------------------------------------


@pytest.mark.parametrize("taken", [False, True], ids=["free", "the user's artifacts dir"])
def test_a_workspace_link_planted_by_another_user_changes_none_of_the_users_files(
        tmp_path: Path, trunc_exe: str, trunc_env: dict[str, str], taken: bool) -> None:
    """In a sticky shared directory, another user makes ``.truncation`` a link to a
    directory of the user's. ``trunc apply`` run there puts its root where the link points
    (the components above the root are resolved as usual): it makes only its own directory
    there, or refuses one of the user's; nothing of the user's is changed either way."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    users = tmp_path / "users"
    (users / "photos").mkdir(parents=True)
    (users / "photos" / "a.jpg").write_bytes(SECRET)
    if taken:
        (users / "artifacts" / "old").mkdir(parents=True)
        (users / "artifacts" / "old" / "b.jpg").write_bytes(SECRET)
    age_tree(users)
    link = shared / ".truncation"
    link.symlink_to(users)
    as_nobody(link)
    before = {k: v for k, v in snapshot(users).items() if k != "."}
    data = "".join(f"{i}\n" for i in range(1, 100_001)).encode()
    done = subprocess.run([trunc_exe, "apply", "-"], input=data, capture_output=True,
                          env=trunc_env, cwd=shared, timeout=120)
    stderr = done.stderr.decode()
    assert done.returncode == 0, stderr
    after = {k: v for k, v in snapshot(users).items() if k != "."}
    if taken:
        assert "is not an artifact store" in stderr
        assert after == before
    else:
        assert "artifact: art_" in stderr
        made = {k for k in after if k not in before}
        assert all(k.startswith("./artifacts") for k in made)
        assert {k: after[k] for k in before} == before
        assert stat.S_IMODE((users / "artifacts").stat().st_mode) == 0o700


# -- races ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("exists", [False, True], ids=["new root", "empty root"])
def test_processes_racing_for_a_root_all_keep_their_artifacts(
        tmp_path: Path, trunc_exe: str, trunc_env: dict[str, str], exists: bool) -> None:
    """Six real ``trunc apply`` processes start at once on a root that does not exist yet
    (or an empty directory): each keeps its artifact, in a session of its own with its
    marker, under one root marker; none is refused."""
    root = tmp_path / "root"
    if exists:
        root.mkdir()
    env = {**trunc_env, "TRUNCATION_CORE_STORE__ROOT": str(root)}
    data = "".join(f"{i}\n" for i in range(1, 20_001)).encode()
    procs = [subprocess.Popen([trunc_exe, "apply", "-", "--json"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                              cwd=tmp_path) for _ in range(6)]
    for proc in procs:  # all started before any is given its input
        assert proc.stdin is not None
        proc.stdin.write(data)
        proc.stdin.close()
    ids = []
    for proc in procs:
        assert proc.stdout is not None and proc.stderr is not None
        proc.wait(timeout=120)
        out, err = proc.stdout.read(), proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
        assert proc.returncode == 0, err.decode()
        ids.append(json.loads(out)["metadata"]["artifact_id"])
    assert all(ids) and len(set(ids)) == 6
    entries = sorted(p.name for p in root.iterdir())
    assert entries[0] == ROOT_MARKER and len(entries) == 7
    assert (root / ROOT_MARKER).is_file() and not (root / ROOT_MARKER).is_symlink()
    for session in root.iterdir():
        if session.name != ROOT_MARKER:
            assert (session / SESSION_MARKER).is_file()
            assert len(list(session.glob("art_*.txt"))) == 1
