"""The estimate tokenizer never counts fewer tokens than cl100k_base or o200k_base.

Why it holds (truncation_core/tokens/table.py): each encoding's own pre-tokenizer, then BPE
with every token below a rank threshold for the piece's kind, which can only stop merging
early. The tests check each link of that argument against the real encodings:

* with the full vocabularies, the same machinery gives exactly tiktoken's counts (so the
  pre-tokenizers, the merge order and the piece shortcut are tiktoken's);
* the shipped table holds every token its thresholds promise (completeness);
* and the end result, on arbitrary and on real text, is never below either real count.
"""

from __future__ import annotations

import statistics

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from token_texts import chunks, texts

from truncation_core.tokens import EstimateTokenizer, utf8_size, visible_text
from truncation_core.tokens.estimate import _Encoding, _encodings
from truncation_core.tokens.pretokenize import newer_letters
from truncation_core.tokens.table import load_tables

ESTIMATE = EstimateTokenizer()
ALNUM = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

# Any code point, lone surrogates included.
ANY_CHAR = st.characters(blacklist_categories=())
# Any code point Python's Unicode tables assign. The machinery is exact only on these: the
# `regex` module may be on a newer Unicode than tiktoken and call a character a letter that
# tiktoken leaves unassigned, and the estimate then counts the text's UTF-8 size instead.
ASSIGNED_CHAR = st.characters(blacklist_categories=("Cn",))
FRAGMENTS = st.sampled_from(
    [
        " the", "Error", "error:", "AssertionError", "node_modules", "\r", "\r\n", "\n\n",
        "    ", "\t", "0", "123", "4567", "3.14159", "0x7fff", "'s", "'LL", "don't", "fooBar",
        "HTTPServer", "错误", "文件不存在", "ファイル", "파일", "файл", "é", "ß", "😀", "\u0301",
        "\x00", "\x1c", "\x0b", "\u2028", "\u3000", "\uff0c", "\u3002", "==", "->", "/",
        "//", "base64+/=",
        "\ud800", "\udfff", "\ud83d\ude00", "A" * 40, " " * 300, "ab" * 200,
    ]
)
MIXED_TEXT = st.lists(FRAGMENTS | st.text(ANY_CHAR, max_size=12), max_size=40).map("".join)
TEXT = st.one_of(st.text(ANY_CHAR, max_size=200), MIXED_TEXT)
ASSIGNED_TEXT = st.one_of(
    st.text(ASSIGNED_CHAR, max_size=200),
    st.lists(FRAGMENTS | st.text(ASSIGNED_CHAR, max_size=12), max_size=40).map("".join),
)
# A character that the installed `regex` calls a letter and Python's tables leave
# unassigned, if there is one (U+3D000 with regex 2026.11.19).
NEWER = [c for c in ("\U0003d000", "\U00031350", "\U0002ebf0") if newer_letters()(c)]


def test_the_estimate_machinery_is_exact_with_the_full_vocabularies(full_tables, real) -> None:
    """Same pieces, same merges as tiktoken: on real text of every kind."""
    exact = {name: _Encoding(table, 1 << 30) for name, table in full_tables.items()}
    for kind, docs in texts().items():
        for source, text in docs:
            sample = visible_text(text[:20_000])
            for name, encoding in exact.items():
                assert encoding.count(sample) == real[name].count(sample), (kind, source, name)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ASSIGNED_TEXT)
def test_the_machinery_is_exact_on_any_text(full_tables, real, text: str) -> None:
    exact = {name: _Encoding(table, 1 << 30) for name, table in full_tables.items()}
    shown = visible_text(text)
    for name, encoding in exact.items():
        assert encoding.count(shown) == real[name].count(text)


