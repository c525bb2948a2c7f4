"""Compilers, type checkers and linters: a diagnostic's header with its location and the
source line it points at, as one unit.

* gcc and clang (``app.c:3:5: error: ...`` over the numbered source line and its carets),
  rustc and cargo (``error[E0308]: ...`` over ``--> src/lib.rs:87:5`` and the labelled
  caret line), ruff's full output (``F821 Undefined name `x``` over `` --> app.py:7:53``:
  a header with no fixed word, found by the arrow under it), mypy (a message wrapped over
  two lines, and the notes on the same location), tsc (``error TS2322:``, plain and
  ``--pretty``), GHC (``M.hs:6:12: error:`` over its ``•`` message), eslint (a problem
  under its file's header line) and Go (``pkg/x.go:8:17: ...`` under ``# pkg``).

It imports only names that :mod:`truncation_core.plugin` exports: it uses the hooks exactly as
a third party would.
"""

from __future__ import annotations

import re

from truncation_core.types.salient import SalientDetector, SalientPattern, SalientUnit, UnitLines


def _patterns() -> tuple[SalientPattern, ...]:
    return (
        SalientPattern(
            name="ruff-diagnostic", rank=1,
            keywords=("--> ",),
            # ruff's full output: the rule code and message, then " --> path:line:col".
            regex=r"^\s*--> \S+:\d+:\d+\s*$",
            header=r"^[A-Z]{1,5}\d{2,4}(?: \[\*\])? \S",
        ),
        SalientPattern(
            name="eslint-error", rank=1,
            keywords=("  error  ",),
            # "  6:10  error    'totl4' is not defined    no-undef"
            regex=r"^\s+\d+:\d+\s+error\s{2,}\S",
        ),
        SalientPattern(
            name="go-diagnostic", rank=1,
            keywords=(".go:",),
            # go build and go vet: "pkg24/calc.go:8:17: undefined: undefinedFee" (not go test's
            # indented "    x_test.go:12: message" log lines).
            regex=r"^\S+\.go:\d+:\d+: \S",
        ),
        SalientPattern(
            name="go-package-failed", rank=0,
            keywords=("FAIL\t",),
            # go test's line for a package that failed: "FAIL\texample.com/x\t0.006s".
            regex=r"^FAIL\s+\S+\s+(?:[\d.]+s|\[)",
        ),
        SalientPattern(
            name="go-package-ok", rank=2,
            keywords=("ok  \t",),
            # ... and for one that passed: a detail, shown when there are few.
            regex=r"^ok\s+\S+\s+(?:[\d.]+s|\(cached\))",
        ),
    )

#: A diagnostic's header: "path:line[:col]: error|warning", " - error TS...", rustc's
#: "error[E0308]: ...", ruff's "F821 ...".
_HEADER = (r"^\S.*?:\d+(?::\d+)?(?::| -) (?:fatal )?(?:error|warning)\b|"
           r"^(?:error|warning)(?:\[\w+\])?: |^[A-Z]{1,5}\d{2,4}(?: \[\*\])? \S")
_NEW_DIAGNOSTIC = (r"^\S.*?:\d+(?::\d+)?(?::| -) (?:fatal )?(?:error|warning|note)\b|"
                   r"^(?:error|warning|note|help)(?:\[\w+\])?: |"
                   r"^[A-Z]{1,5}\d{2,4}(?: \[\*\])? \S|^\[\d+ of \d+\] |^make")
_ARROW = r"^\s*--> \S"
#: A caret line: only carets, tildes, dashes, pluses and spaces, after an optional gutter.
_CARETS = r"^\s*(?:\d+\s*)?\|?\s*[\^~][\^~+\-\s]*$"
#: rustc's primary label: carets then what is wrong ("^^^^^ expected `u32`, found `i64`").
_LABEL = r"^\s*\|\s*\^+\s+\S"
_BULLET = r"^\s+•\s"
_MYPY = r"^(\S+\.pyi?:\d+): (?:error|note): "
_GUTTER = r"^\s*\|\s*$"


def compiler_excerpt(lines: UnitLines) -> list[int]:
    """Under a compiler's diagnostic: its location line (``-->``), its message when the
    header has none (GHC's first ``•`` line), a wrapped message's rest (mypy), notes on the
    same location (mypy), and the source line the first caret points at (or the caret line
    itself when it carries the message, as rustc's primary label does)."""
    header = lines.line
    if not re.search(_HEADER, header):
        return []
    taken: list[int] = []
    mypy = re.match(_MYPY, header)
    wrapped = mypy is not None and not header.rstrip().endswith("]")
    arrow = bullet = caret = False
    for i, line in enumerate(lines.below):
        offset = i + 1
        if not line.strip():
            if i == 0:  # tsc --pretty: a blank line under the header
                continue
            break
        if wrapped and not line.startswith(" ") and not re.match(_MYPY, line):
            taken.append(offset)
            wrapped = not line.rstrip().endswith("]")
            continue
        wrapped = False
        if mypy is not None and line.startswith(f"{mypy.group(1)}: note: "):
            taken.append(offset)
            continue
        if re.match(_NEW_DIAGNOSTIC, line) or (mypy is not None and re.match(_MYPY, line)):
            break
        if not arrow and re.match(_ARROW, line):
            arrow = True
            taken.append(offset)
        elif not bullet and re.match(_BULLET, line):
            bullet = True
            taken.append(offset)
        elif not caret and re.match(_LABEL, line):
            caret = True
            taken.append(offset)
            if i > 0 and not re.match(_GUTTER, lines.below[i - 1]) and offset - 1 not in taken:
                taken.append(offset - 1)
        elif not caret and re.match(_CARETS, line) and i > 0:
            caret = True
            source = lines.below[i - 1]
            if not re.match(_GUTTER, source) and offset - 1 not in taken and source.strip():
                taken.append(offset - 1)
    return taken


_ESLINT_FILE = r"^(?:[A-Za-z]:)?[^\s:]+\.[\w]+$"
_ESLINT_PROBLEM = r"^\s+\d+:\d+\s+(?:error|warning)\s"


def eslint_file(lines: UnitLines) -> list[int]:
    """Above an eslint problem: the header line naming its file."""
    for i, line in enumerate(lines.above):
        if re.match(_ESLINT_FILE, line.strip()) and not line.startswith(" "):
            return [-(i + 1)]
        if not re.match(_ESLINT_PROBLEM, line):
            return []
    return []


_GO_DIAGNOSTIC = r"^\S+\.go:\d+:\d+: "


def go_package(lines: UnitLines) -> list[int]:
    """Above a Go compiler or vet finding: the ``# package`` line its errors follow."""
    for i, line in enumerate(lines.above):
        if re.match(r"^# \S+$", line):
            return [-(i + 1)]
        if not re.match(_GO_DIAGNOSTIC, line):
            return []
    return []


def _units() -> tuple[SalientUnit, ...]:
    return (
        SalientUnit(name="compiler-excerpt",
                    patterns=("error", "warning", "ruff-diagnostic"), below=12,
                    choose=compiler_excerpt),
        SalientUnit(name="eslint-file", patterns=("eslint-error",), above=64, choose=eslint_file),
        SalientUnit(name="go-package", patterns=("go-diagnostic",), above=16, choose=go_package),
    )


#: What this family's output says went wrong, and how it ended.
DETECTOR = SalientDetector(patterns=_patterns(), units=_units())
