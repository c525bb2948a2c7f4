"""Where each thing is kept: the key layout of one session.

Every key of a session starts with ``<prefix>:{<session>}:``. The braces make the session the
key's *hash tag*: on Redis Cluster all the keys of a session (so all the keys of each of its
artifacts) live in one slot, which lets one script publish an artifact, update the session's
index and evict the session's oldest artifacts atomically. Session ids and the prefix are
validated to exclude ``{``, ``}`` and glob characters, so the patterns used with SCAN match
exactly the keys they mean.

::

    <p>:{<s>}:session            hash    store ("truncation-core": the marker), used (bytes),
                                         modified (ms since the epoch)
    <p>:{<s>}:index              zset    artifact id -> time stored (ms): oldest first
    <p>:{<s>}:sizes              hash    artifact id -> bytes
    <p>:{<s>}:a:<id>             hash    ref (the metadata document), size, chunks,
                                         chunk_size, block, index (line index), token, stored
    <p>:{<s>}:c:<id>:<n>         string  chunk n of the content
    <p>:{<s>}:gone:<id>          string  why an evicted artifact is gone (for 404s)
    <p>:{<s>}:w:<token>:<n>      string  chunk n of a write in progress (expires)

A prefix may be shared with other data, so the store deletes only what it can prove it made.
A session is the store's when its session hash holds the marker field (:data:`MARKER`), or,
for a session stored before the marker, when that hash holds only ``used`` and ``modified``
(:func:`is_owned`); its index and sizes, if any, must be a sorted set and a hash. Deleting a
session removes only the keys of this exact layout (:meth:`SessionKeys.is_own_key`: names
built from a validated artifact id, or a writer's token), never everything under the
session's base; the scripts check the session the same way before they change it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from truncation_core.plugin import validate_session_id

__all__ = ["MARKER", "MARKER_FIELD", "SessionKeys", "is_owned", "session_from_key",
           "sessions_pattern"]

#: The field of a session hash that marks the session as the store's, and its value.
MARKER_FIELD = "store"
MARKER = "truncation-core"
#: The fields a session hash had before the marker.
_LEGACY_FIELDS = frozenset({b"used", b"modified"})
#: What follows a session's base in the name of a key the store makes (the artifact id form
#: of the core; a writer's token is 24 hex digits).
_ART = r"art_[1-9][0-9]{0,15}_[0-9a-f]{32}"
_OWN_SUFFIX = re.compile(
    rf"session|index|sizes|a:{_ART}|c:{_ART}:(?:0|[1-9][0-9]{{0,9}})|gone:{_ART}"
    r"|w:[0-9a-f]{24}:(?:0|[1-9][0-9]{0,9})")


def is_owned(fields: Mapping[bytes | str, bytes | str] | None) -> bool:
    """Whether a session is the store's, from its session hash (*fields*; the caller has
    checked that it, the index and the sizes are a hash, a sorted set and a hash, or
    missing): the marker, or the shape of a session stored before the marker (``used`` and
    ``modified`` as integers, nothing else). The rule of the scripts' ``owned``
    (:mod:`truncation_core_redis.scripts`)."""
    if not fields:
        return False
    fields = {_bytes(k): _bytes(v) for k, v in fields.items()}  # a client may decode replies
    if fields.get(MARKER_FIELD.encode()) == MARKER.encode():
        return True
    return set(fields) <= _LEGACY_FIELDS and all(v.isdigit() for v in fields.values())


def _bytes(value: bytes | str) -> bytes:
    return value.encode() if isinstance(value, str) else value


class SessionKeys:
    """The key names of one session."""

    __slots__ = ("base", "index", "session", "sizes", "state")

    def __init__(self, prefix: str, session_id: str) -> None:
        validate_session_id(session_id)
        #: What every key of the session starts with.
        self.base = f"{prefix}:{{{session_id}}}:"
        self.state = self.base + "session"
        self.index = self.base + "index"
        self.sizes = self.base + "sizes"
        self.session = session_id

    def meta(self, artifact_id: str) -> str:
        return f"{self.base}a:{artifact_id}"

    def chunk(self, artifact_id: str, n: int) -> str:
        return f"{self.base}c:{artifact_id}:{n}"

    def gone(self, artifact_id: str) -> str:
        return f"{self.base}gone:{artifact_id}"

    def staging(self, token: str, n: int) -> str:
        return f"{self.base}w:{token}:{n}"

    @property
    def everything(self) -> str:
        """The SCAN pattern of every key under the session's base (the store's, and whatever
        else shares the prefix: filter with :meth:`is_own_key`)."""
        return self.base + "*"

    def is_own_key(self, key: bytes | str) -> bool:
        """Whether *key* is named as the store names the keys of this session."""
        text = key.decode("ascii", "replace") if isinstance(key, bytes) else key
        return (text.startswith(self.base)
                and _OWN_SUFFIX.fullmatch(text, len(self.base)) is not None)

    @property
    def meta_prefix(self) -> str:
        return self.base + "a:"


def sessions_pattern(prefix: str) -> str:
    """The SCAN pattern of the session hashes under *prefix*."""
    return f"{prefix}:{{*}}:session"


def session_from_key(prefix: str, key: bytes | str) -> str | None:
    """The session id of a session hash key, or None for a key we did not make."""
    text = key.decode("ascii", "replace") if isinstance(key, bytes) else key
    m = re.fullmatch(re.escape(prefix) + r":\{([^{}]*)\}:session", text)
    if m is None:
        return None
    try:
        return validate_session_id(m.group(1))
    except ValueError:
        return None
