"""A highlights detector: which lines of an omitted part are worth lifting into the
highlights block, and what is shown with them. One declaration, :class:`SalientDetector`,
returned by the ``salient_detector`` hook, bundles:

- :class:`SalientPattern`: what makes a line salient: literal ``keywords`` (what keeps
  scanning fast) and an optional ``regex``, with a ``rank`` (0 is shown first);
- :class:`SalientUnit`: the lines that belong with a salient line, shown with it as one
  unit. A header without its location is half useless: ``error[E0308]: mismatched types``
  wants its ``--> src/lib.rs:87:5``, a Python exception its innermost ``File "...", line N``
  and the source line under it. A unit names the patterns (or records) whose lines it
  extends, how many lines above and below it may look at, and a ``choose`` function. For
  each matching line, ``choose`` is given those lines (ANSI escapes removed, each its first
  :data:`~truncation_core.highlights.patterns.PROBE_CHARS` characters) as a
  :class:`UnitLines`, and returns the offsets of the lines to keep: ``-1`` is the line right
  above, ``1`` the line right below. It must be a pure function of what it is given (the
  block is deterministic), cheap, and it must not raise (if it does, the unit adds nothing to
  that line, and the failure is logged with the unit's name). :func:`lines_below` and
  :func:`lines_above` make the usual ``choose``;
- :class:`SalientRecord`: which records of a JSON Lines log are salient, judged parsed
  (see :mod:`truncation_core.highlights.records`).

The engine that applies them, to ``process`` and to streams alike, is
:mod:`truncation_core.highlights`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

from truncation_core.types.converters import strings

__all__ = ["MAX_UNIT_LINES", "SalientDetector", "SalientPattern", "SalientRecord",
           "SalientUnit", "UnitLines", "lines_above", "lines_below"]

#: The most lines a unit may look at on either side of its line.
MAX_UNIT_LINES = 64


@attrs.frozen(kw_only=True)
class UnitLines:
    """The lines around a matching line, as a unit's ``choose`` sees them (content: no repr)."""

    #: The matching line.
    line: str = attrs.field(repr=False)
    #: The lines above it, nearest first (``above[0]`` is offset -1); fewer near the start.
    above: Sequence[str] = attrs.field(repr=False)
    #: The lines below it, nearest first (``below[0]`` is offset 1); fewer near the end.
    below: Sequence[str] = attrs.field(repr=False)


Choose = Callable[[UnitLines], Iterable[int]]


def _check_names(_inst: object, _attr: object, value: tuple[str, ...]) -> None:
    if not value or not all(isinstance(name, str) and name for name in value):
        raise ValueError("patterns: expected the names of one or more salient patterns "
                         f"(or records), got {value!r}")


def _check_reach(_inst: object, attr: attrs.Attribute[int], value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_UNIT_LINES:
        raise ValueError(f"{attr.name}: expected an integer from 0 to {MAX_UNIT_LINES}, got "
                         f"{value!r}")


def _check_choose(_inst: object, _attr: object, value: Any) -> None:
    if not callable(value):
        raise ValueError(f"choose: expected a function of UnitLines, got {type(value).__name__}")


@attrs.frozen(kw_only=True)
class SalientUnit:
    """Which lines around the lines of some patterns are shown with them."""

    #: A short name, for logs.
    name: str
    #: The names of the patterns (or records) whose lines this unit extends.
    patterns: tuple[str, ...] = attrs.field(converter=strings, validator=_check_names)
    #: How many lines above and below the matching line ``choose`` is given (0 to 64).
    above: int = attrs.field(default=0, validator=_check_reach)
    below: int = attrs.field(default=0, validator=_check_reach)
    #: ``choose(lines: UnitLines) -> offsets``: ``-1`` the line above, ``1`` the line below.
    choose: Choose = attrs.field(validator=_check_choose, repr=False)

    def offsets(self, lines: UnitLines) -> list[int]:
        """The offsets ``choose`` keeps, checked: in reach, each once, in order."""
        out = set()
        for offset in self.choose(lines):
            if type(offset) is int and (-len(lines.above) <= offset < 0
                                        or 0 < offset <= len(lines.below)):
                out.add(offset)
        return sorted(out)


def _walk(lines: Sequence[str], take: re.Pattern[str], stop: re.Pattern[str] | None,
          most: int, sign: int) -> list[int]:
    taken: list[int] = []
    for i, line in enumerate(lines):
        ends = stop is not None and stop.search(line) is not None
        if take.search(line):
            taken.append(sign * (i + 1))
            if len(taken) >= most:
                break
        if ends:
            break
    return taken


def lines_below(take: str, *, stop: str | None = None, most: int = 3) -> Choose:
    """A ``choose`` that walks down from the line: it takes each line *take* finds
    (``re.search``), and ends after *most* of them, or at a line *stop* finds (taken too if
    *take* finds it)."""
    take_re, stop_re = re.compile(take), (re.compile(stop) if stop is not None else None)

    def choose(lines: UnitLines) -> list[int]:
        return _walk(lines.below, take_re, stop_re, most, 1)

    return choose


def lines_above(take: str, *, stop: str | None = None, most: int = 3) -> Choose:
    """Like :func:`lines_below`, walking up from the line (the nearest line first)."""
    take_re, stop_re = re.compile(take), (re.compile(stop) if stop is not None else None)

    def choose(lines: UnitLines) -> list[int]:
        return _walk(lines.above, take_re, stop_re, most, -1)

    return choose


def _keywords_check(found_how: str) -> Callable[[object, object, tuple[str, ...]], None]:
    """The validator of a ``keywords`` field: at least one, each a non-empty string within
    one line (*found_how* says what they are for)."""

    def check(_inst: object, _attr: object, value: tuple[str, ...]) -> None:
        if not value:
            raise ValueError(f"keywords: at least one literal string is needed, so that "
                             f"{found_how}")
        for keyword in value:
            if not isinstance(keyword, str) or not keyword:
                raise ValueError(f"keywords: expected non-empty strings, got {keyword!r}")
            if "\n" in keyword or "\r" in keyword:
                raise ValueError(f"keywords: {keyword!r} holds a line terminator; keywords "
                                 "match inside one line")

    return check


_check_pattern_keywords = _keywords_check(
    "lines can be found without running the regex on every line")
_check_record_keywords = _keywords_check(
    "record lines can be found without parsing every line")


def _check_regex(_inst: object, _attr: object, value: str | None) -> None:
    if value is not None:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"regex: not a valid regular expression: {exc}") from None


