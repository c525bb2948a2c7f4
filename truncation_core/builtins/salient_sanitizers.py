"""Address, undefined-behaviour, thread, memory and leak sanitizers.

A sanitizer's report is long (frames, shadow bytes, a legend) and what a developer needs of
it is short: what happened (``==12693==ERROR: AddressSanitizer: heap-buffer-overflow``,
``WARNING: ThreadSanitizer: data race``, ``WARNING: MemorySanitizer:
use-of-uninitialized-value``, ``ERROR: LeakSanitizer: detected memory leaks``), which access
(``WRITE of size 17``, ``Previous write of size 8``, ``Direct leak of 24 byte(s)``, MSan's
``Uninitialized value was created by a heap allocation``), the first frame of each in the
program's own code (not the sanitizer's interceptors nor libc), and the ``SUMMARY:`` line.
UBSan's ``file:line:col: runtime error:`` is one line. Lines may carry a runner's prefix
(ctest's ``62: ``).

It imports only names that :mod:`truncation_core.plugin` exports: it uses the hooks exactly as
a third party would.
"""

from __future__ import annotations

import re

from truncation_core.types.salient import SalientDetector, SalientPattern, SalientUnit, UnitLines


def _patterns() -> tuple[SalientPattern, ...]:
    return (
        SalientPattern(
            name="sanitizer-report", rank=1,
            keywords=("Sanitizer:",),
            regex=r"(?:==\d+==)?(?:ERROR|WARNING): \w*Sanitizer: ",
        ),
        SalientPattern(
            name="sanitizer-summary", rank=1,
            keywords=("SUMMARY: ",),
            regex=r"SUMMARY: \w*Sanitizer: ",
        ),
        SalientPattern(
            name="ubsan-runtime-error", rank=1,
            keywords=("runtime error:",),
            regex=r"\S+:\d+:\d+: runtime error: ",
        ),
    )


_PREFIX = r"^\d+: "
_ACCESS = (r"^\s*(?:(?:READ|WRITE) of size \d+|(?:Previous )?(?:[Aa]tomic )?"
           r"(?:[Rr]ead|[Ww]rite) of size \d+|(?:Direct|Indirect) leak of \d+|"
           r"Uninitiali[sz]ed value was (?:created|stored))")
_FRAME = r"^\s*#\d+ (?:0x[0-9a-f]+ in )?\S+ \(?(\S+?):\d+(?::\d+)?\b"
#: Frames in the sanitizer runtime, the C library and the startup code.
_RUNTIME = (r"(?:^|/)(?:csu|sysdeps|compiler-rt|sanitizer_common|asan|tsan|msan|"
            r"ubsan|lsan|libc|glibc|libstdc\+\+|libgcc|nptl)(?:/|[-_.])|"
            r"__(?:asan|tsan|msan|interceptor|sanitizer)")


def report_details(lines: UnitLines) -> list[int]:
    """Under a sanitizer report's first line: each access (at most two) with the first frame
    of its stack in the program's own code. A report whose stack follows its first line
    (MemorySanitizer's use of an uninitialised value, AddressSanitizer's SEGV) has its first
    own frame taken too; MemorySanitizer's origin (``Uninitialized value was created by a
    heap allocation``) counts as an access."""
    taken: list[int] = []
    frame_wanted = True
    accesses = 0
    for i, raw in enumerate(lines.below, 1):
        line = re.sub(_PREFIX, "", raw)
        if "SUMMARY:" in line or re.search(r"==\d+==ABORTING|^=+$|^\s*Shadow bytes", line):
            break
        if re.match(_ACCESS, line):
            if accesses == 2:
                break
            accesses += 1
            taken.append(i)
            frame_wanted = True
            continue
        frame = re.match(_FRAME, line)
        if frame_wanted and frame is not None and not re.search(_RUNTIME, line):
            taken.append(i)
            frame_wanted = False
    return taken


def _units() -> tuple[SalientUnit, ...]:
    return (
        SalientUnit(name="sanitizer-details", patterns=("sanitizer-report",), below=40,
                    choose=report_details),
    )


#: What this family's output says went wrong, and how it ended.
DETECTOR = SalientDetector(patterns=_patterns(), units=_units())
