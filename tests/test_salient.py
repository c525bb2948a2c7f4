"""Salient lines: what is lifted, where it goes, what it costs, and how plugins add patterns."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from truncation_core import Truncator
from truncation_core.builtins.salient import PATTERNS
from truncation_core.highlights.bank import StreamHighlights
from truncation_core.highlights.patterns import LINE_CHARS, PROBE_CHARS, Matcher, SalientPattern
from truncation_core.hooks.models import Omission
from truncation_core.storage.memory import MemoryStore
from truncation_core.text.measure import line_index, measure


def make(config: Any = None, **kwargs: Any) -> Truncator:
    """A Truncator on the memory store, with only the built-in plugins (and *kwargs*')."""
    return Truncator(config, load_entrypoints=False, store=MemoryStore(), **kwargs)


BLOCK = re.compile(r"^line (\d+): (.*)$", re.MULTILINE)


def log_with(marks: dict[int, str], total: int = 3000) -> str:
    lines = [f"INFO {i:05d} compiling module number {i}" for i in range(total)]
    for index, text in marks.items():
        lines[index] = text
    return "\n".join(lines) + "\n"


def shown(content: str) -> dict[int, str]:
    return {int(n): text for n, text in BLOCK.findall(content)}


MARKS = {
    99: "Traceback (most recent call last):",
    100: '  File "app.py", line 12, in main',
    101: "KeyError: 'user_id'",
    1200: "src/net.c:88:13: error: 'sock' undeclared (first use in this function)",
    2400: "FAILED tests/test_api.py::test_login - AssertionError: 401 != 200",
}


def test_lines_from_the_omitted_part_are_shown_with_their_line_numbers() -> None:
    truncator = make({"inline_limit": 4000})
    content = log_with(MARKS)
    result = truncator.process(content, tool="execute_command")  # tail, highlights on
    lines = content.splitlines()
    got = shown(result.content)
    assert got == {n + 1: MARKS[n] for n in (99, 101, 1200, 2400)}
    for number, text in got.items():
        assert lines[number - 1] == text  # the number is the line's own, 1-based
    block_at = result.content.index("... [highlights from the omitted part: 4 of 4")
    assert result.content.index("[Beginning omitted") < block_at  # right after the marker
    assert len(result.content) <= 4000
    assert [h["line"] for h in result.metadata.details["highlights"]] == sorted(got)


def test_highlights_count_against_the_budget_in_every_unit() -> None:
    content = log_with(MARKS)
    for config in ({"inline_limit": 1500}, {"inline_limit": 8000, "max_bytes": 1200},
                   {"inline_limit": 8000, "max_lines": 30}):
        truncator = make({**config, "highlights": 8})
        for strategy in ("tail", "head", "head_tail"):
            result = truncator.process(content, tool=strategy)
            size = measure(result.content)
            assert truncator.policy(strategy).budget.admits(size), (config, strategy, size)


def test_the_block_takes_at_most_a_quarter_of_the_budget() -> None:
    marks = {i: f"error: failure number {i} " + "x" * 100 for i in range(100, 2900, 50)}
    truncator = make({"inline_limit": 3000, "highlights": 8})
    result = truncator.process(log_with(marks), tool="x")
    block = "\n".join(line for line in result.content.splitlines()
                      if line.startswith("line ") or "highlights from" in line)
    assert 0 < len(block) <= 3000 // 4
    assert all(len(text) <= LINE_CHARS for text in shown(result.content).values())


def test_selection_keeps_summaries_first_then_the_first_and_last_errors() -> None:
    marks = {i: f"error: failure number {i}" for i in range(100, 2000, 100)}
    marks[2500] = "=========== 19 failed, 340 passed in 12.3s ==========="
    truncator = make({"inline_limit": 2500, "highlights": 5})
    result = truncator.process(log_with(marks, total=2800), tool="x",)
    got = sorted(shown(result.content))
    # The summary (rank 0), then errors: the earliest two and the latest two.
    assert got == [101, 201, 1801, 1901, 2501]
    assert "5 of 20 matching lines" in result.content


def test_kept_lines_are_not_repeated_and_nothing_is_added_without_omission() -> None:
    truncator = make({"inline_limit": 4000, "highlights": 8})
    content = log_with({2995: "error: at the very end"})
    result = truncator.process(content, tool="x", )
    assert "highlights from" not in result.content  # the error is in the kept part
    assert result.content.count("error: at the very end") == 1
    small = "error: one\nValueError: two\n"
    assert truncator.process(small).content == small


def test_highlights_off_by_default_except_for_command_output() -> None:
    truncator = make({"inline_limit": 4000})
    content = log_with(MARKS)
    assert "highlights from" not in truncator.process(content, tool="read_file").content
    assert "highlights from" in truncator.process(content, tool="execute_command").content
    off = make({"inline_limit": 4000, "tools": {"execute_command": {"highlights": 0}}})
    assert "highlights from" not in off.process(content, tool="execute_command").content


def test_lines_longer_than_the_probe_match_on_their_start_only() -> None:
    truncator = make({"inline_limit": 3000, "highlights": 4})
    late = "x" * 600 + " error: too far in"
    early = "error: near the start " + "y" * 2000
    result = truncator.process(log_with({500: late, 900: early}), tool="x")
    got = shown(result.content)
    assert list(got) == [901]
    assert got[901].endswith("…") and len(got[901]) == LINE_CHARS


@pytest.mark.parametrize(("line", "pattern"), [
    ("Traceback (most recent call last):", "traceback"),
    ("ValueError: invalid literal for int() with base 10: 'x'", "exception"),
    ("E       AssertionError: assert 1 == 2", "exception"),
    ("requests.exceptions.ConnectionError: refused", "exception"),
    ("Error: Cannot find module 'left-pad'", "exception"),
    ("main.c:3:5: error: expected ';' before 'return'", "error"),
    ("error[E0308]: mismatched types", "error"),
    ("ERROR: Cannot install a==1 and b==2 because these package versions have conflicting "
     "dependencies.", "error"),
    ("npm error code E404", "error"),
    ("npm ERR! code ERESOLVE", "error"),
    ("fatal: not a git repository (or any of the parent directories): .git", "error"),
    ("FAILED tests/test_x.py::test_y - assert 0", "failed-test"),
    ("--- FAIL: TestParse (0.00s)", "failed-test"),
    ("test tests::it_works ... FAILED", "failed-test"),
    ("panic: runtime error: index out of range [3] with length 3", "panic"),
    ("thread 'main' panicked at src/main.rs:2:5:", "panic"),
    ("==== 2 failed, 10 passed in 0.31s ====", "test-summary"),
    ("test result: FAILED. 3 passed; 1 failed; 0 ignored", "test-summary"),
    ("collect2: error: ld returned 1 exit status", "exit-status"),
    ("make: *** [Makefile:4: all] Error 2", "exit-status"),
    ("Segmentation fault (core dumped)", "crash"),
    ("E   assert 1 == 2", "assertion-detail"),
])
def test_builtin_patterns_recognise_real_lines(line: str, pattern: str) -> None:
    found = Matcher(PATTERNS).classify(line)
    assert found is not None and found.name == pattern


@pytest.mark.parametrize("line", [
    "INFO compiling error_handler.py", "0 errors, 0 warnings", "mirror of the archive",
    "no FAILures here", "  File \"x.py\", line 3, in <module>", "ok  \tgithub.com/x/y\t0.01s",
    "Terror at the opera",
])
def test_builtin_patterns_ignore_ordinary_lines(line: str) -> None:
    assert Matcher(PATTERNS).classify(line) is None


def test_patterns_are_checked() -> None:
    with pytest.raises(ValueError, match="keywords: at least one"):
        SalientPattern(name="x", keywords=())
    with pytest.raises(ValueError, match="line terminator"):
        SalientPattern(name="x", keywords=("a\nb",))
    with pytest.raises(ValueError, match="regex: not a valid regular expression"):
        SalientPattern(name="x", keywords=("a",), regex="(")


# -- the bank against the definition ---------------------------------------------------------

LINE = re.compile(r"([^\r\n]*)(?:\r\n|\r|\n)|([^\r\n]+)\Z")


def by_definition(patterns: Any, text: str, region: Omission, keep: int) -> dict[int, Any]:
    """The salient lines of *region*, straight from the definition in salient.py's docstring:
    every line lying entirely inside the region, matched on its first PROBE_CHARS characters
    against the patterns in rank order. Rank -> (count, first *keep*, last *keep*)."""
    ordered = sorted(patterns, key=lambda p: p.rank)
    found: dict[int, list[tuple[int, str, str]]] = {}
    for number, line in enumerate(LINE.finditer(text), 1):
        if line.start() < region.start or line.end() > region.end:
            continue
        probe = (line.group(1) if line.group(1) is not None else line.group(2))[:PROBE_CHARS]
        for pattern in ordered:
            if any(k in probe for k in pattern.keywords) and (
                    pattern.regex is None or re.search(pattern.regex, probe)):
                shown = probe.rstrip()
                if len(shown) > LINE_CHARS:
                    shown = shown[:LINE_CHARS - 1] + "…"
                found.setdefault(pattern.rank, []).append((number, pattern.name, shown))
                break
    return {rank: (len(items), items[:keep], items[-keep:]) for rank, items in found.items()}


def bank_for(matcher: Matcher, *, keep: int, window: int, gather: bool) -> StreamHighlights:
    """A bank; without *gather*, it scans every piece as it comes, however small (as it
    does with pieces of 64 KiB), so that short pieces reach the scanner itself."""
    bank = StreamHighlights(matcher, keep=keep, window=window)
    if not gather:
        bank._batch_chars = 1  # type: ignore[attr-defined]
    return bank


def pools_as_found(pools: Any) -> dict[int, Any]:
    def rows(items: Any) -> list[tuple[int, str, str]]:
        return [(h.line, h.pattern, h.text) for h in items]

    return {rank: (pool.count, rows(pool.first), rows(pool.last))
            for rank, pool in pools.items()}


salient_lines = st.one_of(
    st.sampled_from(["ok", "", "error: bad", "ValueError: x", "3 failed, 1 passed", "E   x",
                     "panic: y", "FAILED t", "é" * 3, "mirror", "E" * 40, "Ran 3 tests in 1s",
                     "make: *** [all] Error 2", "✕ adds", "exit status 1"]),
    st.integers(500, 700).map(lambda n: "error: " + "z" * n),
    # The keyword ends just inside or just outside the probe.
    st.integers(PROBE_CHARS - 12, PROBE_CHARS).map(lambda n: "z" * n + " error: late"),
)


def cut_region(text: str, window: int, data: Any) -> Omission | None:
    """A region like a cut's: starting in the first *window* characters, ending in the last,
    never inside a "\r\n"."""
    n = len(text)
    start = data.draw(st.integers(0, min(n, window - 20)))
    end = data.draw(st.integers(max(start, n - window + 20), n))
    if text[start - 1:start + 1] == "\r\n":
        start += 1
    if end < n and text[end - 1:end + 1] == "\r\n":
        end += 1
    if end <= start:
        return None
    return Omission(position="middle", start=start, end=end, lines=0,
                    first_line=line_index(text, start) + 1, last_line=0)


@settings(max_examples=300, deadline=None)
@given(st.lists(salient_lines, min_size=1, max_size=80),
       st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=1, max_size=3),
       st.integers(1, 6), st.booleans(), st.data())
