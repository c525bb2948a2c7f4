"""Patterns a model gives grep: checked, then compiled, before anything is searched.

Literal patterns need no compiling (they are searched on the bytes), except to ignore case.
Regular expressions run on RE2 when it accepts them (linear time, compile capped in memory),
else on the ``regex`` module behind a check of the pattern's text and with a deadline the
search applies: see :mod:`truncation_core.text.bounded_regex` and docs/artifacts.md, "grep".
"""

from __future__ import annotations

from truncation_core.text.bounded_regex import (
    PATTERN_MAX_CHARS,
    UNROLL_MAX,
    BoundedRegex,
    compile_untrusted,
)

__all__ = ["PATTERN_MAX_CHARS", "UNROLL_MAX", "compile_pattern"]


def compile_pattern(pattern: str, *, regex: bool, ignore_case: bool,
                    engines: tuple[str, ...] = ("re2", "regex")) -> BoundedRegex | None:
    """The compiled search for *pattern*, or None for a case-sensitive literal (searched
    with ``bytes.find``). Raises :class:`~truncation_core.errors.PatternError` for a pattern
    that is empty, too long, invalid, or too costly for any deadline to bound. *engines*
    says which engines may run a regular expression (RE2 first)."""
    compiled = compile_untrusted(pattern, ignore_case=ignore_case, literal=not regex,
                                 engines=engines)
    return None if not regex and not ignore_case else compiled
