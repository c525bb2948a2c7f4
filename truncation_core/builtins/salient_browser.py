"""Browser and web-platform test harnesses: testharness.js (WPT), Karma with Jasmine or
Mocha, Mozilla's harnesses, Playwright.

* testharness.js: a failing subtest (``× name``, a generic failed test) with its
  ``assert_equals: ... expected "grid" but got "block"`` and the frame in the test file,
  and the test file it belongs to (the header line above its subtests); ``assert_*:``
  messages and ``FAIL [expected PASS]`` results of the wpt runner are errors themselves.
* Karma: ``... FAILED`` (a generic failed test) with Jasmine's ``Expected ...`` and the
  spec's own frame under it, and the ``TOTAL: 1 FAILED, 499 SUCCESS`` line.
* Mozilla's harnesses (mochitest, xpcshell, reftest) report each unexpected result as
  ``TEST-UNEXPECTED-FAIL | test path | message`` (``-TIMEOUT``, ``-ERROR``, ...), and a
  crash as ``PROCESS-CRASH | ...`` (mozlog's tbpl format).
* Playwright's list reporter marks a failed test ``✘`` (generic); its failure report is
  the test runners' (``salient_tests``).

It imports only names that :mod:`truncation_core.plugin` exports: it uses the hooks exactly as
a third party would.
"""

from __future__ import annotations

import re

from truncation_core.types.salient import SalientDetector, SalientPattern, SalientUnit, UnitLines


def _patterns() -> tuple[SalientPattern, ...]:
    return (
        SalientPattern(
            name="karma-total", rank=0,
            keywords=("TOTAL: ",),
            regex=r"^TOTAL: \d+ (?:FAILED|SUCCESS)",
        ),
        SalientPattern(
            name="mozlog-unexpected", rank=1,
            keywords=("TEST-UNEXPECTED-", "PROCESS-CRASH |"),
            # Mozilla's harnesses (mochitest, xpcshell, reftest, marionette) in mozlog's
            # tbpl format, after the runner's prefix: "TEST-UNEXPECTED-FAIL | dom/x.html |
            # expected 1, got 0", "TEST-UNEXPECTED-TIMEOUT | ...", "PROCESS-CRASH | ...".
            regex=r"\bTEST-UNEXPECTED-[A-Z]+ \||\bPROCESS-CRASH \|",
        ),
        SalientPattern(
            name="wpt-unexpected", rank=1,
            keywords=("[expected ",),
            regex=r"^\s*(?:FAIL|TIMEOUT|CRASH|ERROR|NOTRUN|PRECONDITION_FAILED) \[expected ",
        ),
        SalientPattern(
            name="testharness-assert", rank=1,
            keywords=("assert_",),
            regex=r"^\s*assert_\w+: ",
        ),
    )


_ASSERT = r"^\s*assert_\w+: "
_AT = r"^\s+at .*[(\s]\S+:\d+:\d+\)?\s*$"
_TEST_FILE = r"^\s*\S+\.(?:html?|xhtml|svg|xht|js)\s*$"
_SUBTEST = r"^\s*(?:[√✓✔×✗✘]|\[(?:PASS|FAIL)\])\s"


def subtest_failure(lines: UnitLines) -> list[int]:
    """At a failing subtest ``× name``: the test file above (over the subtests before it),
    and the assertion and its frame below."""
    if not re.match(r"^\s*[×✗✘] ", lines.line):
        return []
    taken: list[int] = []
    for i, line in enumerate(lines.above, 1):
        if re.match(_TEST_FILE, line):
            taken.append(-i)
            break
        if line.strip() and not re.match(_SUBTEST, line) and not re.match(_ASSERT, line) and \
                not re.match(_AT, line):
            break
    assertion = False
    for i, line in enumerate(lines.below, 1):
        if re.match(_SUBTEST, line):
            break
        if not assertion and re.match(_ASSERT, line):
            assertion = True
            taken.append(i)
        elif assertion and re.match(_AT, line):
            taken.append(i)
            break
    return taken


_JASMINE_AT = r"^\t\s*at .*\(([^()<>]+):\d+:\d+\)"


def jasmine_failure(lines: UnitLines) -> list[int]:
    """Under Karma's ``... FAILED``: the tab-indented message, and the first frame in the
    spec (not Jasmine's own, not node_modules)."""
    if not lines.line.rstrip().endswith("FAILED"):
        return []
    taken: list[int] = []
    for i, line in enumerate(lines.below, 1):
        if not line.startswith("\t"):
            break
        frame = re.match(_JASMINE_AT, line)
        if frame is not None:
            if "node_modules" not in frame.group(1):
                taken.append(i)
                break
        elif not line.strip().startswith("at ") and not taken:
            taken.append(i)
    return taken


def _units() -> tuple[SalientUnit, ...]:
    return (
        SalientUnit(name="subtest-failure", patterns=("failed-test",), above=64, below=6,
                    choose=subtest_failure),
        SalientUnit(name="jasmine-failure", patterns=("failed-test",), below=12,
                    choose=jasmine_failure),
    )


#: What this family's output says went wrong, and how it ended.
DETECTOR = SalientDetector(patterns=_patterns(), units=_units())
