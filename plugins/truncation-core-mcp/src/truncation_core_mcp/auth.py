"""Who may use ``trunc mcp proxy --http`` and ``trunc mcp serve --http``: a bearer token.

A loopback port is open to every user of the machine, and docs/security.md counts other local
users as hostile: without a check, any of them could call the downstream server's tools with
the user's rights and read the user's artifacts. Checking ``Host`` and ``Origin`` stops web
pages (DNS rebinding), not local users. So every HTTP request must carry
``Authorization: Bearer <token>``; the token is compared in constant time
(:func:`hmac.compare_digest`), and a request without it, or with another, is answered 401
before anything else is read.

The token comes from, in this order:

1. ``--token-file FILE``: the token in FILE, which must be a regular file owned by the user
   and readable by nobody else (a new token is written to it when it does not exist);
2. the environment variable ``TRUNC_MCP_TOKEN`` (a process's environment is readable by its
   own user and root only, unlike its command line, which is why there is no ``--token``);
3. the default token file, ``$XDG_STATE_HOME/truncation-core/mcp-token`` (by default
   ``~/.local/state/truncation-core/mcp-token``), in a directory of mode 0700: made with a
   new token (printed once, on stderr) the first time, read on later runs, so that a host's
   configuration keeps working across restarts.

``--no-auth`` turns the check off, for a machine whose every user is trusted.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import os
import re
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

__all__ = ["TOKEN_ENV", "Access", "BearerAuth", "TokenError", "default_token_file",
           "resolve_access"]

TOKEN_ENV = "TRUNC_MCP_TOKEN"
#: A token: 16 to 4096 visible ASCII characters (no spaces: it follows "Bearer ").
_TOKEN = re.compile(r"[\x21-\x7e]{16,4096}")
TOKEN_FORM = "16 to 4096 visible ASCII characters, without spaces"
_UNAUTHORIZED = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
    "code": -32001,
    "message": "Unauthorized: this server requires the header 'Authorization: Bearer "
               "<token>', with the token that trunc mcp keeps in its token file (see "
               "trunc mcp proxy --help)"}}).encode()


class TokenError(ValueError):
    """The token cannot be had: a token file that others could read, a malformed token."""


@attrs.frozen(kw_only=True)
class Access:
    """How HTTP requests are let in."""

    #: The bearer token every request must carry; None: no check (``--no-auth``).
    token: str | None
    #: Where the token comes from, as messages name it (never the token itself).
    source: str
    #: The token file, when it comes from one.
    path: Path | None = None
    #: True when the token was made by this run (the one time it is printed).
    new: bool = False


def default_token_file(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/truncation-core/mcp-token``, else under ``~/.local/state``."""
    env = os.environ if environ is None else environ
    state = env.get("XDG_STATE_HOME") or ""
    base = Path(state) if os.path.isabs(state) else Path.home() / ".local" / "state"
    return base / "truncation-core" / "mcp-token"


def resolve_access(*, token_file: Path | None, no_auth: bool,
                   environ: Mapping[str, str] | None = None) -> Access:
    """The token requests must carry (see the module). Raises :class:`TokenError`."""
    env = os.environ if environ is None else environ
    if no_auth:
        return Access(token=None, source="--no-auth")
    if token_file is not None:
        token, new = _read_or_make(Path(token_file), "--token-file", make_directory=False)
        return Access(token=token, source=f"--token-file {token_file}", path=Path(token_file),
                      new=new)
    value = env.get(TOKEN_ENV)
    if value is not None:
        if not _TOKEN.fullmatch(value):
            raise TokenError(f"{TOKEN_ENV}: expected {TOKEN_FORM}, got "
                             f"{len(value)} characters that are not")
        return Access(token=value, source=f"the environment variable {TOKEN_ENV}")
    path = default_token_file(env)
    token, new = _read_or_make(path, "the token file", make_directory=True)
    return Access(token=token, source=f"the token file {path}", path=path, new=new)


