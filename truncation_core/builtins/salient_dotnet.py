""".NET and MSBuild: the build's error count, ``dotnet test``'s results, failing tests with
their message and first frame in the project's own code.

MSBuild's ``error MSB3021:`` / ``error CS0103:`` lines are the generic ``error`` pattern's,
and ``Build FAILED.`` the generic build result; this adds ``11 Error(s)``, ``dotnet test``'s
``Failed!  - Failed: 1, Passed: 99`` (and ``Passed!``), the VSTest ``Failed Name [12 ms]``
line with its ``Error Message:`` and first ``at ... in File.cs:line N`` frame, xUnit's own
``[xUnit.net 00:00:06.52]     Name [FAIL]``, and NUnit's ``Failed : Name`` and ``Test Run
Failed.``.

It imports only names that :mod:`truncation_core.plugin` exports: it uses the hooks exactly as
a third party would.
"""

from __future__ import annotations

import re

from truncation_core.types.salient import SalientDetector, SalientPattern, SalientUnit, UnitLines


def _patterns() -> tuple[SalientPattern, ...]:
    return (
        SalientPattern(
            name="msbuild-count", rank=0,
            keywords=("Error(s)",),
            regex=r"^\s*\d+ Error\(s\)",
        ),
        SalientPattern(
            name="dotnet-test-summary", rank=0,
            keywords=("Failed:", "Run Failed"),
            # "Failed!  - Failed:     1, Passed:    99, Skipped:     0, Total:   100, ..."
            regex=r"^\s*(?:Failed|Passed)!\s+- Failed:\s+\d+|^\s*Test Run Failed\.",
        ),
        SalientPattern(
            name="dotnet-failed-test", rank=1,
            keywords=("Failed ",),
            # VSTest "  Failed Tests.MathTests.Adds [12 ms]", NUnit "  Failed : Tests.X.Y".
            regex=r"^\s*(?:X )?Failed (?:[\w.+`<>,\[\] ]+\[\s*[\d.]+ ?m?s\]|: [\w.]+)",
        ),
        SalientPattern(
            name="xunit-failed-test", rank=1,
            keywords=("[FAIL]",),
            # "[xUnit.net 00:00:06.52]     Tests.MainFormTests.Refreshes [FAIL]"
            regex=r"^\s*\[xUnit\.net [\d:.]+\]\s+\S+ \[FAIL\]\s*$",
        ),
    )


_STACK_FRAME = r"^\s+at .+ in .+:line \d+"


def vstest_details(lines: UnitLines) -> list[int]:
    """Under a failing test: the first line of its ``Error Message:`` and its first frame
    with a file and line."""
    taken: list[int] = []
    message = frame = False
    for i, line in enumerate(lines.below, 1):
        stripped = line.strip()
        if re.match(r"^\s*(?:X )?(?:Failed|Passed|Skipped) ", line) and i > 1:
            break
        if stripped == "Error Message:" and not message and i < len(lines.below):
            message = True
            taken.append(i + 1)
        elif not frame and re.match(_STACK_FRAME, line):
            frame = True
            taken.append(i)
        if message and frame:
            break
    return taken


def _units() -> tuple[SalientUnit, ...]:
    return (
        SalientUnit(name="vstest-details", patterns=("dotnet-failed-test",), below=24,
                    choose=vstest_details),
    )


#: What this family's output says went wrong, and how it ended.
DETECTOR = SalientDetector(patterns=_patterns(), units=_units())
