"""Differential tests: head, tail, lines, pages and grep against a naive reference.

The reference splits the whole artifact into lines in the most obvious way, on the line
definition of truncation_core.text.cut ("\n", "\r\n", lone "\r"). The real implementation reads in
chunks (here tiny ones, so that every chunk boundary case is hit), backwards for tail, and
counts lines only up to matches for grep.

The same comparisons through each backend's store are the store contract
(tests/store_contract.py), which every backend's tests run.
"""

from __future__ import annotations

import io
import os
import pathlib
import subprocess
import sys

from hypothesis import example, given, settings
from hypothesis import strategies as st

from truncation_core.retrieval import (
    decode,
    grep,
    line_number_at,
    line_start,
    read_lines,
    read_page,
    read_tail,
)
from truncation_core.retrieval.scanning import line_starts_from_end

from .conftest import naive_lines, strip

pieces = st.sampled_from([b"\n", b"\r\n", b"\r", b"a", b"b", b"ab", b"\xc3\xa9", b"\xe2\x82\xac",
                          b"\xf0\x9f\x98\x80", b"\xed\xa0\x80", b"\xff", b"\x80", b"\xe2\x82",
                          b"x" * 9, b"needle", b"nee", b"dle", b"\x0b", b"\xc2\x85"])
artifacts = st.lists(pieces, max_size=40).map(b"".join)
chunks = st.integers(min_value=1, max_value=9)


@settings(max_examples=300, deadline=None)
@given(data=artifacts, chunk=chunks, start=st.integers(1, 30), count=st.integers(0, 30))
@example(data=b"a\r\nb", chunk=2, start=2, count=1)
@example(data=b"a\r", chunk=1, start=1, count=1)
def test_lines_match_reference(data: bytes, chunk: int, start: int, count: int) -> None:
    ref = naive_lines(data)
    end = start + count
    page = read_lines(io.BytesIO(data), start, end, chunk=chunk)
    expected = b"".join(ref[start - 1 : end])
    assert page.text == decode(expected)
    assert page.end_offset - page.offset == len(expected)
    if expected:
        assert page.first_line == start
        assert page.last_line == min(end, len(ref))
    assert line_start(io.BytesIO(data), start, chunk=chunk) == (
        len(b"".join(ref[: start - 1])) if start <= len(ref) else None)


@settings(max_examples=300, deadline=None)
@given(data=artifacts, chunk=chunks, n=st.integers(1, 30))
@example(data=b"a\r\n", chunk=1, n=1)
@example(data=b"\r\n\r\n", chunk=1, n=1)
def test_tail_matches_reference(data: bytes, chunk: int, n: int) -> None:
    ref = naive_lines(data)
    expected = b"".join(ref[-n:]) if ref else b""
    for total in (None, len(ref)):
        page = read_tail(io.BytesIO(data), n, chunk=chunk, total_lines=total)
        assert page.text == decode(expected)
        if ref:
            assert page.first_line == max(1, len(ref) - n + 1)
            assert page.last_line == len(ref)
    starts = line_starts_from_end(io.BytesIO(data), n, chunk=chunk)
    offsets = [len(b"".join(ref[:i])) for i in range(len(ref))]
    assert starts == list(reversed(offsets))[:n]


@settings(max_examples=300, deadline=None)
@given(data=artifacts, chunk=chunks)
def test_line_number_at_every_offset(data: bytes, chunk: int) -> None:
    ref = naive_lines(data)
    number, pos = 1, 0
    owner = {}
    for i, raw in enumerate(ref, start=1):
        for k in range(len(raw)):
            owner[pos + k] = i
        pos += len(raw)
    for offset, number in owner.items():
        if offset and data[offset - 1 : offset + 1] == b"\r\n":
            continue  # the "\n" of a pair belongs to the line the "\r" ends
        assert line_number_at(io.BytesIO(data), offset, chunk=chunk) == number


@settings(max_examples=300, deadline=None)
@given(data=artifacts, chunk=chunks, max_chars=st.integers(1, 25))
def test_paging_by_offset_reassembles_the_artifact(data: bytes, chunk: int, max_chars: int) -> None:
    """Pages never split a character and, concatenated, give back everything."""
    f = io.BytesIO(data)
    offset, parts, guard = 0, [], 0
    while True:
        page = read_page(f, offset=offset, max_chars=max_chars, chunk=chunk)
        assert len(page.text) <= max(max_chars, 2)
        parts.append(data[page.offset : page.end_offset])
        assert decode(data[page.offset : page.end_offset]) == page.text
        if page.next_offset is None:
            break
        assert page.next_offset > offset
        offset = page.next_offset
        guard += 1
        assert guard <= len(data) + 1
    assert b"".join(parts) == data


def naive_grep(data: bytes, needle: bytes) -> list[int]:
    return [i for i, raw in enumerate(naive_lines(data), start=1) if needle in strip(raw)]


@settings(max_examples=300, deadline=None)
@given(data=artifacts, chunk=chunks, needle=st.sampled_from(["needle", "a", "é", "x" * 9, "ab\n"]),
       max_matches=st.integers(1, 50))
def test_grep_literal_matches_reference(data: bytes, chunk: int, needle: str,
                                        max_matches: int) -> None:
    expected = naive_grep(data, needle.encode())
    result = grep(io.BytesIO(data), needle, chunk=chunk, max_matches=max_matches)
    assert [m.line.number for m in result.matches] == expected[:max_matches]
    assert result.more == (len(expected) > max_matches)
    ref = naive_lines(data)
    for m in result.matches:
        assert m.line.text == decode(strip(ref[m.line.number - 1]))


