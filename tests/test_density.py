"""Logs dense with matches: lines are classified once per shape, and the bank still finds what
the definition says (``tests/test_salient.py``'s ``by_definition``), for ``process`` and
streams alike, with both engines."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_salient import (
    ENGINES,
    LINE,
    PATTERNS,
    TEST_PATTERNS,
    TEST_RECORDS,
    TEST_UNITS,
    UNITS,
    _hyperscan_installed,
    as_found,
    bank_for,
    builtin_matcher,
    by_definition,
    cut_region,
    feed_as_drawn,
    make,
    salient_lines,
)

from truncation_core.highlights import bank as bank_module
from truncation_core.highlights import patterns as patterns_module
from truncation_core.highlights.bank import DENSE_MATCHES, RARE_LINES, StreamHighlights
from truncation_core.highlights.lines import clean
from truncation_core.highlights.patterns import PROBE_CHARS, Matcher, _digits_alike
from truncation_core.types.cuts import Omission
from truncation_core.types.salient import SalientPattern, UnitLines

CORPUS = Path(__file__).parent / "corpus"


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
    # a leading path keeps its extension, and what follows but digits
    ("a/b/c.py:12:5: error: x", "d/e.py:31:2: error: x", True),
    ("a/b/c.py:12:5: error: x", "a/b/c.go:12:5: error: x", False),
    ("a/b/c.py:12:5: error: x", "a/b/c.py:1230:5: error: x", True),
    ("a/b/c.py:12:5: error: x", "a/b/c.py(12,5): error: x", False),
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
    # 3,000 diagnostics in 300 files, of 13 messages: each shape (a message) is classified
    # once; before shapes, every line was.
    messages = [f"warning: unused variable '{v}' [-Wunused-variable]" for v in "abcdefg"] + [
        f"error: '{v}' undeclared (first use in this function)" for v in "abcdef"]
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
    assert calls == len(shapes) == len(messages) < text.count("\n") == 3000


# -- a text dense with matches: counted past a number of matches ---------------------------


def by_definition_dense(matcher: Matcher, text: str, region: Omission, keep: int, dense: int,
                        rare: int) -> tuple[dict[str, Any], int]:
    """:func:`by_definition`, for a text that may get dense: once *dense* lines have matched
    (in line order), a line whose first PROBE_CHARS characters, as they are, hold keywords is
    matched only while one of them has been held by fewer than *rare* such lines since; the
    others are counted (the second value: those lying in the region)."""
    lines = [(m.start(), m.end(), m.group(1) if m.group(1) is not None else m.group(2))
             for m in LINE.finditer(text)]

    def probe(n: int) -> str:
        return clean(lines[n][2][:PROBE_CHARS])

    groups: dict[str, Any] = {}
    matches, counted, taken = 0, 0, {}  # type: ignore[var-annotated]
    for index, (start, end, body) in enumerate(lines):
        if matches >= dense:
            held = [k for k in matcher.keywords if k in body[:PROBE_CHARS]]
            if not held:
                continue
            if all(taken.get(k, 0) >= rare for k in held):
                counted += region.start <= start and end <= region.end
                continue
            for k in held:
                taken[k] = taken.get(k, 0) + 1
        hit = matcher.match(body if len(body) <= 65536 else body[:PROBE_CHARS], len(body))
        if hit is None:
            continue
        at = index
        if hit.name in matcher.headers:
            headed = matcher.headed(hit, probe(index - 1)) if index else None
            if headed is None:
                continue
            hit, at = headed, index - 1
        matches += 1
        first, last, _ = lines[at]
        if first < region.start or last > region.end:
            continue
        units = []
        for unit in matcher.units.get(hit.name, ()):
            view = UnitLines(line=hit.probe,
                             above=[probe(n) for n in range(at - 1, max(at - unit.above, 0) - 1,
                                                            -1)],
                             below=[probe(n) for n in range(at + 1, min(at + 1 + unit.below,
                                                                        len(lines)))])
            units += [(at + 1 + offset, unit.name) for offset in unit.offsets(view)]
        group = groups.setdefault(hit.key, [hit.rank, 0, []])
        group[1] += 1
        if len(group[2]) < keep:
            group[2].append((at + 1, hit.name, hit.text, tuple(sorted(set(units)))))
    return ({key: (rank, n, members) for key, (rank, n, members) in groups.items()},
            counted)


def test_the_dense_definition_is_the_plain_one_below_dense_matches() -> None:
    text = "\n".join(["error: a", "ok", "FAILED t", "error: a", "3 failed, 1 passed"] * 20)
    matcher = Matcher(PATTERNS, units=UNITS)
    region = Omission(position="middle", start=0, end=len(text), lines=0, first_line=1,
                      last_line=0)
    assert by_definition_dense(matcher, text, region, 3, 10**9, 1) == (
        by_definition(matcher, text, region, 3), 0)
    groups, counted = by_definition_dense(matcher, text, region, 3, 10, 2)
    # (every line holding a keyword here matches: each is classified or counted)
    assert counted > 0 and sum(n for _, n, _ in groups.values()) + counted == 80


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(salient_lines, dense_lines), min_size=1, max_size=50),
       st.integers(1, 30), st.integers(1, 4), st.integers(1, 60), st.integers(1, 3),
       st.booleans(), st.data())
def test_a_dense_text_is_found_as_the_definition_finds_it(
        engine: str, lines: list[str], repeat: int, keep: int, dense: int, rare: int,
        gather: bool, data: Any) -> None:
    patterns_module.ENGINE = engine
    ends = data.draw(st.sampled_from([["\n"], ["\n"], ["\r\n", "\n"], ["\r"]]))
    text = "".join(line + ends[i % len(ends)] for i, line in enumerate(lines * repeat))
    text += data.draw(st.sampled_from(["", "error: last", "x\r"]))
    window = 300
    matcher = Matcher(TEST_PATTERNS, units=TEST_UNITS, records=TEST_RECORDS)
    bank = StreamHighlights(matcher, keep=keep, window=window, dense=dense, rare=rare)
    if not gather:
        bank._batch_chars = 1  # type: ignore[attr-defined]
    feed_as_drawn(bank, text, data)
    pools = pools_as_defined(bank, matcher, text, window, data, keep, dense, rare)
    if pools is not None:
        assert pools.found == sum(pool.count for pool in pools.groups) + pools.counted


def pools_as_defined(bank: StreamHighlights, matcher: Matcher, text: str, window: int,
                     data: Any, keep: int, dense: int, rare: int) -> Any:
    """The pools *bank* gives for a region drawn like a cut's, checked against the
    definition (the groups, and the lines counted past ``dense``); None when the drawn
    region is empty."""
    region = cut_region(text, window, data)
    if region is None:
        return None
    pools = bank.pools(region, len(text))
    groups, counted = by_definition_dense(matcher, text, region, keep, dense, rare)
    assert as_found(pools) == groups
    assert pools.counted == counted
    return pools


def _request_log(lines: int) -> str:
    """Every line an ERROR that differs from the others by a request id: every line its
    own shape."""
    def request(i: int) -> str:  # (letters: a shape keeps them)
        return "".join("abcdefghijklmnopqrstuvwxyz"[i // 26**k % 26] for k in range(4))

    return "".join(f"2026-03-02T10:{i // 60 % 60:02d}:{i % 60:02d}Z ERROR request "
                   f"{request(i)} failed: upstream timeout\n" for i in range(lines))


def _counting_matcher() -> tuple[Matcher, list[int]]:
    """The built-in patterns, with their classifier counting its calls."""
    matcher = Matcher(PATTERNS, units=UNITS)
    calls = [0]
    classify = matcher.match

    def counting(line: str, length: int) -> Any:
        calls[0] += 1
        return classify(line, length)

    matcher.match = counting  # type: ignore[method-assign]
    return matcher, calls


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("whole", [True, False])
def test_a_dense_text_classifies_a_bounded_number_of_lines(engine: str, whole: bool) -> None:
    # 30,000 lines, each its own shape (and, control, as many classified without a bound);
    # with dense=400, rare=4: at most 400 + 4 per keyword, however long the text.
    patterns_module.ENGINE = engine
    text = _request_log(30_000)
    matcher, calls = _counting_matcher()
    bound = 400 + 4 * len(matcher.keywords)
    for dense, most in ((400, bound), (10**9, 30_000)):
        calls[0] = 0
        bank = StreamHighlights(matcher, keep=8, window=5000, dense=dense, rare=4)
        if whole:
            bank.feed(text, final=True)
        else:
            for at in range(0, len(text), 65_536):
                bank.feed(text[at:at + 65_536])
        bank.close()
        region = Omission(position="middle", start=0, end=len(text), lines=0, first_line=1,
                          last_line=0)
        pools = bank.pools(region, len(text))
        assert pools.found == 30_000  # every line: classified or counted
        assert calls[0] <= most
    assert calls[0] == 30_000  # (the control)


def test_no_output_of_the_corpus_comes_near_being_counted() -> None:
    # (Lowering DENSE_MATCHES so far that the corpus is counted is a change of the view
    # the corpus' recall and the compare_streams.py check would not show by themselves.)
    matcher = builtin_matcher()
    most = 0
    for path in sorted(CORPUS.glob("*.txt")):
        bank = StreamHighlights(matcher, keep=8, window=64_000)
        bank.feed(path.read_text(encoding="utf-8", errors="replace"), final=True)
        bank.close()
        assert not bank._counting
        most = max(most, bank._matches)
    assert 500 < most < DENSE_MATCHES // 2
    assert RARE_LINES <= 64


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=200, deadline=None)
@given(st.lists(dense_lines, min_size=1, max_size=40), st.integers(1, 40), st.integers(1, 4),
       st.integers(1, 40), st.integers(1, 3), st.sampled_from([64, 1000, 1 << 20]),
       st.data())
def test_lines_counted_a_piece_at_a_time_are_found_as_the_definition_finds_them(
        engine: str, lines: list[str], repeat: int, keep: int, dense: int, rare: int,
        piece: int, data: Any) -> None:
    # Lines ending with "\n", none long: with Hyperscan, counted in bulk, in pieces of a
    # quarter of `piece` bytes and up to `piece` (a line more or less), scanned again when a
    # keyword stops being rare, and visited near the windows.
    patterns_module.ENGINE = engine
    text = "".join(line + "\n" for line in lines * repeat)
    n, window = len(text), data.draw(st.sampled_from([50, 300, 5000]))
    matcher = Matcher(TEST_PATTERNS, units=TEST_UNITS, records=TEST_RECORDS)
    bank = StreamHighlights(matcher, keep=keep, window=window, dense=dense, rare=rare)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bank_module, "_COUNT_BYTES", piece)
        patch.setattr(bank_module, "_FIRST_COUNT_BYTES", max(1, piece // 4))
        if data.draw(st.booleans()):
            bank.feed(text, final=True)
        else:
            step = data.draw(st.sampled_from([777, 4096, 65_536]))
            for at in range(0, n, step):
                bank.feed(text[at:at + step])
        bank.close()
    pools_as_defined(bank, matcher, text, window, data, keep, dense, rare)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_dense_stream_skims_and_ends_as_process_does(engine: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # A 3 MB build log, dense past 300 matches: streamed in chunks of every size, as bytes
    # (then chunks between the first lines and the last window are counted from their bytes),
    # it ends as process() of the text does, content and metadata.
    patterns_module.ENGINE = engine
    monkeypatch.setattr(bank_module, "DENSE_MATCHES", 300)
    monkeypatch.setattr(bank_module, "RARE_LINES", 4)
    rows = []
    for i in range(40_000):
        name = "".join("abcdefghij"[i // 10**k % 10] for k in range(2))  # (100 names)
        rows.append(f"src/m{i % 9}/f{i % 700}.c:{i % 997}:{i % 61}: "
                    f"{'error' if i % 7 == 0 else 'warning'}: unused variable \u2018{name}\u2019")
        if i in (15_000, 31_000):
            rows.append("/usr/bin/ld: main.o: undefined reference to `run_loop'")
    text = "\n".join(rows) + "\n"
    data = text.encode()
    skims = []
    skim = bank_module.StreamHighlights.skim

    def counting_skim(self: Any, raw: bytes, **kwargs: Any) -> bool:
        taken = skim(self, raw, **kwargs)
        skims.append(taken and self._counting)
        return taken

    monkeypatch.setattr(bank_module.StreamHighlights, "skim", counting_skim)
    # (tail: adaptive, execute_command's default, outlines a whole text but not a stream
    # longer than its ends, by design; the blocks are what is compared here.)
    truncator = make({"tools": {"execute_command": {"strategy": "tail"}}})
    whole = truncator.process(text, tool="execute_command")
    assert "[highlights from the omitted part" in whole.content
    # A rare kind, late, is shown: it ranks before the groups counted only in part (each of
    # which was seen once before counting began)
    assert "/usr/bin/ld: main.o: undefined reference to `run_loop'" in [
        line["text"] for line in whole.metadata.details["highlights"]]
    for size in (1 << 20, 300_007, (1 << 18) + 1):
        with truncator.stream(tool="execute_command") as stream:
            for at in range(0, len(data), size):
                stream.write(data[at:at + size])
        result = stream.result()
        assert result.content.replace(result.metadata.artifact_id or "", "") == \
            whole.content.replace(whole.metadata.artifact_id or "", "")
    if engine == "hyperscan":
        assert any(skims)  # (chunks were skimmed while counting)


def test_groups_a_dense_text_counted_in_part_say_so_and_come_after_the_others() -> None:
    text = "".join(["error: disk full on node 7\n"] * 60 + ["Segmentation fault\n"] +
                   ["error: disk full on node 9\n"] * 60 + ["ok\n"] * 50)
    bank = StreamHighlights(Matcher(PATTERNS, units=UNITS), keep=3, window=10, dense=20,
                            rare=2)
    bank.feed(text, final=True)
    bank.close()
    region = Omission(position="middle", start=0, end=len(text), lines=0, first_line=1,
                      last_line=0)
    pools = bank.pools(region, len(text))
    by_pattern = {pool.members[0].pattern: pool for pool in pools.groups}
    # 20 classified, then 2 more (their keyword still rare); 98 counted, any of which may be
    # "error: ..." lines: at least 22, maybe more. The fault's keyword stayed rare: exact.
    assert (by_pattern["error"].count, by_pattern["error"].more) == (22, True)
    assert (by_pattern["crash"].count, by_pattern["crash"].more) == (1, False)
    assert pools.counted == 98 and pools.found == 121
    from truncation_core.highlights.block import _counts, render
    from truncation_core.highlights.choice import in_order
    from truncation_core.types.templates import MarkerConfig

    chosen = in_order(pools, 2)
    assert [h.pattern for h in chosen] == ["crash", "error"]  # the exact one first
    block, details = render(chosen, pools.found, "middle", MarkerConfig(),
                            counts=_counts(pools))
    assert "of 121 matching lines" in block
    assert "error: disk full on node 7 [22+ like this]" in block
    assert [d.get("count") for d in details] == [22, None]


@pytest.mark.parametrize("stream", [False, True])
def test_cutting_a_big_dense_log_classifies_lines_bounded_by_the_defaults(
        stream: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # 60,000 diagnostics of 60,000 kinds (a name per line): process() and a stream classify
    # at most DENSE_MATCHES lines, then RARE_LINES per keyword, then the windows' lines
    # (before: all 60,000).
    calls = [0]
    classify = Matcher.match

    def counting(self: Matcher, line: str, length: int) -> Any:
        calls[0] += 1
        return classify(self, line, length)

    monkeypatch.setattr(Matcher, "match", counting)

    def name(i: int) -> str:
        return "".join("abcdefghijklmnopqrstuvwxyz"[i // 26**k % 26] for k in range(4))

    text = "".join(f"src/m{i % 13}/f{i % 301}.c:{i % 997 + 1}:{i % 61 + 1}: "
                   f"{'error' if i % 5 == 0 else 'warning'}: unused variable '{name(i)}'\n"
                   for i in range(60_000))
    truncator = make()
    keywords = len(truncator._pipeline.matcher(
        "execute_command", truncator.policy("execute_command")).keywords)
    if stream:
        data = text.encode()
        with truncator.stream(tool="execute_command") as s:
            for at in range(0, len(data), 1 << 20):
                s.write(data[at:at + (1 << 20)])
        result = s.result()
    else:
        result = truncator.process(text, tool="execute_command")
    found = re.search(r"highlights from the omitted part: \d+ of (\d+) matching", result.content)
    assert found and 59_000 < int(found.group(1)) <= 60_000  # (the kept lines aside)
    assert calls[0] <= DENSE_MATCHES + RARE_LINES * keywords + 2_000 < 60_000


@pytest.mark.skipif(not _hyperscan_installed(), reason="hyperscan is not installed (it has no "
                    "wheel for this platform): its engine is not tested here")
@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab \u00e9x", max_size=12), min_size=1, max_size=40),
       st.lists(st.sampled_from(["ab", "x", "b a", "\u00e9", "bb", "a"]), min_size=1,
                max_size=3, unique=True), st.sampled_from([(), ("x",), ("\u00e9",)]))
def test_lines_holding_a_keyword_are_counted_without_a_call_per_line(
        lines: list[str], common: list[str], rare: tuple[str, ...]) -> None:
    common = [k for k in common if k not in rare]
    engine = patterns_module._HyperscanEngine(sorted({*common, *rare, "zz"}))
    data = "".join(line + "\n" for line in lines).encode()
    counted = engine.count_lines(data, tuple(common), rare)
    keys = [k.encode() for k in common]
    if patterns_module._may_overlap(tuple(keys)) or not keys or any(
            r.encode() in data for r in rare):
        assert counted is None
    else:
        assert counted == sum(any(k in line for k in keys) for line in data.split(b"\n"))
