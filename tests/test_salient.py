"""Salient lines: what is lifted, where it goes, how it is chosen among many, and that the
bank finds what the definition says, for ``process`` and streams alike."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from truncation_core import Truncator
from truncation_core.builtins.salient import DETECTOR
from truncation_core.highlights import patterns as patterns_module
from truncation_core.highlights.bank import MAX_GROUPS, StreamHighlights
from truncation_core.highlights.choice import in_order
from truncation_core.highlights.lines import CLIP_MARK, clean, clip, fold, names_only
from truncation_core.highlights.patterns import LINE_CHARS, PROBE_CHARS, Matcher, scan_lines
from truncation_core.storage.memory import MemoryStore
from truncation_core.text.measure import line_index, measure
from truncation_core.types.cuts import Omission
from truncation_core.types.salient import SalientPattern, SalientUnit, UnitLines, lines_below

PATTERNS, UNITS = DETECTOR.patterns, DETECTOR.units


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


def builtin_matcher(tool: str | None = "execute_command") -> Matcher:
    """The matcher of the default configuration: every built-in family, as loaded."""
    truncator = make()
    return truncator._pipeline.matcher(tool, truncator.policy(tool))


MARKS = {
    99: "Traceback (most recent call last):",
    100: '  File "app.py", line 12, in main',
    101: "    user = row['user_id']",
    102: "KeyError: 'user_id'",
    1200: "src/net.c:88:13: error: 'sock' undeclared (first use in this function)",
    2400: "FAILED tests/test_api.py::test_login - AssertionError: 401 != 200",
}


#: ``execute_command`` cut by ``tail``: what the highlights lift from is the whole beginning.
TAIL = {"tools": {"execute_command": {"strategy": "tail"}}}


def test_lines_from_the_omitted_part_are_shown_with_their_line_numbers() -> None:
    truncator = make({"inline_limit": 4000, **TAIL})
    content = log_with(MARKS)
    result = truncator.process(content, tool="execute_command")  # tail, highlights on
    lines = content.splitlines()
    got = shown(result.content)
    # The exception comes with its innermost frame and source line (a unit); the traceback's
    # first line is a detail, shown because there is room.
    assert got == {n + 1: MARKS[n] for n in (99, 100, 101, 102, 1200, 2400)}
    for number, text in got.items():
        assert lines[number - 1] == text  # the number is the line's own, 1-based
    block_at = result.content.index("... [highlights from the omitted part: 4 of 4")
    assert result.content.index("[Beginning omitted") < block_at  # right after the marker
    assert len(result.content) <= 4000
    details = result.metadata.details["highlights"]
    assert [h["original_line"] for h in details] == sorted(got)
    assert [h.get("unit") for h in details if h["original_line"] in (101, 102)] == [
        "python-innermost-frame", "python-innermost-frame"]


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
    marks = {i: f"error: failure number {i} " + "x" * 400 for i in range(100, 2900, 50)}
    truncator = make({"inline_limit": 3000, "highlights": 8})
    result = truncator.process(log_with(marks), tool="x")
    block = "\n".join(line for line in result.content.splitlines()
                      if line.startswith("line ") or "highlights from" in line)
    assert 0 < len(block) <= 3000 // 4
    assert all(len(text) <= LINE_CHARS + len(" [56 like this]")
               for text in shown(result.content).values())


def test_summaries_first_then_each_distinct_failure_once_with_its_count() -> None:
    marks = {i: f"error: connection refused (attempt {i})" for i in range(100, 2000, 10)}
    marks[1234] = "error: disk quota exceeded on /var/lib/data"
    marks[2500] = "=========== 19 failed, 340 passed in 12.3s ==========="
    truncator = make({"inline_limit": 2500, "highlights": 5})
    result = truncator.process(log_with(marks, total=2800), tool="x")
    got = shown(result.content)
    # The summary (rank 0); then the rare error before the group of 190 retries, which is
    # shown once, the first of them, with its count.
    assert got == {2501: marks[2500], 101: marks[100] + " [190 like this]",
                   1235: marks[1234]}
    assert "3 of 192 matching lines" in result.content
    counts = {h["original_line"]: h.get("count") for h in result.metadata.details["highlights"]}
    assert counts == {101: 190, 1235: None, 2501: None}


def test_a_single_report_among_hundreds_of_noisy_matches_is_shown() -> None:
    """The sanitizer report and the one failing Go test, each among 400 noisy matches."""
    marks = {i: f"{i}: shard {i}: error: connection refused (attempt {i % 3 + 1}/3)"
             for i in range(10, 2900, 7)}
    marks[1500] = "==12693==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020"
    marks[1501] = "WRITE of size 17 at 0x602000000020 thread T0"
    marks[1502] = "    #0 0x55666004077b in __asan_memset (/tmp/build/shard+0xa377b)"
    marks[1503] = "    #1 0x55666007bf70 in main /tmp/work/shard.c:12:5"
    marks[2000] = "    billing_test.go:524: invoice total for route 57: got 41, want 42"
    marks[2001] = "--- FAIL: TestRoute057 (0.00s)"
    result = make({"inline_limit": 4000, "highlights": 4}).process(log_with(marks),
                                                                  tool="execute_command")
    got = shown(result.content)
    assert {1501, 1502, 1504, 2001, 2002} <= set(got)
    assert 1503 not in got  # the sanitizer's own frame is not the one that matters
    retries = [n for n, text in got.items() if "connection refused" in text]
    assert len(retries) == 1 and got[retries[0]].endswith(" like this]")


def test_many_distinct_errors_are_shown_before_repeats() -> None:
    marks = {}
    for k, at in enumerate(range(200, 2800, 400)):
        kind = ("variable has incomplete type 'struct missing'" if k % 2 else
                "use of undeclared identifier 'total'")
        marks[at] = f"unit{k:02d}.c:3:80: error: {kind}"
        marks[at + 1] = f"unit{k:02d}.c:3:80: error: {kind}"  # printed twice: a repeat
    result = make({"inline_limit": 6000, "highlights": 8, "artifact_threshold": 10**9}
                  ).process(log_with(marks), tool="x")
    got = shown(result.content)
    # Seven distinct errors (two kinds, seven files), each once; the repeats are not shown.
    assert sorted(got) == [at + 1 for at in range(200, 2800, 400)]


def test_details_are_shown_only_when_few() -> None:
    crash = log_with({5: "app.py:6: UserWarning: DB_URL is not set; falling back to None",
                      2990: "AttributeError: 'NoneType' object has no attribute 'split'"})
    got = shown(make({"inline_limit": 3000, **TAIL}).process(crash, tool="execute_command")
                .content)
    assert 6 in got  # the one warning that explains the crash
    noisy = log_with({i: f"lib{i}.c:2:5: warning: unused variable 'x{i}'"
                      for i in range(5, 2900, 9)})
    got = shown(make({"inline_limit": 3000, **TAIL}).process(noisy, tool="execute_command")
                .content)
    assert got == {}  # three hundred warnings are no highlight


def test_kept_lines_are_not_repeated_and_nothing_is_added_without_omission() -> None:
    truncator = make({"inline_limit": 4000, "highlights": 8})
    content = log_with({2995: "error: at the very end"})
    result = truncator.process(content, tool="x")
    assert "highlights from" not in result.content  # the error is in the kept part
    assert result.content.count("error: at the very end") == 1
    small = "error: one\nValueError: two\n"
    assert truncator.process(small).content == small


def test_highlights_can_be_turned_off_per_tool() -> None:
    content = log_with(MARKS)
    assert "highlights from" in make({"inline_limit": 4000}).process(
        content, tool="execute_command").content
    off = make({"inline_limit": 4000, "tools": {"execute_command": {"highlights": 0}}})
    assert "highlights from" not in off.process(content, tool="execute_command").content


def test_long_lines_are_clipped_in_the_middle() -> None:
    path = "/tmp/work/" + "generated_protocol_bindings/" * 14
    line = f"{path}settlement_unit_15.cpp:4:29: error: conversion from 'double' to 'string'"
    assert len(line) > LINE_CHARS
    result = make({"inline_limit": 3000, "highlights": 4}).process(log_with({900: line}),
                                                                  tool="x")
    got = shown(result.content)[901]
    assert got == clip(line, LINE_CHARS) and len(got) == LINE_CHARS
    assert got.startswith("/tmp/work/generated_protocol_bindings/") and CLIP_MARK in got
    assert got.endswith("settlement_unit_15.cpp:4:29: error: conversion from 'double' to "
                        "'string'")  # the message after the long path is kept


def test_lines_longer_than_the_probe_match_on_their_start_only() -> None:
    truncator = make({"inline_limit": 3000, "highlights": 4})
    late = "x" * 600 + " error: too far in"
    early = "error: near the start " + "y" * 2000
    result = truncator.process(log_with({500: late, 900: early}), tool="x")
    got = shown(result.content)
    assert list(got) == [901]
    assert got[901] == clip(early[:PROBE_CHARS], LINE_CHARS)


def test_colour_codes_and_redraws_do_not_hide_a_line_and_are_not_shown() -> None:
    coloured = "\x1b[1m\x1b[91merror[E0308]\x1b[0m\x1b[1m: mismatched types\x1b[0m"
    arrow = "  \x1b[1m\x1b[94m--> \x1b[0mledger/src/lib.rs:28:5"
    progress = "".join(f"\x1b[K   Building [{'=' * i}>] {i}/40\r" for i in range(40))
    content = progress + log_with({900: coloured, 901: arrow})
    result = make({"inline_limit": 3000, "highlights": 4}).process(content,
                                                                  tool="execute_command")
    got = shown(result.content)
    # 40 redrawn frames are 40 lines (a lone "\r" ends a line), so the numbers address the
    # artifact as stored.
    assert got == {941: "error[E0308]: mismatched types", 942: "  --> ledger/src/lib.rs:28:5"}
    assert content.splitlines()[940] == coloured
    assert "\x1b" not in "".join(got.values())


# -- the patterns on real lines ----------------------------------------------------------------


@pytest.mark.parametrize(("line", "pattern"), [
    ("Traceback (most recent call last):", "traceback"),
    ("ValueError: invalid literal for int() with base 10: 'x'", "exception"),
    ("E       AssertionError: assert 1 == 2", "exception"),
    ("requests.exceptions.ConnectionError: refused", "exception"),
    ("Error: Cannot find module 'left-pad'", "exception"),
    ("org.opentest4j.AssertionFailedError: expected: <100> but was: <99>", "exception"),
    ("main.c:3:5: error: expected ';' before 'return'", "error"),
    ("error[E0308]: mismatched types", "error"),
    ("ERROR: Cannot install a==1 and b==2 because these package versions have conflicting "
     "dependencies.", "error"),
    ("npm error code E404", "error"),
    ("npm ERR! code ERESOLVE", "error"),
    ("fatal: not a git repository (or any of the parent directories): .git", "error"),
    ("src/a.ts(8,31): error TS2551: Property 'nam' does not exist on type 'Row'.", "error"),
    ("Microsoft.Common.targets(2703,9): error MSB3021: Unable to copy file", "error"),
    ("FAILED tests/test_x.py::test_y - assert 0", "failed-test"),
    ("--- FAIL: TestParse (0.00s)", "failed-test"),
    ("test tests::it_works ... FAILED", "failed-test"),
    ("  ✘   71 tests/cart.spec.js:353:1 › cart page 70 shows its total (981ms)",
     "failed-test"),
    ("  × box 19-11 keeps display: grid", "failed-test"),
    ("panic: runtime error: index out of range [3] with length 3", "panic"),
    ("thread 'main' panicked at src/main.rs:2:5:", "panic"),
    ("==== 2 failed, 10 passed in 0.31s ====", "test-summary"),
    ("test result: FAILED. 3 passed; 1 failed; 0 ignored", "test-summary"),
    ("600 examples, 2 failures", "test-summary"),
    ("99% tests passed, 1 tests failed out of 120", "test-summary"),
    ("collect2: error: ld returned 1 exit status", "exit-status"),
    ("make: *** [Makefile:4: all] Error 2", "exit-status"),
    ("Error: Process completed with exit code 1.", "exit-status"),
    ("##[error]Process completed with exit code 2.", "exit-status"),
    ("Cleaning up file based variables (Exit code: 1)", "exit-status"),
    ("worker exited with code 137", "exit-status"),
    ("##[error]Bash exited with code '1'.", "exit-status"),
    ("[INFO] BUILD FAILURE", "build-result"),
    ("BUILD FAILED in 3s", "build-result"),
    ("Build FAILED.", "build-result"),
    ("Finished: UNSTABLE", "build-result"),
    ("ERROR: Job failed: exit code 1", "exit-status"),
    ("Errors while running CTest", "build-result"),
    ("Segmentation fault (core dumped)", "crash"),
    ("E   assert 1 == 2", "assertion-detail"),
    ("app.c:2:63: warning: 'slot' may be used uninitialized [-Wmaybe-uninitialized]",
     "warning"),
    ("/tmp/report.py:6: UserWarning: REPORT_DB_URL is not set", "warning"),
])
def test_generic_patterns_recognise_real_lines(line: str, pattern: str) -> None:
    found = Matcher(PATTERNS).classify(line)
    assert found is not None and found.name == pattern


@pytest.mark.parametrize(("line", "pattern"), [
    ("62: ==12693==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020",
     "sanitizer-report"),
    ("WARNING: ThreadSanitizer: data race (pid=13014)", "sanitizer-report"),
    ("SUMMARY: AddressSanitizer: heap-buffer-overflow in __asan_memset", "sanitizer-summary"),
    ("stats.c:7:25: runtime error: signed integer overflow", "ubsan-runtime-error"),
    ("not ok 218 - invoice 4-17 totals", "tap-not-ok"),
    ("    not ok 1 - status of order 0-3", "tap-not-ok"),
    ("# fail 1", "tap-summary"),
    ("# { total: 120, pass: 119, fail: 1 }", "tap-summary"),
    ("Result: FAIL", "tap-summary"),
    ("#   Failed test 'rate rounds to two places'", "test-more-failed"),
    (" 62/120 Test  #62: shard_61 .........................***Failed    0.15 sec",
     "ctest-failed"),
    ("  ● orders 21 › order 21-9 status", "jest-failure"),
    ("FAIL\texample.com/shop/billing\t0.006s", "go-package-failed"),
    ("report/report.go:6:9: fmt.Sprintf format %d has arg total of wrong type", "go-diagnostic"),
    ("  6:10  error    'totl4' is not defined                         no-undef",
     "eslint-error"),
    ("[ERROR] Tests run: 12, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 s <<< "
     "FAILURE! -- in demo.LedgerTest", "surefire-failure"),
    ("[ERROR] Tests run: 360, Failures: 1, Errors: 0, Skipped: 0", "surefire-total"),
    ("Caused by: java.sql.SQLException: Connection refused", "java-caused-by"),
    ("* What went wrong:", "gradle-what-went-wrong"),
    ("FAILURE: Build failed with an exception.", "gradle-failure"),
    ("[error] /src/main/scala/App.scala:6: missing argument list", "sbt-error"),
    ("    11 Error(s)", "msbuild-count"),
    ("Failed!  - Failed:     1, Passed:    99, Skipped:     0, Total:   100",
     "dotnet-test-summary"),
    ("  Failed Tests.MathTests.Adds [12 ms]", "dotnet-failed-test"),
    ("TOTAL: 1 FAILED, 499 SUCCESS", "karma-total"),
    ("    assert_equals: display expected \"grid\" but got \"block\"", "testharness-assert"),
    ("FAIL [expected PASS] box keeps display", "wpt-unexpected"),
    ("    marks invoice 9-4 as paid (FAILED - 1)", "rspec-failed-example"),
    ("     Failure/Error: expect('refunded').to eq('paid')", "rspec-failure"),
    ("Ledger12Test#test_balance_7 = 0.00 s = F", "minitest-failed"),
    ("ActionView::Template::Error (undefined method `name' for nil):", "rails-exception"),
    ("Completed 500 Internal Server Error in 12ms", "rails-500"),
    ("── 1. Failure ('test-invoice17.R:15'): invoice 17-3 total ──", "testthat-failure"),
    ("[ FAIL 1 | WARN 0 | SKIP 0 | PASS 99 ]", "testthat-count"),
    ("* checking examples ... ERROR", "r-check-problem"),
    ("Status: 1 ERROR", "r-check-status"),
    ("Error in balance(c(\"1\", \"2\")) : rows must be numeric", "r-error"),
    ("Error: cabal: Failed to build ledger-0.1.0.0.", "cabal-failure"),
    ("Test Case '-[RACTupleSpec test]' failed (0.000 seconds).", "xctest-failed"),
    ("Executed 922 tests, with 1 failure (0 unexpected) in 6.436 (6.743) seconds",
     "xctest-executed"),
    ("** TEST FAILED **", "xcodebuild-result"),
    ("❌  /src/App.swift:12:5: cannot find 'x' in scope", "xcpretty-error"),
    # The corpus's real outputs of the families that had none (tests/corpus/manifest.json).
    ("==10413==WARNING: MemorySanitizer: use-of-uninitialized-value", "sanitizer-report"),
    ("==10451==ERROR: LeakSanitizer: detected memory leaks", "sanitizer-report"),
    ("SUMMARY: AddressSanitizer: 1605 byte(s) leaked in 90 allocation(s).",
     "sanitizer-summary"),
    ('       expected: "paid"', "hspec-failure"),
    ("cabal: Failed to build ledger-core-0.1.0.0 (which is required by exe:ledger",
     "cabal-failure"),
    ("Test suite spec: FAIL", "cabal-test-failure"),
    ("cabal: Tests failed for test:spec from ledger-0.1.0.0.", "cabal-test-failure"),
    ("rails test test/integration/invoices_test.rb:820", "rails-test-rerun"),
    ("  Failed WindowLogger.Presentation.Tests.Forms.MainFormTests.RefreshActivityGrid_With"
     "Activities_ShouldDisplayData [320 ms]", "dotnet-failed-test"),
    ("[xUnit.net 00:00:06.52]     WindowLogger.Presentation.Tests.Forms.MainFormTests."
     "RefreshActivityGrid_WithActivities_ShouldDisplayData [FAIL]", "xunit-failed-test"),
    ("Test Run Failed.", "dotnet-test-summary"),
])
def test_family_patterns_recognise_real_lines(line: str, pattern: str) -> None:
    """Each family module's patterns, loaded as by default, name their lines before the
    generic patterns of the same rank do."""
    found = builtin_matcher().classify(line)
    assert found is not None and found.name == pattern


@pytest.mark.parametrize("line", [
    "INFO compiling error_handler.py", "0 errors, 0 warnings", "mirror of the archive",
    "no FAILures here", "  File \"x.py\", line 3, in <module>", "Terror at the opera",
    "  querying should return error with -firstOrDefault:success:error:",  # a selector
    "120: shard 119: config: {retries: 3, on_error: retry, log_level: error}",
    "Executed 8 tests, with 0 failures (0 unexpected) in 0.187 (0.190) seconds",
    "[INFO] BUILD SUCCESS", "** TEST SUCCEEDED **",
    "Chrome Headless (Linux): Executed 230 of 500 (1 FAILED) (0 secs / 0.328 secs)",
    "[INFO] Tests run: 12, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.1 s -- in X",
    "Test suite spec: PASS", "[xUnit.net 00:00:03.12]   Discovered:  WindowLogger.Domain.Tests",
    "rails test test/integration/invoices_test.rb",
])
def test_patterns_ignore_ordinary_lines(line: str) -> None:
    assert builtin_matcher().classify(line) is None


def test_patterns_are_checked() -> None:
    with pytest.raises(ValueError, match="keywords: at least one"):
        SalientPattern(name="x", keywords=())
    with pytest.raises(ValueError, match="line terminator"):
        SalientPattern(name="x", keywords=("a\nb",))
    with pytest.raises(ValueError, match="regex: not a valid regular expression"):
        SalientPattern(name="x", keywords=("a",), regex="(")


def test_lines_are_cleaned_folded_and_clipped() -> None:
    assert clean("\x1b[31mFAILED\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x07") == "FAILED link"
    assert fold("1: shard 0: error: refused (attempt 1/3) at 0x7ffc91a4 in /tmp/a.c:12") == \
        fold("107: shard 106: error: refused (attempt 2/3) at 0x55aa in /src/b.c:99")
    assert fold("error: disk full") != fold("error: disk quota exceeded")
    assert clip("abcdefghij", 10) == "abcdefghij"
    assert clip("abcdefghijk", 9) == "abc … ijk"
    assert clip("x" * 5000, 320).count("x") == 317


# -- the bank against the definition ---------------------------------------------------------

LINE = re.compile(r"([^\r\n]*)(?:\r\n|\r|\n)|([^\r\n]+)\Z")


def by_definition(matcher: Matcher, text: str, region: Omission, keep: int
                  ) -> dict[str, Any]:
    """The groups of *region*, straight from the definition in block.py's docstring: every
    line matched on its first PROBE_CHARS characters (ANSI escapes removed; by the record
    rules when it is a JSON object holding their keyword), a pattern with a ``header`` making
    the line above the salient one; of those lying entirely inside the region, grouped by
    pattern and folded text, each group's count and first *keep* matches, with the lines
    their units keep. (Classifying one line, ``Matcher.match``, is tested on its own, above:
    this checks which lines reach it, and what becomes of them, however the text arrives.)"""
    lines = [(m.start(), m.end(), m.group(1) if m.group(1) is not None else m.group(2))
             for m in LINE.finditer(text)]

    def probe(n: int) -> str:
        return clean(lines[n][2][:PROBE_CHARS])

    groups: dict[str, Any] = {}
    for index, (_, _, body) in enumerate(lines):
        hit = matcher.match(body if len(body) <= 65536 else body[:PROBE_CHARS], len(body))
        if hit is None:
            continue
        if hit.name in matcher.headers:
            headed = matcher.headed(hit, probe(index - 1)) if index else None
            if headed is None:
                continue
            hit, index = headed, index - 1
        start, end, _ = lines[index]
        if start < region.start or end > region.end:
            continue
        units = []
        for unit in matcher.units.get(hit.name, ()):
            view = UnitLines(line=hit.probe,
                             above=[probe(n) for n in range(index - 1, max(index - unit.above,
                                                                          0) - 1, -1)],
                             below=[probe(n) for n in range(index + 1, min(
                                 index + 1 + unit.below, len(lines)))])
            units += [(index + 1 + offset, unit.name) for offset in unit.offsets(view)]
        group = groups.setdefault(hit.key, [hit.rank, 0, []])
        group[1] += 1
        if len(group[2]) < keep:
            group[2].append((index + 1, hit.name, hit.text, tuple(sorted(set(units)))))
    return {key: (rank, count, members) for key, (rank, count, members) in groups.items()}


def as_found(pools: Any) -> dict[str, Any]:
    def row(h: Any) -> tuple[Any, ...]:
        units = sorted({(u.line, u.unit) for u in (*h.above, *h.below)})
        return (h.line, h.pattern, h.text, tuple(units))

    return {pool.key: (pool.rank, pool.count, [row(h) for h in pool.members])
            for pool in pools.groups}


def _hyperscan_installed() -> bool:
    try:
        import hyperscan  # noqa: F401
    except ImportError:
        return False
    return True


#: Both engines find the same lines; each test of the bank runs with both. hyperscan is a
#: dependency wherever it has a wheel (CI's x86-64 among them); elsewhere its runs skip,
#: saying so.
ENGINES = ["python", pytest.param("hyperscan", marks=pytest.mark.skipif(
    not _hyperscan_installed(), reason="hyperscan is not installed (it has no wheel for "
    "this platform): the Hyperscan engine is not tested here"))]


@pytest.fixture(autouse=True)
def _engine_restored() -> Any:
    yield
    patterns_module.ENGINE = "auto"


def bank_for(matcher: Matcher, *, keep: int, window: int, gather: bool) -> StreamHighlights:
    """A bank that never counts instead of classifying (the definition below is the exact
    one; ``tests/test_density.py`` checks what a text dense with matches gives); without
    *gather*, it scans every piece as it comes, however small (as it does with pieces of
    64 KiB), so that short pieces reach the scanner itself."""
    bank = StreamHighlights(matcher, keep=keep, window=window, dense=2**62)
    if not gather:
        bank._batch_chars = 1  # type: ignore[attr-defined]
    return bank


#: Units of every shape: above and below, reaching past the ends, and a header pattern.
TEST_UNITS = (*UNITS, SalientUnit(name="below", patterns=("error", "failed-test"), below=3,
                                  choose=lines_below(r"^\s|^E ", most=2)),
              SalientUnit(name="around", patterns=("panic",), above=2, below=2,
                          choose=lambda lines: [-2, -1, 1, 2]))
TEST_PATTERNS = (*PATTERNS, SalientPattern(name="arrow", keywords=("--> ",),
                                           header=r"^\w+: "))
TEST_RECORDS = make()._pipeline.matcher(None, make().policy(None)).records

salient_lines = st.one_of(
    st.sampled_from(["ok", "", "error: bad", "ValueError: x", "3 failed, 1 passed", "E   x",
                     "panic: y", "FAILED t", "é" * 3, "mirror", "E" * 40, "Ran 3 tests in 1s",
                     "make: *** [all] Error 2", "✕ adds", "exit status 1", "  at x",
                     '  File "a.py", line 3, in f', "    return x", "error: bad", "x: y",
                     " --> a.rs:1:2", "\x1b[31mFAILED\x1b[0m t", "\x1b[1merror\x1b[0m: c",
                     '{"level":"error","msg":"down"}', '{"level":"info","msg":"error: no"}',
                     '{"level":50,"err":{"message":"x"}}', '{"broken": ']),
    st.integers(500, 700).map(lambda n: "error: " + "z" * n),
    # The keyword ends just inside or just outside the probe.
    st.integers(PROBE_CHARS - 12, PROBE_CHARS).map(lambda n: "z" * n + " error: late"),
    st.integers(PROBE_CHARS - 12, PROBE_CHARS + 40).map(
        lambda n: '{"level":"error","pad":"' + "p" * n + '"}'),
)


def feed_as_drawn(bank: StreamHighlights, text: str, data: Any) -> None:
    """Feed *text* to *bank* and close it: whole, as ``process()`` does, or in pieces cut
    where *data* draws, as a stream does."""
    n = len(text)
    if data.draw(st.booleans()):  # as process() feeds it: whole (units run when asked)
        bank.feed(text, final=True)
    else:
        cuts = sorted(set(data.draw(st.lists(st.integers(0, n), max_size=8))))
        for a, b in zip([0, *cuts], [*cuts, n], strict=True):
            bank.feed(text[a:b])
    bank.close()


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
    # A cut's region is whole lines: snap its ends to line starts.
    while start > 0 and text[start - 1] not in "\r\n":
        start -= 1
    while end < n and text[end - 1] not in "\r\n":
        end += 1
    if text[end - 1:end + 1] == "\r\n":
        end += 1
    return Omission(position="middle", start=start, end=end, lines=0,
                    first_line=line_index(text, start) + 1, last_line=0)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=300, deadline=None)
@given(st.lists(salient_lines, min_size=1, max_size=80),
       st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=1, max_size=3),
       st.integers(1, 6), st.booleans(), st.data())
def test_the_bank_finds_the_lines_the_definition_finds(engine: str, lines: list[str],
                                                        ends: list[str], keep: int,
                                                        gather: bool, data: Any) -> None:
    patterns_module.ENGINE = engine
    text = "".join(line + ends[i % len(ends)] for i, line in enumerate(lines * 3))
    text += data.draw(st.sampled_from(["", "error: last", "x\r", "panic: at the end"]))
    n, window = len(text), 300
    matcher = Matcher(TEST_PATTERNS, units=TEST_UNITS, records=TEST_RECORDS)
    bank = bank_for(matcher, keep=keep, window=window, gather=gather)
    feed_as_drawn(bank, text, data)
    region = cut_region(text, window, data)
    if region is not None:
        pools = bank.pools(region, n)
        assert as_found(pools) == by_definition(matcher, text, region, keep)
        assert pools.found == sum(pool.count for pool in pools.groups)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("gather", [False, True])
@pytest.mark.parametrize("size", [1, 2, 3, 5, 8, 13, 37])
def test_a_bank_fed_small_pieces_finds_the_same_lines(size: int, gather: bool,
                                                      engine: str) -> None:
    patterns_module.ENGINE = engine
    # Pieces shorter than the literals looked for, and pieces that end a line early and go
    # on with one: a search must stop at the end of the lines being scanned.
    text = "\rERROR boom\n" + log_with({5: MARKS[99], 6: MARKS[100], 7: MARKS[101],
                                        8: MARKS[102], 30: MARKS[1200]},
                                       total=60) + "ERROR\rValueError: x\r\nE   y"
    region = Omission(position="middle", start=0, end=len(text), lines=0, first_line=1,
                      last_line=0)
    matcher = Matcher(PATTERNS, units=UNITS)
    bank = bank_for(matcher, keep=8, window=10, gather=gather)
    for start in range(0, len(text), size):
        bank.feed(text[start:start + size])
    bank.close()
    found = as_found(bank.pools(region, len(text)))
    assert found == by_definition(matcher, text, region, 8)
    assert any(units for _, _, members in found.values() for *_, units in members)


# Plugin patterns over a small alphabet, so that keywords occur often, and overlap, and their
# characters are common or rare in the text in every proportion.
keyword = st.text(alphabet="abQ é", min_size=1, max_size=4).filter(lambda k: k.strip() == k)
plugin_patterns = st.lists(st.builds(
    SalientPattern, name=st.sampled_from(["p", "q", "r"]),
    keywords=st.lists(keyword, min_size=1, max_size=3), rank=st.integers(0, 2),
    regex=st.sampled_from([None, None, "^a", "b$", "Q.*Q"])), min_size=1, max_size=4)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=200, deadline=None)
@given(plugin_patterns, st.text(alphabet="abQ é\n\r", max_size=60),
       st.integers(1, 3000), st.integers(1, 4), st.booleans(), st.data())
def test_any_patterns_find_the_lines_the_definition_finds(engine: str,
                                                          patterns: list[SalientPattern],
                                                          block: str, repeat: int, keep: int,
                                                          gather: bool, data: Any) -> None:
    patterns_module.ENGINE = engine
    text = (block * repeat)[:60_000] + data.draw(st.text(alphabet="abQ\n", max_size=20))
    if not text:
        return
    window = 200
    units = (SalientUnit(name="u", patterns=("p",), above=2, below=2,
                         choose=lambda lines: [-1, 2]),)
    matcher = Matcher(patterns, units=units)
    bank = bank_for(matcher, keep=keep, window=window, gather=gather)
    step = data.draw(st.sampled_from([7, 4096, 100_000]))
    for a in range(0, len(text), step):
        bank.feed(text[a:a + step])
    bank.close()
    region = cut_region(text, window, data)
    if region is not None:
        assert as_found(bank.pools(region, len(text))) == by_definition(
            matcher, text, region, keep)


# Escape sequences of every kind, and pieces of them, put anywhere: inside keywords, around
# them, cut off by the end of the probe.
escape_pieces = st.sampled_from(["\x1b[31m", "\x1b[0m", "\x1b[1;91m", "\x1b[K", "\x1b[2A",
                                 "\x1b]8;;http://x/error\x07", "\x1b]0;FAIL\x1b\\", "\x1b(B",
                                 "\x1b7", "\x1b", "\x1b[", "\x1b[3", "\x1b]8;;"])


@st.composite
def coloured_line(draw: Any) -> str:
    """A salient-looking line with escape pieces put between any of its characters, padded
    so that some of them fall across the end of the probe."""
    line = draw(st.sampled_from(["error: bad", "FAILED test_x", "E   assert 1", "panic: y",
                                 "Traceback (most recent call last):", " × adds", "ok",
                                 "3 failed, 1 passed", "warning: w", "  error  x"]))
    chars = list(line)
    for _ in range(draw(st.integers(0, 4))):
        chars.insert(draw(st.integers(0, len(chars))), draw(escape_pieces))
    pad: int = draw(st.sampled_from([0, 0, 0, PROBE_CHARS - 12, PROBE_CHARS - 4, PROBE_CHARS]))
    return "z" * pad + "".join(chars)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=300, deadline=None)
@given(st.lists(coloured_line(), min_size=1, max_size=40), st.integers(1, 4), st.data())
def test_escapes_anywhere_in_a_line_find_the_lines_the_definition_finds(
        engine: str, lines: list[str], keep: int, data: Any) -> None:
    # Hyperscan looks in text with escapes for the keywords' cores and their prefixes
    # followed by ESC, not for ESC: every line a keyword is found in once cleaned must
    # still be found.
    patterns_module.ENGINE = engine
    text = "\n".join(lines) + "\n"
    matcher = Matcher(TEST_PATTERNS, units=TEST_UNITS, records=TEST_RECORDS)
    bank = bank_for(matcher, keep=keep, window=100, gather=True)
    bank.feed(text, final=data.draw(st.booleans()))
    bank.close()
    region = Omission(position="middle", start=0, end=len(text), lines=0, first_line=1,
                      last_line=0)
    assert as_found(bank.pools(region, len(text))) == by_definition(matcher, text, region,
                                                                    keep)


CORPUS = Path(__file__).parent / "corpus"


def _visited(text: str, engine: Any) -> list[int]:
    """The indexes of the lines of *text* the engine has classified."""
    seen: list[int] = []
    scan_lines(engine, text, 0, len(text), line_index=0,
               visit=lambda index, *_: seen.append(index))
    return seen


@pytest.mark.skipif(not _hyperscan_installed(), reason="hyperscan is not installed (it has "
                    "no wheel for this platform): its engine is not tested here")
def test_only_lines_an_escape_may_split_a_keyword_in_are_classified() -> None:
    # A real coloured pytest log (tests/corpus): nearly every line holds an escape, few hold
    # a keyword once cleaned. Those few, and lines where a keyword's start stands right
    # before an escape, are classified; not every coloured line.
    text = (CORPUS / "pytest-color-failure-middle.txt").read_text(encoding="utf-8")
    assert "\r" not in text
    truncator = make()
    matcher = truncator._pipeline.matcher("execute_command", truncator.policy("execute_command"))
    lines = text.split("\n")
    keywords = {k for p in matcher.patterns for k in p.keywords} | {
        k for r in matcher.records for k in r.keywords}
    holding = {i for i, line in enumerate(lines)
               if any(k in clean(line[:PROBE_CHARS]) for k in keywords)}
    coloured = {i for i, line in enumerate(lines) if "\x1b" in line}
    visited = _visited(text, patterns_module._HyperscanEngine(sorted(matcher.searched)))
    assert holding and holding <= set(visited)  # every line that can match is classified
    assert len(visited) <= 2 * len(holding) < len(coloured) // 10
    # Control: an engine that looks for the escape itself (the pure-Python one, as Hyperscan
    # did) classifies every coloured line.
    assert coloured <= set(_visited(text, patterns_module._PythonEngine(matcher.literals)))


def test_groups_over_the_cap_are_counted_but_not_shown() -> None:
    lines = [f"error: distinct failure {chr(65 + i % 26)}{i // 26 * 'x'}" for i in
             range(MAX_GROUPS + 50)]
    text = "x\n" * 50 + "\n".join(lines) + "\n" + "x\n" * 50
    bank = StreamHighlights(Matcher(PATTERNS), keep=2, window=20)
    bank.feed(text, final=True)
    bank.close()
    region = Omission(position="middle", start=0, end=len(text), lines=0, first_line=1,
                      last_line=0)
    pools = bank.pools(region, len(text))
    assert len(pools.groups) == MAX_GROUPS and pools.found == MAX_GROUPS + 50
    assert len(in_order(pools, 8)) == 8


# -- output within budget, with the new detectors ----------------------------------------------

corpus_like = st.sampled_from([
    "INFO request handled id=42", "", "  |", "    3 | int x = y;", "      |     ^~~",
    "app.c:3:5: error: 'y' undeclared", "error[E0308]: mismatched types",
    "  --> src/lib.rs:87:5", "   |     ^^^^^ expected `u32`, found `i64`",
    "F821 Undefined name `x`", " --> app.py:7:53", "not ok 3 - totals", "  ---",
    "  location: 'test.js:72:1'", "    +   total: 118", "    -   total: 120", "  ...",
    'Traceback (most recent call last):', '  File "/srv/app.py", line 8, in charge',
    "    return amount / items", "           ~~~~~~~^~~~~~~", "ZeroDivisionError: division by zero",
    '{"level":50,"msg":"payment failed","err":{"message":"ECONNRESET"}}',
    '{"level":30,"msg":"ok"}', "==1==ERROR: AddressSanitizer: heap-buffer-overflow",
    "WRITE of size 17 at 0x6020 thread T0", "    #1 0x5566 in main /src/shard.c:12:5",
    "\x1b[31mFAILED\x1b[0m test_x", "--- FAIL: TestX (0.00s)", "é" * 30, "z" * 900,
    "=== 1 failed, 2 passed in 0.1s ===", "make: *** [all] Error 2",
])


@settings(max_examples=150, deadline=None)
@given(st.lists(corpus_like, min_size=1, max_size=400),
       st.sampled_from(["\n", "\r\n", "\r"]), st.integers(200, 6000),
       st.none() | st.integers(100, 3000), st.none() | st.integers(3, 60),
       st.integers(0, 12), st.sampled_from(["tail", "head", "head_tail"]))
def test_output_fits_the_budget_with_every_detector(lines: list[str], end: str, chars: int,
                                                    max_bytes: int | None,
                                                    max_lines: int | None, highlights: int,
                                                    strategy: str) -> None:
    text = end.join(lines * 4) + end
    truncator = make({"inline_limit": chars, "max_bytes": max_bytes, "max_lines": max_lines,
                      "highlights": highlights, "default_strategy": strategy,
                      "detect_structure": False})
    result = truncator.process(text, tool="t")
    assert truncator.policy("t").budget.admits(measure(result.content))
    with truncator.stream(tool="t") as s:
        for i in range(0, len(text), 997):
            s.write(text[i:i + 997])
    streamed = s.result()
    assert streamed.metadata.details == result.metadata.details
    assert truncator.policy("t").budget.admits(measure(streamed.content))


def test_the_block_is_deterministic() -> None:
    content = log_with({**MARKS, **{i: f"error: retry {i}" for i in range(300, 2000, 9)}})
    blocks = {make({"inline_limit": 4000}).process(content, tool="execute_command")
              .content.split("] ...\n", 1)[1][:2000] for _ in range(3)}
    assert len(blocks) == 1


def test_error_records_of_a_json_lines_log_are_shown_as_records() -> None:
    rows = [json.dumps({"level": 30, "time": 1764100000000 + i, "msg": "request served",
                        "reqId": f"req-{i}"}, separators=(",", ":")) for i in range(3000)]
    stack = "Error: ECONNRESET\\n" + "    at capture (/srv/pay.js:40:11)\\n" * 30
    rows[1600] = ('{"level":50,"time":1764100059200,"err":{"type":"Error","message":'
                  f'"ECONNRESET while capturing payment","stack":"{stack}"}},'
                  '"msg":"capture failed"}')
    rows[1602] = '{"level":60,"time":1764100059274,"msg":"payment worker stopped"}'
    rows[2000] = '{"level":30,"msg":"no error here, \\"error\\" is just a word"}'
    result = make({"inline_limit": 8000}).process("\n".join(rows) + "\n",
                                                  tool="execute_command")
    got = shown(result.content)
    assert sorted(got) == [1601, 1603]
    assert got[1601].startswith('{"level":50,"time":1764100059200,"err":{"type":"Error",'
                                '"message":"ECONNRESET while capturing payment","stack":"')
    assert got[1601].endswith('"msg":"capture failed"}') and "…" in got[1601]
    assert got[1603] == rows[1602]


def test_highlights_are_on_for_every_tool_whose_output_is_cut_as_text() -> None:
    """Except a file's or a diff's contents (source code), which get none unless configured:
    the user's word for them still wins."""
    content = log_with(MARKS)
    truncator = make({"inline_limit": 4000, "artifact_threshold": 10**9})
    for tool in ("execute_command", "my_tool", None):
        assert "highlights from" in truncator.process(content, tool=tool).content, tool
    for tool in ("read_file", "git_diff"):
        assert "highlights from" not in truncator.process(content, tool=tool).content, tool
    configured = make({"inline_limit": 4000, "artifact_threshold": 10**9,
                       "tools": {"read_file": {"highlights": 8}}})
    assert "highlights from" in configured.process(content, tool="read_file").content
    listing = json.dumps([{"name": f"file{i}.txt", "note": "error: none"} for i in range(900)])
    assert "highlights from" not in truncator.process(listing, tool="list_directory").content


