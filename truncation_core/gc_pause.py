"""Pausing the cyclic garbage collector while many short-lived objects are alive.

Parsing a large JSON document builds millions of small lists, tuples and strings. While they
are alive, every collection the allocations trigger traverses all of them, to find no cycles
(parsed JSON has none): for 10 MB, that doubles the time of the parse, and a collection right
after it costs as much again. :func:`paused_gc` keeps the collector off around such work.

The collector is process-wide, so pauses are counted: the first to enter records whether it
was enabled and disables it; the last to leave restores that. Threads that pause at once
never leave it disabled behind them. Code that enables or disables the collector itself
while a pause is on is not tracked.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused_gc"]

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def paused_gc() -> Iterator[None]:
    """Keep the cyclic GC off inside the block; restore the state it had before the first
    of the pauses that overlap, when the last of them ends."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
