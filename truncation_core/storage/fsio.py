"""Filesystem access for the artifact store: pinned directory handles, never a symlink.

Every name is opened relative to a directory file descriptor that was opened once with
``O_NOFOLLOW | O_DIRECTORY`` and checked (ours, mode 0700), so swapping a directory or a
file for a symlink after startup cannot redirect a read or a write. Files are opened with
``O_NOFOLLOW`` (a symlink fails with ``ELOOP``) and ``O_NONBLOCK`` (a planted FIFO cannot hang
a reader), then checked with ``fstat``: a regular file, owned by us, with one link (a hard
link to a file elsewhere is refused).

Every system call goes through this module's ``os`` name: the fault-injection tests replace
it to fail the k-th call (reliability.md section 1). POSIX only: the store needs ``dir_fd``.
"""

from __future__ import annotations

import _thread
import errno
import os
import stat
import weakref
from collections.abc import Callable, Iterator
from typing import BinaryIO

from truncation_core.errors import StoreError, StoreFull

__all__ = ["Directory", "is_own", "os", "store_error"]

_O_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_O_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
_O_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
#: errno values that mean "no space": the store raises StoreFull for them.
FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
#: Largest single write (short writes are looped over anyway).
_WRITE_CHUNK = 1 << 20


def store_error(exc: OSError, action: str) -> StoreError:
    """A typed store error for *exc*: StoreFull for a full disk, StoreError otherwise.

    *action* names what failed (an artifact id or file name, never content).
    """
    code = exc.errno if exc.errno is not None else errno.EIO
    cls = StoreFull if code in FULL_ERRNOS else StoreError
    return cls(code, f"{action}: {os.strerror(code)}")


def refused(name: str, why: str) -> StoreError:
    return StoreError(errno.EPERM, f"{name}: refused: {why}")


def is_own(st: os.stat_result) -> bool:
    """Whether an entry's ``lstat`` is that of a file the store could have made: a regular
    file (not a link, a directory, a FIFO...) of this user, with one link (a hard link to a
    file elsewhere is not the store's)."""
    return stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid() and st.st_nlink == 1


#: The finalizer closes a forgotten handle with the real close, even while a test has
#: replaced this module's ``os`` with one that fails.
_real_close = os.close


def _close_cell(cell: list[int]) -> None:
    fd, cell[0] = cell[0], -1
    if fd >= 0:
        _real_close(fd)


