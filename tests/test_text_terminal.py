"""Terminal control removed for reading (``truncation_core.text.terminal``).

``strip_ansi`` is checked against an independent character-by-character parser of ECMA-48
escape sequences, on real terminal output (a colour build log of the corpus, a progress
display captured from a pseudo-terminal) and on generated text; ``collapse_redraws`` against
a line-by-line definition.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from messy import tool_output
from reference import line_count, utf8_bytes

from truncation_core.text.terminal import collapse_redraws, strip_ansi, terminal_view

CORPUS = Path(__file__).parent / "corpus"
ESC = "\x1b"


def reference_strip(text: str) -> str:
    """ECMA-48 escape sequences removed, by walking the text one character at a time."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c != ESC:
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1] if i + 1 < n else ""
        if nxt == "[":  # CSI: parameter bytes 0x30-0x3F, intermediates 0x20-0x2F, final
            j = i + 2
            while j < n and "0" <= text[j] <= "?":
                j += 1
            while j < n and " " <= text[j] <= "/":
                j += 1
            if j < n and "@" <= text[j] <= "~":
                i = j + 1
                continue
        elif nxt in ("]", "P", "X", "^", "_"):  # strings, ended by BEL or ST on one line
            j = i + 2
            while j < n and text[j] not in "\x07\x1b\r\n":
                j += 1
            if j < n and text[j] == "\x07":
                i = j + 1
                continue
            if j + 1 < n and text[j] == ESC and text[j + 1] == "\\":
                i = j + 2
                continue
        elif nxt and " " <= nxt <= "/":  # nF
            j = i + 1
            while j < n and " " <= text[j] <= "/":
                j += 1
            if j < n and "0" <= text[j] <= "~":
                i = j + 1
                continue
        # Not a whole sequence of its kind: ESC and the character after it, when that is a
        # final byte (as a two-character escape), else ESC alone.
        i += 2 if nxt and "0" <= nxt <= "~" else 1
    return "".join(out)


def reference_collapse(text: str) -> str:
    """Each line between "\\n"s keeps what follows its last "\\r" that is followed by
    something other than "\\r"."""
    lines = []
    for line in text.split("\n"):
        body = line.rstrip("\r")
        cut = body.rfind("\r")
        lines.append(line[cut + 1:] if cut != -1 else line)
    return "\n".join(lines)


#: Pieces of terminal output: every kind of sequence, broken ones, terminators, and text.
escapes = st.sampled_from([
    "\x1b[0m", "\x1b[1;31m", "\x1b[K", "\x1b[2K", "\x1b[?25l", "\x1b[38;5;196m", "\x1b[!p",
    "\x1b]0;title\x07", "\x1b]8;;https://example.com/x\x1b\\", "\x1b]8;;\x1b\\",
    "\x1bPq#0;2;0;0;0\x1b\\", "\x1b_apc\x07", "\x1b(B", "\x1b#8", "\x1b7", "\x1b8", "\x1b=",
    "\x1bM", "\x1b", "\x1b[", "\x1b[12", "\x1b]0;unterminated", "\x1b]", "\x1b(", "\x9b31m",
])
terminal_text = st.lists(
    st.one_of(escapes, st.sampled_from(["\n", "\r\n", "\r", "\x07"]),
              st.text(max_size=12), tool_output),
    max_size=40,
).map("".join)


def read_corpus(name: str) -> str:
    # newline="" keeps "\r" as the tool wrote it.
    with open(CORPUS / name, encoding="utf-8", newline="") as handle:
        return handle.read()


def test_strip_examples_from_real_output() -> None:
    log = read_corpus("cargo-ansi-progress-error.txt")
    line = next(line for line in log.split("\n") if "E0308" in line)
    assert strip_ansi(line) == (
        "    Building [                             ] 0/5: ledger" + " " * 42
        + "\rerror[E0308]: mismatched types")
    assert ESC not in strip_ansi(log)
    # Whole lines of text are not touched: only the sequences go.
    assert strip_ansi(log).count("\n") == log.count("\n")


