"""max_tokens holds for what the model sees, under every tokenizer, and uses the budget.

The done-when of the token-budget issue, checked on real content (the logs of tests/corpus,
JSON, base64, CJK text: token_texts.py beside this file) with ``max_tokens: 2000``:

* under ``estimate``, no result is over 2,000 tokens counted by cl100k_base or o200k_base,
  and the median result uses at least 70% of the budget (by the larger real count);
* under each named tokenizer, no result is over 2,000 tokens counted by it, and the median
  uses at least 90%;
* ``metadata.estimated_tokens`` is that tokenizer's count (exact), and under ``estimate``
  never below either real count, with a median over-count of at most 1.35.

Plus property tests: any text and any budget stay within the budget, under ``estimate``
(checked with both real encodings) and under a named tokenizer (checked with it).
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from typing import Any

import pytest
import truncation_core_tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st
from token_texts import texts

from truncation_core import Truncator
from truncation_core.tokens import EstimateTokenizer

MAX_TOKENS = 2000
ESTIMATE = EstimateTokenizer()
NAMED = ("cl100k_base", "o200k_base")


def truncator(tokenizer: str, **settings: Any) -> Truncator:
    """A Truncator with the tiktoken plugin passed explicitly (hermetic: no entry points)."""
    config = {"max_tokens": MAX_TOKENS, "tokenizer": tokenizer, "spill": False, **settings}
    return Truncator(config, load_entrypoints=False, plugins=[truncation_core_tiktoken])


def real_contents() -> Iterator[tuple[str, str, str]]:
    """(kind, source, text) for every real text over the budget, the corpus's logs whole."""
    for kind, docs in texts().items():
        if kind == "code":
            continue  # the four: logs, JSON, base64, CJK
        for source, text in docs:
            yield kind, source, text


@pytest.fixture(scope="module")
def contents() -> list[tuple[str, str, str]]:
    return list(real_contents())


def _tokens_by(real: dict[str, Any], tokenizer: str, text: str) -> int:
    """The real count a result is held to: both encodings under estimate (the larger)."""
    if tokenizer == "estimate":
        return max(real[name].count(text) for name in NAMED)
    return int(real[tokenizer].count(text))


@pytest.mark.parametrize("tokenizer", ["estimate", *NAMED])
def test_max_tokens_holds_on_real_content_and_uses_the_budget(
        tokenizer: str, contents: list[tuple[str, str, str]], real: dict[str, Any]) -> None:
    t = truncator(tokenizer)
    uses: dict[str, list[float]] = {}
    over_counts: list[float] = []
    for kind, source, text in contents:
        result = t.process(text, tool=kind)
        meta = result.metadata
        shown = _tokens_by(real, tokenizer, result.content)
        assert shown <= MAX_TOKENS, (kind, source, shown)
        assert meta.tokenizer == tokenizer and meta.max_tokens == MAX_TOKENS
        if tokenizer == "estimate":
            # Never fewer than either real count; exactly estimate's own count.
            assert meta.estimated_tokens >= shown, (kind, source)
            assert meta.estimated_tokens == ESTIMATE.count(result.content)
            over_counts.append(meta.estimated_tokens / max(shown, 1))
        else:
            assert meta.estimated_tokens == shown, (kind, source)  # exact
        if result.was_truncated:
            uses.setdefault(kind, []).append(shown / MAX_TOKENS)
    assert set(uses) == {"log", "json", "cjk", "base64"}, "every kind must be over the budget"
    floor = 0.7 if tokenizer == "estimate" else 0.9
    every = [use for kind_uses in uses.values() for use in kind_uses]
    assert statistics.median(every) >= floor, {k: statistics.median(v) for k, v in uses.items()}
    for kind, kind_uses in uses.items():
        # element cuts JSON by whole items: between two item counts there is no cut to find.
        assert statistics.median(kind_uses) >= floor - 0.15, (kind, kind_uses)
    if over_counts:
        assert statistics.median(over_counts) <= 1.35


def test_negative_control_characters_alone_overflow_the_same_budget(
        contents: list[tuple[str, str, str]], real: dict[str, Any]) -> None:
    """The check above bites: the cut by characters alone that a token budget was sized
    from (inline_limit 8,000 = 2,000 x 4) shows more than 2,000 real tokens on most of the
    same content."""
    t = Truncator({"inline_limit": 4 * MAX_TOKENS, "spill": False}, load_entrypoints=False)
    over = 0
    for kind, _source, text in contents:
        result = t.process(text, tool=kind)
        over += _tokens_by(real, "estimate", result.content) > MAX_TOKENS
    assert over >= len(contents) // 2