def test_the_bank_finds_the_lines_the_definition_finds(lines: list[str], ends: list[str],
                                                        keep: int, gather: bool,
                                                        data: Any) -> None:
    text = "".join(line + ends[i % len(ends)] for i, line in enumerate(lines * 3))
    text += data.draw(st.sampled_from(["", "error: last", "x\r"]))
    n, window = len(text), 300
    bank = bank_for(Matcher(PATTERNS), keep=keep, window=window, gather=gather)
    cuts = sorted(set(data.draw(st.lists(st.integers(0, n), max_size=8))))
    for a, b in zip([0, *cuts], [*cuts, n], strict=True):
        bank.feed(text[a:b])
    bank.close()
    region = cut_region(text, window, data)
    if region is not None:
        assert pools_as_found(bank.pools(region, n)) == \
            by_definition(PATTERNS, text, region, keep)


@pytest.mark.parametrize("gather", [False, True])
@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 13, 37])
def test_a_bank_fed_small_pieces_finds_the_same_lines(size: int, gather: bool) -> None:
    # Pieces shorter than the literals looked for, and pieces that end a line early and go
    # on with one: a search must stop at the end of the lines being scanned.
    text = "\rERROR boom\n" + log_with({5: MARKS[99], 7: MARKS[101], 30: MARKS[1200]},
                                         total=60) + "ERROR\rValueError: x\r\nE   y"
    region = Omission(position="middle", start=0, end=len(text), lines=0, first_line=1,
                      last_line=0)
    bank = bank_for(Matcher(PATTERNS), keep=8, window=10, gather=gather)
    for start in range(0, len(text), size):
        bank.feed(text[start:start + size])
    bank.close()
    assert pools_as_found(bank.pools(region, len(text))) == \
        by_definition(PATTERNS, text, region, 8)