@pytest.mark.parametrize(("raw", "plain"), [
    ("\x1b[1m\x1b[91merror\x1b[0m: x", "error: x"),
    ("\x1b]8;;https://ex.com/a\x1b\\link\x1b]8;;\x1b\\ text", "link text"),
    ("\x1b]0;make: building\x07done", "done"),
    ("\x1b(Bplain\x1b7 \x1b8", "plain "),
    ("line\x1b", "line"),  # a stray ESC at the very end
    ("a\x1b]0;no end\nb", "a0;no end\nb"),  # an OSC cut by a newline: only ESC ] goes
    ("\x1b[12;", "12;"),  # a CSI with no final byte: only ESC [ goes
    ("x\x9b31my", "x\x9b31my"),  # 8-bit CSI: left alone
])
def test_strip_examples(raw: str, plain: str) -> None:
    assert strip_ansi(raw) == plain == reference_strip(raw)


def test_no_escape_returns_the_same_object() -> None:
    text = "plain text\r\n" * 1000
    assert strip_ansi(text) is text
    assert collapse_redraws("no returns\n" * 10) == "no returns\n" * 10
    windows = "crlf\r\n" * 100
    assert collapse_redraws(windows) is windows
    assert terminal_view(windows) is windows


@given(terminal_text)
def test_strip_agrees_with_the_reference_parser(text: str) -> None:
    assert strip_ansi(text) == reference_strip(text)


@given(terminal_text)
def test_stripping_only_shrinks(text: str) -> None:
    plain = strip_ansi(text)
    assert ESC not in plain
    assert strip_ansi(plain) == plain
    assert len(plain) <= len(text)
    assert utf8_bytes(plain) <= utf8_bytes(text)
    assert line_count(plain) <= line_count(text)
    # A line is never split: every "\n" and "\r" of the result is one of the input's.
    assert plain.count("\n") == text.count("\n")
    assert plain.count("\r") == text.count("\r")


def test_stripping_merges_a_return_and_a_newline_around_a_sequence() -> None:
    # The only way a line count changes: one line fewer, never more.
    assert line_count("a\r\x1b[K\nb") == 3
    assert strip_ansi("a\r\x1b[K\nb") == "a\r\nb"
    assert line_count("a\r\nb") == 2


@pytest.mark.parametrize(("raw", "final"), [
    ("10%\r50%\r100%\ndone\n", "100%\ndone\n"),
    ("\rfirst", "first"),
    ("a\r\r\rb\n", "b\n"),
    ("frame\r\n", "frame\r\n"),  # CRLF: a terminator, not a redraw
    ("kept\r\r\n", "kept\r\r\n"),  # nothing follows the lone "\r": it draws nothing
    ("x\r\nabc\rdef\r\n", "x\r\ndef\r\n"),
    ("long frame here\rshort\n", "short\n"),  # a frame partly covered is dropped whole
    ("end\rwith\r", "with\r"),
])
def test_collapse_examples(raw: str, final: str) -> None:
    assert collapse_redraws(raw) == final == reference_collapse(raw)


def test_collapse_on_real_progress_output() -> None:
    log = read_corpus("cargo-ansi-progress-error.txt")
    view = terminal_view(log)
    lines = view.split("\n")
    # cargo draws its progress bar, then erases it (ESC [ K) and prints the diagnostic.
    assert "error[E0308]: mismatched types" in lines
    assert not any("Building [" in line and "error" in line for line in lines)
    assert "\r" not in view
    # Without the erase sequence gone first, the frame after "\r" would start with it.
    assert "error[E0308]: mismatched types" not in collapse_redraws(log).split("\n")


@given(terminal_text)
def test_collapse_agrees_with_its_definition(text: str) -> None:
    collapsed = collapse_redraws(text)
    assert collapsed == reference_collapse(text)
    assert collapse_redraws(collapsed) == collapsed
    assert len(collapsed) <= len(text)
    assert utf8_bytes(collapsed) <= utf8_bytes(text)
    assert line_count(collapsed) <= line_count(text)
    assert collapsed.count("\n") == text.count("\n")


@given(terminal_text)
def test_terminal_view_is_strip_then_collapse(text: str) -> None:
    assert terminal_view(text) == collapse_redraws(strip_ansi(text))
    assert terminal_view(text, redraws=False) == strip_ansi(text)
