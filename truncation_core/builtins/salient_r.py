"""R: testthat and ``R CMD check``.

* testthat: ``── 1. Failure ('test-invoice17.R:15'): invoice 17-3 total ──`` with the lines
  that say what differed (``118 not equal to 120.``, ``[1] 118 - 120 == -2``), and the
  ``[ FAIL 1 | WARN 0 | SKIP 0 | PASS 99 ]`` count.
* ``R CMD check``: ``* checking examples ... ERROR`` (or ``WARNING``), the ``Error in f(x) :
  message`` of the code that failed with the ``> f(x)`` call above it, and ``Status: 1
  ERROR``.

It imports only names that :mod:`truncation_core.plugin` exports: it uses the hooks exactly as
a third party would.
"""

from __future__ import annotations

import re

from truncation_core.types.salient import SalientDetector, SalientPattern, SalientUnit, UnitLines


def _patterns() -> tuple[SalientPattern, ...]:
    return (
        SalientPattern(
            name="testthat-count", rank=0,
            keywords=("[ FAIL ",),
            regex=r"^\[ FAIL \d+ \| ",
        ),
        SalientPattern(
            name="r-check-status", rank=0,
            keywords=("Status: ",),
            regex=r"^Status: (?:\d+ (?:ERROR|WARNING|NOTE)|OK)",
        ),
        SalientPattern(
            name="testthat-failure", rank=1,
            keywords=("Failure (", "Error (", "Failure:", "Error:"),
            regex=r"^── (?:\d+\. )?(?:Failure|Error) [(:]",
        ),
        SalientPattern(
            name="r-check-problem", rank=1,
            keywords=("* checking ",),
            regex=r"^\* checking .* \.\.\. (?:ERROR|WARNING)",
        ),
        SalientPattern(
            name="r-error", rank=1,
            keywords=("Error in ",),
            regex=r"^Error in .* : ",
        ),
    )


def testthat_details(lines: UnitLines) -> list[int]:
    """Under a testthat failure header: what it says, up to a blank line (at most three)."""
    taken = []
    for i, line in enumerate(lines.below, 1):
        if not line.strip() or line.startswith(("── ", "══ ", "Backtrace:")):
            break
        if not re.match(r"^\d+/\d+ mismatch", line):
            taken.append(i)
    return taken[:3]


def r_call(lines: UnitLines) -> list[int]:
    """Above ``Error in f(x) : ...``: the ``> f(x)`` line that ran it."""
    for i, line in enumerate(lines.above[:3], 1):
        if line.startswith("> ") and len(line) > 2:
            return [-i]
    return []


def _units() -> tuple[SalientUnit, ...]:
    return (
        SalientUnit(name="testthat-details", patterns=("testthat-failure",), below=8,
                    choose=testthat_details),
        SalientUnit(name="r-call", patterns=("r-error",), above=3, choose=r_call),
    )


#: What this family's output says went wrong, and how it ended.
DETECTOR = SalientDetector(patterns=_patterns(), units=_units())
