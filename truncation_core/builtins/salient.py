"""The generic highlights detector (``salient_detector``): lines of command output that say
what went wrong, or how it ended.

Rank 0, shown first: test summaries, exit statuses, and the last lines of build tools and CI
runners (``Process completed with exit code 1``, ``BUILD FAILURE``, ``Build FAILED.``,
``(Exit code: 2)``, ``Finished: UNSTABLE``): one line that says how it ended.
Rank 1: errors: panics, crashes, exception lines, ``error:`` lines of compilers and package
managers, failed tests (the first that matches names the line).
Rank 2: details and warnings: pytest's assertion details (``E   ...``), a traceback's first
line, warnings (a deprecation, a missing variable: worth a slot when room remains).

Units: a Python exception brings its innermost frame and the source line under it; a
JavaScript error its first frame outside the runtime and dependencies.

These are generic on purpose: they apply to every tool with ``highlights`` on. The
``salient_*`` modules next to this one add the formats of tool families, and plugins add
patterns for the tools they know, the same way.
"""

from __future__ import annotations

import re

from truncation_core.types.salient import SalientDetector, SalientPattern, SalientUnit, UnitLines


def _patterns() -> tuple[SalientPattern, ...]:
    return (
        SalientPattern(
            name="test-summary", rank=0,
            # (Every "test result:" line says "passed"; unittest's "Ran 3 tests" is followed by
            # its "FAILED (failures=1)": keywords that only common letters make are costly.)
            keywords=("passed", "failed", "failing", "passing", "errors", "error in",
                      "FAILED (", "examples, ", "runs, "),
            # pytest "1 failed, 2 passed in 0.1s", jest "Tests: 1 failed", mocha "2 failing",
            # cargo "test result: FAILED. 3 passed; 1 failed", unittest "FAILED (failures=1)",
            # rspec "600 examples, 2 failures", minitest "400 runs, 400 assertions, 1 failures",
            # ctest "99% tests passed, 1 tests failed out of 120".
            regex=r"\b[1-9]\d* (?:passed|failed|failing|passing|errors?)\b|test result:|"
                  r"^FAILED \(|\b\d+ examples?, \d+ failures?|"
                  r"\b\d+ runs, \d+ assertions, |\btests? failed out of \d",
        ),
        SalientPattern(
            name="exit-status", rank=0,
            keywords=("exit status", "exit code", "Exit code", "exited with", "non-zero exit",
                      "*** "),
            # "ld returned 1 exit status", "exited with code 2", make's "*** [all] Error 2",
            # GitHub Actions "Process completed with exit code 1.", "(Exit code: 2)", Azure
            # Pipelines "##[error]Bash exited with code '1'.".
            regex=r"exit (?:status|code)\b|Exit code:? \d|exited with (?:code |status )?'?-?\d|"
                  r"non-zero exit status|\*\*\* .*\bError \d+",
        ),
        SalientPattern(
            name="build-result", rank=0,
            keywords=("BUILD FAIL", "Build FAILED", "Finished: FAIL", "Finished: UNSTABLE",
                      "Job failed", "Errors while running", "not remade because of errors"),
            # Maven "BUILD FAILURE", Gradle "BUILD FAILED in 3s", MSBuild "Build FAILED.",
            # Jenkins "Finished: UNSTABLE", GitLab "ERROR: Job failed: exit code 1", ctest
            # "Errors while running CTest", make "Target 'all' not remade because of errors."
            # (Not the successes: a build of many modules prints one per module, and the last,
            # in the tail, is what says how it ended.)
            regex=r"\bBUILD (?:FAILURE|FAILED)\b|^\s*Build FAILED\b|"
                  r"^Finished: (?:FAILURE|UNSTABLE)\b|\bJob failed\b|"
                  r"^Errors while running\b|not remade because of errors",
        ),
        SalientPattern(
            name="panic", rank=1,
            keywords=("panic",),
            regex=r"^panic:|panicked at",
        ),
        SalientPattern(
            name="crash", rank=1,
            keywords=("Segmentation fault", "core dumped", "undefined reference", "out of memory",
                      "Out of memory", "Killed", "Aborted", "Bus error", "Illegal instruction",
                      "Fatal Python error", "stack overflow"),
            regex=r"Segmentation fault|core dumped|undefined reference|[Oo]ut of memory|"
                  r"^Killed\b|\bAborted\b|\bBus error\b|\bIllegal instruction\b|"
                  r"^Fatal Python error|stack overflow",
        ),
        SalientPattern(
            name="exception", rank=1,
            keywords=("Error", "Exception"),
            # "ValueError: bad", "E   AssertionError: ...", "requests.exceptions.HTTPError: 404",
            # node's "Error: Cannot find module", java's "Exception in thread".
            regex=r"^\s*(?:E\s+)?(?:[\w.$]+\.)?(?:[A-Z]\w*)?(?:Error|Exception)\b(?::|\s*$)|"
                  r"Exception in thread|Uncaught (?:[A-Z]\w*)?(?:Error|Exception)",
        ),
        SalientPattern(
            name="error", rank=1,
            keywords=("error:", "error[", "error ", "ERROR", "ERR!", "npm error", "fatal", "FATAL"),
            # gcc/clang/rustc "x.c:3:5: error:", "error[E0308]:", pip "ERROR: ...", tsc/MSBuild
            # "error TS2322:" / "error MSB3021:", npm "npm ERR! code E404" / "npm error code
            # E404", git "fatal: ...". Not "success:error:" (an Objective-C selector) nor
            # "on_error:" (a setting).
            regex=r"(?:^|(?<=[\s\[(>]))error(?:\[\w+\])?:(?:\s|$)|\berror [A-Z]{1,4}\d{2,5}\s*:|"
                  r"\bERROR\b|^npm (?:ERR!|error) |\bfatal(?: error)?:|\bFATAL\b",
        ),
        SalientPattern(
            name="failed-test", rank=1,
            # (" × ": testharness.js and vitest indent it; a three-byte keyword slows scanning.)
            keywords=("FAIL", "✕ ", "✗ ", "✘ ", " × "),
            # pytest "FAILED tests/x.py::t", go "--- FAIL: TestX", unittest "FAIL: test_x",
            # cargo "test x ... FAILED", jest "✕ adds", playwright "✘ 3 tests/a.spec.js:3:1",
            # testharness.js "× box keeps display", karma "... FAILED".
            regex=r"^FAILED\b|^--- FAIL:|^FAIL\b|\bFAILED\s*(?:\[|$)|^\s*[✕✗✘×] ",
        ),
        SalientPattern(
            name="traceback", rank=2,
            keywords=("Traceback (most recent call last)",),
        ),
        SalientPattern(
            name="assertion-detail", rank=2,
            keywords=("E   ",),
            regex=r"^E {3}",
        ),
        SalientPattern(
            name="warning", rank=2,
            keywords=("arning:",),
            # gcc "x.c:2:6: warning: 'slot' may be used uninitialized", Python
            # "report.py:6: UserWarning: REPORT_DB_URL is not set", "WARNING: ...".
            regex=r"(?:^|(?<=[\s\[(>]))warning:\s|\b[A-Z]\w*Warning: |^WARNING: ",
        ),
    )


