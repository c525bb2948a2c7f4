"""``estimate`` counts long texts by segments, whose counts add up to the whole's.

A segment ends after a newline followed by neither whitespace nor "/": no piece of
cl100k_base or o200k_base spans that point, so each encoding splits the whole exactly as it
splits the segments one after the other. Checked on the splitters ``estimate`` uses (both the
ASCII and the full patterns), and on tiktoken's own counts.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from token_texts import texts

from truncation_core.tokens import EstimateTokenizer, visible_text
from truncation_core.tokens.estimate import _encodings, _segment_counts, segments
from truncation_core.tokens.pretokenize import CL100K_PATTERN, O200K_PATTERN, splitter

SPLITTERS = {"cl100k_base": splitter(CL100K_PATTERN), "o200k_base": splitter(O200K_PATTERN)}
ESTIMATE = EstimateTokenizer()
# Around newlines is where pieces could join: whitespace, "/", punctuation, letters, digits.
AROUND = st.sampled_from(["\n", "\n\n", "\r\n", " \n", "\n ", "\n/", "/\n", ";\n", "\n\t",
                          "\u3000\n", "\n\x85", "a", "Z", "7", "'s", "é", "错", "/", "//", ":",
                          "  ", "\x1c", "\n'", "\n\u2028", "\ud83d\ude00", "-->\n"])
TEXT = st.lists(AROUND | st.text(max_size=6), max_size=60).map("".join)


@given(TEXT)
def test_every_segment_ends_where_both_encodings_end_a_piece(text: str) -> None:
    text = visible_text(text)
    parts = segments(text)
    assert "".join(parts) == text
    for name, split in SPLITTERS.items():
        assert [p for part in parts for p in split(part)] == split(text), name


@given(TEXT)
def test_the_count_by_segments_is_the_count_of_the_whole(real: dict[str, Any],
                                                          text: str) -> None:
    parts = segments(visible_text(text))
    for name in ("cl100k_base", "o200k_base"):
        assert sum(real[name].count(p) for p in parts) == real[name].count(text), name


def test_negative_control_cutting_at_every_newline_would_not_add_up(real: dict[str, Any]
                                                                     ) -> None:
    """The point must be chosen: after a newline followed by whitespace, pieces join."""
    text = "a\n\n  b\n/c"
    naive = text.splitlines(keepends=True)
    counts = [sum(real[n].count(p) for p in naive) for n in ("cl100k_base", "o200k_base")]
    assert counts != [real[n].count(text) for n in ("cl100k_base", "o200k_base")]
    assert sum(real["o200k_base"].count(p) for p in segments(text)) == \
        real["o200k_base"].count(text)


def test_counting_by_segments_gives_the_count_of_the_whole_on_real_text() -> None:
    """Segments, cached or not, count what one pass over the whole text counts."""
    for _kind, docs in texts().items():
        for _source, text in docs:
            sample = visible_text(text[:30_000])
            whole = max(encoding.count(sample) for encoding in _encodings())
            _segment_counts.clear()
            assert ESTIMATE.count(sample) == whole
            assert ESTIMATE.count(sample) == whole  # from the segment cache