class Directory:
    """An open directory: every access to what it holds goes through its descriptor.

    The descriptor is closed by :meth:`close`, or when the object is garbage collected.
    """

    def __init__(self, fd: int, label: str) -> None:
        self._cell = [fd]
        self._close = weakref.finalize(self, _close_cell, self._cell)
        #: A description for messages (a path, never content).
        self.label = label
        #: Whether this handle's directory was made by the call that opened it (its mkdir
        #: succeeded), rather than found.
        self.created = False

    @property
    def fd(self) -> int:
        return self._cell[0]

    # -- opening directories ----------------------------------------------------------------

    @classmethod
    def open_path(cls, path: str, *, create: bool, private: bool = True) -> Directory | None:
        """Open the directory at *path* (an absolute path), creating it 0700 if asked.

        Components above the last are resolved by the kernel as usual (the configured place
        may be under a symlink); the last one must not be a symlink. Returns None when it does
        not exist and *create* is false. *private*: as in :meth:`subdir`.
        """
        parent, name = os.path.split(os.path.normpath(path))
        if not name:
            raise refused(path, "the store root cannot be a filesystem root")
        try:
            parent_fd = os.open(parent, _O_DIR & ~os.O_NOFOLLOW)
        except FileNotFoundError:
            if not create:
                return None
            _makedirs_private(parent)
            parent_fd = os.open(parent, _O_DIR & ~os.O_NOFOLLOW)
        except OSError as exc:
            raise store_error(exc, f"open {parent}") from None
        with Directory(parent_fd, parent) as parent_dir:
            return parent_dir.subdir(name, create=create, label=path, private=private)

    def subdir(self, name: str, *, create: bool, label: str | None = None,
               private: bool = True) -> Directory | None:
        """Open the subdirectory *name* (mode 0700, ours), creating it if asked.

        With *private* false, it is opened as it is, neither checked nor changed (to look at
        a directory the store may not have made): the caller then calls :meth:`check_owner`
        and :meth:`make_private` once it knows the directory is the store's.
        """
        label = label or f"{self.label}/{name}"
        created = False
        if create:
            try:
                os.mkdir(name, 0o700, dir_fd=self.fd)
                created = True
            except FileExistsError:
                pass
            except OSError as exc:
                raise store_error(exc, f"create {label}") from None
        try:
            fd = os.open(name, _O_DIR, dir_fd=self.fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise refused(label, "not a directory (a symlink?)") from None
            raise store_error(exc, f"open {label}") from None
        directory = Directory(fd, label)
        directory.created = created
        if private:
            try:
                directory.check_owner()
                directory.make_private()
            except BaseException:
                directory.close()
                raise
        return directory

    def stat(self) -> os.stat_result:
        """The directory's own status (``fstat`` of the handle)."""
        return os.fstat(self.fd)

    def check_owner(self) -> None:
        """Raise :class:`~truncation_core.errors.StoreError` unless this user owns it."""
        st = self.stat()
        if st.st_uid != os.geteuid():
            raise refused(self.label, f"owned by uid {st.st_uid}, not by this user")

    def make_private(self) -> None:
        """Make it 0700 if it is looser (ours but readable by others: fix it)."""
        if stat.S_IMODE(self.stat().st_mode) & 0o077:
            os.fchmod(self.fd, 0o700)

    def close(self) -> None:
        self._close()

    def __enter__(self) -> Directory:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- files ------------------------------------------------------------------------------

    def open_file(self, name: str) -> BinaryIO:
        """Open the regular file *name* for reading, after checking what it is.

        Raises FileNotFoundError when it does not exist (or was deleted while it was being
        opened), and
        :class:`~truncation_core.errors.StoreError` when it is not a regular file of ours
        with a single link.
        """
        try:
            fd = os.open(name, _O_READ, dir_fd=self.fd)
        except FileNotFoundError:
            raise
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise refused(name, "a symlink") from None
            raise store_error(exc, f"open {name}") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise refused(name, "not a regular file")
            if st.st_nlink == 0:
                # Deleted between the open and now (an eviction, a cleaner): it is gone, as
                # if the open had come a moment later.
                raise FileNotFoundError(errno.ENOENT, "deleted while it was opened")
            if st.st_nlink != 1:
                raise refused(name, f"has {st.st_nlink} links (a hard link to another file?)")
            if st.st_uid != os.geteuid():
                raise refused(name, f"owned by uid {st.st_uid}")
            return open(fd, "rb", closefd=True)
        except BaseException:
            os.close(fd)
            raise

    def read_small(self, name: str, limit: int = 1 << 20) -> bytes:
        """The content of a small file (metadata), checked as :meth:`open_file` does."""
        with self.open_file(name) as f:
            return f.read(limit)

    def create(self, name: str) -> int:
        """Create *name* exclusively, mode 0600, and return its descriptor."""
        return os.open(name, _O_CREATE, 0o600, dir_fd=self.fd)

    @staticmethod
    def write_all(fd: int, data: bytes | memoryview,
                  meanwhile: Callable[[], object] | None = None) -> None:
        """Write all of *data*: ``os.write`` may write less than asked (seen just before
        ENOSPC), so loop until everything is written or an error is raised.

        With *meanwhile*, the write runs on a helper thread while ``meanwhile()`` runs on
        this one, for work that releases the GIL (hashing the same bytes): both finish
        before this returns, and an error from either is raised here.
        """
        if meanwhile is None:
            _write_all(fd, data)
            return
        done = _thread.allocate_lock()
        done.acquire()
        failed: list[BaseException] = []

        def write() -> None:
            try:
                _write_all(fd, data)
            except BaseException as exc:  # raised on the caller's thread below
                failed.append(exc)
            finally:
                done.release()

        # Not threading.Thread: its start() waits until the new thread runs, which on a busy
        # machine took longer than the write. The caller does the longer task (hashing), so
        # it seldom waits for the helper here.
        _thread.start_new_thread(write, ())
        try:
            meanwhile()
        finally:
            done.acquire()  # never return (and close the descriptor) while it writes
        if failed:
            raise failed[0]

    def write_atomic(self, name: str, data: bytes, *, durable: bool, temp: str) -> None:
        """Publish *data* as *name*: written to *temp*, then renamed into place."""
        fd = self.create(temp)
        try:
            try:
                self.write_all(fd, data)
                if durable:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            self.unlink(temp)
            raise

    def replace(self, src: str, dst: str) -> None:
        os.replace(src, dst, src_dir_fd=self.fd, dst_dir_fd=self.fd)

    def unlink(self, name: str) -> bool:
        """Remove *name* if it exists; return whether it did. Errors other than "missing" are
        swallowed: this is cleanup, and the sweep catches whatever is left."""
        try:
            os.unlink(name, dir_fd=self.fd)
        except OSError:
            return False
        return True

    def is_own_file(self, name: str) -> bool:
        """Whether *name* is a file the store could have made here (:func:`is_own`): the
        only kind of entry the store ever makes in a directory."""
        try:
            st = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except OSError:
            return False
        return is_own(st)

    def unlink_own(self, name: str) -> bool:
        """Remove *name* if it is a file the store could have made (:meth:`is_own_file`);
        return whether it did. Anything else under that name is left where it is. (Between the
        check and the unlink only this user can swap the entry, in a 0700 directory, and
        unlink never follows a link.)"""
        return self.is_own_file(name) and self.unlink(name)

    def create_marker(self, name: str, text: bytes) -> bool:
        """Create the file *name* holding *text* unless it exists; return whether this call
        created it. A marker is proved by its existence (:meth:`is_own_file`), not its
        content: created exclusively, it is there before a byte is written, so two processes
        creating it at once both see it."""
        try:
            os.stat(name, dir_fd=self.fd, follow_symlinks=False)
            return False  # there: looking costs a fraction of an exclusive create that fails
        except FileNotFoundError:
            pass
        try:
            fd = self.create(name)
        except FileExistsError:
            return False
        try:
            self.write_all(fd, text)
        finally:
            os.close(fd)
        return True

    def rmdir(self, name: str) -> bool:
        """Remove the directory *name* if it is empty; return whether it did. A directory that
        still holds something (what the store did not make, or a write that began meanwhile)
        stays; so does anything that is not a directory (rmdir never follows a link)."""
        try:
            os.rmdir(name, dir_fd=self.fd)
        except FileNotFoundError:
            return False
        except OSError as exc:
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EBUSY):
                return False
            raise
        return True

    def fsync(self) -> None:
        os.fsync(self.fd)

    def set_times(self, st: os.stat_result) -> None:
        """Give the directory back the access and modification times of *st* (after writing a
        marker into it: the retention clock must not restart). Errors are swallowed."""
        try:
            os.utime(self.fd, ns=(st.st_atime_ns, st.st_mtime_ns))
        except OSError:
            pass

    def touch(self) -> None:
        """Set the directory's modification time to now (the retention clock)."""
        try:
            os.utime(self.fd)
        except OSError:
            pass

    def entries(self) -> Iterator[os.DirEntry[str]]:
        """The entries of this directory.

        Listed through a fresh descriptor of the same directory (``openat(fd, ".")``): a
        duplicate would share its read position with concurrent listings.
        """
        fd = os.open(".", _O_DIR, dir_fd=self.fd)
        try:
            with os.scandir(fd) as it:
                yield from it
        finally:
            os.close(fd)

    def lstat(self, name: str) -> os.stat_result:
        return os.stat(name, dir_fd=self.fd, follow_symlinks=False)


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view[:_WRITE_CHUNK])
        if written <= 0:
            raise OSError(errno.EIO, "write returned no progress")
        view = view[written:]


def _makedirs_private(path: str) -> None:
    """Create *path* and any missing parents, each new one with mode 0700."""
    missing = []
    current = os.path.normpath(path)
    while not os.path.isdir(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, 0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            raise store_error(exc, f"create {directory}") from None
