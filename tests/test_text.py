"""The measuring and cutting primitives of ``truncation_core.text.cut``, against brute force.

Each primitive is compared with the naive reference (``tests/reference.py``) or with an
exhaustive search over every cut position, on messy text that includes lone surrogates,
astral characters and every kind of line ending.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from messy import tool_output
from reference import line_count, line_spans, line_starts, region_lines, splits_pair, utf8_bytes

from truncation_core import Budget
from truncation_core.pipeline.facts import content_facts
from truncation_core.text import cut as T
from truncation_core.text import measure as M

budgets = st.builds(Budget, chars=st.integers(0, 500), bytes=st.none() | st.integers(0, 700),
                    lines=st.none() | st.integers(0, 30))


def fits(piece: str, budget: Budget) -> bool:
    return (len(piece) <= budget.chars
            and (budget.bytes is None or utf8_bytes(piece) <= budget.bytes)
            and (budget.lines is None or line_count(piece) <= budget.lines))


def brute_fit_prefix(text: str, budget: Budget, start: int) -> int:
    for k in range(min(len(text), start + budget.chars), start, -1):
        if not splits_pair(text, k) and fits(text[start:k], budget):
            return k
    return start


def brute_fit_suffix(text: str, budget: Budget, floor: int) -> int:
    n = len(text)
    for z in range(max(floor, n - budget.chars), n):
        if not splits_pair(text, z) and fits(text[z:], budget):
            return z
    return n


@pytest.mark.parametrize(
    ("text", "lines"),
    [("", 0), ("a", 1), ("a\n", 1), ("a\nb", 2), ("\r\n", 1), ("\r\r\n\n", 3), ("\r", 1),
     ("a\x0bb\x0cc\x1cd\x85e\u2028f\u2029g", 1),  # not terminators here (as for wc -l)
     ("\n\n\n", 3), ("x\r\ny\rz\n", 3)],
)
def test_line_definition(text: str, lines: int) -> None:
    assert M.count_lines(text) == lines == line_count(text)
    assert M.measure(text).lines == lines


@given(tool_output)
def test_measure_agrees_with_the_reference(text: str) -> None:
    size = M.measure(text)
    assert size.chars == len(text)
    assert size.bytes == utf8_bytes(text) == M.utf8_size(text)
    assert size.lines == line_count(text) == M.count_lines(text)
    assert M.count_terminators(text) == sum(
        1 for _, e in line_spans(text) if text[e - 1] in "\r\n")


@given(tool_output, st.data())
def test_count_terminators_in_place_matches_counting_a_slice(
        text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    piece = text[start:end]
    assert M.count_terminators(text, start, end) == sum(
        1 for _, e in line_spans(piece) if piece[e - 1] in "\r\n")


@given(tool_output, st.data())
def test_line_index_and_is_line_start(text: str, data: st.DataObject) -> None:
    if not text:
        return
    pos = data.draw(st.integers(0, len(text) - 1))
    spans = line_spans(text)
    expected = next(i for i, (s, e) in enumerate(spans) if s <= pos < e)
    total = M.count_terminators(text)
    assert M.line_index(text, pos) == expected
    assert M.line_index(text, pos, total_terminators=total) == expected
    starts = line_starts(text)
    for p in (pos, pos + 1):
        assert M.is_line_start(text, p) == (p in starts)


@given(tool_output, budgets, st.data())
def test_fit_prefix_is_the_longest_prefix_that_fits(text: str, budget: Budget,
                                                     data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    k = T.fit_prefix(text, budget, start=start)
    assert k == brute_fit_prefix(text, budget, start)


@given(tool_output, budgets, st.data())
def test_fit_suffix_is_the_longest_suffix_that_fits(text: str, budget: Budget,
                                                     data: st.DataObject) -> None:
    floor = data.draw(st.integers(0, len(text)))
    z = T.fit_suffix(text, budget, floor=floor)
    assert z == brute_fit_suffix(text, budget, floor)


@given(tool_output, st.data())
def test_snap_prefix_moves_back_to_the_nearest_boundary_in_its_window(
        text: str, data: st.DataObject) -> None:
    end = data.draw(st.integers(0, len(text)))
    window = data.draw(st.integers(0, len(text) + 1))
    k = T.snap_prefix(text, end, window)
    starts = line_starts(text)
    if end in starts or window <= 0:
        assert k == end
        return
    reachable = [b for b in starts if max(0, end - window) < b <= end and b > 0]
    if reachable:
        assert k == max(reachable)
    else:
        assert k == end


def test_snap_prefix_inside_a_crlf_pair_finds_the_boundary_before_it() -> None:
    text = "\n0000000\r\n"
    assert T.snap_prefix(text, 9, 9) == 1  # not 9, between "\r" and "\n"
    assert T.snap_prefix("ab\r\ncd\r\n", 7, 7) == 4


@given(tool_output, st.data())
def test_snap_suffix_moves_forward_to_the_nearest_line_start_in_its_window(
        text: str, data: st.DataObject) -> None:
    n = len(text)
    begin = data.draw(st.integers(0, n))
    window = data.draw(st.integers(0, n + 1))
    z = T.snap_suffix(text, begin, window)
    starts = line_starts(text)
    if begin in starts or window <= 0:
        assert z == begin
        return
    # The end of the first terminator with a character inside the window; the kept tail
    # never becomes empty.
    reachable = []
    for _, e in line_spans(text):
        width = 2 if text[e - 2:e] == "\r\n" else 1 if text[e - 1] in "\r\n" else 0
        if any(begin <= p < begin + window for p in range(e - width, e)):
            reachable.append(e)
    if reachable and reachable[0] < n:
        assert z == reachable[0]
    else:
        assert z == begin


@given(tool_output, st.data())
def test_omission_counts_whole_lines_and_names_the_lines_it_touches(
        text: str, data: st.DataObject) -> None:
    n = len(text)
    start = data.draw(st.integers(0, n))
    end = data.draw(st.integers(start, n))
    region = T.omission(text, start, end, total_terminators=M.count_terminators(text),
                        position="middle")
    whole, first, last = region_lines(text, start, end)
    assert (region.start, region.end) == (start, start if end == start else end)
    assert (region.lines, region.first_line, region.last_line) == (whole, first, last)
    assert region.chars == end - start


def test_utf8_size_counts_a_lone_surrogate_as_three_bytes() -> None:
    assert M.utf8_size("\ud800") == 3
    assert M.utf8_size("a\udfffb") == 5
    assert M.utf8_size("😀") == 4
    assert M.utf8_size("abc") == 3


def test_byte_cut_never_splits_a_sequence() -> None:
    # Negative control: a naive byte cut of 'é😀' at 1, 3, 4 or 5 bytes is invalid UTF-8.
    encoded = "é😀".encode()
    for cut in (1, 3, 4, 5):
        with pytest.raises(UnicodeDecodeError):
            encoded[:cut].decode("utf-8")
    for cut in range(8):
        k = T.fit_prefix("é😀", Budget(chars=10, bytes=cut))
        assert "é😀"[:k].encode() == encoded[: len("é😀"[:k].encode())]
        assert len("é😀"[:k].encode()) <= cut
        z = T.fit_suffix("é😀", Budget(chars=10, bytes=cut))
        assert len("é😀"[z:].encode()) <= cut


def test_cut_text_with_a_marker_renderer_that_grows_refits() -> None:
    """A marker longer than its worst case (a plugin's) still yields output within budget."""

    class Growing:
        def render(self, omission: T.Omission) -> str:
            return "<" + "m" * (omission.lines + 30) + ">"

        def worst_case(self, position: str) -> str:
            return "<>"

    text = "".join(f"line {i}\n" for i in range(200))
    facts = content_facts(text)
    for chars in (5, 40, 80, 200, 400):
        cut = T.cut_text(text, budget=Budget(chars=chars), facts=facts, markers=Growing(),
                         head_share=0.6)
        assert len(cut.text) <= chars


class Scanned(str):
    """A str that adds up how many characters count/find/rfind scan."""

    scanned = 0

    def _account(self, start: int | None, end: int | None) -> None:
        n = len(self)
        lo = 0 if start is None else (start if start >= 0 else max(0, n + start))
        hi = n if end is None else (min(end, n) if end >= 0 else max(0, n + end))
        Scanned.scanned += max(0, hi - lo)

    def count(self, sub: str, start: int | None = None, end: int | None = None) -> int:  # type: ignore[override]
        self._account(start, end)
        return str.count(self, sub, start, end)

    def find(self, sub: str, start: int | None = None, end: int | None = None) -> int:  # type: ignore[override]
        self._account(start, end)
        return str.find(self, sub, start, end)

    def rfind(self, sub: str, start: int | None = None, end: int | None = None) -> int:  # type: ignore[override]
        self._account(start, end)
        return str.rfind(self, sub, start, end)


@pytest.mark.parametrize("head_share", [0.0, 0.3, 0.6, 0.9, 1.0])
@pytest.mark.parametrize("whole_lines", [False, True])
def test_cutting_scans_only_near_the_kept_regions(head_share: float, whole_lines: bool) -> None:
    """Facts count the terminators once; cutting must not scan the omitted middle again
    (it did: omission() counted from the head cut to the end whenever the head was larger
    than the tail, doubling the cost of the default head_tail on large input)."""
    from truncation_core.pipeline.facts import content_facts

    plain = "".join(f"{i:07d} some log text\r\n" for i in range(50_000))  # 1.1 M chars
    facts = content_facts(plain)

    class Markers:
        def render(self, region: T.Omission) -> str:
            return f"\n[{region.lines} lines cut]\n"

        def worst_case(self, position: str) -> str:
            return f"\n[{facts.lines} lines cut]\n"

    text = Scanned(plain)
    Scanned.scanned = 0
    budget = Budget(chars=8000)
    cut = T.cut_text(text, budget=budget, facts=facts, markers=Markers(),
                     head_share=head_share, whole_lines=whole_lines)
    assert len(cut.text) <= 8000
    assert Scanned.scanned <= 20 * budget.chars, Scanned.scanned
    # Control: the spy sees a full scan.
    Scanned.scanned = 0
    M.count_terminators(text)
    assert Scanned.scanned >= len(plain)
