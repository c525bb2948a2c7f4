"""A shell command rewritten to run through ``trunc run``.

``trunc run -- bash -c COMMAND`` runs the command in a child shell, cuts its output (stdout and
stderr merged) to the budget, keeps the full output as an artifact, and exits with the
command's status (124 after ``--timeout``). Three kinds of command are left as they are:

- one that changes the directory of the host's shell (``cd``, ``pushd``, ``popd``, wherever a
  command starts: after ``;``, ``&&``, ``then``, ``do``, ``!``, ``command``, ``builtin``, an
  assignment ...) other than by a leading ``cd DIR &&``, which stays outside
  (``cd DIR && trunc run -- bash -c REST``): in a child shell the change would be lost, and
  hosts such as Claude Code keep it for the next command. REST must then be one and-list (no
  ``||``, ``;`` or new line): in ``cd DIR && a || b`` (or ``; b``), ``b`` runs when ``cd``
  fails, and behind the ``cd`` it would not;
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
#: A builtin that changes the directory, where a command starts: after an operator, or
#: after what may stand before a command's name (a reserved word such as ``then`` or ``do``,
#: ``!``, ``time``, ``command`` or ``builtin``, variable assignments).
_CHANGES_DIRECTORY = re.compile(
    r"(?:^|[;&|(){}\n`]|\$\()"
    r"(?:\s*(?:(?:then|do|else|elif|if|while|until|!|time|command|builtin)(?=\s)"
    r"|[A-Za-z_][A-Za-z0-9_]*=\S*(?=\s)))*"
    r"\s*(?:cd|pushd|popd)(?=$|[\s;&|()<>])")
#: ``&`` that puts a job in the background (not ``&&``, ``>&``, ``&>``, ``<&``, ``|&``).
_BACKGROUND = re.compile(r"(?<![&>|<])&(?![&>])")
#: What ends an and-list (``||``, ``;``, a new line; ``&`` is a background job, above).
_LIST_END = re.compile(r"\|\||[;\n]")
_TRUNC = re.compile(r"\s*(?:\S*/)?trunc\s")


def wrapped(command: str, trunc: Sequence[str], *, timeout: float | None = None,
            env: Mapping[str, str] | None = None, shell: str = "bash") -> str | None:
    """*command* rewritten to run through ``trunc run`` (*trunc*: how to start ``trunc``),
    killed after *timeout* seconds, with *env* set for ``trunc`` (and unset again for the
    command, through ``env -u``); None when it is left as it is (see the module)."""
    if not command.strip() or "\0" in command:
        return None
    prefix = ""
    while (match := _LEADING_CD.match(command, len(prefix))) is not None:
        prefix = command[:match.end()]
    rest = command[len(prefix):]
    if (not rest.strip() or _CHANGES_DIRECTORY.search(rest) or _BACKGROUND.search(rest)
            or _TRUNC.match(rest) or (prefix and _LIST_END.search(rest.strip()))):
        return None
    words = [f"{name}={shlex.quote(value)}" for name, value in (env or {}).items()]
    words += [shlex.quote(part) for part in trunc]
    words.append("run")
    if timeout is not None:
        words += ["--timeout", f"{timeout:g}"]
    words.append("--")
    for name in env or ():  # trunc's settings, not the command's: it gets the environment it had
        words += ["env", "-u", name] if words[-1] == "--" else ["-u", name]
    words += [shell, "-c", shlex.quote(rest.strip())]
    return f"{prefix.strip()} {' '.join(words)}".lstrip()
