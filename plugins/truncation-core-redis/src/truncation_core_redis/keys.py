"""Where each thing is kept: the key layout of one session.

Every key of a session starts with ``<prefix>:{<session>}:``. The braces make the session the
key's *hash tag*: on Redis Cluster all the keys of a session (so all the keys of each of its
artifacts) live in one slot, which lets one script publish an artifact, update the session's
index and evict the session's oldest artifacts atomically. Session ids and the prefix are
validated to exclude ``{``, ``}`` and glob characters, so the patterns used with SCAN match
exactly the keys they mean.

::

    <p>:{<s>}:session            hash    used (bytes), modified (ms since the epoch)
    <p>:{<s>}:index              zset    artifact id -> time stored (ms): oldest first
    <p>:{<s>}:sizes              hash    artifact id -> bytes
    <p>:{<s>}:a:<id>             hash    ref (the metadata document), size, chunks,
                                         chunk_size, block, index (line index), token, stored
    <p>:{<s>}:c:<id>:<n>         string  chunk n of the content
    <p>:{<s>}:gone:<id>          string  why an evicted artifact is gone (for 404s)
    <p>:{<s>}:w:<token>:<n>      string  chunk n of a write in progress (expires)
"""

from __future__ import annotations

import re

from truncation_core.plugin import validate_session_id

__all__ = ["SessionKeys", "session_from_key", "sessions_pattern"]


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
        """The SCAN pattern of every key of the session."""
        return self.base + "*"

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
