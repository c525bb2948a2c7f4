"""The default ``salient_patterns``: lines of command output that say what went wrong.

Rank 0, shown first: test summaries and exit statuses (one line that says how it ended).
Rank 1: errors: traceback headers, panics, crashes, exception lines, ``error:`` lines of
compilers and package managers, failed tests (the first that matches names the line).
Rank 2: pytest's assertion details (``E   ...``).

These are generic on purpose: they apply to every tool with ``highlights`` on. Plugins add
patterns for the tools they know (see the ``salient_patterns`` hook).
"""

from __future__ import annotations

from truncation_core.highlights.patterns import SalientPattern
from truncation_core.hooks.specs import hookimpl
from truncation_core.text.bounded_regex import trust_salient

PATTERNS = (
    SalientPattern(
        name="test-summary", rank=0,
        keywords=("passed", "failed", "failing", "passing", "errors", "error in",
                  "test result:", "FAILED (", "Ran "),
        # pytest "1 failed, 2 passed in 0.1s", jest "Tests: 1 failed", mocha "2 failing",
        # cargo "test result: FAILED. 3 passed; 1 failed", unittest "FAILED (failures=1)".
        regex=r"\b[1-9]\d* (?:passed|failed|failing|passing|errors?)\b|test result:|^FAILED \(|"
              r"^Ran \d+ tests? in",
    ),
    SalientPattern(
        name="exit-status", rank=0,
        keywords=("exit status", "exit code", "exited with", "non-zero exit", "***"),
        # "ld returned 1 exit status", "exited with code 2", make's "*** [all] Error 2".
        regex=r"exit (?:status|code)\b|exited with (?:code|status)|non-zero exit status|"
              r"\*\*\* .*\bError \d+",
    ),
    SalientPattern(
        name="traceback", rank=1,
        keywords=("Traceback (most recent call last)",),
    ),
    SalientPattern(
        name="panic", rank=1,
        keywords=("panic",),
        regex=r"^panic:|panicked at",
    ),
    SalientPattern(
        name="crash", rank=1,
        keywords=("Segmentation fault", "core dumped", "undefined reference", "out of memory",
                  "Out of memory", "Killed"),
        regex=r"Segmentation fault|core dumped|undefined reference|[Oo]ut of memory|^Killed\b",
    ),
    SalientPattern(
        name="exception", rank=1,
        keywords=("Error", "Exception"),
        # "ValueError: bad", "E   AssertionError: ...", "requests.exceptions.HTTPError: 404",
        # node's "Error: Cannot find module", java's "Exception in thread".
        regex=r"^\s*(?:E\s+)?(?:[\w.]+\.)?(?:[A-Z]\w*)?(?:Error|Exception)\b(?::|\s*$)|"
              r"Exception in thread|Uncaught (?:[A-Z]\w*)?(?:Error|Exception)",
    ),
    SalientPattern(
        name="error", rank=1,
        keywords=("error:", "error[", "ERROR", "ERR!", "npm error", "fatal", "FATAL"),
        # gcc/clang/rustc "x.c:3:5: error:", "error[E0308]:", pip "ERROR: ...",
        # npm "npm ERR! code E404" / "npm error code E404", git "fatal: ...".
        regex=r"\berror(?:\[\w+\])?:|\bERROR\b|^npm (?:ERR!|error) |\bfatal(?: error)?:|"
              r"\bFATAL\b",
    ),
    SalientPattern(
        name="failed-test", rank=1,
        keywords=("FAIL", "✕", "✗"),
        # pytest "FAILED tests/x.py::t", go "--- FAIL: TestX", unittest "FAIL: test_x",
        # cargo "test x ... FAILED", jest "✕ adds".
        regex=r"^FAILED\b|^--- FAIL:|^FAIL\b|\bFAILED\s*(?:\[|$)|^\s*[✕✗] ",
    ),
    SalientPattern(
        name="assertion-detail", rank=2,
        keywords=("E   ",),
        regex=r"^E {3}",
    ),
)


# Reviewed, and tested over hostile lines: searched without a deadline (see SalientRegex).
trust_salient(p.regex for p in PATTERNS if p.regex)


@hookimpl(trylast=True)
def salient_patterns() -> tuple[SalientPattern, ...]:
    return PATTERNS
