"""A test kit for plugin authors: a Truncator with just your plugin, and the hook contract.

    from truncation_core.testing import make_truncator, check_result, check_strategy

    def test_my_strategy():
        truncator = make_truncator(my_plugin, config={"default_strategy": "mine"})
        result = truncator.process(big_text)
        check_result(truncator, big_text, result)       # the contract, for one result

    def test_my_strategy_on_any_text():
        check_strategy("mine", my_plugin)               # property tests (needs Hypothesis)

:func:`make_truncator` builds a Truncator with the built-ins and your plugins only: no
installed entry points, no configuration files, none of the operator's environment switches,
and an in-memory store, so that the test sees your plugin and nothing else.

:func:`check_result` checks what the processor promises for any result, whichever plugin
made it, and raises ``AssertionError`` saying which promise is broken: the output fits the
budget, marker included; counts are not negative and add up; every omitted region lies in
the original and is marked in the output; when the content is kept, the artifact holds it
byte for byte and each omission's ``get_artifact`` coordinates read it back.
:func:`check_cut` checks one :class:`~truncation_core.types.cuts.Cut` against the
``truncate`` contract. :func:`check_strategy` runs both over hostile text (CRLF, lone CR,
astral characters, lone surrogates, long single lines) and random budgets, with Hypothesis,
and checks that the strategy named really ran.

This module is opt-in: nothing registers it with pytest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from truncation_core.storage.memory import MemoryStore
from truncation_core.text.measure import measure
from truncation_core.truncator import Truncator
from truncation_core.types.cuts import Cut
from truncation_core.types.models import Budget

if TYPE_CHECKING:
    from truncation_core.pipeline.results import TruncationResult
    from truncation_core.truncator import Truncator

__all__ = ["check_cut", "check_result", "check_strategy", "hostile_text", "make_truncator"]


def make_truncator(*plugins: object, config: Mapping[str, Any] | None = None,
                   store: Any = None) -> Truncator:
    """A Truncator with the built-ins and *plugins* only (called first, in the order given,
    last first), *config* as a mapping of the config file's keys, and an in-memory store
    unless *store* is given."""
    return Truncator(dict(config or {}), plugins=plugins, load_entrypoints=False,
                     store=store if store is not None else MemoryStore(), environ={})


def check_cut(cut: object, *, text: str, budget: Budget) -> None:
    """*cut*, returned by a ``truncate`` implementation for *text*, keeps the contract: a
    :class:`~truncation_core.types.cuts.Cut` within *budget*, with counts that are not
    negative and omissions that lie in *text*, in order, without overlapping."""
    assert isinstance(cut, Cut), f"truncate returned a {type(cut).__name__}, not a Cut"
    size = measure(cut.text)
    assert budget.admits(size), f"the cut ({size}) is over the budget ({budget})"
    assert cut.omitted_chars >= 0 and cut.omitted_lines >= 0, "negative omitted counts"
    assert cut.omitted_chars <= len(text), "more characters omitted than the text has"
    end = 0
    for region in cut.omissions:
        assert end <= region.start <= region.end <= len(text), (
            f"omission {region.start}:{region.end} is out of order or outside the text")
        assert region.lines >= 0, "an omission with negative lines"
        end = region.end
    if cut.omissions:
        assert sum(r.chars for r in cut.omissions) == cut.omitted_chars, (
            "omitted_chars is not the characters of the omissions")


def check_result(truncator: Truncator, content: str, result: TruncationResult, *,
                 tool: str | None = None) -> None:
    """*result*, returned by ``truncator.process(content, tool=tool)``, keeps the processor's
    promises (see the module docstring)."""
    policy = truncator.policy(tool)
    meta = result.metadata
    out = result.content
    if not meta.was_truncated:
        assert out == content, "an unchanged result differs from the content"
        return
    size = measure(out)
    assert policy.budget.admits(size), f"the output ({size}) is over the budget ({policy.budget})"
    assert meta.original_size == len(content), "original_size is not the content's length"
    assert meta.truncated_size == len(out), "truncated_size is not the output's length"
    assert 0 <= meta.omitted_chars <= len(content), "omitted_chars is out of range"
    assert 0 <= meta.omitted_lines <= meta.original_lines, "omitted_lines is out of range"
    # The output cannot show more of the content than it holds: what it does not hold is
    # omitted, or is terminal control removed from the view, and the metadata must say so.
    assert meta.omitted_chars + meta.terminal_chars_removed >= len(content) - len(out), (
        f"omitted_chars ({meta.omitted_chars}) and terminal_chars_removed "
        f"({meta.terminal_chars_removed}) are less than what the output cannot hold "
        f"({len(content) - len(out)})")
    # (A removed "\r" redraw or erased line takes at most one line break with it.)
    assert (meta.omitted_lines + meta.terminal_chars_removed
            >= meta.original_lines - size.lines - len(meta.omissions)), (
        f"omitted_lines ({meta.omitted_lines}) is less than the lines the output cannot hold")
    assert meta.strategy_used in truncator.plugins.strategies, (
        f"strategy_used {meta.strategy_used!r} is not a provided strategy")
    for region in meta.omissions:
        assert 0 <= region.start <= region.end <= len(content), "omission outside the content"
    if result.artifact is None:
        return
    stored = truncator.artifacts.read(result.artifact.id)
    if not meta.artifact_truncated:
        assert stored == content.encode("utf-8", "surrogatepass"), (
            "the artifact does not hold the content byte for byte")
    for region in meta.omissions:
        args = meta.retrieve(region)
        if args is None or region.in_artifact is None or not region.in_artifact.complete:
            continue
        span = region.in_artifact
        if span.start_byte is not None and span.end_byte is not None:
            omitted = content[region.start:region.end].encode("utf-8", "surrogatepass")
            assert stored[span.start_byte:span.end_byte] == omitted, (
                f"bytes {span.start_byte}:{span.end_byte} of the artifact are not the "
                "omitted region")


def hostile_text() -> Any:
    """A Hypothesis strategy for tool output at its worst: every kind of line ending, astral
    characters, lone surrogates, long single lines, and log-like runs of lines."""
    from hypothesis import strategies as st

    endings = st.sampled_from(["\n", "\r\n", "\r", "\x0b", "\x85", "\u2028"])
    odd = st.one_of(st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF),
                    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
                    st.characters(codec=None, exclude_categories=()))
    long_run = st.builds(lambda c, n: c * n, st.sampled_from(["x", "é", "😀", "\ud800"]),
                         st.integers(50, 700))
    pieces = st.lists(st.one_of(st.text(max_size=20), endings, odd, long_run), max_size=60)
    lines = st.lists(st.tuples(st.text(max_size=40), st.sampled_from(["\n", "\r\n", "\r"])),
                     max_size=120).map(lambda ls: "".join(a + b for a, b in ls))
    return pieces.map("".join) | lines


def check_strategy(strategy: str, *plugins: object, config: Mapping[str, Any] | None = None,
                   texts: Iterable[str] = (), max_examples: int = 100) -> None:
    """Property tests of *strategy* (provided by *plugins*): for hostile text and random
    limits in characters, bytes and lines, every result keeps the contract
    (:func:`check_result`), and the strategy ran (or its own fallback says so in the notes).

    *texts* are checked too, each at a few budgets: add the inputs your strategy is for.
    Needs Hypothesis (``pip install hypothesis``).
    """
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    base = {"default_strategy": strategy, "detect_structure": False, **(config or {})}

    def run(text: str, chars: int, max_bytes: int | None, max_lines: int | None) -> None:
        limits = {"inline_limit": chars, "max_bytes": max_bytes, "max_lines": max_lines}
        truncator = make_truncator(*plugins, config={**base, **{
            k: v for k, v in limits.items() if v is not None}})
        result = truncator.process(text)
        check_result(truncator, text, result)
        meta = result.metadata
        if meta.was_truncated and meta.strategy_used != strategy:
            assert meta.notes, (f"the result was cut by {meta.strategy_used!r}, not "
                                f"{strategy!r}, and no note says why")

    for text in texts:
        for chars in (50, 500, 4000):
            run(text, chars, None, None)

    @settings(max_examples=max_examples, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(hostile_text(), st.integers(1, 400), st.none() | st.integers(1, 600),
           st.none() | st.integers(1, 30))
    def property_holds(text: str, chars: int, max_bytes: int | None,
                       max_lines: int | None) -> None:
        run(text, chars, max_bytes, max_lines)

    property_holds()
