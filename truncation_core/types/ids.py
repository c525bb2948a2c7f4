"""Artifact ids, session ids and tool call ids: how each is made and strictly validated.

The one definition of each id's form (file names, archive members and tool schemas are built
from these regular expressions), and the name of an artifact's content file. Apart from the
value objects of :mod:`truncation_core.types.artifacts` (which still exports all of these):
every Truncator makes a session id and checks the configured one at start-up, and those
objects are built only once something is stored.
"""

from __future__ import annotations

import os
import re
import time

from truncation_core.errors import InvalidArtifactId, InvalidSessionId

__all__ = [
    "ARTIFACT_ID_REGEX",
    "SESSION_ID_REGEX",
    "TOOL_CALL_ID_REGEX",
    "content_name",
    "is_tool_call_id",
    "new_artifact_id",
    "new_session_id",
    "validate_artifact_id",
    "validate_session_id",
]

#: ``art_<unix timestamp>_<32 lowercase hex digits>``, the one definition of an artifact id
#: (file names and archive members are built from it). ASCII only by construction: no ``\d``
#: (which matches other scripts' digits); always used for a full match (``$`` would accept a
#: trailing "\n").
ARTIFACT_ID_REGEX = r"art_[1-9][0-9]{0,15}_[0-9a-f]{32}"
_ID_PATTERN = re.compile(ARTIFACT_ID_REGEX)
_ID_MAX_LENGTH = 4 + 16 + 1 + 32

#: Session ids name a directory, so they are as strict as artifact ids: lowercase ASCII letters,
#: digits, ``-`` and ``_``, starting with a letter or digit, at most 64 characters. Lowercase
#: only, so that two sessions never share a directory on a case-insensitive filesystem.
SESSION_ID_REGEX = r"[a-z0-9][a-z0-9_-]{0,63}"
_SESSION_PATTERN = re.compile(SESSION_ID_REGEX)


#: A tool call id as hosts make them (``call_...``, ``toolu_...``, an MCP request id): ASCII
#: letters, digits and ``_ . : -``, starting with a letter or digit, at most 128 characters,
#: and not starting with ``art_`` (a malformed artifact id is an error, not a handle). Only
#: such ids are shown in markers and accepted in place of an artifact id.
TOOL_CALL_ID_REGEX = r"(?!art_)[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}"
_TOOL_CALL_PATTERN = re.compile(TOOL_CALL_ID_REGEX)


def is_tool_call_id(value: object) -> bool:
    """True when *value* is a tool call id that can stand for its artifact (see
    :data:`TOOL_CALL_ID_REGEX`), and not itself an artifact id."""
    return (type(value) is str and len(value) <= 128
            and _TOOL_CALL_PATTERN.fullmatch(value) is not None)


def new_artifact_id(now: float | None = None) -> str:
    """A fresh, unpredictable artifact id: 128 random bits from :mod:`secrets`."""
    import secrets  # not at start-up: it imports hashlib (OpenSSL), which takes milliseconds

    stamp = int(time.time() if now is None else now)
    return f"art_{max(stamp, 1)}_{secrets.token_hex(16)}"


def validate_artifact_id(value: object) -> str:
    """Return *value* if it is a well-formed artifact id, else raise :class:`InvalidArtifactId`.

    This runs before any storage access, so a hostile id never reaches the filesystem.
    """
    if (
        type(value) is not str
        or len(value) > _ID_MAX_LENGTH
        or _ID_PATTERN.fullmatch(value) is None
    ):
        raise InvalidArtifactId(value)
    return value


def new_session_id(now: float | None = None) -> str:
    """A fresh session id, ``s<unix timestamp>-<16 hex digits>``: 64 random bits from
    :func:`os.urandom`, the source :mod:`secrets` draws from (``secrets.token_hex(8)`` is
    ``os.urandom(8).hex()``). Every Truncator opens its store with a new session, so this
    runs at start-up, where importing :mod:`secrets` (hmac, OpenSSL, random) would cost
    more than the rest of the store."""
    stamp = int(time.time() if now is None else now)
    return f"s{max(stamp, 1)}-{os.urandom(8).hex()}"


def validate_session_id(value: object) -> str:
    """Return *value* if it is a valid session id, else raise :class:`InvalidSessionId`."""
    if type(value) is not str or _SESSION_PATTERN.fullmatch(value) is None:
        raise InvalidSessionId(value)
    return value


def content_name(artifact_id: str, content_type: str) -> str:
    """The name of an artifact's content file, or archive member: ``.json`` for JSON."""
    return f"{artifact_id}.{'json' if content_type == 'application/json' else 'txt'}"
