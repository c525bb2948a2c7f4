"""What the highlights do to one line: clean it for matching, fold it for grouping, clip it
for showing.

* :func:`clean` removes ANSI escape sequences (colours, cursor moves, erase-line, window
  titles), so that a pattern sees ``error[E0308]: mismatched types`` where the terminal saw
  ``\\x1b[1m\\x1b[91merror[E0308]\\x1b[0m\\x1b[1m: mismatched types``. Patterns are matched
  on the cleaned line, and the block shows it cleaned: colour codes spend budget and carry
  nothing for a model. (A ``"\\r"`` progress redraw needs nothing here: a lone ``"\\r"`` ends
  a line, so each redrawn frame is a line of its own.)
* :func:`fold` is what makes two lines "the same failure": digits, hexadecimal numbers and
  paths (words with a slash, and a file's location: ``cart_test.go:7:`` is a path as
  ``src/cart_test.go:7:`` is) folded, runs of whitespace made one space. ``1: shard 0:
  error: connection refused (attempt 1/3)`` and ``107: shard 106: error: connection refused
  (attempt 2/3)`` fold to the same text, and are shown once, with their count.
  Quoted values of one word are folded too (in single, double or back quotes):
  ``TypeError: create() got an unexpected keyword argument 'type'`` and ``... argument
  'colour'`` are one template, as are ruff's ``F401 `sys` imported but unused`` and ``...
  `os` ...``, each shown once with its count, the way a log template miner (Drain) groups
  them.
* :func:`names_only` tells a status line that only names a test (``test_x (m.T) ... ERROR``,
  ``ERROR: test_x (m.T)``, ``FAILED tests/x.py::test_y``, ``--- FAIL: TestX (0.00s)``) from
  a line that says what went wrong (the exception that ends a traceback, an assertion's
  message, a compiler's error): selection shows causes first.
* :func:`without_data` blanks the data a line carries (a dumped dict, JSON, a list of
  strings, a pretty-printed JSON member): a keyword found only there (``'on_error':
  'retry'``, ``"level": "ERROR"``) does not make the line salient.
* :func:`clip` keeps the start and the end of a long line, and marks the cut between them:
  the message after a long build path is what matters.
"""

from __future__ import annotations

import re

from truncation_core.text.terminal import strip_ansi

__all__ = ["CLIP_MARK", "clean", "clip", "fold", "names_only", "without_data"]

#: Hexadecimal numbers (``0x7ffc91a46d30``, a commit id), then any digits.
_NUMBERS = re.compile(r"0[xX][0-9a-fA-F]+|\b(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{8,}\b|\d+")

#: A quoted value: a double-quoted string, or a single-quoted one that is no apostrophe
#: (``don't ... isn't`` is not a value).
_QUOTED = r"\"(?:[^\"\\\n]|\\.)*+\"|(?<![\w'])'(?:[^'\\\n]|\\.)*+'(?![\w'])"
#: Quoted values that are one word (``'type'``, ``"x.y"``, ruff's and rustc's ```sys```: a
#: message in quotes is no value), and numbers, masked in one pass.
#: (No look-behind for apostrophes: an apostrophe's word is not followed by a closing quote
#: before a space, and checking at every position would cost half as much again.)
_TEMPLATE = re.compile(r"'[^'\s\\]*'|\"[^\"\s\\]*\"|`[^`\s\\]*`|" + _NUMBERS.pattern)
#: A braced block holding a quoted value (a dict, a JSON object) and no brace but in quoted
#: values, closed or running to the end of the probe; nested ones are blanked from the inside
#: out (what was blanked counts as a quoted value). Not TAP's ``{ total: 120, fail: 1 }``.
_BRACED = re.compile(r"\{(?=[^{}]*['\"…])(?:" + _QUOTED + r"|[^{}'\"]|['\"])*+(?:\}|$)")
#: A bracketed list holding a quoted value or a blanked block. Not ``[ERROR]``.
_LISTED = re.compile(r"\[(?=[^\[\]]*['\"…])(?:" + _QUOTED + r"|[^\[\]'\"]|['\"])*+\]")
#: A file's location without a directory: a name with an extension, then a line number
#: (``cart_test.go:7:``, ``main.c:12:5:``, ``(Foo.java:88)``). Not ``example.com``, ``3.5s``.
_LOCATION = re.compile(r"\w\.[A-Za-z]\w*:\d")
#: A member of pretty-printed JSON or of a dumped dict: the line is all data.
_MEMBER = re.compile(r"^\s*(?:" + _QUOTED + r")\s*:")
_QUOTES = frozenset("'\"")
#: What blanked data is replaced by (no brace: the block around it is blanked next).
_DATA = "…"
#: Words that give a test's status, and no more (see :func:`names_only`).
_STATUS = frozenset(["ERROR", "ERRORS", "ERRORED", "FAIL", "FAILED", "FAILURE", "FAILURES",
                     "test", "Test", "TEST"])
