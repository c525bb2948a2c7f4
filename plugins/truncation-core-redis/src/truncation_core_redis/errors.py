"""Redis failures as typed store errors, and retries where a repeat is harmless.

Every failure of Redis reaches the core as a :class:`~truncation_core.errors.StoreError` (an
out-of-memory server as :class:`~truncation_core.errors.StoreFull`), so that
``Truncator.process`` degrades to an inline truncation that says the content is not kept, as
on a full disk. Messages name the operation, the server (without its password) and the kind
of failure; never content, never Redis' own message (which may quote a key or a URL).
"""

from __future__ import annotations

import errno
import random
import time
from collections.abc import Callable
from typing import TypeVar

from truncation_core.plugin import StoreError, StoreFull

__all__ = [
    "RedisAccessDenied",
    "RedisOutOfMemory",
    "RedisReadOnly",
    "RedisStoreError",
    "RedisTimeout",
    "RedisUnavailable",
    "retrying",
    "store_error",
]

T = TypeVar("T")


class RedisStoreError(StoreError):
    """Redis failed (the base of the redis backend's errors)."""


class RedisUnavailable(RedisStoreError):
    """Redis cannot be reached: the connection was refused, or lost."""


class RedisTimeout(RedisStoreError):
    """Redis did not answer within ``socket_timeout`` (or ``connect_timeout``)."""


class RedisReadOnly(RedisStoreError):
    """The server is a read-only replica: artifacts can be read, not stored."""


class RedisAccessDenied(RedisStoreError):
    """Authentication failed, or the ACL user may not run a command or touch a key."""


class RedisOutOfMemory(RedisStoreError, StoreFull):
    """Redis reached ``maxmemory`` (with a ``noeviction`` policy): the store is full."""


def store_error(exc: Exception, action: str, location: str) -> StoreError:
    """The typed error for *exc*, raised while doing *action* on the server at *location*."""
    import redis.exceptions as rx

    text = str(exc)
    if isinstance(exc, rx.OutOfMemoryError) or (
            isinstance(exc, rx.ResponseError) and "OOM " in text):
        return RedisOutOfMemory(errno.ENOSPC, f"{action}: Redis at {location} is out of memory "
                                              "(maxmemory reached)")
    if isinstance(exc, rx.ReadOnlyError) or (
            isinstance(exc, rx.ResponseError) and "READONLY " in text):
        return RedisReadOnly(errno.EROFS, f"{action}: Redis at {location} is a read-only "
                                          "replica")
    if isinstance(exc, rx.AuthenticationError | rx.AuthorizationError | rx.NoPermissionError):
        return RedisAccessDenied(errno.EACCES, f"{action}: Redis at {location} refused access "
                                               f"({type(exc).__name__})")
    if isinstance(exc, rx.TimeoutError):
        return RedisTimeout(errno.ETIMEDOUT, f"{action}: Redis at {location} did not answer "
                                             "in time")
    if isinstance(exc, rx.ConnectionError):
        lost = "closed" in text or "reset" in text.lower() or "broken" in text.lower()
        return RedisUnavailable(errno.ECONNRESET if lost else errno.ECONNREFUSED,
                                f"{action}: Redis at {location} "
                                f"{'closed the connection' if lost else 'cannot be reached'}")
    return RedisStoreError(errno.EIO, f"{action}: Redis at {location} failed "
                                      f"({type(exc).__name__})")


def _retryable(exc: Exception, timeouts: bool) -> bool:
    import redis.exceptions as rx

    if isinstance(exc, rx.AuthenticationError | rx.AuthorizationError):
        return False
    return isinstance(exc, rx.ConnectionError) or (timeouts and isinstance(exc, rx.TimeoutError))


def retrying(fn: Callable[[], T], *, action: str, location: str, retries: int,
             timeouts: bool = True, backoff: float = 0.05,
             sleep: Callable[[float], None] = time.sleep) -> T:
    """Call *fn*; on a lost connection (and on a timeout, when *timeouts*) call it again, up
    to *retries* more times, waiting 50 ms, 100 ms, 200 ms ... (with jitter) in between.

    Only for operations that are harmless to repeat: reads, SETs of staging chunks, and the
    publish script (a repeat finds its own artifact published, by the writer's token). Any
    failure left becomes a typed :class:`~truncation_core.errors.StoreError`.
    """
    import redis.exceptions as rx

    attempt = 0
    while True:
        try:
            return fn()
        except StoreError:
            raise
        except (rx.RedisError, OSError) as exc:
            if attempt >= retries or not _retryable(exc, timeouts):
                raise store_error(exc, action, location) from None
            sleep(backoff * (2 ** attempt) * (0.5 + random.random()))  # noqa: S311 (jitter)
            attempt += 1
