"""Outlines of cut file views, documents and listings (the ``outline`` strategy, issue 28).

Each test cuts a real file of this repository as an agent's file-reading tool shows it
(numbered as Claude Code's Read numbers lines, ``     12→code``) and checks the outline
against an independent oracle: Python's own ``ast`` for the definitions of a Python file,
the headings of a Markdown file by a fence-aware scan written here; and that every omitted
line is within :data:`SPAN` lines after an entry, so one ``get_artifact`` call away.
"""

from __future__ import annotations

import ast
import itertools
import re
from pathlib import Path

import pytest

from truncation_core import Truncator
from truncation_core.outline import code as outline_code
from truncation_core.outline.toc import SPAN, document
from truncation_core.storage.memory import MemoryStore

ROOT = Path(__file__).resolve().parent.parent
ENTRY = re.compile(r"^(\d+): ( *)(?:\[(\d+)\] )?(.*)$")
MIDDLE = re.compile(r"start_line=(\d+), end_line=(\d+)")


def make(**config: object) -> Truncator:
    return Truncator(dict(config), load_entrypoints=False, store=MemoryStore())


def claude_read(text: str, first: int = 1) -> str:
    """*text* as Claude Code's Read tool shows it: each line numbered, ``→`` after."""
    return "".join(f"{n:>6}→{line}\n" for n, line in enumerate(text.splitlines(), first))


def outline_of(view: str) -> list[tuple[int, int, int | None, str]]:
    """The entries of the outline in *view*: (line, depth, file line, title)."""
    lines = view.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("... [outline of"))
    entries = []
    for line in lines[start + 1:]:
        match = ENTRY.match(line)
        if match is None:
            break
        file_line = int(match.group(3)) if match.group(3) else None
        entries.append((int(match.group(1)), len(match.group(2)) // 2, file_line,
                        match.group(4)))
    return entries


def omitted(view: str) -> tuple[int, int]:
    match = MIDDLE.search(view)
    assert match, view[:300]
    return int(match.group(1)), int(match.group(2))


def assert_reachable(view: str, entries: list[tuple[int, int, int | None, str]]) -> None:
    """Every omitted line lies within SPAN lines after an entry, and before the next."""
    first, last = omitted(view)
    starts = [e[0] for e in entries]
    assert first <= starts[0] <= first + 2  # blank lines at the start are skipped
    assert starts[-1] == last + 1  # the kept tail closes the last section
    assert all(b - a <= SPAN for a, b in itertools.pairwise(starts))


SOURCE = ROOT / "truncation_core" / "structured" / "json_element.py"


@pytest.mark.skipif(not outline_code.available(), reason="the outline extra is not installed")
def test_python_file_lists_its_definitions_at_their_lines() -> None:
    source = SOURCE.read_text(encoding="utf-8")
    view = make().process(claude_read(source), tool="read_file").content
    assert len(view) <= 8000
    entries = outline_of(view)
    first, last = omitted(view)
    lines = source.splitlines()
    # Every entry names the line it is at (the title is that line, stripped).
    for line, _depth, file_line, title in entries[:-1]:
        assert file_line is None  # numbered from 1: the file's numbers are the output's
        # A long line's title is clipped in its middle (toc._clip): both ends are the line's.
        front, clipped, back = title.removesuffix("(…)").partition("...")
        text = lines[line - 1].strip()
        assert text.startswith(front) and (not clipped or text.endswith(back)), (line, title)
    # The oracle: every def and class that Python's parser finds in the omitted part, at
    # module level or in a class, is an entry at its line (decorators aside).
    defined = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            row = node.lineno
            if first <= row <= last:
                defined[row] = node.name
    listed = {line: title for line, _, _, title in entries
              if title.startswith(("def ", "class ", "async def "))}
    top = {row: name for row, name in defined.items()
           if any(row == n.lineno for n in ast.parse(source).body
                  if isinstance(n, ast.FunctionDef | ast.ClassDef))}
    assert top, "the omitted part holds top-level definitions"
    for row, name in top.items():
        assert row in listed and name in listed[row], (row, name)
    for row in listed:
        assert row in defined, (row, listed[row])
    assert_reachable(view, entries)


def test_markdown_lists_its_headings_at_their_lines_and_skips_fenced_code() -> None:
    doc = (ROOT / "docs" / "storage.md").read_text(encoding="utf-8")
    view = make().process(claude_read(doc), tool="read_file").content
    assert len(view) <= 8000
    entries = outline_of(view)
    first, last = omitted(view)
    # The oracle: ATX headings outside fenced code, found here independently.
    expected, fence, comments = {}, None, set()
    for row, line in enumerate(doc.splitlines(), 1):
        if line.startswith(("```", "~~~")):
            fence = None if fence else line[:3]
            continue
        if re.match(r"#{1,6} ", line) and first <= row <= last:
            if fence is None:
                expected[row] = line.lstrip("#").strip()
            else:
                comments.add(line.lstrip("#").strip())
    assert comments, "the omitted part holds a '# comment' in fenced code"
    assert not comments & {title for _, _, _, title in entries}
    headings = {line: title for line, _, _, title in entries if line in expected}
    assert expected
    assert headings == expected
    assert_reachable(view, entries)


def test_a_view_from_an_offset_gives_the_files_own_numbers_too() -> None:
    source = SOURCE.read_text(encoding="utf-8")
    view = make().process(claude_read(source, first=300), tool="read_file").content
    entries = outline_of(view)
    for line, _, file_line, _title in entries[:-1]:
        assert file_line == line + 299
    assert_reachable(view, entries)