#: A parenthesized or bracketed part (a test's class, a duration, a worker number).
_ASIDE = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_PUNCTUATION = "-.:;,|*#=>✕✗✘×"

#: Put where :func:`clip` cuts a line.
CLIP_MARK = " … "


def clean(text: str) -> str:
    """*text* without terminal escape sequences
    (:func:`~truncation_core.text.terminal.strip_ansi`, which the view uses too)."""
    return strip_ansi(text)


def fold(text: str) -> str:
    """What *text* (cleaned) has in common with lines that say the same thing about other
    files, lines, addresses or attempts: each word holding a slash or a backslash (a path,
    a URL, ``1/3``) or a file's location (``cart_test.go:7:``) made ``<path>``, numbers and
    quoted values of one word (``'type'``, ```sys```) made ``#``, runs of whitespace one
    space."""
    words = text.split()
    located = _LOCATION.search(text) is not None
    if "/" in text or "\\" in text or located:
        words = ["<path>" if "/" in w or "\\" in w or (located and _LOCATION.search(w))
                 else w for w in words]
    masks = _TEMPLATE if "'" in text or '"' in text or "`" in text else _NUMBERS
    return masks.sub("#", " ".join(words))


def names_only(text: str) -> bool:
    """Whether *text* (cleaned) is a status line that names a test and says no more: a
    status word (``ERROR``, ``FAILED``, ...) and at most one other word once asides in
    parentheses or brackets, numbers and punctuation are set aside."""
    words = [w.strip(_PUNCTUATION) for w in _ASIDE.sub(" ", text).split()]
    status = False
    named = 0
    for word in words:
        if word in _STATUS:
            status = status or word.upper() != "TEST"
        elif word and not word[0].isdigit():
            named += 1
            if named > 1:
                return False
    return status


def without_data(text: str) -> str:
    """*text* (cleaned) with the data it carries blanked: braced blocks and bracketed lists
    that hold a quoted value (dicts, JSON objects, lists of strings; nested ones), and the
    whole line when it is a member of pretty-printed JSON or of a dumped dict (``"error":
    null,``). A line with none is returned as it is."""
    if text.lstrip(" \t")[:1] in _QUOTES and _MEMBER.match(text):
        return ""
    brace, bracket = text.find("{"), text.find("[")
    opens = bracket if brace == -1 else brace if bracket == -1 else min(brace, bracket)
    if opens == -1 or not (text.find("'", opens) != -1 or text.find('"', opens) != -1):
        return text  # no block or list, or none that may hold a quoted value
    for _ in range(4):  # nested blocks, from the inside out
        if "{" not in text:
            break
        blanked = _BRACED.sub(_DATA, text)
        if blanked == text:
            break
        text = blanked
    if "[" in text:
        text = _LISTED.sub(_DATA, text)
    return text


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
