"""Regular expressions from sources that cannot be trusted to be cheap, bounded in time and
memory: patterns a model sends to grep, and the ``salient_detector`` plugins supply.

Two engines:

* **RE2** (the ``google-re2`` package), first, for a model's patterns: it matches in time
  linear in the text, and its compile is capped in memory (``max_mem``, and repetition counts
  of at most 1,000), so no pattern it accepts can exhaust the process. It works on the bytes
  of an artifact directly. It refuses what it cannot do in linear time: look-arounds,
  backreferences, atomic groups, possessive quantifiers, verbose mode, conditionals.
* the ``regex`` module for the rest, behind the second line of defence, a check of the
  pattern's text (:func:`check_cost`): counted repetition is unrolled when ``regex``
  compiles (``(?:ab|cd){1000000}`` takes gigabytes before any deadline applies), so a
  pattern that unrolls to more than :data:`UNROLL_MAX` items is refused, as are group calls
  (their memory grows with the line) and the modes whose syntax the check cannot follow
  (verbose ``(?x)``, where whitespace and comments can hide a repetition count from it, and
  ``(?V1)``'s nested sets). Its searches run under a deadline (``timeout=``).

``bench/bench_patterns.py`` measures both engines on the same searches.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from truncation_core.errors import PatternError, log
from truncation_core.text.trusted import trust_salient, trusted

__all__ = [
    "PATTERN_MAX_CHARS",
    "RE2_MAX_MEM",
    "SALIENT_SEARCH_SECONDS",
    "UNROLL_MAX",
    "BoundedRegex",
    "SalientRegex",
    "check_cost",
    "check_cost_any_mode",
    "compile_untrusted",
    "re2_available",
    "trust_salient",
]


#: Longest pattern accepted (a model may send anything).
PATTERN_MAX_CHARS = 1000
#: The ``regex`` compiler copies an item repeated at least n times ({n}, {n,}, {n,m}) n times,
#: before any deadline applies: (?:ab|cd){1000000} takes gigabytes, or crashes the process.
#: A pattern whose counted repetition unrolls to more items than this is refused.
UNROLL_MAX = 10_000
#: Memory RE2 may use for one compiled pattern (its program and its DFA cache). A pattern
#: whose program does not fit is refused by RE2 (and goes to the guarded ``regex`` engine);
#: a search whose DFA outgrows it falls back to RE2's NFA, still linear.
RE2_MAX_MEM = 8 << 20

_QUANTIFIER = re.compile(r"\{([0-9]*)(?:,[0-9]*)?\}")
_GROUP_CALL = re.compile(r"\(\?(?:R|[+-]?[0-9]|&|P>)")
#: What is not an item: inline flags and comments (in which ``regex`` skips escaped
#: characters, ``\)`` included), and the prefix of a group that says its kind.
_NOT_AN_ITEM = re.compile(r"\(\?[a-zA-Z^-]*\)|\(\?#(?:\\.|[^)\\])*\)?", re.DOTALL)
_GROUP_KIND = re.compile(r"\?(?:[:=!>|]|<[=!]|P?<\w+>|'\w+'|[a-zA-Z^-]*:)")
#: Inline flags that change the syntax the check reads: verbose mode (x), in which
#: whitespace and ``#`` comments are ignored, so that ``(?:ab|cd) {9999}`` repeats the group,
#: and version 1 (V1), whose sets nest. Matched anywhere, conservatively: in a class or after
#: a backslash too (such a pattern is refused, never let through).
_SYNTAX_FLAGS = re.compile(r"\(\?[a-zA-Z^-]*(?:x|V1)")


def _class_end(pattern: str, i: int) -> int:
    """Where the character class opening at *i* ends (just after its ``]``)."""
    j = i + 1
    j += pattern.startswith("^", j)
    j += pattern.startswith("]", j)  # a "]" first is a literal
    while j < len(pattern):
        if pattern[j] == "\\":
            j += 2
        elif pattern.startswith("[:", j):  # a POSIX class, [:alpha:]
            end = pattern.find(":]", j + 2)
            j = end + 2 if end != -1 else j + 1
        elif pattern[j] == "]":
            return j + 1
        else:
            j += 1
    return len(pattern)


def check_cost(pattern: str) -> None:
    """Refuse a regular expression for the ``regex`` engine whose cost no deadline can bound.

    Counted repetition is unrolled when the pattern compiles (see :data:`UNROLL_MAX`), and
    calls to groups or to the whole pattern use memory that grows with the line searched (a
    gigabyte for a 1 MB line, or a crash). Items are counted conservatively: anything that
    may be an item counts as one. Verbose mode and version 1 syntax are refused: in them the
    text does not say what repeats what.
    """
    if _SYNTAX_FLAGS.search(pattern):
        raise PatternError("pattern: verbose mode ((?x)) and (?V1) are not supported; write "
                           "the pattern without them")
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


#: An inline flag group's letters: (?x), (?i-x:, (?V1) ...
_FLAG_GROUP = re.compile(r"\(\?([a-zA-Z0-9^-]*)(?=[:)])")


def _without_syntax_flags(pattern: str) -> str:
    """*pattern* with the verbose and version flags taken out of its inline flag groups."""
    return _FLAG_GROUP.sub(
        lambda m: "(?" + m.group(1).replace("V0", "").replace("V1", "").replace("x", ""),
        pattern)


def _verbose_reading(pattern: str) -> str:
    """*pattern* as ``regex`` reads it in verbose mode: whitespace and ``#`` comments outside
    classes, escapes and ``(?#...)`` comments dropped."""
    kept: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            kept.append(pattern[i:i + 2])
            i += 2
        elif c == "[":
            end = _class_end(pattern, i)
            kept.append(pattern[i:end])
            i = end
        elif c == "(" and pattern.startswith("(?#", i):
            comment = _NOT_AN_ITEM.match(pattern, i)
            end = comment.end() if comment else len(pattern)
            kept.append(pattern[i:end])
            i = end
        elif c == "#":
            newline = pattern.find("\n", i)
            i = len(pattern) if newline == -1 else newline + 1
        elif c.isspace():
            i += 1
        else:
            kept.append(c)
            i += 1
    return "".join(kept)


def check_cost_any_mode(pattern: str) -> None:
    """:func:`check_cost` for a pattern that may use verbose mode or ``(?V1)`` (a plugin's
    salient pattern: its author may write it verbose). The check reads the pattern both ways,
    as if verbose throughout and as if never (where a group and its ``{n}`` are apart in one
    reading they are together in the other), and refuses it if either reading is too costly.
    """
    if not _SYNTAX_FLAGS.search(pattern):
        check_cost(pattern)
        return
    check_cost(_without_syntax_flags(pattern))
    check_cost(_without_syntax_flags(_verbose_reading(pattern)))


class BoundedRegex:
    """A compiled pattern and the engine that runs it.

    ``search(text, pos, endpos, timeout=seconds)`` returns a match (``start()``, ``end()``)
    or None, and raises :class:`TimeoutError` past *timeout* (``regex``; RE2 needs none: it
    is linear, so a caller checks its deadline between searches). *text* is ``bytes`` when
    :attr:`on_bytes` (RE2: offsets are byte offsets), else ``str``.
    """

    __slots__ = ("_search", "engine", "on_bytes")

    def __init__(self, engine: str, search: Callable[..., Any], on_bytes: bool) -> None:
        self.engine = engine
        self.on_bytes = on_bytes
        self._search = search

    def search(self, text: Any, pos: int = 0, endpos: int | None = None, *,
               timeout: float) -> Any:
        return self._search(text, pos, endpos, timeout)

    def __repr__(self) -> str:  # never the pattern: it may quote content
        return f"BoundedRegex(engine={self.engine!r})"


_re2_module: Any = None


def re2_available() -> bool:
    """Whether the ``google-re2`` package can be imported."""
    global _re2_module
    if _re2_module is None:
        try:
            import re2  # type: ignore[import-untyped]

            _re2_module = re2
        except ImportError:
            _re2_module = False
    return _re2_module is not False


def _compile_re2(pattern: str, *, ignore_case: bool, multiline: bool) -> BoundedRegex | None:
    """The pattern on RE2, or None when RE2 does not accept it."""
    if not re2_available():
        return None
    re2 = _re2_module
    options = re2.Options()
    options.max_mem = RE2_MAX_MEM
    options.log_errors = False
    options.case_sensitive = not ignore_case
    flags = "(?m)" if multiline else ""
    try:
        source = (flags + pattern).encode("utf-8")  # a lone surrogate: not for RE2
        compiled = re2.compile(source, options)
    except (re2.error, UnicodeEncodeError, ValueError, TypeError):
        return None
    search = compiled.search

    def run(text: bytes, pos: int, endpos: int | None, _timeout: float) -> Any:
        return search(text, pos) if endpos is None else search(text, pos, endpos)

    return BoundedRegex("re2", run, on_bytes=True)


def _compile_regex(pattern: str, *, ignore_case: bool, multiline: bool,
                   literal: bool = False) -> BoundedRegex:
    import regex as regex_module  # only when asked for

    source = regex_module.escape(pattern) if literal else pattern
    flags = ((regex_module.MULTILINE if multiline else 0)
             | (regex_module.IGNORECASE | regex_module.FULLCASE if ignore_case else 0))
    try:
        compiled = regex_module.compile(source, flags)
    except regex_module.error as exc:
        raise PatternError(f"pattern: not a valid regular expression: {exc}") from None
    except (ValueError, OverflowError, RecursionError, MemoryError) as exc:
        raise PatternError(
            f"pattern: not a valid regular expression: {type(exc).__name__}") from None
    search = compiled.search

    def run(text: str, pos: int, endpos: int | None, timeout: float) -> Any:
        if endpos is None:
            return search(text, pos, timeout=timeout)
        return search(text, pos, endpos, timeout=timeout)

    return BoundedRegex("regex", run, on_bytes=False)


def compile_untrusted(pattern: str, *, ignore_case: bool = False, multiline: bool = True,
                      literal: bool = False, engines: tuple[str, ...] = ("re2", "regex")
                      ) -> BoundedRegex:
    """Compile *pattern*, which may come from anyone, so that neither compiling nor
    searching can exhaust the process: on RE2 when it accepts the pattern, else on ``regex``
    once :func:`check_cost` lets it through. *literal* searches the text as it is (for an
    ignore-case literal search). Raises :class:`PatternError` for a pattern that is empty,
    too long, invalid, or too costly."""
    if not isinstance(pattern, str) or not pattern:
        raise PatternError("pattern: expected a non-empty string")
    if len(pattern) > PATTERN_MAX_CHARS:
        raise PatternError(f"pattern: at most {PATTERN_MAX_CHARS} characters, "
                           f"got {len(pattern)}")
    if literal:
        return _compile_regex(pattern, ignore_case=ignore_case, multiline=multiline,
                              literal=True)
    if "re2" in engines:
        compiled = _compile_re2(pattern, ignore_case=ignore_case, multiline=multiline)
        if compiled is not None:
            return compiled
    if "regex" not in engines:
        raise PatternError("pattern: not a regular expression RE2 accepts")
    check_cost(pattern)
    return _compile_regex(pattern, ignore_case=ignore_case, multiline=multiline)


# -- salient patterns: regular expressions plugins supply -------------------------------------

#: The longest one search of a salient pattern may take on one line (512 characters at
#: most), and the most all its searches may take in one matcher's life: a pattern that
#: takes longer (catastrophic backtracking, such as (a|aa)+$) is not used again.
SALIENT_SEARCH_SECONDS = 0.05
SALIENT_TOTAL_SECONDS = 2.0

class SalientRegex:
    """A salient pattern's regular expression, searched with the ``regex`` module under a
    deadline per search and a budget over all of them. ``search(probe)`` returns a match or
    None, as :meth:`re.Pattern.search` does; once the pattern has been too slow, it logs a
    warning naming the pattern, and matches nothing from then on."""

    __slots__ = ("_clock", "_compiled", "_spent", "disabled", "name", "search")

    def __init__(self, pattern: str, *, name: str,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.name = name
        self._clock = clock
        self._spent = 0.0
        #: Why the pattern is not used any more, once it is not.
        self.disabled: str | None = None
        self.search: Callable[[str], Any] = self._bounded_search
        self._compiled: BoundedRegex | None = None
        if pattern in trusted():  # a built-in pattern: re, as fast as it gets
            self.search = re.compile(pattern).search
            return
        try:
            check_cost_any_mode(pattern)
            self._compiled = _compile_regex(pattern, ignore_case=False, multiline=False)
        except PatternError as exc:
            self._disable(f"it cannot be compiled safely ({str(exc).removeprefix('pattern: ')})")

    def _bounded_search(self, probe: str) -> Any:
        if self._compiled is None:
            return None
        limit = min(SALIENT_SEARCH_SECONDS, SALIENT_TOTAL_SECONDS - self._spent)
        start = self._clock()
        try:
            return self._compiled.search(probe, timeout=limit)
        except TimeoutError:
            self._compiled = None
            self._disable(f"a search took over {limit * 1000:.0f} ms (catastrophic "
                          "backtracking, such as (a+)+$?)")
            return None
        finally:
            self._spent += self._clock() - start
            if self._spent >= SALIENT_TOTAL_SECONDS and self._compiled is not None:
                self._compiled = None
                self._disable(f"its searches took over {SALIENT_TOTAL_SECONDS:g} s in all")

    def _disable(self, why: str) -> None:
        self.disabled = why
        log.warning("salient pattern %r is not used: %s", self.name, why)

    def __repr__(self) -> str:
        return f"SalientRegex({self.name!r}, disabled={self.disabled is not None})"
