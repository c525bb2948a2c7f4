"""Content within its other limits is proved over ``max_tokens`` by counting a prefix.

The prefix ends at a point of :data:`~truncation_core.pipeline.tokens.PREFIX_ENDS`, where no
piece of cl100k_base or o200k_base spans: each encoding splits the prefix and the rest as it
splits the whole, so the prefix's count is at most the whole's (exactly its share, for
tiktoken), and ``estimate``'s too. Checked on the splitters ``estimate`` uses and on
tiktoken's own counts; the negative controls show that a cut one character off does not
hold.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from token_texts import texts

from truncation_core.pipeline.tokens import PREFIX_ENDS
from truncation_core.tokens import EstimateTokenizer, visible_text
from truncation_core.tokens.pretokenize import CL100K_PATTERN, O200K_PATTERN, splitter

SPLITTERS = {"cl100k_base": splitter(CL100K_PATTERN), "o200k_base": splitter(O200K_PATTERN)}
ESTIMATE = EstimateTokenizer()
# Where pieces could join: blanks, newlines, ASCII punctuation after letters and digits,
# contractions, "/" after a newline, marks, digit runs, other scripts.
AROUND = st.sampled_from([
    " ", "  ", "\t", "\n", "\r\n", " \n", "\n ", "\n/", ".\n", ".\n\n", "a", "Z", "7", "123",
    "'s", "'", "'LL", ",", ":", '"', '",', "{", "}]", "/", "//", "-", "_", "é", "e\u0301",
    "错", "\u3000", "\x1c", "\x0b", "\x85", "\u2028", "\ud83d\ude00", "+", "=", "<!--",
])
TEXT = st.lists(AROUND | st.text(max_size=5), max_size=60).map("".join)


def ends(text: str) -> list[int]:
    return [m.start() for m in PREFIX_ENDS.finditer(text) if 0 < m.start() < len(text)]


@given(TEXT)
def test_every_prefix_end_is_where_both_encodings_end_a_piece(text: str) -> None:
    text = visible_text(text)
    for i in ends(text):
        for name, split in SPLITTERS.items():
            assert split(text[:i]) + split(text[i:]) == split(text), (name, text, i)


@given(TEXT)
def test_a_prefix_counts_its_share_of_the_whole(real: dict[str, Any], text: str) -> None:
    # The ends are found in the text as shown, so they index that text (a surrogate pair
    # written as two lone surrogates is shown as one character: an end found there, applied
    # to the text before, fell between the two halves).
    text = visible_text(text)
    whole = {name: real[name].count(text) for name in real}
    estimate = ESTIMATE.count(text)
    for i in ends(text):
        for name, tokenizer in real.items():
            assert tokenizer.count(text[:i]) + tokenizer.count(text[i:]) == whole[name]
        assert ESTIMATE.count(text[:i]) <= estimate


def test_prefixes_of_real_text_count_at_most_the_whole(real: dict[str, Any]) -> None:
    for _kind, docs in texts().items():
        for _source, text in docs:
            sample = visible_text(text[:6000])
            points = ends(sample)[::max(1, len(ends(sample)) // 12)]
            for tokenizer in real.values():
                whole = tokenizer.count(sample)
                for i in points:
                    assert tokenizer.count(sample[:i]) + tokenizer.count(sample[i:]) == whole
            whole = ESTIMATE.count(sample)
            assert all(ESTIMATE.count(sample[:i]) <= whole for i in points)


def test_negative_control_a_cut_one_character_off_splits_a_piece(real: dict[str, Any]
                                                                   ) -> None:
    """Inside a word, before an apostrophe (a contraction), after "." before newlines
    (o200k_base keeps them together), inside a digit run (grouped by three from its start):
    pieces span these points, so the prefix's count is no share of the whole's."""
    o200k = real["o200k_base"]
    for text, i in (("hello world", 3), ("don't", 3), ("end.\nnext", 4), ("...\n\n", 3),
                    ("12345", 2)):
        assert i not in ends(text)
        split = SPLITTERS["o200k_base"]
        assert split(text[:i]) + split(text[i:]) != split(text), text
    for text, i in (("hello world", 3), ("don't", 3), ("end.\nnext", 4), ("...\n\n", 3)):
        assert o200k.count(text[:i]) + o200k.count(text[i:]) != o200k.count(text), text
