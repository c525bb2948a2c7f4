"""What the highlights do to one line: clean it for matching, fold it for grouping, clip it
for showing.

* :func:`clean` removes ANSI escape sequences (colours, cursor moves, erase-line, window
  titles), so that a pattern sees ``error[E0308]: mismatched types`` where the terminal saw
  ``\\x1b[1m\\x1b[91merror[E0308]\\x1b[0m\\x1b[1m: mismatched types``. Patterns are matched
  on the cleaned line, and the block shows it cleaned: colour codes spend budget and carry
  nothing for a model. (A ``"\\r"`` progress redraw needs nothing here: a lone ``"\\r"`` ends
  a line, so each redrawn frame is a line of its own.)
* :func:`fold` is what makes two lines "the same failure": digits, hexadecimal numbers and
  paths (words with a slash) folded, runs of whitespace made one space. ``1: shard 0:
  error: connection refused (attempt 1/3)`` and ``107: shard 106: error: connection refused
  (attempt 2/3)`` fold to the same text, and are shown once, with their count.
* :func:`clip` keeps the start and the end of a long line, and marks the cut between them:
  the message after a long build path is what matters.
"""

from __future__ import annotations

import re

from truncation_core.text.terminal import strip_ansi

__all__ = ["CLIP_MARK", "clean", "clip", "fold"]

#: Hexadecimal numbers (``0x7ffc91a46d30``, a commit id), then any digits.
_NUMBERS = re.compile(r"0[xX][0-9a-fA-F]+|\b(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{8,}\b|\d+")

#: Put where :func:`clip` cuts a line.
CLIP_MARK = " … "


def clean(text: str) -> str:
    """*text* without terminal escape sequences
    (:func:`~truncation_core.text.terminal.strip_ansi`, which the view uses too)."""
    return strip_ansi(text)


def fold(text: str) -> str:
    """What *text* (cleaned) has in common with lines that say the same thing about other
    files, lines, addresses or attempts: each word holding a slash or a backslash (a path,
    a URL, ``1/3``) made ``<path>``, numbers made ``#``, runs of whitespace one space."""
    words = text.split()
    if "/" in text or "\\" in text:
        words = ["<path>" if "/" in w or "\\" in w else w for w in words]
    return _NUMBERS.sub("#", " ".join(words))


def clip(text: str, limit: int) -> str:
    """*text* within *limit* characters: its start and its end, with :data:`CLIP_MARK`
    where the middle was cut. Trailing whitespace is dropped first."""
    text = text.rstrip()
    if len(text) <= limit:
        return text
    room = limit - len(CLIP_MARK)
    if room < 2:
        return text[:limit]
    head = (room + 1) // 2
    return text[:head] + CLIP_MARK + text[len(text) - (room - head):]
