"""Tokenizers are plugins: provided like backends, named by configuration per tool, checked.

A third party adds a tokenizer for its model with ``Provides(tokenizers={name: factory})``;
``tokenizer`` names it, globally or per tool; an unknown name is a configuration error with
a did-you-mean; a later plugin's factory wins; a tokenizer that fails is replaced by
``estimate`` and named, unless ``plugins.strict``.
"""

from __future__ import annotations

import logging
import re
import warnings
from typing import Any

import pytest
from distributions import SiteDir

from truncation_core import ConfigError, Provides, Truncator, hookimpl
from truncation_core.errors import PluginLoadWarning
from truncation_core.tokens import EstimateTokenizer, fit_prefix_by_count, fit_suffix_by_count

LOG = "".join(f"2024-05-01 12:00:{i % 60:02d} worker {i} processed batch {i * 7}\n"
              for i in range(2000))


class WordTokenizer:
    """A real tokenizer of its own kind: one token per whitespace-separated word, one per
    whitespace run. Not byte-level (a word of 9 letters is one token, but so is a 40-byte
    word: tokens are fewer than bytes, which is the byte-level property, yet the test keeps
    byte_level False to exercise the counting path)."""

    name = "words"
    byte_level = False

    def __init__(self) -> None:
        self.counted: list[int] = []

    def count(self, text: str) -> int:
        self.counted.append(len(text))
        return len(re.findall(r"\S+|\s+", text))

    def fit_prefix(self, text: str, max_tokens: int) -> int:
        return fit_prefix_by_count(self.count, text, max_tokens)

    def fit_suffix(self, text: str, max_tokens: int) -> int:
        return fit_suffix_by_count(self.count, text, max_tokens)


class WordsPlugin:
    __name__ = "words-plugin"

    def __init__(self, tokenizer: Any = None) -> None:
        self.tokenizer = tokenizer or WordTokenizer()
        self.made = 0

    @hookimpl
    def provides(self) -> Provides:
        def factory() -> Any:
            self.made += 1
            return self.tokenizer

        return Provides(tokenizers={"words": factory})


def words(text: str) -> int:
    return len(re.findall(r"\S+|\s+", text))


def test_a_plugin_tokenizer_holds_max_tokens_per_tool() -> None:
    plugin = WordsPlugin()
    with pytest.raises(ConfigError, match=r"tools\.search\.tokenizer: unknown tokenizer 'words'"):
        Truncator({"tools": {"search": {"tokenizer": "words"}}}, load_entrypoints=False)
    t = Truncator({"max_tokens": 300, "spill": False,
                   "tools": {"search": {"tokenizer": "words", "max_tokens": 120}}},
                  plugins=[plugin], load_entrypoints=False)
    by_words = t.process(LOG, tool="search")
    assert by_words.metadata.tokenizer == "words" and by_words.metadata.max_tokens == 120
    assert words(by_words.content) <= 120
    assert by_words.metadata.estimated_tokens == words(by_words.content)
    by_default = t.process(LOG, tool="other")  # the global tokenizer: estimate
    assert by_default.metadata.tokenizer == "estimate"
    assert EstimateTokenizer().count(by_default.content) <= 300
    assert plugin.made == 1  # made once, when the tool's policy first named it
    t.process(LOG, tool="search")
    assert plugin.made == 1


def test_provides_checks_tokenizer_factories() -> None:
    assert Provides(tokenizers={"x": lambda: None}).problems() == []
    assert Provides(tokenizers={"x": 3}).problems() == [  # type: ignore[dict-item]
        "tokenizers: expected non-empty names mapped to tokenizer factories, got str -> int"]
    assert Provides(tokenizers={"": lambda: None}).problems()

    class Malformed:
        __name__ = "malformed"

        @hookimpl
        def provides(self) -> Provides:
            return Provides(tokenizers={"bad": "not callable"})  # type: ignore[dict-item]

    with pytest.warns(PluginLoadWarning, match="malformed Provides: tokenizers"):
        t = Truncator(plugins=[Malformed()], load_entrypoints=False)
    assert "bad" not in t.plugins.tokenizers


