"""Line-number prefixes of file views, detected and stripped.

File-reading tools number each line: Claude Code's Read (``     12→code``), Crush and
OpenCode's view (``     12|code``, under a ``<file>`` line), ``cat -n`` (``     12\\tcode``),
``grep -n``/``nl`` forms (``12:code``), SWE-agent's ``Line 12:code``. The prefixes hide a
document's structure from a parser (a Markdown heading no longer starts its line, Python's
indentation is shifted), and they carry the file's own line numbers, which differ from the
output's when the view starts at an offset or under a header line.

:func:`detect` looks at the first lines of the output: when most of them carry a number
followed by one of these separators, and the numbers run on by one, the output is numbered.
"""

from __future__ import annotations

import re

import attrs

__all__ = ["Numbering", "detect"]

#: The separators that follow a line number in the file views of common agent tools.
_SEPARATORS = ("→", "|", "\t", ":")
_PREFIX = re.compile(r"[ \t]*(?:Line )?(\d{1,7})(→|\||\t|:)")
#: Lines looked at to decide, and the share of them that must be numbered in sequence.
_SAMPLE = 40
_SHARE = 0.8


@attrs.frozen
class Numbering:
    """How an output's lines are numbered: by a prefix ending in :attr:`separator`."""

    separator: str

    def split(self, line: str) -> tuple[int | None, str]:
        """The file's line number on *line* (None when it has none) and its text without the
        prefix."""
        match = _PREFIX.match(line)
        if match is None or match.group(2) != self.separator:
            return None, line
        return int(match.group(1)), line[match.end():]


def detect(lines: list[str]) -> Numbering | None:
    """The numbering of an output whose lines are *lines*, or None when it is not numbered.

    Numbered when, among the first :data:`_SAMPLE` lines, at least :data:`_SHARE` carry a
    prefix with the same separator, and each number is one more than the previous one.
    """
    sample = lines[:_SAMPLE]
    if len(sample) < 3:
        return None
    counts = dict.fromkeys(_SEPARATORS, 0)
    previous: dict[str, int] = {}
    for line in sample:
        match = _PREFIX.match(line)
        if match is None:
            continue
        number, separator = int(match.group(1)), match.group(2)
        last = previous.get(separator)
        if last is None or number == last + 1:
            counts[separator] += 1
        previous[separator] = number
    best = max(_SEPARATORS, key=counts.__getitem__)
    if counts[best] < _SHARE * len(sample):
        return None
    return Numbering(best)
