"""Terminal control in tool output: escape sequences and ``\\r`` redraws, removed for reading.

Command output captured from a terminal (or from a tool that thinks it writes to one) holds
colour codes, cursor moves, window titles, hyperlinks, and progress displays redrawn in
place with ``\\r``. None of it carries anything for a reader of the text, and all of it
spends characters. These functions give the text as a reader would see it; nothing here
ever touches what is stored (the artifact keeps the original bytes).

* :func:`strip_ansi` removes escape sequences (ECMA-48): CSI (``ESC [`` ... a final byte:
  colours, erase, cursor moves), OSC (``ESC ]`` ... ``BEL`` or ``ESC \\``: titles,
  hyperlinks), the string commands DCS, SOS, PM and APC (``ESC P``, ``ESC X``, ``ESC ^``,
  ``ESC _`` ... ``ESC \\``), two- and three-character escapes (``ESC 7``, ``ESC ( B``), and a
  stray ``ESC``. No sequence it removes holds a line terminator: an OSC or string command
  interrupted by one is not removed whole (only its introducer is). So every line of the
  result is a line of the input with characters taken out; where a sequence stood between a
  lone ``\\r`` and a ``\\n``, the two become one ``\\r\\n`` terminator (one line fewer, never
  more). The 8-bit forms (``U+009B`` for CSI) are left alone: decoded UTF-8 output does not
  use them.
* :func:`collapse_redraws` keeps, of a line drawn several times over with ``\\r``, only its
  last frame: the text after the last lone ``\\r`` that something follows on the same line
  (a ``\\r`` right before the ``\\n`` ends the line, it draws nothing). A frame a later one
  only partly covers is dropped whole: progress displays erase the line before a shorter
  frame (``ESC [ K``), so the last frame is what the terminal shows. It does so for every
  line: right for terminal output, wrong for text that ends some lines with a lone ``\\r``
  (old Mac files, and pieces of them), where a ``\\r`` is a line break.
* :func:`drop_erased_lines` drops the lines a display erases by moving the cursor up over
  them: right after a ``\\n``, cursor-up (``ESC [ n A``, ``ESC [ n F``) with an erase of
  each line moved onto (``ESC [ 2 K``, ``ESC [ K``) or of the screen below (``ESC [ J``),
  as test runners (karma) and live task lists (log-update, listr) do to redraw a status line
  between the lines they print. The text after the sequences takes the first erased line's
  place.
* :func:`terminal_view` gives text as a reader of the terminal saw it: erased lines
  dropped, each redrawn line reduced to its last frame *when it was drawn for a terminal*,
  and escape sequences removed. A line counts as drawn for a terminal when it holds an
  escape sequence (a colour, an erase) or when each frame it drops shows a progress count
  (``42%``, ``17/120``); any other ``\\r`` followed by text is taken as a line break and
  kept, so that text mixing line endings loses no line.

Each returns the very same object when there is nothing to remove, after a ``str.find``
(memchr-fast) for ``ESC`` or ``\\r``: text without terminal control costs next to nothing.
Each only ever removes characters, so a text within a budget (characters, UTF-8 bytes, lines)
stays within it.
"""

from __future__ import annotations

import re

__all__ = ["collapse_redraws", "drop_erased_lines", "strip_ansi", "terminal_view"]

ESC = "\x1b"

_ANSI = re.compile(
    r"""
    \x1b\[ [0-?]* [\x20-/]* [@-~]                 # CSI: parameters, intermediates, final
  | \x1b\] [^\x07\x1b\r\n]* (?:\x07|\x1b\\)       # OSC, ended by BEL or ST
  | \x1b[PX^_] [^\x07\x1b\r\n]* (?:\x07|\x1b\\)   # DCS, SOS, PM, APC, ended by ST (or BEL)
  | \x1b [\x20-/]+ [0-~]                          # nF: ESC ( B, ESC # 8 ...
  | \x1b [0-~]                                    # Fp, Fe, Fs: ESC 7, ESC =, ESC M ...
  | \x1b                                          # a stray ESC
    """,
    re.VERBOSE,
)