# Plugin patterns over a small alphabet, so that keywords occur often, and overlap, and their
# characters are common or rare in the text in every proportion.
keyword = st.text(alphabet="abQ é", min_size=1, max_size=4).filter(lambda k: k.strip() == k)
plugin_patterns = st.lists(st.builds(
    SalientPattern, name=st.sampled_from(["p", "q", "r"]),
    keywords=st.lists(keyword, min_size=1, max_size=3), rank=st.integers(0, 2),
    regex=st.sampled_from([None, None, "^a", "b$", "Q.*Q"])), min_size=1, max_size=4)


@settings(max_examples=200, deadline=None)
@given(plugin_patterns, st.text(alphabet="abQ é\n\r", max_size=60),
       st.integers(1, 3000), st.integers(1, 4), st.booleans(), st.data())
def test_any_patterns_find_the_lines_the_definition_finds(patterns: list[SalientPattern],
                                                          block: str, repeat: int, keep: int,
                                                          gather: bool, data: Any) -> None:
    text = (block * repeat)[:60_000] + data.draw(st.text(alphabet="abQ\n", max_size=20))
    if not text:
        return
    window = 200
    bank = bank_for(Matcher(patterns), keep=keep, window=window, gather=gather)
    step = data.draw(st.sampled_from([7, 4096, 100_000]))
    for a in range(0, len(text), step):
        bank.feed(text[a:a + step])
    bank.close()
    region = cut_region(text, window, data)
    if region is not None:
        assert pools_as_found(bank.pools(region, len(text))) == \
            by_definition(patterns, text, region, keep)


