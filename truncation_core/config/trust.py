"""Whether a file found by searching may have been planted by another user of the machine.

Configuration is searched for from the working directory up to ``/``, and a config file may
name plugin modules to import: whoever can put a ``.truncation.yaml`` in a directory above
yours can run code as you. So, as git does with ``safe.directory``, a file found by searching
is used only when nobody else could have written it: it (and, if it is a symlink, the link
too) is owned by you or by root, not writable by other users, and its directory is owned by
you or root and not writable by other users unless the directory has the sticky bit (as
``/tmp`` has, where nobody can replace a file they do not own). A file named explicitly
(``--config``, ``TRUNCATION_CORE_CONFIG``) is the user's own choice and is not checked.

"Other users" are everyone but you and root, and a group that is not your own: a directory
writable by your own primary group is yours.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["HOW_TO_ALLOW", "untrusted_reason"]

#: What the warning for a skipped file tells the user to do.
HOW_TO_ALLOW = ("to use it anyway, name it explicitly: trunc --config PATH, "
                "TRUNCATION_CORE_CONFIG=PATH, or Truncator.from_config(PATH)")


def _owner(st: os.stat_result) -> str:
    try:
        import pwd

        return pwd.getpwuid(st.st_uid).pw_name
    except (ImportError, KeyError):
        return f"uid {st.st_uid}"


def _others_can_write(st: os.stat_result) -> bool:
    return bool(st.st_mode & stat.S_IWOTH) or (
        bool(st.st_mode & stat.S_IWGRP) and st.st_gid != os.getegid())


def untrusted_reason(path: Path) -> str | None:
    """Why *path* (a file found by searching) may come from another user, or None when only
    the current user or root could have written it."""
    if not hasattr(os, "geteuid"):  # no POSIX ownership to check (Windows)
        return None
    me = os.geteuid()
    try:
        link = path.lstat()
        st = path.stat()
        directory = path.parent.stat()
    except OSError:
        return "it cannot be checked"
    for what, info in (("it", st), ("the symlink", link)):
        if info.st_uid not in (me, 0):
            return f"{what} is owned by {_owner(info)}, not by you or root"
    if _others_can_write(st):
        return "other users can write to it"
    if directory.st_uid not in (me, 0) and directory.st_mode & stat.S_IWUSR:
        # Its owner can rename anything in it, the user's own files included, whatever the
        # sticky bit says: they choose which of the user's files is the config.
        return f"its directory {path.parent} is owned by {_owner(directory)}"
    if _others_can_write(directory) and not directory.st_mode & stat.S_ISVTX:
        return f"other users can write to its directory {path.parent}"
    return None