@settings(max_examples=200, deadline=None)
@given(data=artifacts, chunk=chunks, context=st.integers(0, 3))
def test_grep_regex_and_context_match_reference(data: bytes, chunk: int, context: int) -> None:
    import re

    ref = naive_lines(data)
    texts = [decode(strip(r)) for r in ref]
    expected = [i for i, t in enumerate(texts, start=1) if re.search(r"^a|b$|ne+d", t)]
    result = grep(io.BytesIO(data), r"^a|b$|ne+d", regex=True, context=context, chunk=chunk,
                  max_matches=1000)
    assert [m.line.number for m in result.matches] == expected
    for m in result.matches:
        n = m.line.number
        assert [c.number for c in m.before] == list(range(max(1, n - context), n))
        assert [c.text for c in m.before] == texts[max(0, n - 1 - context) : n - 1]
        assert [c.text for c in m.after] == texts[n : n + context]


@settings(max_examples=300, deadline=None)
@given(data=artifacts, chunk=chunks, needle=st.sampled_from(["needle", "a", "é", "x" * 9]),
       max_block=st.integers(1, 12))
def test_grep_literal_finds_matches_across_splits_of_long_lines(
        data: bytes, chunk: int, needle: str, max_block: int) -> None:
    """Lines longer than max_block are searched in overlapping pieces: same line numbers."""
    expected = naive_grep(data, needle.encode())
    result = grep(io.BytesIO(data), needle, chunk=chunk, max_block=max_block, max_matches=1000)
    assert [m.line.number for m in result.matches] == expected


@settings(max_examples=300, deadline=None)
@given(data=artifacts, chunk=chunks, n=st.integers(1, 30), max_chars=st.integers(1, 25),
       line_cost=st.integers(0, 3), known_total=st.booleans())
@example(data=b"x" * 200 + b"\nab\ncd\n", chunk=4, n=10**9, max_chars=5, line_cost=0,
         known_total=False)
def test_tail_within_max_chars_matches_reference(data: bytes, chunk: int, n: int, max_chars: int,
                                                 line_cost: int, known_total: bool) -> None:
    """As many of the last n lines as fit; if none fits, the start of the last line. Lines
    further back than any page could show are never looked at, however large n is."""
    ref = naive_lines(data)
    total = len(ref) if known_total else None
    page = read_tail(io.BytesIO(data), n, max_chars=max_chars, line_cost=line_cost,
                     total_lines=total, chunk=chunk)
    if not ref:
        assert page.text == ""
        return
    fit, used = 0, 0
    for raw in reversed(ref[-n:]):
        used += len(decode(raw)) + line_cost
        if used > max_chars:
            break
        fit += 1
    if fit:
        assert page.text == decode(b"".join(ref[-fit:]))
        assert page.first_line == len(ref) - fit + 1
    else:
        assert page.first_line == len(ref)
        assert page.text and decode(ref[-1]).startswith(page.text)


@settings(max_examples=300, deadline=None)
@given(data=artifacts, chunk=chunks, needle=st.sampled_from(["needle", "a", "é", "x" * 9]),
       max_block=st.integers(18, 30))
def test_grep_regex_finds_matches_across_splits_of_long_lines(
        data: bytes, chunk: int, needle: str, max_block: int) -> None:
    """A regular expression searches long lines in pieces that repeat the end of the one
    before (up to half a piece): a match that short is found across a split."""
    import re

    expected = naive_grep(data, needle.encode())
    result = grep(io.BytesIO(data), re.escape(needle), regex=True, chunk=chunk,
                  max_block=max_block, max_matches=1000)
    assert [m.line.number for m in result.matches] == expected


def test_searching_an_artifact_leaves_retrieval_grep_the_function() -> None:
    """Importing a submodule sets the package's attribute of its name to the module: while
    the search lived in ``retrieval/grep.py``, ``from truncation_core.retrieval import grep``
    gave the module once anything had searched an artifact or imported the submodule, and
    the tests after one that did failed (by test order). Each order runs in a fresh
    interpreter, so that no earlier import decides it."""
    orders = [
        # a search through a store, then the package's name
        "from truncation_core import Truncator\n"
        "t = Truncator({'inline_limit': 100}, load_entrypoints=False)\n"
        "ref = t.process('needle\\n' * 100).artifact\n"
        "assert t.artifacts.grep(ref.id, 'needle').matches\n",
        # the search's own module imported directly first, as tests/hostile does
        "import truncation_core.retrieval.searching\n",
        "",
    ]
    for first in orders:
        check = first + (
            "import types\n"
            "from truncation_core.retrieval import grep\n"
            "import truncation_core.retrieval as retrieval\n"
            "assert callable(grep) and not isinstance(grep, types.ModuleType), grep\n"
            "assert callable(retrieval.grep) and retrieval.grep is grep\n")
        done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True)
        assert done.returncode == 0, (first, done.stderr)


def test_a_submodule_named_like_its_package_export_replaces_the_export() -> None:
    """Negative control: the mechanism behind the failure above, in a package made here. A
    package that exports a function ``grep`` lazily and holds a submodule ``grep.py`` gives
    the module after the submodule is imported directly."""
    import tempfile

    with tempfile.TemporaryDirectory() as root:
        package = pathlib.Path(root, "clash")
        package.mkdir()
        (package / "__init__.py").write_text(
            "def __getattr__(name):\n"
            "    from clash.grep import grep\n"
            "    return grep\n")
        (package / "grep.py").write_text("def grep():\n    return 1\n")
        check = ("import types, clash.grep\n"
                 "from clash import grep\n"
                 "assert isinstance(grep, types.ModuleType)\n")
        done = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": root})
        assert done.returncode == 0, done.stderr
