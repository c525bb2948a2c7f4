"""Headings of Markdown and reStructuredText documents.

A line scan of the block structure that headings need, no more:

* Markdown ATX headings (``# Title`` to ``###### Title``, up to three spaces before) and
  setext headings (a paragraph line underlined with ``===`` or ``---``);
* reStructuredText section titles: a line underlined (and optionally overlined) with a
  punctuation character repeated at least as long as the title; levels are given by the
  order in which each underline style first appears, as docutils does;
* fenced code blocks (```````` ``` ```` or ``~~~``) are skipped, so that a ``# comment`` in a
  shell example is not a heading.

Why not a Markdown library: headings are all an outline needs, and a full CommonMark parse
(markdown-it-py) builds every inline token of the document, at several times the cost of
this scan, and knows no reStructuredText.
"""

from __future__ import annotations

import re

__all__ = ["headings"]

_ATX = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*$")
#: reStructuredText adornment characters (any non-alphanumeric printable ASCII).
_RST_CHARS = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_MIN_RST = 3


def _rst_underline(line: str) -> str | None:
    """The adornment character of *line* when it is an RST underline, else None."""
    stripped = line.rstrip()
    if len(stripped) < _MIN_RST or stripped[0] not in _RST_CHARS:
        return None
    return stripped[0] if stripped == stripped[0] * len(stripped) else None


def headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """The headings of a document whose lines (prefixes stripped) are *lines*: (0-based
    index, level from 1, title), in order."""
    found: list[tuple[int, int, str]] = []
    fence: str | None = None
    underline_levels: dict[str, int] = {}
    previous_blank = True
    for index, line in enumerate(lines):
        fenced = _FENCE.match(line)
        if fence is not None:
            if fenced and fenced.group(1)[0] == fence[0] and len(fenced.group(1)) >= len(fence):
                fence = None
            previous_blank = False
            continue
        if fenced:
            fence = fenced.group(1)
            previous_blank = False
            continue
        atx = _ATX.match(line)
        if atx:
            title = (atx.group(2) or "").strip()
            if title:
                found.append((index, len(atx.group(1)), title))
            previous_blank = False
            continue
        blank = not line.strip()
        if (not blank and index + 1 < len(lines) and not line[:1].isspace()
                and _rst_underline(line) is None):
            under = lines[index + 1].rstrip()
            adornment = _rst_underline(under)
            overlined = index > 0 and lines[index - 1].rstrip() == under
            title = line.strip()
            if adornment is not None and (previous_blank or overlined) and (
                    len(under) >= len(title) or _SETEXT.match(under)):
                key = adornment * (2 if overlined else 1)
                level = underline_levels.setdefault(key, len(underline_levels) + 1)
                found.append((index, level, title))
        previous_blank = blank
    return found