def test_config_show_says_which_tools_get_highlights() -> None:
    from click.testing import CliRunner

    from truncation_core.cli import cli

    done = CliRunner().invoke(cli, ["config", "show", "--json"])
    assert done.exit_code == 0, done.output
    rows = {r["key"]: (r["value"], r["source"]) for r in json.loads(done.output)
            if r["key"].startswith("highlights.")}
    assert rows["highlights.execute_command"] == (8, "on: adaptive cuts text")
    assert rows["highlights.read_file"] == (0, "off (highlights: 0)")
    assert rows["highlights.list_directory"][1].startswith("records: element")
    assert rows["highlights.(any other tool)"][0] == 8


def test_under_an_artifact_reference_the_preview_carries_the_highlights() -> None:
    """Over artifact_threshold the preview is all the model sees: the block may take more
    of it than of an inline cut, and the whole view stays within the inline limit."""
    marks = {i: f"src/mod{i}.c:3:5: error: 'x{i}' undeclared" for i in range(300, 2700, 300)}
    content = log_with(marks, total=3000)
    assert len(content) > 50_000
    truncator = make()
    result = truncator.process(content, tool="execute_command")
    assert result.content.startswith("[Artifact: ")
    block = [line for line in result.content.splitlines() if BLOCK.match(line)]
    preview = truncator.policy("execute_command").preview_limit
    assert len(block) == len(marks)  # every error, though 8 of them pass a quarter of 2,000
    assert len("\n".join(block)) > preview // 4
    assert len(result.content) <= truncator.policy("execute_command").inline_limit


