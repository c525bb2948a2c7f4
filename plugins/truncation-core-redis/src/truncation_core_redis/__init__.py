"""The ``redis`` storage backend for truncation-core: artifacts in Redis (or Valkey), shared by
every worker of an agent fleet.

Select it in config (``store: {backend: redis, url: redis://host:6379/0}``), or give a store to
``Truncator(store=RedisStore(client=...))``. docs/storage.md describes the settings, the key
layout, sizing and what happens when Redis is down.

This module is what the ``truncation_core`` entry point loads: it stays cheap to import, and
redis-py is imported only when a store is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from truncation_core.plugin import Provides, hookimpl

if TYPE_CHECKING:
    from truncation_core_redis.backend import RedisBackend
    from truncation_core_redis.errors import (
        RedisAccessDenied,
        RedisOutOfMemory,
        RedisReadOnly,
        RedisStoreError,
        RedisTimeout,
        RedisUnavailable,
    )
    from truncation_core_redis.store import RedisStore

__all__ = [
    "NAME",
    "RedisAccessDenied",
    "RedisBackend",
    "RedisOutOfMemory",
    "RedisReadOnly",
    "RedisStore",
    "RedisStoreError",
    "RedisTimeout",
    "RedisUnavailable",
    "provides",
]

NAME = "redis"

_EXPORTS = {
    "RedisBackend": "truncation_core_redis.backend",
    "RedisStore": "truncation_core_redis.store",
    "RedisStoreError": "truncation_core_redis.errors",
    "RedisUnavailable": "truncation_core_redis.errors",
    "RedisTimeout": "truncation_core_redis.errors",
    "RedisReadOnly": "truncation_core_redis.errors",
    "RedisOutOfMemory": "truncation_core_redis.errors",
    "RedisAccessDenied": "truncation_core_redis.errors",
}


def _from_config(config: Any) -> Any:
    from truncation_core_redis.store import RedisStore

    return RedisStore.from_config(config)


@hookimpl
def provides() -> Provides:
    return Provides(backends={NAME: _from_config})


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'truncation_core_redis' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
