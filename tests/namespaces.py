"""A private tmpfs for a test: a user and mount namespace (no root needed) in which a small
or read-only filesystem is mounted, so that a full disk or a read-only one is real and
touches nothing outside the process (research/reliability.md)."""

from __future__ import annotations

import ctypes
import ctypes.util
import os

CLONE_NEWNS, CLONE_NEWUSER, MS_REC, MS_PRIVATE, MS_RDONLY = (0x20000, 0x10000000, 0x4000,
                                                             1 << 18, 1)


def mount_private_tmpfs(mount: str, options: str, flags: int = 0) -> None:
    """In this process (a forked child): enter new user and mount namespaces, mapped to the
    current user, and mount a tmpfs at *mount* with *options* (``size=1m``) and mount
    *flags*. Raises OSError where namespaces are not available."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)

    def ok(rc: int) -> None:
        if rc != 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))

    uid, gid = os.getuid(), os.getgid()
    ok(libc.unshare(CLONE_NEWUSER | CLONE_NEWNS))
    for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"),
                       ("gid_map", f"0 {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)
    ok(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None))
    ok(libc.mount(b"tmpfs", mount.encode(), b"tmpfs", flags, options.encode()))