@attrs.frozen(kw_only=True)
class SalientPattern:
    """What makes a line worth lifting into the highlights block.

    A line matches when its probe (ANSI escapes removed) contains one of *keywords*
    (literal, case-sensitive) and, if *regex* is given, :func:`re.search` finds *regex* in
    the probe. Write keywords as literal strings that every line you want contains
    (``"rror"`` catches both ``error`` and ``Error``); the regex then says precisely which of
    those lines you want.
    """

    #: A short name, shown in the metadata (``python-exception``, ``pytest-summary`` ...).
    name: str
    #: Literal strings, one of which every matching line contains.
    keywords: tuple[str, ...] = attrs.field(converter=strings, validator=_check_pattern_keywords)
    #: A regular expression searched in lines that contain a keyword; None to take them all.
    regex: str | None = attrs.field(default=None, validator=_check_regex)
    #: 0 is shown first (summaries, exit statuses), then 1 (errors), 2 ...
    rank: int = 1
    #: For a header that has no word to look for, but a line under it that has: a regular
    #: expression the line right above the matching one must match (``re.search``, ANSI
    #: escapes removed). That line is then the salient one, and the matching line is the
    #: first below it (ruff's ``F821 Undefined name `x``` over `` --> app.py:7:53``).
    header: str | None = attrs.field(default=None, validator=_check_regex)


def _check_test(_inst: object, _attr: object, value: Any) -> None:
    if not callable(value):
        raise ValueError(f"test: expected a function of the parsed record, got "
                         f"{type(value).__name__}")


@attrs.frozen(kw_only=True)
class SalientRecord:
    """Which records of a JSON Lines log are worth lifting into the highlights block."""

    #: A short name, shown in the metadata (``log-error`` ...).
    name: str
    #: Literal strings, one of which the line of every record you want contains
    #: (``'"error"'``, ``'"level":5'``): only those lines are parsed.
    keywords: tuple[str, ...] = attrs.field(converter=strings, validator=_check_record_keywords)
    #: ``test(record: Mapping[str, Any]) -> bool``, given the parsed JSON object.
    test: Callable[[Mapping[str, Any]], bool] = attrs.field(validator=_check_test, repr=False)
    #: As for patterns: 0 is shown first, then 1 ...
    rank: int = 1


def _patterns(value: Iterable[SalientPattern]) -> tuple[SalientPattern, ...]:
    return tuple(value)


def _units(value: Iterable[SalientUnit]) -> tuple[SalientUnit, ...]:
    return tuple(value)


def _records(value: Iterable[SalientRecord]) -> tuple[SalientRecord, ...]:
    return tuple(value)


def _each(kind: type) -> Callable[[object, attrs.Attribute[Any], tuple[object, ...]], None]:
    def check(_inst: object, attr: attrs.Attribute[Any], value: tuple[object, ...]) -> None:
        for item in value:
            if not isinstance(item, kind):
                raise TypeError(f"{attr.name}: expected {kind.__name__} objects, got "
                                f"{type(item).__name__}")
    return check


@attrs.frozen(kw_only=True)
class SalientDetector:
    """One highlights detector: the lines it lifts from an omitted part and what it shows
    with them, declared together. Returned by the ``salient_detector`` hook.

    The detectors of all plugins apply together: their patterns are compiled into one
    matcher per tool, their units extend the lines of any detector's patterns or records
    (by name), and their records judge the lines of JSON Lines logs.
    """

    #: Which lines are salient (:class:`SalientPattern`).
    patterns: tuple[SalientPattern, ...] = attrs.field(
        default=(), converter=_patterns, validator=_each(SalientPattern))
    #: The lines shown with a salient line, as one unit (:class:`SalientUnit`).
    units: tuple[SalientUnit, ...] = attrs.field(
        default=(), converter=_units, validator=_each(SalientUnit))
    #: Which records of a JSON Lines log are salient (:class:`SalientRecord`).
    records: tuple[SalientRecord, ...] = attrs.field(
        default=(), converter=_records, validator=_each(SalientRecord))
