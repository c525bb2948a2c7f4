"""The example plugin, loaded exactly as a third-party plugin would be: by entry point."""

from __future__ import annotations

import importlib.metadata

import pytest

from truncation_core import Truncator
from truncation_core.storage.memory import MemoryStore
from truncation_core.text.measure import count_lines

LOG = "".join(f"step {i:05d}: ok\n" for i in range(5000))


@pytest.fixture
def truncator() -> Truncator:
    return Truncator({"inline_limit": 2000, "spill": False}, load_entrypoints=True)


def test_entry_point_is_installed() -> None:
    names = {ep.name for ep in importlib.metadata.entry_points(group="truncation_core")}
    assert "example" in names


def test_sample_strategy_is_discovered(truncator: Truncator) -> None:
    assert "sample" in truncator.plugins.strategies
    info = {p.name: p for p in truncator.plugins.list_plugins()}["example"]
    assert info.kind == "entrypoint"
    assert info.distribution == "truncation-core-example"
    assert info.strategies == ("sample",)


def test_sample_keeps_head_tail_and_middle_lines() -> None:
    t = Truncator({"inline_limit": 2000, "spill": False, "default_strategy": "sample"})
    result = t.process(LOG)
    meta = result.metadata
    assert meta.strategy_used == "sample"
    assert len(result.content) <= 2000
    assert result.content.startswith("step 00000: ok\n")
    assert result.content.endswith("step 04999: ok\n")
    sampled = meta.details["sampled_lines"]
    assert len(sampled) >= 2
    for line_number in sampled:  # each sampled line is shown, and is the right line
        assert f"step {line_number - 1:05d}: ok\n" in result.content
    # The gaps and the shown lines account for every line of the original.
    shown = count_lines(result.content) - len(meta.omissions) * 2
    assert meta.omitted_lines + shown == count_lines(LOG)
    assert meta.omitted_chars + sum(
        len(line) for line in LOG.splitlines(keepends=True) if line in result.content
    ) == len(LOG)


def test_each_gap_says_how_to_read_it_back() -> None:
    t = Truncator({"inline_limit": 2000, "default_strategy": "sample"}, store=MemoryStore())
    result = t.process(LOG)
    assert result.artifact is not None
    stored = LOG.encode()
    for gap in result.metadata.omissions:  # line and byte ranges, both exact
        assert f"start_line={gap.first_line}, end_line={gap.last_line}); bytes " \
               f"{gap.start_byte}:{gap.end_byte}" in result.content
        assert stored[gap.start_byte:gap.end_byte].decode() == LOG[gap.start:gap.end]


# -- the hook contract, through truncation_core.testing ---------------------------------------


def test_sample_keeps_the_contract_on_real_and_hostile_text() -> None:
    import truncation_core_example

    from truncation_core.testing import check_strategy

    check_strategy("sample", truncation_core_example, texts=[LOG, LOG.replace("\n", "\r\n")],
                   max_examples=60)


def test_check_result_catches_a_broken_strategy() -> None:
    """Negative control: the kit fails a strategy that breaks the contract."""
    from truncation_core.plugin import Cut, Provides, Strategy, hookimpl
    from truncation_core.testing import check_result, make_truncator

    def liar(text: str, **_: object) -> Cut:
        return Cut(text=text[:10], omitted_chars=0, omitted_lines=0)

    class Liar:
        @hookimpl
        def provides(self) -> Provides:
            return Provides(strategies=[Strategy(name="liar", cut=liar,
                                                 description="claims to omit nothing")])

    truncator = make_truncator(Liar(), config={"default_strategy": "liar",
                                               "inline_limit": 2000})
    result = truncator.process(LOG)
    with pytest.raises(AssertionError, match="omitted"):
        check_result(truncator, LOG, result)