@pytest.mark.parametrize("tokenizer", ["estimate", "o200k_base"])
def test_the_reference_tier_and_highlights_count_too(tokenizer: str, real: dict[str, Any],
                                                    tmp_path: Any) -> None:
    """Spill on: content over artifact_threshold is shown as a reference and a preview, and a
    tail with highlights: markers, reference and highlights within max_tokens too."""
    log = texts()["log"][0][1] * 40
    for config in ({"spill": True, "store": {"root": str(tmp_path)}},
                   {"spill": True, "store": {"root": str(tmp_path)}, "highlights": 8,
                    "artifact_threshold": 10 ** 9}):
        for limit in (60, 400, 2000):
            t = truncator(tokenizer, **{**config, "max_tokens": limit})
            result = t.process(log, tool="execute_command", tool_call_id="call_1")
            assert _tokens_by(real, tokenizer, result.content) <= limit, (config, limit)
            assert result.artifact is not None


@pytest.mark.parametrize("tokenizer", ["estimate", "o200k_base"])
def test_streams_hold_max_tokens_and_equal_process(tokenizer: str,
                                                   real: dict[str, Any]) -> None:
    t = truncator(tokenizer)
    for kind, _source, text in list(real_contents())[::3]:
        expected = t.process(text, tool=kind)
        with t.stream(tool=kind) as s:
            for i in range(0, len(text), 7_777):
                s.write(text[i:i + 7_777].encode())
        got = s.result()
        assert _tokens_by(real, tokenizer, got.content) <= MAX_TOKENS
        assert got.content == expected.content
        assert got.metadata.estimated_tokens == expected.metadata.estimated_tokens


def test_a_stream_within_characters_but_over_tokens_is_cut_and_kept(
        real: dict[str, Any], tmp_path: Any) -> None:
    """CJK text of 3,000 characters is within inline_limit 8,000 but over 1,000 tokens: the
    stream cuts it and stores it, as process does."""
    cjk = texts()["cjk"][0][1][:3000]
    t = truncator("o200k_base", max_tokens=1000, spill=True, store={"root": str(tmp_path)})
    with t.stream(tool="cat") as s:
        s.write(cjk)
    result = s.result()
    assert result.was_truncated and result.artifact is not None
    assert real["o200k_base"].count(result.content) <= 1000
    assert t.artifacts.text(result.artifact.id) == cjk


def test_trunc_run_counts_its_header_against_max_tokens(real: dict[str, Any],
                                                        tmp_path: Any) -> None:
    import sys

    from truncation_core.streaming.command import run_command

    t = truncator("cl100k_base", max_tokens=150, spill=True, store={"root": str(tmp_path)})
    done = run_command(t, [sys.executable, "-c", "for i in range(3000): print('line', i)"],
                       tool="execute_command")
    assert done.header  # the header is shown ...
    assert real["cl100k_base"].count(done.text) <= 150  # ... and counted with the output
    assert done.result.content.endswith("line 2999\n")


# -- any text, any budget ------------------------------------------------------------------

ANY_CHAR = st.characters(blacklist_categories=())
PIECES = st.sampled_from(["\r", "\r\n", "\n", "\ud800", "\udfff", "\ud83d\ude00", "错误",
                          "ファイル", "  ", "error: failed", "0x7fff", "{\"a\": 1}", "é",
                          "A" * 300, "+/=", "\x00"])
ANY_TEXT = st.lists(PIECES | st.text(ANY_CHAR, max_size=30), min_size=1,
                    max_size=200).map("".join)
STRATEGIES = st.sampled_from(["head_tail", "head", "tail", "lines", "element"])


@settings()
@given(text=ANY_TEXT, limit=st.integers(1, 600), strategy=STRATEGIES,
       highlights=st.sampled_from([0, 4]), spill=st.booleans(), as_bytes=st.booleans())
def test_any_text_any_budget_within_max_tokens_under_estimate(
        real: dict[str, Any], text: str, limit: int, strategy: str, highlights: int,
        spill: bool, as_bytes: bool) -> None:
    t = Truncator({"max_tokens": limit, "default_strategy": strategy, "spill": spill,
                   "highlights": highlights, "store": {"backend": "memory"}},
                  load_entrypoints=False)
    content = text.encode("utf-8", "surrogatepass") if as_bytes else text
    result = t.process(content)  # never raises
    shown = result.content
    assert ESTIMATE.count(shown) <= limit
    for name in NAMED:  # estimate bounds both: so do they
        assert real[name].count(shown) <= limit
    if result.was_truncated:
        assert result.metadata.estimated_tokens == ESTIMATE.count(shown)


@settings()
@given(text=ANY_TEXT, limit=st.integers(1, 600), strategy=STRATEGIES,
       tokenizer=st.sampled_from(NAMED), chunk=st.integers(1, 500))
def test_any_text_any_budget_within_max_tokens_under_a_named_tokenizer(
        real: dict[str, Any], text: str, limit: int, strategy: str, tokenizer: str,
        chunk: int) -> None:
    t = Truncator({"max_tokens": limit, "tokenizer": tokenizer, "default_strategy": strategy,
                   "store": {"backend": "memory"}}, load_entrypoints=False,
                  plugins=[truncation_core_tiktoken])
    result = t.process(text)
    assert real[tokenizer].count(result.content) <= limit
    with t.stream() as s:  # a stream, in chunks, holds it too
        for i in range(0, len(text), chunk):
            s.write(text[i:i + chunk])
    assert real[tokenizer].count(s.result().content) <= limit
