"""Test runners: a failing test with what it says about the failure, as one unit.

* TAP (``tap``, ``node --test``, ``prove``): ``not ok N - name`` with the lines of its YAML
  diagnostics that locate and explain it (``location:``, ``at:`` ``fileName:`` and
  ``lineNumber:``, ``operator:``, ``found:``/``wanted:``, the ``+``/``-`` lines of a diff),
  the ``# fail N`` and ``# { total: N, pass: N, fail: N }`` counts, and Test::More's
  ``#   Failed test`` with its ``at``, ``got`` and ``expected`` lines; prove's summary and
  ``Result: FAIL``.
* ctest: a test reported ``***Failed`` (or ``***Exception``, ``***Timeout``).
* Go: ``--- FAIL: TestX`` with the message the test logged last, a panic with its first
  frame in the program.
* Jest (``● suite › test`` with the diff, the marked source line and the location) and
  Playwright's failure report (``1) file:line › test`` with its expectation, received value,
  source line and location).

It imports only names that :mod:`truncation_core.plugin` exports: it uses the hooks exactly as
a third party would.
"""

from __future__ import annotations

import re

from truncation_core.types.salient import SalientDetector, SalientPattern, SalientUnit, UnitLines


def _patterns() -> tuple[SalientPattern, ...]:
    return (
        SalientPattern(
            name="tap-summary", rank=0,
            keywords=("# fail", "fail: ", "Result: FAIL", "Failed: ", "# failed "),
            # node --test "# fail 1", tap "# { total: 120, pass: 119, fail: 1 }", prove
            # "Result: FAIL" and "t/a.t (Wstat: 256 (exited 1) Tests: 40 Failed: 1)",
            # Test::More "# Looks like you failed 1 test of 40." is a detail.
            regex=r"^# fail \d|\bfail: [1-9]|^Result: FAIL|\bTests: \d+ Failed: [1-9]|"
                  r"^# failed \d+ (?:of|among)",
        ),
        SalientPattern(
            name="tap-not-ok", rank=1,
            keywords=("not ok",),
            regex=r"^\s*not ok\b",
        ),
        SalientPattern(
            name="test-more-failed", rank=1,
            keywords=("Failed test",),
            regex=r"^#\s+Failed (?:\(TODO\) )?test\b",
        ),
        SalientPattern(
            name="ctest-failed", rank=1,
            keywords=("***Fail", "***Exce", "***Time", "***Not "),
            # " 62/120 Test  #62: shard_61 ......***Failed    0.15 sec"
            regex=r"^\s*\d+/\d+ Test\s+#\d+: .*\*\*\*(?:Failed|Exception|Timeout|Not Run)",
        ),
        SalientPattern(
            name="jest-failure", rank=1,
            keywords=("● ",),
            regex=r"^\s+● \S",
        ),
        SalientPattern(
            name="playwright-failure", rank=1,
            keywords=(" › ",),
            regex=r"^\s+\d+\) \S+:\d+:\d+ › ",
        ),
    )


_YAML_START = r"^\s*---\s*$"
_YAML_END = r"^\s*\.\.\.\s*$"
#: The YAML lines that say where and what: a location, an operator, found/wanted values
#: given inline, and the lines of a diff (not its "--- expected" / "+++ actual" header, nor
#: node's "+ actual - expected" legend).
_YAML_TAKE = (
    r"^\s+(?:location|fileName|lineNumber|operator|found|wanted|expected|actual|file|line)"
    r":\s*\S|^\s+[-+]\s*(?!actual - expected)(?![-+]{2})\S")


def tap_diagnostics(lines: UnitLines) -> list[int]:
    """Under ``not ok``: the lines of its YAML block that locate and explain the failure."""
    if not lines.below or not re.match(_YAML_START, lines.below[0]):
        return []
    taken = []
    for i, line in enumerate(lines.below[1:], 2):
        if re.match(_YAML_END, line):
            break
        if re.match(_YAML_TAKE, line) and not re.match(r"^\s+(?:expected|actual):\s*$", line):
            taken.append(i)
            if len(taken) == 6:
                break
    return taken


