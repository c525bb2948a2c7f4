"""Logs dense with matches: lines are classified once per shape, and the bank still finds what
the definition says (``tests/test_salient.py``'s ``by_definition``), for ``process`` and
streams alike, with both engines."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_salient import (
    ENGINES,
    PATTERNS,
    TEST_PATTERNS,
    TEST_RECORDS,
    TEST_UNITS,
    UNITS,
    as_found,
    bank_for,
    builtin_matcher,
    by_definition,
    cut_region,
)

from truncation_core.highlights import patterns as patterns_module
from truncation_core.highlights.bank import StreamHighlights
from truncation_core.highlights.patterns import Matcher, SalientPattern, _digits_alike


@pytest.fixture(autouse=True)
def _engine_restored() -> Any:
    yield
    patterns_module.ENGINE = "auto"


# -- what a line's match is taken to depend on ---------------------------------------------


@pytest.mark.parametrize(("regex", "alike"), [
    (r"\b[1-9]\d* (?:passed|failed)\b", True),  # the digits 1-9 all in, or all out
    (r"[0-9a-f]{8,}|\d+|[^0-9]|\w+\s\S", True),
    (r"(?i)exit code:? \d|^E {3}|(?<=[\s(])error:|(?=x)\d", True),
    (r"exit code 2", False),  # a literal digit
    (r"[1-5]", False),  # some of them
    (r"[^3]", False),
    (r"(\d)\1", False),  # a back-reference: equal digits
    (r"(a)?(?(1)b|c)", False),  # a conditional: not known here
])
def test_a_regex_that_can_tell_digits_apart_is_found(regex: str, alike: bool) -> None:
    # (re's parser is private: this fails, rather than every shape keeping its digits
    # silently, should it change.)
    assert _digits_alike(regex) is alike


def test_the_built_in_patterns_cannot_tell_the_digits_apart() -> None:
    matcher = builtin_matcher()
    assert matcher._digits_alike  # (rails' "Completed 5\d\d " is kept apart by its keyword)
    assert matcher.shape("Completed 500 Internal Server Error in 12ms") == (
        "Completed 500 Internal Server Error in 12ms")
    assert matcher.shape("src/net/sock.c:88:13: error: 'sock' undeclared (line 2315)") == (
        matcher.shape("lib/io/file.c:17:92: error: 'sock' undeclared (line 1999)"))


@pytest.mark.parametrize(("line", "other", "same"), [
    # digits 1-9 alike, 0 kept (it starts 0x)
    ("error: retry 3 of 5", "error: retry 4 of 9", True),
    ("error: at 0x1f", "error: at 1x1f", False),
    # a leading path keeps its extension, with the line and column
    ("a/b/c.py:12:5: error: x", "d/e.py:31:2: error: x", True),
    ("a/b/c.py:12:5: error: x", "a/b/c.go:12:5: error: x", False),
    ("a/b/c.py:12:5: error: x", "a/b/c.py:123:5: error: x", False),
    # only a path: a first word without a slash is kept whole
    ("c.py:12:5: error: x", "d.py:12:5: error: x", False),
    # not a single word: kept whole
    ("a/b\tc d error: x", "a/e\tc d error: x", False),
    # escapes and lines starting with NUL are their own shape
    ("\x1b[1ma/b.c:1:2: error: x", "\x1b[1ma/b.c:1:3: error: x", False),
    ("\x00.c:1:1: error: x", "a/b.c:1:1: error: x", False),
])
def test_lines_of_a_shape_differ_only_in_digits_and_a_leading_path(line: str, other: str,
                                                                   same: bool) -> None:
    matcher = Matcher(PATTERNS, units=UNITS)
    assert (matcher.shape(line) == matcher.shape(other)) is same


def test_a_pattern_that_tells_digits_apart_keeps_them_in_every_shape() -> None:
    strict = Matcher([SalientPattern(name="code-2", keywords=("exit",), regex=r"exit 2")])
    assert not strict._digits_alike
    assert strict.shape("exit 2") != strict.shape("exit 3")
    # ... unless all its keywords hold a digit: lines holding one are their own shape
    keyed = Matcher([SalientPattern(name="c5", keywords=("Completed 5",), regex=r"5\d\d"),
                     *PATTERNS])
    assert keyed._digits_alike
    assert keyed.shape("Completed 503 in 2ms") == "Completed 503 in 2ms"
    assert keyed.shape("Completed 203 in 2ms") == "Completed 203 in 2ms"


# -- the bank, on lines that share shapes ----------------------------------------------------

#: Lines that share shapes: paths and digits vary, and what is salient about them too.
_paths = st.sampled_from(["src/net/sock.c", "lib/a.b/io.c", "x/y", "C:\\w\\p.cs", "main.c",
                          "a/FAILED.c", "pkg/calc.go", "t/test_x.py"])
_messages = st.sampled_from([
    "error: 'sock' undeclared", "warning: unused variable 'n' [-Wunused-variable]",
    "error: expected ';'", "note: here", "undefined: fee", "FAILED", "ERROR 3 of 4",
    "3 failed, 1 passed", "0 failed, 2 passed", "exit status 2", "ok", "error[E0308]: x",
])
dense_lines = st.one_of(
    st.builds(lambda p, r, c, m: f"{p}:{r}:{c}: {m}", _paths, st.integers(0, 2000),
              st.integers(0, 99), _messages),
    st.builds(lambda m, n: m.replace("3", str(n)), _messages, st.integers(0, 10**6)),
    st.sampled_from(["  13 |     int n = f(3);", "      |         ^~~", "make: *** [all] Error 2",
                     "Completed 503 in 4ms", "Completed 200 in 4ms", "E   assert 1 == 2"]),
)


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=200, deadline=None)
@given(st.lists(dense_lines, min_size=1, max_size=60), st.integers(1, 40), st.integers(1, 4),
       st.booleans(), st.data())
def test_lines_sharing_shapes_are_found_as_the_definition_finds_them(
        engine: str, lines: list[str], repeat: int, keep: int, gather: bool,
        data: Any) -> None:
    patterns_module.ENGINE = engine
    text = "\n".join(lines * repeat) + data.draw(st.sampled_from(["", "\n", "\r\nerror: x"]))
    window = 300
    matcher = Matcher((*TEST_PATTERNS, SalientPattern(
        name="rails-500", keywords=("Completed 5",), regex=r"^Completed 5\d\d ")),
        units=TEST_UNITS, records=TEST_RECORDS)
    bank = bank_for(matcher, keep=keep, window=window, gather=gather)
    if data.draw(st.booleans()):
        bank.feed(text, final=True)
    else:
        step = data.draw(st.sampled_from([5, 333, 4096]))
        for at in range(0, len(text), step):
            bank.feed(text[at:at + step])
    bank.close()
    region = cut_region(text, window, data)
    if region is not None:
        pools = bank.pools(region, len(text))
        assert as_found(pools) == by_definition(matcher, text, region, keep)
        assert pools.found == sum(pool.count for pool in pools.groups)


def test_a_dense_log_is_classified_once_per_shape() -> None:
    # 3,000 diagnostics in 300 files, of 13 messages: each shape (a message, with line and
    # column numbers of so many digits) is classified once; before shapes, every line was.
    messages = [f"warning: unused variable 'v{k}' [-Wunused-variable]" for k in range(7)] + [
        f"error: 'v{k}' undeclared (first use in this function)" for k in range(6)]
    text = "".join(f"src/m{f % 7}/file{f}.c:{f * 13 % 997 + 1}:{f % 40 + 1}: "
                   f"{messages[(f + k) % len(messages)]}\n"
                   for f in range(300) for k in range(10))
    matcher = Matcher(PATTERNS, units=UNITS)
    calls = 0
    classify = matcher.match

    def counting(line: str, length: int) -> Any:
        nonlocal calls
        calls += 1
        return classify(line, length)

    matcher.match = counting  # type: ignore[method-assign]
    bank = StreamHighlights(matcher, keep=8, window=2000)
    bank.feed(text, final=True)
    bank.close()
    shapes = {matcher.shape(line) for line in text.splitlines()}
    assert calls == len(shapes) <= 100 < text.count("\n") == 3000