def test_a_later_plugin_wins_a_tokenizer_name() -> None:
    """A plugin providing "estimate" replaces the built-in one."""
    mine = WordTokenizer()
    mine.name = "estimate"  # type: ignore[misc]

    class OwnEstimate:
        __name__ = "own-estimate"

        @hookimpl
        def provides(self) -> Provides:
            return Provides(tokenizers={"estimate": lambda: mine})

    t = Truncator({"max_tokens": 50, "spill": False}, plugins=[OwnEstimate()],
                  load_entrypoints=False)
    result = t.process(LOG)
    assert words(result.content) <= 50 and mine.counted
    info = {p.name: p for p in t.plugins.list_plugins()}
    assert info["explicit.own-estimate"].tokenizers == ("estimate",)
    assert info["builtin.estimate_tokenizer"].tokenizers == ("estimate",)


def test_unknown_tokenizer_names_are_config_errors_with_did_you_mean() -> None:
    with pytest.raises(ConfigError) as raised:
        Truncator({"tokenizer": "wrods"}, plugins=[WordsPlugin()], load_entrypoints=False)
    assert str(raised.value) == ("invalid configuration:\n  tokenizer: unknown tokenizer "
                                 "'wrods'; did you mean 'words'? (available: estimate, words)")
    with pytest.raises(ConfigError, match=r"'o200k_base' is provided by the "
                       r"truncation-core-tiktoken plugin \(pip install"):
        Truncator({"tokenizer": "o200k_base"}, load_entrypoints=False)


def test_a_disabled_plugin_s_tokenizer_falls_back_to_estimate_with_a_warning(
        monkeypatch: pytest.MonkeyPatch, site_dir: SiteDir) -> None:
    """The tiktoken plugin, installed but disabled: its names warn."""
    site_dir.first_party("truncation-core-tiktoken", code=False)  # disabled: never imported
    with pytest.warns(PluginLoadWarning, match=r"tokenizer names 'o200k_base', which no "
                      r"loaded plugin provides; disabled plugin 'tiktoken'.*using estimate"):
        t = Truncator({"tokenizer": "o200k_base", "max_tokens": 100,
                       "plugins": {"disable": ["tiktoken"]}})
    assert t.policy().tokenizer == "estimate"


class Broken(WordTokenizer):
    name = "words"

    def count(self, text: str) -> int:
        raise RuntimeError("vocabulary file missing")


def test_a_tokenizer_that_raises_is_replaced_by_estimate_and_named(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="truncation_core")
    t = Truncator({"tokenizer": "words", "max_tokens": 200, "spill": False},
                  plugins=[WordsPlugin(Broken())], load_entrypoints=False)
    result = t.process(LOG)  # never raises
    meta = result.metadata
    assert meta.tokenizer == "estimate"
    assert EstimateTokenizer().count(result.content) <= 200
    assert any("raised RuntimeError" in note and "counted with estimate instead of 'words'"
               in note for note in meta.notes), meta.notes
    assert "vocabulary file missing" not in caplog.text  # the type, never the message
    assert "RuntimeError" in caplog.text
    strict = Truncator({"tokenizer": "words", "max_tokens": 200, "spill": False,
                        "plugins": {"strict": True}},
                       plugins=[WordsPlugin(Broken())], load_entrypoints=False)
    with pytest.raises(RuntimeError, match="vocabulary file missing"):
        strict.process(LOG)


def test_a_factory_that_returns_no_tokenizer_is_reported_and_estimate_counts(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="truncation_core")
    t = Truncator({"tokenizer": "words", "max_tokens": 100, "spill": False},
                  plugins=[WordsPlugin(tokenizer=object())], load_entrypoints=False)
    result = t.process(LOG)
    assert result.metadata.tokenizer == "estimate"
    assert "returned a object from provides, not a Tokenizer (tokenizer 'words')" in caplog.text


