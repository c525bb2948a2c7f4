"""``--install``: add the hook's entries to a host's ``settings.json``, keeping what is there.

Both hosts read ``{"hooks": {EVENT: [{"matcher": ..., "hooks": [{"type": "command",
"command": ...}]}]}}``. An entry whose command is already there is not added twice; every
other key and entry is kept as it was. The file is replaced in one step (written beside it,
then renamed), and a file that is not a JSON object is refused rather than overwritten.

A settings file that is a symbolic link (a dotfiles repository's) is written where the link
points, as editors and ``git config`` do: replacing the link by a file cut the user's copy off
from the repository. The host may write the file while the hook is installed (Claude Code
keeps its own keys there): just before the rename the file is read again, and if it changed,
the entries are added to what it holds now, so that nothing another program wrote in the
meantime is lost.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["SettingsError", "install"]

#: Times the entries are added again to a file another program changed meanwhile.
_ATTEMPTS = 5


class SettingsError(Exception):
    """A settings file that cannot be read as a JSON object."""


def install(path: Path, entries: Sequence[tuple[str, str, str]]) -> list[str]:
    """Add each ``(event, matcher, command)`` of *entries* to the settings file at *path*
    (created if missing); return the events an entry was added to."""
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    for _ in range(_ATTEMPTS):
        before = _read(target)
        settings = _parse(path, before)
        added = _add(path, settings, entries)
        if not added:
            return []
        if _write(target, _dumps(settings), before):
            return added
    raise SettingsError(f"{path}: another program kept changing it while the hook was added "
                        f"({_ATTEMPTS} times); left as it is")


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _parse(path: Path, data: bytes | None) -> dict[str, Any]:
    if data is None:
        return {}
    try:
        settings = json.loads(data.decode("utf-8") or "{}")
    except RecursionError:
        raise SettingsError(f"{path}: nested too deeply to read; left as it is") from None
    except ValueError as exc:  # not UTF-8, not JSON, a number of more than 4,300 digits
        raise SettingsError(f"{path}: not valid JSON ({exc}); left as it is") from None
    if not isinstance(settings, dict):
        raise SettingsError(f"{path}: not a JSON object; left as it is")
    return settings


def _add(path: Path, settings: dict[str, Any],
         entries: Sequence[tuple[str, str, str]]) -> list[str]:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError(f"{path}: \"hooks\" is not an object; left as it is")
    added = []
    for event, matcher, command in entries:
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise SettingsError(f"{path}: \"hooks.{event}\" is not a list; left as it is")
        present = any(isinstance(group, dict) and isinstance(group.get("hooks"), list)
                      and any(isinstance(h, dict) and h.get("command") == command
                              for h in group["hooks"])
                      for group in groups)
        if not present:
            groups.append({"matcher": matcher,
                           "hooks": [{"type": "command", "command": command}]})
            added.append(event)
    return added


def _dumps(settings: dict[str, Any]) -> bytes:
    text = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (``"\ud800"`` in the file): kept escaped
        return (json.dumps(settings, indent=2) + "\n").encode("ascii")


def _write(path: Path, data: bytes, before: bytes | None) -> bool:
    """Replace *path* by *data*, unless it no longer holds *before* (another program wrote
    it meanwhile): then nothing is changed, and False is returned."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if before is not None else 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, mode)
        if _read(path) != before:
            Path(tmp).unlink()
            return False
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return True
