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
  frame (``ESC [ K``), so the last frame is what the terminal shows. Only right for text
  whose lines end with ``\\n`` (or ``\\r\\n``): in text that ends its lines with a lone
  ``\\r`` (old Mac files), a ``\\r`` is a line break, not a redraw; the caller decides.
* :func:`terminal_view` does both, in that order (an erase sequence after a ``\\r`` must go
  before the frame after it can be seen).

All three return the very same object when there is nothing to remove, after a single
``str.find`` (memchr-fast) for ``ESC`` or ``\\r``: text without terminal control costs next
to nothing. Each only ever removes characters, so a text within a budget (characters,
UTF-8 bytes, lines) stays within it.
"""

from __future__ import annotations

import re

__all__ = ["collapse_redraws", "strip_ansi", "terminal_view"]

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


def terminal_view(text: str, *, redraws: bool = True) -> str:
    """*text* as a reader of the terminal sees it: escape sequences removed, then (with
    *redraws*) each redrawn line reduced to its last frame."""
    text = strip_ansi(text)
    return collapse_redraws(text) if redraws else text
