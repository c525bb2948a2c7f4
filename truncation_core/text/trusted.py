"""The regular expressions that need no deadline: those of the built-in salient patterns.

They are reviewed, and searched over hostile lines by tests/hostile/test_patterns.py, so a
:class:`~truncation_core.text.bounded_regex.SalientRegex` searches them on :mod:`re` without
the deadline a plugin's patterns get. Apart from :mod:`truncation_core.text.bounded_regex`
(which exports :func:`trust_salient` too) because the plugin loader registers the built-in
detector modules here at every start-up, and the bounded engines are needed only once a
salient regex is made.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["trust_salient", "trusted"]

#: Regular expressions of the built-in salient patterns: reviewed, and searched over hostile
#: lines by tests/hostile/test_patterns.py. They run on :mod:`re` without a deadline, which
#: costs a read of the CPU clock on every line a keyword selects (about twice the time of
#: the search itself on some machines).
_TRUSTED: set[str] = set()
#: The ``salient_detector`` hooks of the built-in detector modules not read yet, and those
#: read.
_TRUSTED_SOURCES: set[Callable[[], Any]] = set()
_READ_SOURCES: set[Callable[[], Any]] = set()
_TRUST_LOCK = threading.RLock()


def trust_salient(detector: Callable[[], Any]) -> None:
    """Mark the regular expressions (``regex`` and ``header``) of the patterns of the
    detector *detector* returns as not needing a deadline (called by the plugin loader for
    the built-in detector modules' ``salient_detector`` only). *detector* is called when the
    first salient regex is made, not now: registering the built-ins does not build their
    patterns."""
    with _TRUST_LOCK:
        if detector not in _READ_SOURCES:
            _TRUSTED_SOURCES.add(detector)


def trusted() -> set[str]:
    """The regular expressions of the built-in salient patterns (their hooks are read on the
    first call after one was registered)."""
    if _TRUSTED_SOURCES:
        with _TRUST_LOCK:
            while _TRUSTED_SOURCES:
                source = _TRUSTED_SOURCES.pop()
                _READ_SOURCES.add(source)
                _TRUSTED.update(regex for p in source().patterns
                                for regex in (p.regex, p.header) if regex)
    return _TRUSTED