def test_the_built_in_detectors_import_only_what_a_plugin_may() -> None:
    """The detector modules use the hooks exactly as a third party would: every name they
    import from the package is one truncation_core.plugin exports (taken from the module it
    lives in, below the built-ins: tests/test_layering.py)."""
    import ast
    from pathlib import Path

    import truncation_core.builtins as builtins
    from truncation_core import plugin

    modules = sorted(Path(builtins.__file__).parent.glob("salient*.py"))
    assert len(modules) == 12
    for path in modules:
        imported = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.update((node.module, alias.name) for alias in node.names)
            elif isinstance(node, ast.Import):
                imported.update((alias.name, "") for alias in node.names)
        ours = {(m, name) for m, name in imported if m.split(".")[0] == "truncation_core"}
        assert ours, path.name
        assert all(plugin._EXPORTS.get(name) == m for m, name in ours), (path.name, ours)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("piece", [1, 2, 3, 5, 7, 64])
@pytest.mark.parametrize("accent", ["", "é", "😀"])
def test_text_scanned_in_pieces_finds_the_lines_the_definition_finds(
        engine: str, piece: int, accent: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Text whose bytes are not at hand is encoded and scanned a piece at a time (no copy of
    the whole beside it): a keyword across two pieces is still found, once."""
    patterns_module.ENGINE = engine
    monkeypatch.setattr(patterns_module, "_PIECE_CHARS", piece)
    text = accent + log_with({3: MARKS[99], 4: MARKS[100], 9: MARKS[1200]}, total=20) \
        + f"{accent}ERROR boom{accent}\npanic: at the end"
    region = Omission(position="middle", start=0, end=len(text), lines=0, first_line=1,
                      last_line=0)
    matcher = Matcher(PATTERNS, units=UNITS)
    bank = bank_for(matcher, keep=8, window=10, gather=True)
    bank.feed(text)
    bank.close()
    assert as_found(bank.pools(region, len(text))) == by_definition(matcher, text, region, 8)


# -- ranked by information (issue 28) ---------------------------------------------------------


def unittest_run(errors: int) -> str:
    """``python -m unittest -v`` of a client library after a keyword was renamed: *errors*
    tests each raise the same TypeError (the argument they pass varies), one an
    AttributeError, in a run long enough to be cut."""
    names = [f"test_create_{thing}_{case}" for case in ("basic", "defaults", "nested", "bulk")
             for thing in ("collection", "document", "user", "role", "token", "webhook",
                           "job", "bucket", "index", "alias", "policy", "quota")][:errors]
    arguments = ["type", "kind", "owner", "scope"]
    lines = [f"{name} (tests.test_client.ClientTest.{name}) ... ERROR" for name in names]
    lines += [f"test_ping_{i} (tests.test_client.PingTest.test_ping_{i}) ... ok"
              for i in range(40)]
    lines.append("test_refresh (tests.test_client.SessionTest.test_refresh) ... ERROR")
    lines += ["", "=" * 70, "ERROR: test_refresh (tests.test_client.SessionTest.test_refresh)",
              "-" * 70, "Traceback (most recent call last):",
              '  File "/home/ci/sdk/tests/test_client.py", line 512, in test_refresh',
              "    self.session.token.refresh()",
              "AttributeError: 'NoneType' object has no attribute 'refresh'"]
    for n, name in enumerate(names):
        lines += ["", "=" * 70, f"ERROR: {name} (tests.test_client.ClientTest.{name})",
                  "-" * 70, "Traceback (most recent call last):",
                  f'  File "/home/ci/sdk/tests/test_client.py", line {40 + 9 * n}, in {name}',
                  f'    self.client.create(name="n{n}", {arguments[n % 4]}="x")',
                  "TypeError: Client.create() got an unexpected keyword argument "
                  f"'{arguments[n % 4]}'"]
    lines += ["", "-" * 70, f"Ran {len(names) + 41} tests in 0.412s", "",
              f"FAILED (errors={len(names) + 1})"]
    return "\n".join(lines) + "\n"


def test_a_failures_cause_is_shown_before_the_status_lines_that_name_tests() -> None:
    """Forty tests fail with the same TypeError: eight slots spent on ``test_x ... ERROR``
    and ``ERROR: test_x (...)`` lines (each a group of one) say only which tests failed;
    the TypeError says why, and the AttributeError of the one other test why that failed."""
    run = unittest_run(40)
    result = make({"inline_limit": 4000, "artifact_threshold": 10**9}).process(
        run, tool="execute_command")
    got = shown(result.content)
    causes = [text for text in got.values() if text.startswith(("TypeError", "AttributeError"))]
    assert any(text.startswith("TypeError: Client.create() got an unexpected keyword argument")
               and text.endswith(" like this]") for text in causes), got
    assert any(text.startswith("AttributeError: 'NoneType'") for text in causes), got


def test_a_template_seen_many_times_is_shown_once_with_its_count() -> None:
    """The TypeError's quoted argument is masked like a number: ten variants are one
    template, shown once with its count; with one slot, the rare AttributeError wins."""
    run = unittest_run(40)
    details = make({"inline_limit": 4000, "artifact_threshold": 10**9}).process(
        run, tool="execute_command").metadata.details["highlights"]
    typeerrors = [h for h in details if h["text"].startswith("TypeError") and "unit" not in h]
    assert len(typeerrors) == 1 and typeerrors[0]["count"] >= 30
    one = shown(make({"inline_limit": 4000, "highlights": 1, "artifact_threshold": 10**9}
                     ).process(run, tool="execute_command").content)
    assert [text for text in one.values() if not text.startswith(("  File", "    "))] == [
        "AttributeError: 'NoneType' object has no attribute 'refresh'"]
    assert fold("KeyError: 'user_id'") == fold("KeyError: 'org_id'")
    assert fold("error: don't retry") != fold("error: can't retry")  # apostrophes stay


def test_a_file_location_and_a_backquoted_name_are_masked_like_paths_and_quoted_values() -> None:
    """A location without a slash (``cart_test.go:7:``, ``main.c:12:5:``) is a path like
    ``src/main.c:12:5:``, and a name in backquotes (ruff's and rustc's quoting) a value like
    one in single quotes: lines that differ only there are one template."""
    assert fold("billing_test.go:169: error: upstream timeout on attempt 1, retrying") == \
        fold("cart_test.go:7: error: upstream timeout on attempt 2, retrying")
    assert fold("main.c:12:5: error: 'x' undeclared") == fold("util.c:9:1: error: 'y' undeclared")
    assert fold("F401 [*] `sys` imported but unused") == fold("F401 [*] `os` imported but unused")
    # What the line says still tells templates apart; a phrase in backquotes is no value.
    assert fold("F401 [*] `sys` imported but unused") != fold("F821 Undefined name `sys`")
    assert fold("error: `cargo build` failed") != fold("error: `cargo test` failed")
    assert fold("error: timeout after 3.5s") == fold("error: timeout after 4.0s")
    assert fold("error: see example.com for help") != fold("error: see example.org for help")


def go_run_with_retries(retries: int) -> str:
    """``go test -v ./...`` of three packages whose tests log a retried call from their own
    test file, *retries* times each; one test of the second package fails."""
    lines = []
    for package, file in (("billing", "billing_test.go"), ("cart", "cart_test.go"),
                          ("shipping", "shipping_test.go")):
        for i in range(retries):
            lines += [f"=== RUN   TestRoute{i:03d}",
                      f"    {file}:{3 * i + 7}: error: upstream timeout on attempt 1, retrying",
                      f"    {file}:{3 * i + 8}: route {i}: 200 OK in {i % 17}ms",
                      f"--- PASS: TestRoute{i:03d} (0.00s)"]
            if package == "cart" and i == retries // 2:
                lines += [f"=== RUN   TestTotal{i:03d}",
                          f"    {file}:524: invoice total for route {i}: got 41, want 42",
                          f"--- FAIL: TestTotal{i:03d} (0.00s)"]
        failed = package == "cart"
        lines += ["FAIL" if failed else "PASS",
                  f"{'FAIL' if failed else 'ok  '}\texample.com/shop/{package}\t0.0{len(file)}s"]
    return "\n".join(lines) + "\n"


def test_one_retry_logged_from_several_files_takes_one_slot() -> None:
    """The same retry line logged from three test files is one template: shown once with
    the count of all of them, not once per file (three slots that say the same)."""
    result = make({"inline_limit": 4000, "artifact_threshold": 10**9}).process(
        go_run_with_retries(150), tool="execute_command")
    details = result.metadata.details["highlights"]
    retries = [h for h in details if "upstream timeout" in h["text"]]
    assert len(retries) == 1, shown(result.content)
    assert retries[0]["count"] >= 3 * 150 - 40  # (the kept head and tail show a few)
    assert any("got 41, want 42" in h["text"] for h in details)


def mochitest_log() -> str:
    """A mozharness job: every retry of the harness logs its configuration, a dict that
    mentions errors; one test fails in the middle, in the harness's own format."""
    lines = []
    for attempt in range(1, 31):
        stamp = f"[task 2026-11-02T10:{attempt:02d}:01.123Z] 10:{attempt:02d}:01"
        lines.append(f"{stamp}     INFO - Using config: {{'retries': 5, 'on_error': 'retry', "
                     f"'log_level': 'ERROR', 'error_summary_file': '/builds/worker/logs/"
                     f"errorsummary.log', 'attempt': {attempt}}}")
        lines += [f"{stamp}     INFO - TEST-START | dom/media/test/test_{attempt}_{k}.html"
                  for k in range(40)]
        lines += [f"{stamp}     INFO - TEST-OK | dom/media/test/test_{attempt}_{k}.html | "
                  f"took {100 + k}ms" for k in range(40)]
        if attempt == 17:
            lines.append(f"{stamp}     INFO - TEST-UNEXPECTED-FAIL | dom/media/test/"
                         "test_playback_rate.html | playbackRate should be 2 - got 1, "
                         "expected 2")
    lines.append("[task 2026-11-02T10:31:00.000Z] 10:31:00     INFO - Passed: 2399")
    return "\n".join(lines) + "\n"


def test_data_lines_take_no_slots_and_the_harness_failure_wins() -> None:
    result = make({"inline_limit": 6000, "artifact_threshold": 10**9}).process(
        mochitest_log(), tool="execute_command")
    got = shown(result.content)
    assert any("TEST-UNEXPECTED-FAIL | dom/media/test/test_playback_rate.html" in text
               for text in got.values()), got
    assert not any("Using config" in text for text in got.values()), got


@pytest.mark.parametrize("line", [
    "INFO - Using config: {'retries': 5, 'on_error': 'retry', 'log_level': 'ERROR'}",
    '    "message": "ERROR: upstream timed out after 30s",',
    "  'last_error': 'fatal: the remote end hung up unexpectedly',",
    "retry policy [{'on': 'ERROR', 'wait': 2}, {'on': 'FATAL', 'wait': 0}]",
])
def test_a_keyword_only_in_the_data_a_line_carries_does_not_match(line: str) -> None:
    assert builtin_matcher().classify(line) is None


@pytest.mark.parametrize(("line", "pattern"), [
    ('APIError: API error occurred: Status 400. Body: {"detail":"Username already exists"}',
     "exception"),
    ("ERROR: request failed: {'detail': 'not found'}", "error"),
    ("E   AssertionError: assert {'status': 'error'} == {'status': 'ok'}", "exception"),
    ("# { total: 120, pass: 119, fail: 1 }", "tap-summary"),
    ("[task 2026-11-02T10:17:01.123Z] 10:17:01     INFO - TEST-UNEXPECTED-FAIL | "
     "dom/media/test/test_playback_rate.html | got 1, expected 2", "mozlog-unexpected"),
    ("PROCESS-CRASH | dom/media/test/test_a.html | application crashed [@ mozalloc_abort]",
     "mozlog-unexpected"),
])
def test_a_keyword_outside_the_data_still_matches(line: str, pattern: str) -> None:
    found = builtin_matcher().classify(line)
    assert found is not None and found.name == pattern


@pytest.mark.parametrize(("line", "status"), [
    ("test_create_user (tests.test_client.ClientTest.test_create_user) ... ERROR", True),
    ("ERROR: test_create_user (tests.test_client.ClientTest.test_create_user)", True),
    ("FAIL: test_total (tests.test_invoice.InvoiceTest.test_total)", True),
    ("FAILED tests/test_api.py::test_login", True),
    ("--- FAIL: TestParse/empty_input (0.00s)", True),
    ("test tests::it_works ... FAILED", True),
    ("ERROR tests/test_models.py", True),
    ("FAILED tests/test_api.py::test_login - AssertionError: 401 != 200", False),
    ("TypeError: Client.create() got an unexpected keyword argument 'type'", False),
    ("AssertionError", False),
    ("main.c:3:5: error: expected ';' before 'return'", False),
])
def test_status_lines_that_only_name_a_test_are_told_from_causes(line: str,
                                                                 status: bool) -> None:
    assert names_only(line) is status