_FILE_LINE = r'^\s*File "[^"]+", line \d+'
_CARETS = r"^\s*[\^~]+\s*$"
_SOURCE = r"^\s{4,}\S"


#: A frame in Python itself or in an installed package (not the program's own code).
_LIBRARY_FILE = (r'^\s*File "(?:<[^>]*>|[^"]*[/\\](?:lib[/\\](?:python|pypy)[\d.]*|'
                 r'site-packages|dist-packages)[/\\][^"]*)"')
_EXCEPTION = (r"^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Warning|"
              r"Failure|Group)\b|^\s*[\w.]+: ")


def python_frame(lines: UnitLines) -> list[int]:
    """Above a Python exception: its innermost frame (``File "...", line N, in f``) and the
    source line under it; when that frame is in Python itself or an installed package, the
    innermost frame of the program's own code too."""
    if not re.match(_EXCEPTION, lines.line) or lines.line.startswith("E "):
        return []
    above = lines.above
    frames: list[int] = []  # indexes in `above` of the File lines, innermost first
    for i, line in enumerate(above):
        if re.match(_FILE_LINE, line):
            frames.append(i)
        elif not (re.match(_SOURCE, line) or re.match(_CARETS, line)):
            break
        if not frames and i >= 4:  # an exception line far from any frame
            return []
    taken: list[int] = []
    for n, i in enumerate(frames):
        own = not re.match(_LIBRARY_FILE, above[i])
        if n == 0 or own:
            taken.append(-(i + 1))
            if i >= 1 and re.match(_SOURCE, above[i - 1]) and not re.match(_CARETS, above[i - 1]) \
                    and not re.match(_FILE_LINE, above[i - 1]):
                taken.append(-i)
        if own:
            break
    return taken


_JS_FRAME = r"^\s+at (?:.+ \()?(?!node:|internal/)([^()\s]+):\d+:\d+\)?\s*$"


def javascript_frame(lines: UnitLines) -> list[int]:
    """Below a JavaScript error: its first frame outside node's runtime and node_modules."""
    for i, line in enumerate(lines.below):
        if not line.lstrip().startswith("at "):
            return []
        found = re.match(_JS_FRAME, line)
        if found and "node_modules" not in found.group(1):
            return [i + 1]
    return []


def _units() -> tuple[SalientUnit, ...]:
    return (
        SalientUnit(name="python-innermost-frame", patterns=("exception",), above=32,
                    choose=python_frame),
        SalientUnit(name="javascript-first-frame", patterns=("exception",), below=12,
                    choose=javascript_frame),
    )


#: What this family's output says went wrong, and how it ended.
DETECTOR = SalientDetector(patterns=_patterns(), units=_units())