def _read_or_make(path: Path, what: str, *, make_directory: bool) -> tuple[str, bool]:
    """The token in *path*, made first if *path* does not exist; (token, made now)."""
    try:
        if make_directory:
            _private_directory(path.parent, what)
        else:
            _safe_directory(path.parent, what)
    except OSError as exc:
        raise TokenError(f"{what}: its directory {path.parent} cannot be used "
                         f"({type(exc).__name__}: {exc.strerror or exc})") from None
    try:
        for _ in range(3):
            try:
                return _read(path, what), False
            except FileNotFoundError:
                pass
            token = secrets.token_urlsafe(32)
            if _create(path, token):
                return token, True
            # Another run made it first: read theirs.
    except OSError as exc:  # a symlink (O_NOFOLLOW), no permission, a read-only directory
        raise TokenError(f"{what}: {path} cannot be used ({type(exc).__name__}: "
                         f"{exc.strerror or exc})") from None
    raise TokenError(f"{what}: {path} keeps disappearing")


def _private_directory(directory: Path, what: str) -> None:
    """Make *directory* (mode 0700) or check that it is the user's, with no access for
    others (the user's own directory is set to 0700 if it allowed more)."""
    directory.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        directory.mkdir(mode=0o700)
    st = directory.lstat()
    if not stat.S_ISDIR(st.st_mode):
        raise TokenError(f"{what}: {directory} is not a directory")
    if st.st_uid != os.geteuid():
        raise TokenError(f"{what}: its directory {directory} is owned by another user "
                         f"(uid {st.st_uid})")
    if st.st_mode & 0o077:
        os.chmod(directory, 0o700)


def _safe_directory(directory: Path, what: str) -> None:
    """Refuse a directory in which another user could replace the token file."""
    try:
        st = directory.stat()
    except OSError as exc:
        raise TokenError(f"{what}: its directory {directory} cannot be used "
                         f"({type(exc).__name__})") from None
    if st.st_uid not in (os.geteuid(), 0):
        raise TokenError(f"{what}: its directory {directory} is owned by another user "
                         f"(uid {st.st_uid})")
    writable = st.st_mode & stat.S_IWOTH or (st.st_mode & stat.S_IWGRP
                                             and st.st_gid != os.getegid())
    if writable and not st.st_mode & stat.S_ISVTX:
        raise TokenError(f"{what}: other users can write to its directory {directory}")


def _read(path: Path, what: str) -> str:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise TokenError(f"{what}: {path} is not a regular file")
        if st.st_uid != os.geteuid():
            raise TokenError(f"{what}: {path} is owned by another user (uid {st.st_uid})")
        if st.st_mode & 0o077:
            raise TokenError(f"{what}: other users can read or write {path} (mode "
                             f"{stat.S_IMODE(st.st_mode):04o}); make it private with "
                             f"chmod 600 {path}")
        data = os.read(fd, 8192)
    finally:
        os.close(fd)
    token = data.decode("ascii", "replace").strip()
    if not _TOKEN.fullmatch(token):
        raise TokenError(f"{what}: {path} should hold one token of {TOKEN_FORM}")
    return token


def _create(path: Path, token: str) -> bool:
    """Write *token* to a new file *path* (mode 0600), whole or not at all: False when the
    file exists already."""
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                 | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as f:
            f.write(token + "\n")
        try:
            os.link(temporary, path)
        except FileExistsError:
            return False
        return True
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


class BearerAuth:
    """ASGI middleware: an HTTP request without ``Authorization: Bearer <token>`` is answered
    401, before the application sees it."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._token = token.encode("ascii")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not self.allowed(scope.get("headers") or ()):
            await send({"type": "http.response.start", "status": 401, "headers": [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer realm="trunc mcp"')]})
            await send({"type": "http.response.body", "body": _UNAUTHORIZED})
            return
        if scope["type"] == "websocket" and not self.allowed(scope.get("headers") or ()):
            await send({"type": "websocket.close", "code": 1008})
            return
        await self.app(scope, receive, send)

    def allowed(self, headers: Any) -> bool:
        """Whether *headers* (ASGI: lowercase names, bytes) carry the token, exactly once."""
        values = [value for name, value in headers if name.lower() == b"authorization"]
        if len(values) != 1:
            return False
        scheme, _, credentials = bytes(values[0]).strip().partition(b" ")
        if scheme.lower() != b"bearer":
            return False
        return hmac.compare_digest(credentials.strip(), self._token)
