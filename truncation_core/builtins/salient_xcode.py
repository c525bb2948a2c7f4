"""Xcode: xcodebuild, XCTest and xcpretty.

* XCTest: ``Test Case '-[Class test]' failed (0.007 seconds).`` (the assertion is the
  generic ``File.m:28: error: ...``), and ``Executed 922 tests, with 1 failure (0
  unexpected) in ...`` (not when all passed: every suite prints one).
* xcodebuild: ``** BUILD FAILED **``, ``** TEST FAILED **``, ``Testing
  failed:`` with the first lines that say what, and the ``Failing tests:`` list.
* xcpretty: ``✗ testX, failed: ...`` (a generic failed test) and ``❌ /path/File.swift:12:5:
  message``.

It imports only names that :mod:`truncation_core.plugin` exports: it uses the hooks exactly as
a third party would.
"""

from __future__ import annotations

from truncation_core.types.salient import SalientDetector, SalientPattern, SalientUnit, UnitLines


def _patterns() -> tuple[SalientPattern, ...]:
    return (
        SalientPattern(
            name="xctest-executed", rank=0,
            keywords=("Executed ",),
            # The count when something failed (each suite prints one, and they pass by hundreds).
            regex=r"^\s*Executed \d+ tests?, with [1-9]\d* failures?",
        ),
        SalientPattern(
            name="xcodebuild-result", rank=0,
            keywords=("FAILED **", "INTERRUPTED **"),
            regex=r"^\*\* (?:BUILD|TEST|ARCHIVE|ANALYZE|CLEAN) (?:FAILED|INTERRUPTED) \*\*",
        ),
        SalientPattern(
            name="xctest-failed", rank=1,
            keywords=("' failed (",),
            regex=r"^Test Case '.*' failed \(",
        ),
        SalientPattern(
            name="xcodebuild-failing", rank=1,
            keywords=("Testing failed", "Failing tests"),
            regex=r"^\s*(?:Testing failed|Failing tests):\s*$",
        ),
        SalientPattern(
            name="xcpretty-error", rank=1,
            keywords=("❌ ",),
            regex=r"^\s*❌ ",
        ),
    )


def failing_list(lines: UnitLines) -> list[int]:
    """Under ``Testing failed:`` or ``Failing tests:``: the first three items."""
    taken = []
    for i, line in enumerate(lines.below, 1):
        if not line.startswith(("\t", " ")) or not line.strip():
            break
        taken.append(i)
    return taken[:3]


def _units() -> tuple[SalientUnit, ...]:
    return (
        SalientUnit(name="xcodebuild-failing-list", patterns=("xcodebuild-failing",), below=6,
                    choose=failing_list),
    )


#: What this family's output says went wrong, and how it ended.
DETECTOR = SalientDetector(patterns=_patterns(), units=_units())
