"""``--install``: add the hook's entries to a host's ``settings.json``, keeping what is there.

Both hosts read ``{"hooks": {EVENT: [{"matcher": ..., "hooks": [{"type": "command",
"command": ...}]}]}}``. An entry whose command is already there is not added twice; every
other key and entry is kept as it was. The file is replaced in one step (written beside it,
then renamed), and a file that is not a JSON object is refused rather than overwritten.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["SettingsError", "install"]


class SettingsError(Exception):
    """A settings file that cannot be read as a JSON object."""


def install(path: Path, entries: Sequence[tuple[str, str, str]]) -> list[str]:
    """Add each ``(event, matcher, command)`` of *entries* to the settings file at *path*
    (created if missing); return the events an entry was added to."""
    settings: dict[str, Any] = {}
    if path.exists():
        try:
            settings = json.loads(path.read_text(encoding="utf-8") or "{}")
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise SettingsError(f"{path}: not valid JSON ({exc}); left as it is") from None
        if not isinstance(settings, dict):
            raise SettingsError(f"{path}: not a JSON object; left as it is")
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
    if added:
        _write(path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
    return added


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o644
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
