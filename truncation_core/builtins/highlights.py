"""The built-in highlights detector (``salient_detector``): the tool families' detectors, then
the generic one, as one declaration.

Each family is a module beside this one that declares its ``DETECTOR`` with the names a
plugin uses (``salient_*.py``: structured logs, compilers and linters, test runners, JVM,
.NET, browser harnesses, sanitizers, Ruby, R, Haskell, Xcode), and ``salient.py`` the
generic patterns. The families come first: patterns are tried in rank order, and within a
rank in this order, so that the specific pattern names a line (``sanitizer-report``, not
``error``).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from truncation_core.hooks.specs import hookimpl

if TYPE_CHECKING:
    from truncation_core.types.salient import SalientDetector


@functools.cache
def _detector() -> SalientDetector:
    # Made on the first cut with highlights, not at start-up: importing the detectors and
    # making them (their types, types/salient.py, and every pattern's regex checked) takes
    # 44 ms, three times `python -c pass` (the fastest of 7 runs, 2026-12).
    from truncation_core.builtins import (
        salient,
        salient_browser,
        salient_compilers,
        salient_dotnet,
        salient_haskell,
        salient_jvm,
        salient_logs,
        salient_r,
        salient_ruby,
        salient_sanitizers,
        salient_tests,
        salient_xcode,
    )
    from truncation_core.types.salient import SalientDetector

    detectors = [module.DETECTOR for module in (
        salient_logs, salient_compilers, salient_tests, salient_jvm, salient_dotnet,
        salient_browser, salient_sanitizers, salient_ruby, salient_r, salient_haskell,
        salient_xcode, salient)]
    return SalientDetector(patterns=[p for d in detectors for p in d.patterns],
                           units=[u for d in detectors for u in d.units],
                           records=[r for d in detectors for r in d.records])


@hookimpl(trylast=True)
def salient_detector() -> SalientDetector:
    return _detector()