def test_without_a_grammar_the_indentation_outlines_a_source_file(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The extra missing (or a language it has no grammar for): no definitions.
    monkeypatch.setattr(outline_code, "_grammar", lambda language: None)
    source = SOURCE.read_text(encoding="utf-8")
    doc = document(claude_read(source))
    assert doc is not None and doc.source == "indentation"
    lines = source.splitlines()
    for index, depth, title in doc.structure:
        assert depth in (1, 2)
        below = next(x for x in lines[index + 1:] if x.strip())
        assert len(below) - len(below.lstrip()) > len(lines[index]) - len(lines[index].lstrip())
        assert title == lines[index].strip()
    view = make().process(claude_read(source), tool="read_file").content
    assert_reachable(view, outline_of(view))


def test_a_long_flat_listing_gets_sections_of_at_most_span_lines() -> None:
    listing = "".join(f"./src/pkg{i // 40}/module_{i}.py\n" for i in range(3000))
    view = make(tools={"list_directory": {"strategy": "outline"}}).process(
        listing, tool="list_directory").content
    assert len(view) <= 8000
    entries = outline_of(view)
    assert_reachable(view, entries)
    for line, _, _, title in entries[:-1]:
        assert listing.splitlines()[line - 1] == title


def test_content_within_the_limit_is_untouched() -> None:
    small = claude_read("def f():\n    return 1\n")
    result = make().process(small, tool="read_file")
    assert result.content == small and not result.metadata.was_truncated


def test_outline_is_left_out_when_it_would_not_fit() -> None:
    source = claude_read(SOURCE.read_text(encoding="utf-8"))
    view = make(inline_limit=300).process(source, tool="read_file").content
    assert len(view) <= 300


def test_numbering_is_not_taken_from_ordinary_numbers() -> None:
    from truncation_core.outline.numbering import detect

    log = [f"{n * 7} requests served" for n in range(50)]
    assert detect(log) is None
    assert detect([f"{n:>6}→x" for n in range(1, 50)]) is not None
    assert detect(["<file>", *(f"{n:>6}|x" for n in range(1, 50))]) is not None


def test_a_large_file_view_is_outlined_by_boundaries_within_span() -> None:
    log = "".join(f"[{i:07d}] INFO worker processed batch {i * 7919 % 100_003}\n"
                  for i in range(20_000))  # about 1 MB, over STRUCTURE_CHARS
    result = make().process(claude_read(log), tool="read_file")
    assert result.metadata.details["outline"]["source"] == "boundaries"
    view = result.content
    entries = outline_of(view)
    first, last = omitted(view)
    starts = [e[0] for e in entries]
    assert first <= starts[0] <= first + 2 and starts[-1] == last + 1
    # The budget allows about a fifth of 8,000 characters: the sections grow past SPAN
    # evenly, the longest no more than twice the shortest (the longest is split first).
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    assert max(gaps) <= 2 * min(gaps) + 2
    assert len(view) <= 8000


def test_a_file_view_keeps_most_of_its_room_at_the_head() -> None:
    # Agents read a file from its top: a file view keeps FILE_VIEW_HEAD_RATIO of the budget
    # at the head (the outline names where the rest lies). Under the 60/40 split the head
    # kept about 1.5 times the tail; a user's head_ratio for the tool still wins.
    source = SOURCE.read_text(encoding="utf-8")
    text = claude_read(source)
    view = make().process(text, tool="read_file").content
    first, last = omitted(view)
    lines = text.splitlines(keepends=True)
    head = sum(len(line) for line in lines[:first - 1])
    tail = sum(len(line) for line in lines[last:])
    assert head >= 4 * tail, (head, tail)
    mine = make(tools={"read_file": {"head_ratio": 0.5}}).process(text, tool="read_file")
    first, last = omitted(mine.content)
    head = sum(len(line) for line in lines[:first - 1])
    tail = sum(len(line) for line in lines[last:])
    assert head < 1.5 * tail, (head, tail)


def test_a_directory_listing_keeps_most_of_its_room_at_the_head() -> None:
    # A listing is read from its top levels down, as a file is: list_directory keeps
    # FILE_VIEW_HEAD_RATIO of the budget at the head (60/40 kept 1.5 times the tail).
    files = sorted(str(p.relative_to(ROOT)) for top in ("truncation_core", "tests", "docs")
                   for p in (ROOT / top).rglob("*")
                   if p.is_file() and "__pycache__" not in p.parts)
    listing = "".join(f"- {name}\n" for name in files)
    assert len(listing) > 10_000
    view = make().process(listing, tool="list_directory").content
    assert len(view) <= 8000
    first, last = omitted(view)
    lines = listing.splitlines(keepends=True)
    head = sum(len(line) for line in lines[:first - 1])
    tail = sum(len(line) for line in lines[last:])
    assert head >= 4 * tail, (head, tail)


@pytest.mark.skipif(not outline_code.available(), reason="the outline extra is not installed")
def test_a_definition_entry_quotes_a_short_signature_whole() -> None:
    # An agent searches for and edits a signature as written: an entry quotes the line whole
    # when it fits in TITLE_CHARS, and abbreviates a longer one to the name.
    source = SOURCE.read_text(encoding="utf-8")
    view = make().process(claude_read(source), tool="read_file").content
    entries = outline_of(view)
    lines = source.splitlines()
    defs = [(line, title) for line, _, _, title in entries[:-1]
            if lines[line - 1].lstrip().startswith(("def ", "class "))]
    short = [(line, title) for line, title in defs if len(lines[line - 1].strip()) <= 72]
    long = [(line, title) for line, title in defs if len(lines[line - 1].strip()) > 72]
    assert short and long, "the file's omitted part has short and long signatures"
    for line, title in short:
        assert title == lines[line - 1].strip(), (line, title)
    for line, title in long:
        assert title.endswith("(…)") and len(title) < len(lines[line - 1].strip()), title