# -- when the artifact itself is cut (max_artifact_size) ----------------------------------------

NOT_KEPT = re.compile(r"^not kept: (.*)$", re.MULTILINE)
CUT_MARKS = {
    99: "Traceback (most recent call last):",  # kept in the artifact's head
    3000: "ValueError: invalid literal for int() with base 10: 'x'",  # dropped by the artifact
    5800: "FAILED tests/test_api.py::test_login - AssertionError: 401 != 200",  # in its tail
}


def test_highlight_line_numbers_address_a_cut_artifact() -> None:
    """Each highlight's number is the one get_artifact takes for that line in the artifact as
    stored; a line the artifact does not keep is shown, and said not to be kept, without a
    number. process() and streams agree."""
    truncator = make({"max_artifact_size": 96 * 1024, "inline_limit": 4000})
    content = log_with(CUT_MARKS, total=6000)
    assert len(content.encode()) > 2 * 96 * 1024
    result = truncator.process(content, tool="execute_command")
    ref = result.artifact
    assert ref is not None and ref.cut is not None
    with truncator.store.open(ref.id) as f:
        data = f.read()
    got = shown(result.content)
    assert sorted(got.values()) == sorted([CUT_MARKS[99], CUT_MARKS[5800]])
    for number, text in got.items():
        page = truncator.call_tool("get_artifact", {"artifact_id": ref.id, "start_line": number,
                                                    "end_line": number})
        assert not page.is_error, page.content
        assert re.findall(r"^ *(\d+)\t(.*)$", page.content, re.M) == [(str(number), text)]
    assert got[100] == CUT_MARKS[99]  # the head keeps its numbers; the tail's move up
    assert 5801 not in got
    assert NOT_KEPT.findall(result.content) == [CUT_MARKS[3000]]
    assert CUT_MARKS[3000].encode() not in data  # and it is not: the artifact dropped it
    details = {h["original_line"]: h["line"] for h in result.metadata.details["highlights"]}
    assert details == {100: 100, 3001: None, 5801: next(
        n for n, t in got.items() if t == CUT_MARKS[5800])}
    # A stream gives the same block, and the same metadata.
    with truncator.stream(tool="execute_command") as s:
        for i in range(0, len(content), 4093):
            s.write(content[i:i + 4093])
    streamed = s.result()
    assert streamed.content.replace(streamed.artifact.id, "<id>") == result.content.replace(
        ref.id, "<id>")
    assert streamed.metadata.details == result.metadata.details


def test_not_kept_highlights_have_their_own_template() -> None:
    truncator = make({"max_artifact_size": 96 * 1024, "inline_limit": 4000, "marker": {
        "highlight_not_kept": "[dropped, was line {original_line}] {text}"}})
    result = truncator.process(log_with(CUT_MARKS, total=6000), tool="execute_command")
    assert f"[dropped, was line 3001] {CUT_MARKS[3000]}" in result.content
