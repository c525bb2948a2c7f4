"""The redis backend's settings: the keys of ``store`` in config, checked one by one.

Every problem is reported under the key's path (``store.url: ...``) with the form expected.
A URL is never repeated in a message: it may carry a password.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs

from truncation_core.errors import ConfigError, did_you_mean

__all__ = ["DEFAULT_PREFIX", "RedisOptions", "check_prefix", "options_from_config"]

MIB = 1 << 20
#: Bytes per chunk key: 1 MiB less 64 bytes, so that a chunk with Redis' string header fits
#: jemalloc's 1 MiB size class (a value of exactly 1 MiB takes 1.25 MiB of memory).
CHUNK_SIZE = MIB - 64
DEFAULT_PREFIX = "trunc"
#: A prefix names keys and is part of SCAN patterns: no glob characters (``*?[]\``) and no
#: braces (the session is the key's hash tag).
_PREFIX = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")
_SCHEMES = ("redis://", "rediss://", "unix://")
URL_FORM = ("redis://[[user]:password@]host[:port][/db], rediss://... (TLS) or "
            "unix:///path/to/socket[?db=N]")


def check_prefix(value: object) -> str:
    if not isinstance(value, str) or _PREFIX.fullmatch(value) is None:
        raise ValueError("must be 1 to 64 ASCII letters, digits, '.', '_', ':' or '-', starting "
                         f"with a letter or digit, got {value!r}")
    return value


def check_url(value: object) -> str:
    if not isinstance(value, str) or not value.startswith(_SCHEMES) or "\0" in value:
        got = (f"a string starting {value.split(':', 1)[0]!r}" if isinstance(value, str)
               else f"a value of type {type(value).__name__}")
        raise ValueError(f"must be a Redis URL: {URL_FORM}; got {got}")
    return value


def _number(low: float, high: float, *, integer: bool = False) -> Any:
    kind = "an integer" if integer else "a number"

    def check(value: object) -> Any:
        ok = isinstance(value, int) or (not integer and isinstance(value, float))
        if isinstance(value, bool) or not ok or not low <= value <= high:  # type: ignore[operator]
            raise ValueError(f"must be {kind} from {low:g} to {high:g}, got {value!r}")
        return value

    return check


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, got {value!r}")
    return value


@attrs.frozen(kw_only=True)
class RedisOptions:
    """The redis backend's own keys under ``store`` (docs/storage.md, "Redis settings")."""

    #: Where Redis is. Required in config (a client object may be given from Python instead).
    url: str | None = None
    #: Every key starts with ``<prefix>:``; several applications can share one Redis.
    prefix: str = DEFAULT_PREFIX
    #: Seconds to wait for an answer, and for a connection.
    socket_timeout: float = 5.0
    connect_timeout: float = 2.0
    #: Retries (with backoff) of reads, and of writes whose connection was lost.
    retries: int = 2
    #: Bytes per chunk key.
    chunk_size: int = CHUNK_SIZE
    #: Seconds a write in progress keeps its chunks: a writer that dies leaves nothing longer.
    staging_ttl: int = 3600
    #: Connect with the Redis Cluster protocol (``url`` names any node).
    cluster: bool = False


_CHECKS: Mapping[str, Any] = {
    "url": check_url,
    "prefix": check_prefix,
    "socket_timeout": _number(0.001, 3600),
    "connect_timeout": _number(0.001, 3600),
    "retries": _number(0, 10, integer=True),
    "chunk_size": _number(4096, 64 * MIB, integer=True),
    "staging_ttl": _number(60, 30 * 86400, integer=True),
    "cluster": _flag,
}


def options_from_config(options: Mapping[str, Any], *, fsync: bool = False) -> RedisOptions:
    """Check the redis keys of ``store``; raise ConfigError with one line per problem."""
    problems = []
    values: dict[str, Any] = {}
    for key, value in options.items():
        check = _CHECKS.get(key)
        if check is None:
            problems.append(f"store.{key}: unknown key for the redis backend"
                            f"{did_you_mean(str(key), _CHECKS)} (known: {', '.join(_CHECKS)})")
            continue
        try:
            values[key] = check(value)
        except ValueError as exc:
            problems.append(f"store.{key}: {exc}")
    if "url" not in options:
        problems.append(f"store.url: required for the redis backend: {URL_FORM}")
    if fsync:
        problems.append("store.fsync: the redis backend cannot fsync; durability is the "
                        "server's (appendonly, appendfsync), see docs/storage.md")
    if problems:
        raise ConfigError(problems)
    return RedisOptions(**values)
