"""JVM builds and test reports: Maven, Surefire, Gradle, sbt, javac.

* Surefire's ``<<< FAILURE!`` / ``<<< ERROR!`` lines (the class's count and each failing
  test), the ``Results`` total when something failed (``Tests run: 360, Failures: 1``);
  Maven's ``BUILD FAILURE`` and Gradle's ``BUILD FAILED`` are the generic build results.
* An exception brings its first frame in the program's own code: the first ``at`` line
  outside the JDK, JUnit, the build tool and the languages' runtimes (``at
  demo.Ledger14Test.balance6(Ledger14Test.java:31)``); ``Caused by:`` lines are errors too.
* Gradle's ``* What went wrong:`` with the line that says what, and ``FAILURE: Build failed``.
* sbt's ``[error] File.scala:6: message`` and its ``[error] N errors found`` count.

It imports only names that :mod:`truncation_core.plugin` exports: it uses the hooks exactly as
a third party would.
"""

from __future__ import annotations

import re

from truncation_core.types.salient import SalientDetector, SalientPattern, SalientUnit, UnitLines


def _patterns() -> tuple[SalientPattern, ...]:
    return (
        SalientPattern(
            name="surefire-total", rank=0,
            keywords=("Failures: ",),
            # The Results total ("[ERROR] Tests run: 360, Failures: 1, Errors: 0, Skipped: 0"),
            # not the line per class (which ends "-- in demo.XTest" or names a time).
            regex=r"^(?:\[\w+\]\s+)?Tests run: \d+, Failures: \d+, Errors: \d+, Skipped: \d+\s*$",
        ),
        SalientPattern(
            name="surefire-failure", rank=1,
            keywords=("<<< FAIL", "<<< ERR"),
            regex=r"<<< (?:FAILURE|ERROR)!",
        ),
        SalientPattern(
            name="java-caused-by", rank=1,
            keywords=("Caused by:",),
            regex=r"^\s*Caused by: \S",
        ),
        SalientPattern(
            name="gradle-failure", rank=0,
            keywords=("FAILURE: ",),
            regex=r"^FAILURE: ",
        ),
        SalientPattern(
            name="gradle-what-went-wrong", rank=1,
            keywords=("What went wrong",),
            regex=r"^\* What went wrong:",
        ),
        SalientPattern(
            name="sbt-summary", rank=0,
            keywords=("error found", "errors found", "Compilation failed", "Failed: "),
            regex=r"^\[error\] (?:one|\d+) errors? found|^\[error\] .*Compilation failed|"
                  r"Failed: Total \d+, Failed [1-9]",
        ),
        SalientPattern(
            name="sbt-error", rank=1,
            keywords=("[error]",),
            regex=r"^\[error\] \S+\.(?:scala|java|sbt):\d+(?::\d+)?:? ",
        ),
    )


_FRAME = r"^\s*at ([\w$.]+)\.[\w$<>]+\(([^)]*)\)"
#: Frames of the JDK, test frameworks, build tools and the JVM languages' runtimes.
_LIBRARY = (r"^(?:java|javax|jdk|sun|com\.sun|org\.junit|junit|org\.opentest4j|"
            r"org\.apache\.maven|org\.gradle|worker\.org\.gradle|org\.testng|"
            r"scala|kotlin|kotlinx|groovy|org\.codehaus\.groovy|org\.scalatest|"
            r"org\.specs2|org\.spockframework|org\.mockito|org\.assertj|"
            r"org\.hamcrest|org\.springframework|reactor|io\.netty)\.")


def first_own_frame(lines: UnitLines) -> list[int]:
    """Under a JVM exception: the first ``at`` frame in the program's own code."""
    if not re.match(r"^\s*(?:Caused by: |Exception in thread \S+ )?[\w$.]*"
                    r"(?:Error|Exception|Failure|Throwable)\b", lines.line):
        return []
    for i, line in enumerate(lines.below, 1):
        frame = re.match(_FRAME, line)
        if frame is None:
            if line.strip().startswith(("...", "Caused by:", "Suppressed:")) or not line.strip():
                return []
            continue
        if not re.match(_LIBRARY, frame.group(1)) and ":" in frame.group(2):
            return [i]
    return []


def what_went_wrong(lines: UnitLines) -> list[int]:
    """Under Gradle's ``* What went wrong:``: the lines that say what, up to a blank one."""
    taken = []
    for i, line in enumerate(lines.below[:4], 1):
        if not line.strip() or line.startswith("* "):
            break
        taken.append(i)
    return taken[:2]


def _units() -> tuple[SalientUnit, ...]:
    return (
        SalientUnit(name="jvm-own-frame",
                    patterns=("exception", "java-caused-by", "surefire-failure"), below=40,
                    choose=first_own_frame),
        SalientUnit(name="gradle-what-went-wrong", patterns=("gradle-what-went-wrong",),
                    below=4, choose=what_went_wrong),
    )


#: What this family's output says went wrong, and how it ended.
DETECTOR = SalientDetector(patterns=_patterns(), units=_units())