def test_content_within_max_tokens_by_its_size_is_not_counted() -> None:
    """Under a byte-level tokenizer, content whose UTF-8 size is within max_tokens passes
    without a count; content over it by size but within it by count is counted once."""
    counted = WordTokenizer()
    counted.byte_level = True  # type: ignore[misc]  # every word is at least one byte
    t = Truncator({"tokenizer": "words", "max_tokens": 400}, plugins=[WordsPlugin(counted)],
                  load_entrypoints=False)
    small = "word " * 80  # 400 bytes
    assert t.process(small).content == small and counted.counted == []
    assert t.process("é" * 100).content == "é" * 100 and counted.counted == []  # 200 bytes
    longer = "word " * 150  # 750 bytes, 300 tokens
    result = t.process(longer)
    assert not result.was_truncated and counted.counted == [len(longer)]
    # Negative control: a count that would have been over.
    over = "w " * 300
    assert t.process(over).was_truncated


def test_the_pass_through_path_stays_unmeasured_under_a_byte_level_max_tokens() -> None:
    t = Truncator({"max_tokens": 1000}, load_entrypoints=False)
    slot = t._slot(None)
    assert slot.unmeasured_chars == 250  # a character is at most 4 bytes, a token >= 1 byte
    words_t = Truncator({"tokenizer": "words", "max_tokens": 1000},
                        plugins=[WordsPlugin()], load_entrypoints=False)
    assert words_t._slot(None).unmeasured_chars == -1


def test_no_warning_for_a_configuration_that_names_only_provided_tokenizers() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Truncator({"tokenizer": "words"}, plugins=[WordsPlugin()], load_entrypoints=False)


class CountingTokenizer:
    """``estimate``, adding up the characters it is given to count."""

    name = "counting"
    byte_level = True

    def __init__(self) -> None:
        self.chars = 0
        self._estimate = EstimateTokenizer()

    def count(self, text: str) -> int:
        self.chars += len(text)
        return self._estimate.count(text)

    def fit_prefix(self, text: str, max_tokens: int) -> int:
        return self._estimate.fit_prefix(text, max_tokens)

    def fit_suffix(self, text: str, max_tokens: int) -> int:
        return self._estimate.fit_suffix(text, max_tokens)


class CountingPlugin:
    __name__ = "counting-plugin"

    def __init__(self, tokenizer: CountingTokenizer) -> None:
        self.tokenizer = tokenizer

    @hookimpl
    def provides(self) -> Provides:
        return Provides(tokenizers={"counting": lambda: self.tokenizer})


def counting_truncator(**settings: Any) -> tuple[Truncator, CountingTokenizer]:
    counting = CountingTokenizer()
    truncator = Truncator({"tokenizer": "counting", "max_tokens": 500, "spill": False,
                           "inline_limit": 10_000_000, **settings},
                          plugins=[CountingPlugin(counting)], load_entrypoints=False)
    return truncator, counting


BIG_LOG = LOG * 20  # 2 MB