#: Cursor moves and erases right after a "\n", at least one of them a move up.
_MOVES = r"(?:\x1b\[[0-9]*[AFGJK]|\r)"
_ERASE_UP = re.compile(rf"\n({_MOVES}*\x1b\[[0-9]*[AF]{_MOVES}*)")
_UP = re.compile(r"\x1b\[([0-9]*)[AF]")
_ERASE_LINE = re.compile(r"\x1b\[[0-2]?K")
_ERASE_BELOW = re.compile(r"\x1b\[0?J")


def _lines_erased(run: str) -> int:
    """How many lines above the cursor *run* (cursor moves and erases) erases: as many as it
    moves up, when it erases each of them (or the screen below); else none."""
    up = sum(int(n) if n else 1 for n in _UP.findall(run))
    if _ERASE_BELOW.search(run) or len(_ERASE_LINE.findall(run)) >= up:
        return up
    return 0


def drop_erased_lines(text: str) -> str:
    """*text* without the lines a display erased by moving the cursor up over them (see the
    module docstring)."""
    if text.find(ESC) == -1 or not _ERASE_UP.search(text):
        return text
    lines: list[str] = []
    for i, line in enumerate(text.split("\n")):
        run = re.match(_MOVES + "*", line) if i else None  # only right after a "\n"
        erased = _lines_erased(run.group()) if run and _UP.search(run.group()) else 0
        if erased:
            # The lines moved over, without the "\n" each is missing here; writing goes on
            # at the first of them.
            del lines[max(len(lines) - erased, 0):]
            line = line[run.end():] if run else line
        lines.append(line)
    return "\n".join(lines)


def strip_ansi(text: str) -> str:
    """*text* without terminal escape sequences (see the module docstring)."""
    if text.find(ESC) == -1:
        return text
    return _ANSI.sub("", text)


def collapse_redraws(text: str) -> str:
    """*text* with each line redrawn by ``\\r`` reduced to its last frame (see the module
    docstring; only for text whose lines end with ``\\n``)."""
    if text.find("\r") == -1:
        return text
    pieces = text.split("\n")
    changed = False
    for i, piece in enumerate(pieces):
        # A "\r" at the end of a piece ends its line (half of a "\r\n", or the text's last
        # character): it draws nothing. Before it, the last "\r" starts the last frame.
        frames = piece.rstrip("\r")
        last = frames.rfind("\r")
        if last != -1:
            pieces[i] = piece[last + 1:]
            changed = True
    return "\n".join(pieces) if changed else text


#: What a progress display shows in each frame: a percentage or a count of a total.
_PROGRESS = re.compile(r"\d\s?%|\d\s?/\s?\d")


def _drawn_for_a_terminal(line: str, last: int) -> bool:
    """Whether the frames of *line* before its last frame (which starts after position
    *last*) were drawn by a terminal program: the line holds an escape sequence, or each of
    its dropped frames shows progress."""
    if line.find(ESC) != -1:
        return True
    frames = [frame for frame in line[:last].split("\r") if frame]
    return bool(frames) and all(_PROGRESS.search(frame) for frame in frames)


def terminal_view(text: str, *, redraws: bool = True) -> str:
    """*text* as a reader of the terminal saw it (see the module docstring): erased lines
    dropped, then (with *redraws*) the lines drawn for a terminal reduced to their last
    frame, then escape sequences removed.

    Pass ``redraws=False`` for text whose lines end with a lone ``\\r`` (no ``\\n``): there,
    every ``\\r`` is a line break.
    """
    escapes = text.find(ESC) != -1
    if escapes:
        text = drop_erased_lines(text)
    if redraws and text.find("\r") != -1:
        lines = text.split("\n")
        changed = False
        for i, line in enumerate(lines):
            last = line.rstrip("\r").rfind("\r")
            if last != -1 and _drawn_for_a_terminal(line, last):
                lines[i] = line[last + 1:]
                changed = True
        if changed:
            text = "\n".join(lines)
    return strip_ansi(text) if escapes else text
