"""Haskell: GHC, cabal, stack and hspec.

GHC's ``src/M.hs:6:12: error:`` (and ``warning:``) puts its message on the lines below, each
point after a ``•``; the compilers' unit (``salient_compilers``) keeps the first ``•`` line
and the source line the carets point at. This adds cabal's and stack's failures
(``Error: cabal: Failed to build ledger-0.1.0.0.``, ``Failed to build``,
``Error: [S-7282]``), ``cabal test``'s ``Test suite spec: FAIL`` and ``cabal: Tests failed
for test:spec``, GHC's own crashes (``ghc: panic!``), hspec's failure count
(``40 examples, 1 failure``, generic) and each failure's ``expected:``/``but got:``.

It imports only names that :mod:`truncation_core.plugin` exports: it uses the hooks exactly as
a third party would.
"""

from __future__ import annotations

import re

from truncation_core.types.salient import SalientDetector, SalientPattern, SalientUnit, UnitLines


def _patterns() -> tuple[SalientPattern, ...]:
    return (
        SalientPattern(
            name="cabal-failure", rank=1,
            keywords=("Failed to build", "failed to build", "Error: [S-", "[Cabal-"),
            regex=r"\b[Ff]ailed to build\b|^Error: \[(?:S|Cabal)-\d+\]",
        ),
        SalientPattern(
            name="cabal-test-failure", rank=1,
            keywords=(": FAIL", "Tests failed for"),
            # "Test suite spec: FAIL", "cabal: Tests failed for test:spec from ledger-0.1.0.0."
            regex=r"^Test suite \S+: FAIL\s*$|^(?:Error: )?cabal: Tests failed for ",
        ),
        SalientPattern(
            name="ghc-panic", rank=1,
            keywords=("panic!",),
            regex=r"^\S+: panic! ",
        ),
        SalientPattern(
            name="hspec-failure", rank=1,
            keywords=("expected: ",),
            regex=r"^\s+expected: ",
        ),
    )


def hspec_got(lines: UnitLines) -> list[int]:
    """Under hspec's ``expected: x``: the ``but got: y`` line."""
    for i, line in enumerate(lines.below[:3], 1):
        if re.match(r"^\s+but got: ", line):
            return [i]
    return []


def hspec_location(lines: UnitLines) -> list[int]:
    """Above hspec's ``expected: x``: the failure's location and name."""
    for i, line in enumerate(lines.above[:4], 1):
        if re.match(r"^\s*\S+\.hs:\d+:\d+:\s*$|^\s+\d+\) ", line):
            return [-i]
    return []


def _units() -> tuple[SalientUnit, ...]:
    return (
        SalientUnit(name="hspec-got", patterns=("hspec-failure",), below=3, choose=hspec_got),
        SalientUnit(name="hspec-location", patterns=("hspec-failure",), above=4,
                    choose=hspec_location),
    )


#: What this family's output says went wrong, and how it ended.
DETECTOR = SalientDetector(patterns=_patterns(), units=_units())