def test_a_long_text_under_max_tokens_alone_is_counted_as_far_as_what_is_shown() -> None:
    """With max_tokens the only limit in force, a 2 MB log is counted in proportion to the
    cut, not the input: a prefix proves it over, and the cuts are counted (before: the
    whole input was counted to find it over)."""
    truncator, counting = counting_truncator()
    result = truncator.process(BIG_LOG, tool="build")
    shown = len(result.content)
    assert result.was_truncated and EstimateTokenizer().count(result.content) <= 500
    assert counting.chars <= 8 * shown, (counting.chars, shown)
    # What was omitted is still exact, in characters and lines.
    meta = result.metadata
    (region,) = meta.omissions
    assert result.content.startswith(BIG_LOG[:region.start])
    assert result.content.endswith(BIG_LOG[region.end:])
    assert meta.omitted_chars == region.end - region.start
    assert meta.omitted_lines == BIG_LOG[region.start:region.end].count("\n")
    # The token figures: what is shown, counted exactly; the original, estimated from its
    # ends and labelled so.
    assert meta.estimated_tokens == EstimateTokenizer().count(result.content)
    assert not meta.original_tokens_counted
    assert meta.original_tokens > 500 * 100
    from truncation_core.pipeline.pipeline import ORIGINAL_SAMPLE_CHARS

    assert counting.chars <= 8 * shown + 2 * ORIGINAL_SAMPLE_CHARS


def test_a_long_stream_under_max_tokens_alone_is_counted_as_far_as_what_is_shown() -> None:
    truncator, counting = counting_truncator()
    expected = truncator.process(BIG_LOG, tool="build").content
    counting.chars = 0
    with truncator.stream(tool="build") as stream:
        for start in range(0, len(BIG_LOG), 65536):
            stream.write(BIG_LOG[start:start + 65536])
    assert stream.result().content == expected
    assert counting.chars <= 8 * len(expected)


def test_long_json_without_blanks_is_counted_as_far_as_what_is_shown() -> None:
    """A prefix may end between a digit or letter and punctuation: minified JSON, with no
    blank to end at, is proved over by a prefix too."""
    import json

    document = json.dumps([{"id": i, "name": f"item{i}", "tags": ["a", "b"]}
                           for i in range(40_000)], separators=(",", ":"))
    truncator, counting = counting_truncator()
    result = truncator.process(document, tool="api")
    assert result.was_truncated and EstimateTokenizer().count(result.content) <= 500
    assert json.loads(result.content)
    assert counting.chars <= 20 * len(result.content), (counting.chars, len(result.content))


def test_content_within_max_tokens_is_counted_whole_once_even_when_long() -> None:
    """Blank-heavy content: long in characters, within max_tokens by count. It is shown whole,
    so it is counted whole: once, plus the prefixes that could not prove it over."""
    truncator, counting = counting_truncator()
    text = ("word" + " " * 60 + "\n") * 110  # 7,150 characters, 440 tokens
    assert EstimateTokenizer().count(text) <= 500
    result = truncator.process(text)
    assert not result.was_truncated
    assert len(text) <= counting.chars <= 4 * len(text)


def test_the_salient_lines_are_scanned_once_for_every_cut_a_token_budget_tries(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Fitting max_tokens tries several cuts; each lifts highlights from the omitted part,
    but the whole text is scanned for salient lines once (it was scanned again for each cut
    tried: 2.9 s of a 10 MB log's 3.4 s, twice)."""
    from truncation_core.pipeline.pipeline import Pipeline

    scans: list[int] = []
    cuts: list[int] = []
    scan, shown = Pipeline._scan, Pipeline._shown

    def scanned(self: Pipeline, call: Any, notes: list[str]) -> Any:
        scans.append(len(call.text))
        return scan(self, call, notes)

    def cut(self: Pipeline, call: Any, *args: Any) -> Any:
        cuts.append(call.budget.chars)
        return shown(self, call, *args)

    monkeypatch.setattr(Pipeline, "_scan", scanned)
    monkeypatch.setattr(Pipeline, "_shown", cut)
    # A start denser in tokens than the rest: the first cut misses, a second one is tried.
    text = ("".join(f"{i:x} " for i in range(1000)) + "\n" + BIG_LOG
            + "ERROR: the build failed\n" + BIG_LOG[:50_000])
    truncator, _ = counting_truncator(highlights=8)
    result = truncator.process(text, tool="build")
    assert "ERROR: the build failed" in result.content  # lifted from the omitted part
    assert len(cuts) >= 2 and len(scans) == 1, (cuts, scans)
