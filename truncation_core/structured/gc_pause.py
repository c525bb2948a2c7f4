"""Pausing the cyclic garbage collector while many short-lived objects are alive.

Parsing a large JSON document builds millions of small lists, tuples and strings. While they
are alive, every collection the allocations trigger traverses all of them, to find no cycles
(parsed JSON has none): for 10 MB, that doubles the time of the parse, and a collection right
after it costs as much again. :func:`paused_gc` keeps the collector off around such work.

The collector is process-wide, so pauses are counted: the first to enter records whether it
was enabled and disables it; the last to leave restores that. Threads that pause at once
never leave it disabled behind them, and a child forked during a pause starts without it.
Code that enables or disables the collector itself while a pause is on is not tracked.

Pauses are kept as short as the objects they protect: from a parse to the moment the parsed
document is dropped. While any thread holds one, no thread's garbage cycles are collected.
"""

from __future__ import annotations

import gc
import os
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


def _after_fork_in_child() -> None:
    """A child forked while another thread was paused has that thread's pause but not the
    thread: start it with no pause, and the collector as it was before the pauses."""
    global _depth, _lock
    _lock = threading.Lock()
    if _depth:
        _depth = 0
        if _was_enabled:
            gc.enable()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
