"""Patterns a model gives grep: checked, then compiled, before anything is searched.

Literal patterns need no compiling (they are searched on the bytes), except to ignore case.
Regular expressions run on the ``regex`` module (see docs/artifacts.md, "grep", for why not
``re`` or ``google-re2``), with a deadline the search applies; what a deadline cannot stop is
refused here: counted repetition that the compiler unrolls, and group calls whose memory
grows with the line.
"""

from __future__ import annotations

import re
from typing import Any

from truncation_core.errors import PatternError

__all__ = ["PATTERN_MAX_CHARS", "UNROLL_MAX", "compile_pattern"]

#: Longest pattern accepted (a model may send anything).
PATTERN_MAX_CHARS = 1000
#: The regex compiler copies an item repeated at least n times ({n}, {n,}, {n,m}) n times,
#: before any deadline applies: (?:ab|cd){1000000} takes gigabytes, or crashes the process.
#: A pattern whose counted repetition unrolls to more items than this is refused.
UNROLL_MAX = 10_000

_QUANTIFIER = re.compile(r"\{([0-9]*)(?:,[0-9]*)?\}")
_GROUP_CALL = re.compile(r"\(\?(?:R|[+-]?[0-9]|&|P>)")
#: What is not an item: inline flags and comments, and the prefix of a group that says its kind.
_NOT_AN_ITEM = re.compile(r"\(\?[a-zA-Z^-]*\)|\(\?#[^)]*\)")
_GROUP_KIND = re.compile(r"\?(?:[:=!>|]|<[=!]|P?<\w+>|'\w+'|[a-zA-Z^-]*:)")


def _class_end(pattern: str, i: int) -> int:
    """Where the character class opening at *i* ends (just after its ``]``)."""
    j = i + 1
    j += pattern.startswith("^", j)
    j += pattern.startswith("]", j)  # a "]" first is a literal
    while j < len(pattern):
        if pattern[j] == "\\":
            j += 2
        elif pattern[j] == "]":
            return j + 1
        else:
            j += 1
    return len(pattern)


def _check_cost(pattern: str) -> None:
    """Refuse regular expressions whose cost the search deadline cannot bound.

    Counted repetition is unrolled when the pattern compiles (see :data:`UNROLL_MAX`), and
    calls to groups or to the whole pattern use memory that grows with the line searched (a
    gigabyte for a 1 MB line, or a crash). Items are counted conservatively: anything that
    may be an item counts as one, and braces in a verbose-mode comment count as repetition.
    """
    sizes = [0]  # items in each open group, innermost last
    last = 0  # items in what a quantifier here would repeat
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "(" and _GROUP_CALL.match(pattern, i):
            raise PatternError("pattern: recursion and group calls ((?R), (?1), (?&name), "
                               "(?P>name)) are not supported: their memory grows with the line")
        skipped = _NOT_AN_ITEM.match(pattern, i) if c == "(" else None
        if skipped is not None:
            i = skipped.end()
            continue
        if c == "(":
            sizes.append(0)
            kind = _GROUP_KIND.match(pattern, i + 1)
            last, i = 0, kind.end() if kind else i + 1
            continue
        if c == ")" and len(sizes) > 1:
            last = sizes.pop()
            sizes[-1] += last
            i += 1
            continue
        quantifier = _QUANTIFIER.match(pattern, i) if c == "{" else None
        if quantifier is not None:
            times = max(int(quantifier.group(1) or 0), 1)  # only the minimum is unrolled
            sizes[-1] += last * (times - 1)
            last *= times
            i = quantifier.end()
        elif c in "*+?|":
            i += 1
        else:
            i = i + 2 if c == "\\" else _class_end(pattern, i) if c == "[" else i + 1
            last = 1
            sizes[-1] += 1
        if sizes[-1] > UNROLL_MAX:
            raise PatternError(f"pattern: counted repetition unrolls to more than "
                               f"{UNROLL_MAX:,} items (x{{n}} is copied n times when the "
                               "pattern compiles); use a smaller count")
    if sum(sizes) > UNROLL_MAX:  # groups left open (the compiler refuses those anyway)
        raise PatternError(f"pattern: counted repetition unrolls to more than {UNROLL_MAX:,} "
                           "items; use a smaller count")


def compile_pattern(pattern: str, *, regex: bool, ignore_case: bool) -> Any:
    """The compiled search for *pattern*, or None for a case-sensitive literal (searched
    with ``bytes.find``). Raises :class:`~truncation_core.errors.PatternError` for a pattern
    that is empty, too long, invalid, or too costly for any deadline to bound."""
    if not isinstance(pattern, str) or not pattern:
        raise PatternError("pattern: expected a non-empty string")
    if len(pattern) > PATTERN_MAX_CHARS:
        raise PatternError(f"pattern: at most {PATTERN_MAX_CHARS} characters, "
                           f"got {len(pattern)}")
    if not regex and not ignore_case:
        return None
    if regex:
        _check_cost(pattern)
    import regex as regex_module  # only when asked for (see docs/artifacts.md, "grep")

    source = pattern if regex else regex_module.escape(pattern)
    flags = regex_module.MULTILINE | (regex_module.IGNORECASE | regex_module.FULLCASE
                                      if ignore_case else 0)
    try:
        return regex_module.compile(source, flags)
    except regex_module.error as exc:
        raise PatternError(f"pattern: not a valid regular expression: {exc}") from None
    except (ValueError, OverflowError, RecursionError) as exc:
        raise PatternError(
            f"pattern: not a valid regular expression: {type(exc).__name__}") from None
