"""Fitting a text to a token budget: prefixes and suffixes that fit, and use the budget.

For the estimate and for the real encodings, on any text and any budget: the kept part is
within the budget under the tokenizer that kept it, never splits "\\r\\n", and is close to
the longest part that fits (the next piece would not).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_estimate import TEXT
from token_texts import texts

from truncation_core.tokens import (
    EstimateTokenizer,
    Tokenizer,
    fit_prefix_by_count,
    fit_suffix_by_count,
)

ESTIMATE = EstimateTokenizer()
BUDGETS = st.integers(min_value=-1, max_value=300)


def _tokenizers(real) -> list[Tokenizer]:
    return [ESTIMATE, real["cl100k_base"], real["o200k_base"]]


def _no_split(text: str, i: int) -> bool:
    return not (0 < i < len(text) and text[i - 1] == "\r" and text[i] == "\n")


def test_every_tokenizer_meets_the_protocol(real) -> None:
    for tokenizer in _tokenizers(real):
        assert isinstance(tokenizer, Tokenizer)
        assert tokenizer.byte_level


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT, BUDGETS)
def test_prefix_and_suffix_fit_the_budget_on_any_text(real, text: str, budget: int) -> None:
    for tokenizer in _tokenizers(real):
        end = tokenizer.fit_prefix(text, budget)
        assert 0 <= end <= len(text)
        assert tokenizer.count(text[:end]) <= max(budget, 0)
        assert _no_split(text, end)
        start = tokenizer.fit_suffix(text, budget)
        assert 0 <= start <= len(text)
        assert tokenizer.count(text[start:]) <= max(budget, 0)
        assert _no_split(text, start)
        if tokenizer.count(text) <= budget:
            assert (end, start) == (len(text), 0)


@pytest.mark.parametrize("budget", [1, 10, 100, 2000])
def test_fits_on_real_text_use_the_budget(real, budget: int) -> None:
    """What is kept is within the budget and within a few tokens of it."""
    for kind, docs in texts().items():
        for source, text in docs:
            text = text[: budget * 12]
            for tokenizer in _tokenizers(real):
                if tokenizer.count(text) <= budget:
                    continue
                end = tokenizer.fit_prefix(text, budget)
                start = tokenizer.fit_suffix(text, budget)
                head, tail = tokenizer.count(text[:end]), tokenizer.count(text[start:])
                assert head <= budget and tail <= budget, (kind, source, tokenizer.name)
                # One more piece would not fit: the loss is at most one long piece.
                slack = max(3, budget // 20)
                assert head >= budget - slack, (kind, source, tokenizer.name, head)
                assert tail >= budget - slack, (kind, source, tokenizer.name, tail)


def test_estimate_fit_inside_one_long_piece() -> None:
    """A 1 MB line of one letter is one piece: the fit cuts inside it by its byte size."""
    text = "a" * 1_000_000
    assert ESTIMATE.fit_prefix(text, 500) == 500
    assert ESTIMATE.fit_suffix(text, 500) == len(text) - 500


@settings(max_examples=100, deadline=None)
@given(TEXT, BUDGETS)
def test_generic_bisection_fits_for_any_count(text: str, budget: int) -> None:
    """The helpers third-party tokenizers can use, with a count unlike any BPE."""

    def count(s: str) -> int:
        return sum(2 if ch.isalpha() else 1 for ch in s)

    end = fit_prefix_by_count(count, text, budget)
    start = fit_suffix_by_count(count, text, budget)
    assert count(text[:end]) <= max(budget, 0) and _no_split(text, end)
    assert count(text[start:]) <= max(budget, 0) and _no_split(text, start)
    if end < len(text):  # maximal for a monotonic count: the next point a fit may stop at
        pair = text[end:end + 2] == "\r\n" or (
            len(text) > end + 1 and "\ud800" <= text[end] <= "\udbff"
            and "\udc00" <= text[end + 1] <= "\udfff")
        assert count(text[: end + 1 + pair]) > budget
