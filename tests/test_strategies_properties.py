"""Property-based tests of every text strategy, through ``Truncator.process``.

Each example draws messy text (CRLF, lone CR, other Unicode separators, astral characters,
lone surrogates, empty input, single lines longer than the budget) and limits in characters,
UTF-8 bytes and lines, alone and combined. The result is checked against the naive reference
in ``tests/reference.py``, never against the code under test:

* the output fits every limit, marker included;
* the kept head is an exact prefix and the kept tail an exact suffix of the input (as a
  terminal shows them: ``text.terminal.terminal_view``), and between them is exactly the
  documented marker (or the documented fallback);
* kept and omitted characters and lines add up to the original;
* omission line numbers are exact;
* cuts never split a character pair and fall on a line boundary whenever one is within the
  documented window (a quarter of the kept part; anywhere for ``lines`` and ``element``);
* a single over-long line still gives a non-empty preview;
* a budget too small for any marker gets the fallback, never an exception.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st
from messy import byte_limits, char_limits, line_limits, one_line, tool_output
from reference import (
    REFERENCE_FIRST_LINE,
    expected_marker,
    kept_lines,
    line_count,
    line_spans,
    line_starts,
    region_lines,
    splits_pair,
    utf8_bytes,
)

from truncation_core import Budget, TruncationResult, Truncator
from truncation_core.structured.sniff import looks_like_xml, parse
from truncation_core.text.terminal import terminal_view

FALLBACK_NOTES = {
    "…": "marker did not fit the budget; used '…'",
    "": "budget too small for any marker; cut without one",
}
MID_LINE_NOTES = {
    # name -> the note when the line at the kept end is cut (beside a marker, or with none)
    "lines-head": ("the first line does not fit the budget next to the marker; it is cut "
                   "mid-line", "the first line does not fit the budget; it is cut mid-line"),
    "lines-tail": ("the last line does not fit the budget next to the marker; it is cut "
                   "mid-line", "the last line does not fit the budget; it is cut mid-line"),
}


def cut_mid_line(name: str, notes: tuple[str, ...]) -> bool:
    """The metadata says that a line at the kept end is cut."""
    return any(note in notes for note in MID_LINE_NOTES.get(name, ()))


#: name -> (config for it, strategy reported in the metadata, whole_lines)
STRATEGIES: dict[str, tuple[dict[str, Any], str, bool]] = {
    "head": ({"default_strategy": "head"}, "head", False),
    "tail": ({"default_strategy": "tail"}, "tail", False),
    "head_tail": ({"default_strategy": "head_tail"}, "head_tail", False),
    "lines-head": ({"default_strategy": "lines", "direction": "head"}, "lines", True),
    "lines-tail": ({"default_strategy": "lines", "direction": "tail"}, "lines", True),
    # On text that is neither JSON nor XML, element falls back to head_tail and reports it
    # as the strategy that really ran.
    "element": ({"default_strategy": "element"}, "head_tail", False),
    # head_tail with an outline of the omitted part after the marker.
    "outline": ({"default_strategy": "outline"}, "outline", False),
    # The split its sniff of the ends decides (details.split), and the outline.
    "adaptive": ({"default_strategy": "adaptive"}, "adaptive", False),
}


#: How the default highlights block starts, right after the marker.
HIGHLIGHTS_HEADER = "... [highlights from the omitted part: "
#: The first line of an outline (``outline``, ``adaptive``), right after the marker.
OUTLINE_HEADER = "... [outline of the omitted part: the line each section starts at] ..."
#: An outline entry: the line a section starts at.
OUTLINE_ENTRY = re.compile(r"(\d[\d,]*): ")


def without_outline(block: str, first_line: int, last_line: int) -> str:
    """*block* (what follows the marker) without the outline at its start, if any, once
    each of its entries is checked to name a line of the omitted region (or the first line
    after it, where the kept tail starts)."""
    rest = block[1:] if block.startswith("\n" + OUTLINE_HEADER) else block
    if not rest.startswith(OUTLINE_HEADER):
        return block
    lines = rest.split("\n")
    count = 1
    while count < len(lines) and OUTLINE_ENTRY.match(lines[count]):
        number = int(OUTLINE_ENTRY.match(lines[count]).group(1).replace(",", ""))  # type: ignore[union-attr]
        assert first_line <= number <= last_line + 1, (number, first_line, last_line)
        count += 1
    assert count > 1, block  # an outline has entries
    return "\n".join(lines[count:])
#: A line number the highlights block names ("line 1,234: ...", "line 7, line 9").
HIGHLIGHT_LINE = re.compile(r"(?m)(?:^|, )line (\d[\d,]*)(?=[:,\n ])")


def utf8_len(text: str) -> int:
    """Bytes of *text* as the artifact stores it (UTF-8, lone surrogates included)."""
    return len(text.encode("utf-8", "surrogatepass"))


def without_terminator(text: str) -> str:
    for ending in ("\r\n", "\n", "\r"):
        if text.endswith(ending):
            return text[: -len(ending)]
    return text


def position_of(name: str, head_ratio: float) -> str:
    if name in ("head", "lines-head"):
        return "end"
    if name in ("tail", "lines-tail"):
        return "beginning"
    return "end" if head_ratio >= 1 else "beginning" if head_ratio <= 0 else "middle"


def make_truncator(name: str, budget: Budget, *, spill: bool = False, head_ratio: float = 0.6,
                   **extra: Any) -> Truncator:
    config: dict[str, Any] = {
        **STRATEGIES[name][0],
        "inline_limit": budget.chars,
        "head_ratio": head_ratio,
        "spill": spill,
        **extra,
    }
    if budget.bytes is not None:
        config["max_bytes"] = budget.bytes
    if budget.lines is not None:
        config["max_lines"] = budget.lines
    return Truncator(config, load_entrypoints=False)


def is_structured(text: str) -> bool:
    """Text that ``element`` cuts as structured data rather than falling back to text."""
    return parse(text).format is not None or looks_like_xml(text)


def fits(text: str, budget: Budget) -> bool:
    return (len(text) <= budget.chars
            and (budget.bytes is None or utf8_bytes(text) <= budget.bytes)
            and (budget.lines is None or line_count(text) <= budget.lines))


def check_result(text: str, result: TruncationResult, budget: Budget, *, name: str,
                 head_ratio: float = 0.6) -> tuple[str, str, str]:
    """Check every invariant of one strategy result; return (head, marker, tail)."""
    _config, reported, whole_lines = STRATEGIES[name]
    if name == "element" and is_structured(text):
        assume(False)  # drawn text that is JSON by chance ("0\n"): element keeps it as such
    out, meta = result.content, result.metadata
    # The output fits every limit, marker (and artifact reference) included.
    assert fits(out, budget), (len(out), utf8_bytes(out), line_count(out), budget)
    if fits(text, budget):
        assert out == text
        assert not meta.was_truncated and result.artifact is None
        return text, "", ""
    assert meta.was_truncated
    assert meta.original_size == len(text)
    assert meta.original_lines == line_count(text)
    assert meta.truncated_size == len(out)
    assert meta.limits == budget
    assert meta.strategy_used == reported
    assert not [n for n in meta.notes if "instead" in n], meta.notes  # no processor rescue

    body = out
    if result.artifact is not None and out.startswith("[Artifact: "):
        first = REFERENCE_FIRST_LINE.match(out)
        assert first is not None, out[:200]
        assert first.group(1) == result.artifact.id
        assert len(first.group("summary")) <= 100
        short = "Preview:\n" in out and not first.group("rest")
        header_end = out.index("Preview:\n") + len("Preview:\n") if short else first.end()
        body = out[header_end:]

    if not meta.omissions and meta.terminal_chars_removed:
        # The whole text fits once terminal control is removed: it is shown whole.
        assert body == terminal_view(text, redraws="\n" in text)
        assert meta.terminal_chars_removed == len(text) - len(body)
        return text, "", ""
    assert len(meta.omissions) == 1, meta.omissions
    region = meta.omissions[0]
    start, end = region.start, region.end
    assert 0 <= start < end <= len(text)
    split = meta.details.get("split") if name == "adaptive" else None
    position = position_of(name, split["head_share"] if split else head_ratio)
    assert region.position == position
    if position == "end":
        assert end == len(text)
    if position == "beginning":
        assert start == 0

    # Exact prefix and suffix, as a terminal shows them, and between them exactly one
    # marker.
    head, tail = text[:start], text[end:]
    redraws = "\n" in text
    shown_head = terminal_view(head, redraws=redraws)
    shown_tail = terminal_view(tail, redraws=redraws)
    assert len(shown_head) + len(shown_tail) <= len(body)
    assert body.startswith(shown_head)
    assert body.endswith(shown_tail)
    marker = body[len(shown_head):len(body) - len(shown_tail)]
    assert meta.terminal_chars_removed == (len(head) - len(shown_head)
                                           + len(tail) - len(shown_tail))

    # Counts add up, against the naive line model.
    whole, first_line, last_line = region_lines(text, start, end)
    assert (region.lines, region.first_line, region.last_line) == (whole, first_line, last_line)
    assert region.chars == end - start
    assert meta.omitted_chars == end - start == len(text) - len(head) - len(tail)
    assert meta.omitted_lines == whole
    assert kept_lines(text, start, end) + meta.omitted_lines == line_count(text)
    # Line numbers are exact: the lines they name hold the whole omitted region.
    spans = line_spans(text)
    assert spans[first_line - 1][0] <= start < spans[first_line - 1][1]
    assert spans[last_line - 1][0] < end <= spans[last_line - 1][1]

    expected = expected_marker(
        position, chars=end - start, lines=whole, first=first_line, last=last_line,
        total_chars=len(text), total_lines=line_count(text),
        artifact_id=result.artifact.id if result.artifact else None,
        start_byte=utf8_len(text[:start]), end_byte=utf8_len(text[:end]))
    if marker.startswith(expected) and name in ("outline", "adaptive"):
        # The outline of the omitted part follows the marker: its entries name its lines.
        marker = expected + without_outline(marker[len(expected):], first_line, last_line)
    if marker != expected and marker.startswith(expected + HIGHLIGHTS_HEADER):
        # Salient lines of the omitted part follow the marker (highlights are on by
        # default): each names a line of the omitted region.
        block = marker[len(expected):]
        assert block.endswith("\n"), block
        numbers = [int(n.replace(",", "")) for n in HIGHLIGHT_LINE.findall(block)]
        assert numbers, block
        assert all(first_line <= n <= last_line for n in numbers), (numbers, first_line,
                                                                     last_line)
        lifted = meta.details.get("highlights", [])
        assert lifted and all(first_line <= h["line"] <= last_line for h in lifted), lifted
    elif marker != expected:
        assert marker in FALLBACK_NOTES, (marker, expected)
        assert FALLBACK_NOTES[marker] in meta.notes, meta.notes
        # The documented marker really did not fit (in the budget the cut was made in:
        # wider than *budget* when terminal control was removed from what it kept).
        assert (not fits(head + expected + tail, budget) or body is not out
                or meta.terminal_chars_removed)

    # Cuts: never inside a "\r\n" or surrogate pair; on a line boundary when one is near.
    assert not splits_pair(text, start)
    assert not splits_pair(text, end)
    starts = line_starts(text)
    n = len(text)
    if whole_lines:
        if start not in starts or end not in starts:
            assert cut_mid_line(name, meta.notes), meta.notes
        # Mid-line only when no line boundary at all was usable: the kept part of that
        # end is one line (the tail may keep the line's own terminator).
        if start not in starts:
            assert not any(c in "\r\n" for c in head), head
        if end not in starts:
            assert not any(c in "\r\n" for c in without_terminator(tail)), tail
    else:
        if position != "beginning" and start not in starts:
            window = text[start - start // 4:start]
            assert "\n" not in window and "\r" not in window, (start, window)
        if position != "end" and end not in starts:
            window = text[end:end + (n - end) // 4]
            hits = [i for i, c in enumerate(window) if c in "\r\n"]
            if hits:  # only a terminator that ends the text may be left unused
                i = end + hits[0]
                after = i + 2 if text[i] == "\r" and i + 1 < n and text[i + 1] == "\n" else i + 1
                assert after >= n, (end, window)
    return head, marker, tail


budgets = st.builds(Budget, chars=char_limits, bytes=byte_limits, lines=line_limits)
head_ratios = st.sampled_from([0.6, 0.0, 1.0, 0.5]) | st.floats(0.0, 1.0)


@pytest.mark.parametrize("name", list(STRATEGIES))
@given(text=tool_output, budget=budgets, head_ratio=head_ratios, spill=st.booleans())
# Found by Hypothesis: the whole text fits once its redraw is removed, and element, which
# cuts such text as head_tail, reported element.
@example(text="\n" + "x" * 50 + "\r\x1b", budget=Budget(chars=7), head_ratio=0.0, spill=False)
def test_invariants_hold_on_messy_text(name: str, text: str, budget: Budget, head_ratio: float,
                                       spill: bool) -> None:
    truncator = make_truncator(name, budget, spill=spill, head_ratio=head_ratio)
    result = truncator.process(text)
    check_result(text, result, budget, name=name, head_ratio=head_ratio)
    if result.artifact is not None:  # the full content is kept exactly, surrogates included
        with truncator.store.open(result.artifact.id) as f:
            assert f.read() == text.encode("utf-8", "surrogatepass")


@pytest.mark.parametrize("name", list(STRATEGIES))
@given(text=tool_output, budget=budgets, threshold=st.integers(1, 600),
       form=st.sampled_from(["full", "short"]))
def test_invariants_hold_under_an_artifact_reference(name: str, text: str, budget: Budget,
                                                     threshold: int, form: str) -> None:
    truncator = make_truncator(name, budget, spill=True, artifact_threshold=threshold,
                               reference_preview=form, preview_limit=max(1, budget.chars // 2))
    result = truncator.process(text)
    check_result(text, result, budget, name=name)


@pytest.mark.parametrize("name", list(STRATEGIES))
@given(text=tool_output, chars=st.integers(1, 12), bytes_=st.none() | st.integers(1, 8),
       lines=st.none() | st.integers(1, 2), spill=st.booleans())
def test_a_budget_too_small_for_any_marker_gets_the_fallback(
        name: str, text: str, chars: int, bytes_: int | None, lines: int | None,
        spill: bool) -> None:
    budget = Budget(chars=chars, bytes=bytes_, lines=lines)
    result = make_truncator(name, budget, spill=spill).process(text)  # never raises
    _head, marker, _tail = check_result(text, result, budget, name=name)
    if result.metadata.was_truncated:
        assert marker in FALLBACK_NOTES


@pytest.mark.parametrize("name", list(STRATEGIES))
@given(line=one_line, newline=st.sampled_from(["", "\n", "\r\n", "\r"]),
       chars=st.integers(95, 400), bytes_=st.none() | st.integers(250, 1200))
def test_a_single_line_longer_than_the_budget_still_gives_a_preview(
        name: str, line: str, newline: str, chars: int, bytes_: int | None) -> None:
    text = line + newline
    assume(len(text) > chars)
    budget = Budget(chars=chars, bytes=bytes_)
    result = make_truncator(name, budget).process(text)
    head, _marker, tail = check_result(text, result, budget, name=name)
    assert head or tail, result.content
    assert (head + tail).strip("\r\n")  # more than a bare line ending
    if STRATEGIES[name][2]:
        assert cut_mid_line(name, result.metadata.notes), result.metadata.notes


@pytest.mark.parametrize("name", ["head", "tail", "head_tail"])
@given(text=tool_output, chars=st.integers(60, 400))
# Found by Hypothesis in CI: a pytest "E   " line in the omitted middle is lifted into a
# highlights block after the marker.
@example(text="x" * 140 + "\r\nE   \r\n" + "x" * 160, chars=304)
def test_character_strategies_use_most_of_the_budget(name: str, text: str, chars: int) -> None:
    """Not a degenerate cut: at least 3/4 of the room left by the largest possible marker
    is used (the cut may move back by up to a quarter to reach a line boundary)."""
    budget = Budget(chars=chars)
    result = make_truncator(name, budget).process(text)
    head, marker, tail = check_result(text, result, budget, name=name)
    if not result.metadata.was_truncated:
        return
    position = position_of(name, 0.6)
    worst = expected_marker(position, chars=len(text), lines=line_count(text),
                            total_chars=len(text), total_lines=line_count(text))
    room = min(len(text), chars - len(worst))
    assume(room > 0 and marker == expected_marker(
        position, chars=result.metadata.omitted_chars, lines=result.metadata.omitted_lines,
        total_chars=len(text), total_lines=line_count(text)))
    assert len(head) + len(tail) >= (3 * room) // 4 - 3, (len(head), len(tail), room)


@pytest.mark.parametrize("direction", ["head", "tail"])
@given(lines=st.lists(st.text(st.characters(exclude_characters="\r\n"), max_size=15),
                      min_size=2, max_size=80),
       ending=st.sampled_from(["\n", "\r\n", "\r"]), chars=st.integers(60, 400))
def test_lines_keeps_as_many_whole_lines_as_fit(direction: str, lines: list[str], ending: str,
                                                chars: int) -> None:
    """FR-031..034: whole lines only, and no fewer than fit next to the largest marker."""
    text = "".join(line + ending for line in lines)
    budget = Budget(chars=chars)
    result = make_truncator(f"lines-{direction}", budget).process(text)
    name = f"lines-{direction}"
    head, _marker, tail = check_result(text, result, budget, name=name)
    if not result.metadata.omissions:  # nothing left out (or all of it fits once cleaned)
        return
    kept = head if direction == "head" else tail
    position = position_of(name, 0.6)
    worst = expected_marker(position, chars=len(text), lines=line_count(text),
                            total_chars=len(text), total_lines=line_count(text))
    all_lines = [line + ending for line in lines]
    edge_line = all_lines[0] if direction == "head" else all_lines[-1]
    if cut_mid_line(name, result.metadata.notes):
        # Not even the first (last) line fits next to the marker: part of it is shown.
        assert len(edge_line) + len(worst) > chars
        assert kept and len(kept) < len(edge_line)
        assert (edge_line.startswith(kept) if direction == "head"
                else edge_line.endswith(kept))
        return
    shown = kept.count(ending) if ending != "\r" else kept.count("\r")
    assert kept == ("".join(all_lines[:shown]) if direction == "head"
                    else "".join(all_lines[len(all_lines) - shown:]))
    if shown < len(all_lines):  # one more line would not have fit
        more = all_lines[shown] if direction == "head" else all_lines[-shown - 1]
        assert len(kept) + len(more) + len(worst) > chars


def test_the_marker_is_used_when_it_fits_though_its_worst_case_does_not() -> None:
    """Regression (found by the property test above): the room reserved for the marker is
    its worst case (every number at its widest); when that exceeded the budget, the '…'
    fallback was used although the real marker, with smaller numbers, fitted exactly."""
    text, budget = "\n" * 9 + "0", Budget(chars=185, lines=2)
    truncator = make_truncator("tail", budget, spill=True)
    result = truncator.process(text)
    _head, marker, tail = check_result(text, result, budget, name="tail")
    assert result.metadata.notes == ()
    assert marker.startswith("... [Beginning omitted: 9 lines / 9 chars of 10 lines / 10 "
                             "chars; get_artifact(")
    assert tail == "0" and len(result.content) == 185  # the budget, exactly


@pytest.mark.parametrize("name", ["lines-head", "lines-tail"])
def test_a_line_that_fits_the_budget_but_not_beside_the_marker_is_cut_and_said_so(
        name: str) -> None:
    """Regression: the note used to say the line was longer than the budget."""
    edge = "x" * 90 + "\n"
    text = edge + "".join(f"row {i}\n" for i in range(100)) + edge
    budget = Budget(chars=100)
    result = make_truncator(name, budget).process(text)
    head, _marker, tail = check_result(text, result, budget, name=name)
    assert len(edge) <= budget.chars  # the line alone fits
    assert (head or tail) and len(head or tail) < len(edge)  # but it is cut
    assert MID_LINE_NOTES[name][0] in result.metadata.notes


def test_empty_input_is_returned_unchanged() -> None:
    for name in STRATEGIES:
        budget = Budget(chars=1, bytes=1, lines=1)
        result = make_truncator(name, budget).process("")
        assert result.content == ""
        assert not result.metadata.was_truncated
        assert result.metadata.original_lines == 0


@pytest.mark.parametrize(
    ("text", "budget"),
    [
        ("é😀" * 40, Budget(chars=400, bytes=7)),  # cuts at 1..5 bytes would split a sequence
        ("\ud800x" * 100, Budget(chars=400, bytes=10)),  # lone surrogates: 3 bytes each
        ("a\r\n" * 100, Budget(chars=50, lines=3)),
        ("\r" * 500, Budget(chars=100)),
        ("\x00" * 10_000, Budget(chars=80, bytes=90, lines=1)),
        ("\U0001F600" * 500 + "\n", Budget(chars=90, bytes=95)),
    ],
    ids=["utf8-sequences", "surrogates", "crlf-lines", "cr-only", "nul", "astral-line"],
)
@pytest.mark.parametrize("name", list(STRATEGIES))
def test_known_hard_cases(name: str, text: str, budget: Budget) -> None:
    result = make_truncator(name, budget).process(text)
    check_result(text, result, budget, name=name)


PAIRED_TEXTS = {
    "crlf": "ab\r\n" * 60 + "tail",
    "surrogate-pairs": "\ud83d\ude00x" * 80,  # two code points each, as json.loads can make
    "mixed": "é😀\r\n\r" * 40,
}


@pytest.mark.parametrize("text", list(PAIRED_TEXTS.values()), ids=list(PAIRED_TEXTS))
@pytest.mark.parametrize("name", list(STRATEGIES))
def test_no_budget_splits_a_pair(name: str, text: str) -> None:
    """Every character budget from 1 up, so that some cut lands inside each kind of pair."""
    limits = range(1, 160)
    tools = {f"t{c}": {"inline_limit": c} for c in limits}
    truncator = Truncator({**STRATEGIES[name][0], "spill": False, "tools": tools},
                          load_entrypoints=False)
    for chars in limits:
        result = truncator.process(text, tool=f"t{chars}")
        check_result(text, result, Budget(chars=chars), name=name)
        byte_limited = Truncator({**STRATEGIES[name][0], "spill": False,
                                  "inline_limit": 400, "max_bytes": chars},
                                 load_entrypoints=False).process(text)
        check_result(text, byte_limited, Budget(chars=400, bytes=chars), name=name)
