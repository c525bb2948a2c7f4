"""Terminal control removed for reading (``truncation_core.text.terminal``).

``strip_ansi`` is checked against an independent character-by-character parser of ECMA-48
escape sequences, on real terminal output (a colour build log of the corpus, a progress
display captured from a pseudo-terminal) and on generated text; ``collapse_redraws`` against
a line-by-line definition.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from messy import tool_output
from reference import line_count, utf8_bytes

from truncation_core.text.terminal import (
    collapse_redraws,
    drop_erased_lines,
    strip_ansi,
    terminal_view,
)

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
    "\x1b[1A", "\x1b[A", "\x1b[2A", "\x1b[1F", "\x1b[2K", "\x1b[0K", "\x1b[J", "\x1b[G",
])
#: Runs of cursor moves and erases after a newline, as displays redraw lines with them.
erase_runs = st.lists(st.sampled_from(["\x1b[1A", "\x1b[2A", "\x1b[F", "\x1b[2K", "\x1b[K",
                                       "\x1b[J", "\x1b[0J", "\x1b[G", "\r", "\x1b[3K"]),
                      min_size=1, max_size=5).map(lambda run: "\n" + "".join(run))
#: Frames of a line redrawn with "\r", with or without progress counts.
frames = st.lists(st.sampled_from(["", " 42%", "17/120", "text", "5 %", "x\x1b[0m", "a/b"]),
                  min_size=2, max_size=4).map("\r".join)
terminal_text = st.lists(
    st.one_of(escapes, erase_runs, frames,
              st.sampled_from(["\n", "\r\n", "\r", "\x07", " 42%", "17/120"]),
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


def reference_erase(text: str) -> str:
    """Lines erased by cursor-up, by walking the lines: a line after a newline that starts
    with cursor moves and erases, among them n lines up and n erases of a line (or one of
    the screen below), takes the place of the n lines above it."""
    out: list[str] = []
    for number, line in enumerate(text.split("\n")):
        if number == 0:  # not after a newline
            out.append(line)
            continue
        i, ups, erases, below = 0, 0, 0, False
        while True:
            if line.startswith("\r", i):
                i += 1
                continue
            m = re.match(r"\x1b\[([0-9]*)([AFGJK])", line[i:])
            if not m:
                break
            n, op = m.groups()
            ups += (int(n) if n else 1) if op in "AF" else 0
            erases += 1 if op == "K" and n in ("", "0", "1", "2") else 0
            below |= op == "J" and n in ("", "0")
            i += m.end()
        if ups and (below or erases >= ups):
            del out[max(len(out) - ups, 0):]
            line = line[i:]
        out.append(line)
    return "\n".join(out)


def reference_view(text: str) -> str:
    """terminal_view by its definition, line by line."""
    lines = []
    for line in reference_erase(text).split("\n"):
        body = line.rstrip("\r")
        cut = body.rfind("\r")
        if cut != -1:
            dropped = [f for f in line[:cut].split("\r") if f]
            progress = bool(dropped) and all(
                re.search(r"\d\s?%|\d\s?/\s?\d", f) for f in dropped)
            if ESC in line or progress:
                line = line[cut + 1:]
        lines.append(reference_strip(line))
    return "\n".join(lines)


@given(terminal_text)
def test_drop_erased_lines_agrees_with_its_definition(text: str) -> None:
    dropped = drop_erased_lines(text)
    assert dropped == reference_erase(text)
    assert len(dropped) <= len(text)
    assert line_count(dropped) <= line_count(text)


@given(terminal_text)
def test_terminal_view_agrees_with_its_definition(text: str) -> None:
    view = terminal_view(text)
    assert view == reference_view(text)
    assert terminal_view(text, redraws=False) == reference_strip(reference_erase(text))
    assert len(view) <= len(text)
    assert utf8_bytes(view) <= utf8_bytes(text)
    assert line_count(view) <= line_count(text)


@pytest.mark.parametrize(("raw", "view"), [
    # tqdm, piped (no escape sequences): frames showing progress.
    ("  0%|          | 0/3\r 33%|###       | 1/3\r100%|##########| 3/3\ndone\n",
     "100%|##########| 3/3\ndone\n"),
    # Text mixing line endings: a lone "\r" there is a line break, and no line goes.
    ("first line\rsecond line\nthird\n", "first line\rsecond line\nthird\n"),
    ("\rstarts with a return\n", "\rstarts with a return\n"),
    # Colours say the line was drawn for a terminal.
    ("\x1b[32mworking\x1b[0m\rfinished\n", "finished\n"),
    # karma: the status line is erased (up, erase) and printed again under each log line.
    ("LOG: a\nExecuted 1 of 2\n\x1b[1A\x1b[2KLOG: b\nExecuted 2 of 2\n",
     "LOG: a\nLOG: b\nExecuted 2 of 2\n"),
    # log-update: erase the line, then two lines up, each erased.
    ("a\nb\nc\n\x1b[2K\x1b[1A\x1b[2K\x1b[1A\x1b[2K\x1b[Gx\n", "a\nx\n"),
    ("a\nb\n\x1b[2A\x1b[Jx\n", "x\n"),
    # Up without an erase of the line: nothing is known to be gone.
    ("a\nb\n\x1b[1Ac\n", "a\nb\nc\n"),
])
def test_terminal_view_examples(raw: str, view: str) -> None:
    assert terminal_view(raw) == view == reference_view(raw)


def test_terminal_view_of_a_real_karma_run() -> None:
    log = read_corpus("karma-chrome-jasmine-fail.txt")
    view = terminal_view(log)
    assert log.count("Executed ") > 1000
    # The status line is shown once, as the terminal shows it at the end; every log line
    # and the failure are still there.
    assert [line for line in view.split("\n") if "Executed " in line] == [
        "Chrome Headless 156.0.0.0 (Linux 0.0.0): Executed 500 of 500 (1 FAILED) "
        "(0.97 secs / 0.523 secs)"]
    assert view.count("LOG: ") == strip_ansi(log).count("LOG: ")
    assert "FAILED" in view and "TOTAL: 1 FAILED, 499 SUCCESS" in view