def test_the_table_holds_every_token_below_its_thresholds(full_ranks) -> None:
    """Completeness: the bound needs all tokens below the threshold, not a sample."""
    tables = load_tables()
    assert set(tables) == set(full_ranks)
    for name, ranks in full_ranks.items():
        table = tables[name]
        ascii_set = {t: r for t, r in ranks.items() if t.isascii() and r < table.ascii_limit}
        no_alnum = {
            t: r for t, r in ranks.items() if not ALNUM.intersection(t) and r < table.no_alnum_limit
        }
        all_set = {t: r for t, r in ranks.items() if r < table.all_limit}
        assert dict(table.ascii) == ascii_set, name
        assert dict(table.no_alnum) == no_alnum, name
        assert dict(table.all) == all_set, name


def test_a_truncated_vocabulary_gives_counts_that_are_too_high_not_too_low(full_tables) -> None:
    """Negative control: the thresholds do bite on base64 (counts differ), and only upwards."""
    shipped = {e.name: e for e in _encodings()}
    text = "".join(doc for _, doc in texts()["base64"])[:20_000]
    for name, table in full_tables.items():
        exact = _Encoding(table, 1 << 30).count(text)
        assert shipped[name].count(text) > exact


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_estimate_is_an_upper_bound_on_any_text(real, text: str) -> None:
    estimate = ESTIMATE.count(text)
    assert estimate >= real["cl100k_base"].count(text)
    assert estimate >= real["o200k_base"].count(text)
    assert estimate <= utf8_size(text)  # byte_level


@pytest.mark.skipif(not NEWER, reason="the installed regex has no letter Python's tables lack")
@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(NEWER or ["x"]) | FRAGMENTS | st.text(max_size=4), max_size=12)
       .map("".join))
def test_letters_newer_than_the_tables_are_counted_by_size_never_low(real, text: str) -> None:
    estimate = ESTIMATE.count(text)
    for encoding in real.values():
        assert estimate >= encoding.count(text)
        for limit in (1, 3, 8):
            assert encoding.count(text[:ESTIMATE.fit_prefix(text, limit)]) <= limit
            assert encoding.count(text[ESTIMATE.fit_suffix(text, limit):]) <= limit


@pytest.mark.skipif(not NEWER, reason="the installed regex has no letter Python's tables lack")
def test_pieces_split_with_newer_letters_count_low(full_tables, real) -> None:
    """Negative control: summing the pieces of a text holding such a letter, as the estimate
    does for any other text, falls short of tiktoken."""
    text = NEWER[0] + ":A"
    name = "cl100k_base"
    encoding = _Encoding(full_tables[name], 1 << 30)
    assert sum(encoding.counts(encoding.split(text))) < real[name].count(text)
    assert encoding.count(text) >= real[name].count(text)


@pytest.mark.slow
def test_estimate_is_an_upper_bound_on_real_text_and_close_to_it(real) -> None:
    over: dict[str, list[float]] = {}
    naive_under = 0
    for kind, docs in texts().items():
        for source, text in docs:
            for chunk in chunks(text):
                exact = max(real["cl100k_base"].count(chunk), real["o200k_base"].count(chunk))
                estimate = ESTIMATE.count(chunk)
                assert estimate >= exact, (kind, source)
                over.setdefault(kind, []).append(estimate / exact)
                naive_under += len(chunk) // 4 < exact
    for kind, ratios in over.items():
        assert statistics.median(ratios) <= 1.35, (kind, statistics.median(ratios))
    # Negative control: characters / 4 under-counts most of these texts.
    assert naive_under > sum(len(r) for r in over.values()) // 2


@pytest.mark.parametrize(
    "text",
    [
        "", "\x00" * 1000, "\r" * 5000, "a\rb\rc\r", "\ud800", "\udc00x\ud800", "\ud83d\ude00",
        "x" * 10_000_000, " " * 100_000, "😀" * 10_000, "\u0301" * 1000,
    ],
    ids=["empty", "nul", "cr", "cr-lines", "high-surrogate", "lone-surrogates", "pair", "10MB-line",
         "spaces", "emoji", "marks"],
)
def test_estimate_never_raises_and_stays_within_utf8_size(real, text: str) -> None:
    n = ESTIMATE.count(text)
    assert n <= utf8_size(text)
    if len(text) <= 100_000:
        assert n >= max(real["cl100k_base"].count(text), real["o200k_base"].count(text))
