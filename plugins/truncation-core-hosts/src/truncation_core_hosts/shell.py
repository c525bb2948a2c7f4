"""A shell command rewritten to run through ``trunc run``.

``trunc run -- bash -c COMMAND`` runs the command in a child shell, cuts its output (stdout and
stderr merged) to the budget, keeps the full output as an artifact, and exits with the
command's status (124 after ``--timeout``). Three kinds of command are left as they are:

- one that changes the directory of the host's shell (``cd``, ``pushd``, ``popd``) other than
  by a leading ``cd DIR &&``, which stays outside (``cd DIR && trunc run -- bash -c REST``):
  in a child shell the change would be lost, and hosts such as Claude Code keep it for the
  next command;
- one that puts a job in the background (``cmd &``): ``trunc run`` would wait for it;
- one that runs ``trunc`` already.

The test is on the text, and errs on the side of leaving a command alone (a ``cd`` inside a
quoted string counts too).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence

__all__ = ["wrapped"]

#: ``cd DIR &&`` at the start, DIR one word (plainly written, or in quotes).
_LEADING_CD = re.compile(r"""\s*cd\s+(?:'[^']*'|"[^"\\$`]*"|[^\s;&|()<>'"`$\\]+)\s*&&""")
#: A builtin that changes the directory, where a command starts.
_CHANGES_DIRECTORY = re.compile(r"(?:^|[;&|(){}\n`]|\$\()\s*(?:cd|pushd|popd)\b")
#: ``&`` that puts a job in the background (not ``&&``, ``>&``, ``&>``, ``<&``, ``|&``).
_BACKGROUND = re.compile(r"(?<![&>|<])&(?![&>])")
_TRUNC = re.compile(r"\s*(?:\S*/)?trunc\s")


def wrapped(command: str, trunc: Sequence[str], *, timeout: float | None = None,
            env: Mapping[str, str] | None = None, shell: str = "bash") -> str | None:
    """*command* rewritten to run through ``trunc run`` (*trunc*: how to start ``trunc``),
    killed after *timeout* seconds, with *env* set for ``trunc``; None when it is left as it
    is (see the module)."""
    if not command.strip() or "\0" in command:
        return None
    prefix = ""
    while (match := _LEADING_CD.match(command, len(prefix))) is not None:
        prefix = command[:match.end()]
    rest = command[len(prefix):]
    if (not rest.strip() or _CHANGES_DIRECTORY.search(rest) or _BACKGROUND.search(rest)
            or _TRUNC.match(rest)):
        return None
    words = [f"{name}={shlex.quote(value)}" for name, value in (env or {}).items()]
    words += [shlex.quote(part) for part in trunc]
    words.append("run")
    if timeout is not None:
        words += ["--timeout", f"{timeout:g}"]
    words += ["--", shell, "-c", shlex.quote(rest.strip())]
    return f"{prefix.strip()} {' '.join(words)}".lstrip()