_TEST_MORE = r"^#\s+(?:at |in |got:|expected:|\s*got:|\s*expected:)"


def test_more_details(lines: UnitLines) -> list[int]:
    """Under Test::More's ``#   Failed test``: its location, got and expected."""
    taken = []
    for i, line in enumerate(lines.below[:6], 1):
        if not line.startswith("#"):
            break
        if re.match(_TEST_MORE, line):
            taken.append(i)
    return taken[:4]


_GO_LOG = r"^\s+\S+\.go:\d+: "


def go_test_message(lines: UnitLines) -> list[int]:
    """At ``--- FAIL: TestX``: the message its test logged last (above it with ``-v``,
    under it without)."""
    if not lines.line.startswith("--- FAIL"):
        return []
    below = []
    for i, line in enumerate(lines.below[:4], 1):
        if not re.match(_GO_LOG, line):
            break
        below.append(i)
    if below:
        return below[:2]
    if lines.above and re.match(_GO_LOG, lines.above[0]):
        return [-1]
    return []


_GO_FRAME = r"^\s+(/\S+|[A-Za-z]:\\\S+|\S+)\.go:\d+"
_GO_RUNTIME = r"/(?:go|golang)/src/|/usr/(?:local/)?go/|^\s+runtime/|/runtime/"


def go_panic_frames(lines: UnitLines) -> list[int]:
    """Under ``panic:``: the first two frames in the program (not in Go's runtime)."""
    taken = []
    for i, line in enumerate(lines.below, 1):
        if re.match(_GO_FRAME, line) and not re.search(_GO_RUNTIME, line):
            taken.append(i)
            if len(taken) == 2:
                break
    return taken


_JS_SOURCE = r"^\s*> \d+ \|"
_JS_AT = r"^\s+at (?:.+ \()?(?!node:|internal/)([^()\s]+):\d+:\d+\)?\s*$"
_DIFF = r"^ {4}[-+] {2,}\S"
_EXPECTED = r"^\s+(?:Expected|Received)(?: \w+)?:\s"
_ERROR = r"^\s+(?:[A-Z]\w*)?Error: "


def js_test_failure(lines: UnitLines) -> list[int]:
    """Under a Jest or Playwright failure header: the error, expected and received (or the
    diff), the marked source line and the first frame in the tests' own code."""
    taken: list[int] = []
    at = False
    for i, line in enumerate(lines.below, 1):
        if re.match(r"^\s+● \S|^\s+\d+\) \S+:\d+:\d+ › ", line):
            break
        if re.match(_ERROR, line) or re.match(_EXPECTED, line) or re.match(_DIFF, line) or \
                re.match(_JS_SOURCE, line):
            taken.append(i)
        elif not at and (found := re.match(_JS_AT, line)) and "node_modules" not in found.group(1):
            at = True
            taken.append(i)
            break
        if len(taken) == 7:
            break
    return taken


def _units() -> tuple[SalientUnit, ...]:
    return (
        SalientUnit(name="tap-diagnostics", patterns=("tap-not-ok",), below=48,
                    choose=tap_diagnostics),
        SalientUnit(name="test-more-details", patterns=("test-more-failed",), below=6,
                    choose=test_more_details),
        SalientUnit(name="go-test-message", patterns=("failed-test",), above=1, below=4,
                    choose=go_test_message),
        SalientUnit(name="go-panic-frames", patterns=("panic",), below=24, choose=go_panic_frames),
        SalientUnit(name="js-test-failure", patterns=("jest-failure", "playwright-failure"),
                    below=40, choose=js_test_failure),
    )


#: What this family's output says went wrong, and how it ended.
DETECTOR = SalientDetector(patterns=_patterns(), units=_units())
