"""What a strategy cuts of a stream: a ``stream_cutter``'s incremental cut (the seam through
which whole-content strategies cut streams), a ``streamable`` cut given the kept ends, or the
documented fallback."""

from __future__ import annotations

from typing import Any

from truncation_core import Truncator
from truncation_core.hooks.specs import hookimpl
from truncation_core.storage.memory import MemoryStore
from truncation_core.types.cuts import Cut
from truncation_core.types.models import Provides
from truncation_core.types.strategy import IncrementalCut, Strategy


def make(config: Any = None, **kwargs: Any) -> Truncator:
    """A Truncator on the memory store, with only the built-in plugins (and *kwargs*')."""
    return Truncator(config, load_entrypoints=False, store=MemoryStore(), **kwargs)


def streamed(truncator: Truncator, chunks: list[str], **kwargs: Any) -> Any:
    with truncator.stream(**kwargs) as s:
        for chunk in chunks:
            s.write(chunk)
    return s.result()


class _CountingCut:
    """An incremental cutter that keeps only a count: proves the seam is used and fed."""

    def __init__(self) -> None:
        self.fed = 0

    def feed(self, text: str) -> None:
        self.fed += len(text)

    def finish(self, *, text: Any, budget: Any, facts: Any, markers: Any) -> Cut:
        text = f"[{self.fed} chars of JSON]"
        return Cut(text=text, omitted_chars=facts.chars, omitted_lines=facts.lines)


def _refuse(text: str, **_: Any) -> None:
    return None


class _JsonStreams:
    """Provides ``json``, a strategy cut only through its cutter."""

    def __init__(self, make: Any = _CountingCut) -> None:
        self.make = make
        self.cutters: list[_CountingCut] = []

    def stream_cutter(self, policy: Any) -> _CountingCut:
        cutter = self.make()
        self.cutters.append(cutter)
        return cutter

    @hookimpl
    def provides(self) -> Provides:
        return Provides(strategies=[Strategy(name="json", description="counts", cut=_refuse,
                                             stream_cutter=self.stream_cutter)])


def test_a_stream_cutter_cuts_a_long_stream() -> None:
    plugin = _JsonStreams()
    truncator = make({"inline_limit": 50, "default_strategy": "json",
                      "detect_structure": False}, plugins=[plugin])
    content = "[" + "1, " * 5000 + "1]"
    result = streamed(truncator, [content[i:i + 77] for i in range(0, len(content), 77)])
    assert result.content == f"[{len(content)} chars of JSON]"
    assert plugin.cutters[0].fed == len(content)
    # A cutter for another strategy is fed but not used: the text strategy cuts.
    tail = make({"inline_limit": 50, "default_strategy": "tail"}, plugins=[plugin])
    log = "line of a log\n" * 2000
    assert streamed(tail, [log]).content.endswith("line of a log\n")
    assert plugin.cutters[-1].fed == len(log)


def test_a_strategy_that_cannot_stream_falls_back_and_says_so() -> None:
    def whole(text: str, *, facts: Any, **_: Any) -> Cut:
        return Cut(text="w", omitted_chars=facts.chars - 1, omitted_lines=0)

    class Whole:
        @hookimpl
        def provides(self) -> Any:
            return Provides(strategies=[Strategy(name="whole", description="needs everything",
                                                 cut=whole)])

    truncator = make({"inline_limit": 50, "default_strategy": "whole"},
                          plugins=[Whole()])
    small = "x" * 400  # fits in the windows: the plugin gets the real text, as in process()
    assert streamed(truncator, [small]).content == "w"
    big = "y\n" * 5000
    result = streamed(truncator, [big])
    assert result.metadata.strategy_used == "head_tail"
    assert any("cannot cut a stream this long" in n for n in result.metadata.notes)


def test_a_stream_cutter_is_asked_with_the_policy_once_the_text_outgrows_the_head() -> None:
    """Not when the stream opens: a stream held whole (a command that prints little) is cut
    from its text and never makes a cutter; one that outgrows its head makes one, once."""
    seen: list[Any] = []

    def recorder(policy: Any) -> None:
        seen.append((policy.tool, policy.inline_limit))

    class Recorder:
        @hookimpl
        def provides(self) -> Provides:
            return Provides(strategies=[Strategy(name="rec", description="records",
                                                 cut=_refuse, stream_cutter=recorder)])

    truncator = make({"inline_limit": 123}, plugins=[Recorder()])
    with truncator.stream(tool="events", tool_call_id="c1") as s:
        assert seen == []
        s.write("x" * 1000)  # within the head (window_for: several times the limit)
        assert seen == []
    assert seen == []
    with truncator.stream(tool="events", tool_call_id="c2") as s:
        for _ in range(100):
            s.write("x" * 1000)
            if seen:
                break
        assert seen == [("events", 123)]
        s.write("x" * 1000)
    assert seen == [("events", 123)]
    assert isinstance(_CountingCut(), IncrementalCut)


class _RecordingCut(_CountingCut):
    """Keeps every piece it is fed."""

    def __init__(self) -> None:
        super().__init__()
        self.pieces: list[str] = []

    def feed(self, text: str) -> None:
        super().feed(text)
        self.pieces.append(text)


def test_a_cutter_made_late_is_fed_the_text_from_its_start() -> None:
    """Made once the text outgrows the head, a cutter is given what the head holds, then
    every later piece: all of the text, decoded, however the stream is chunked."""
    import random

    plugin = _JsonStreams(_RecordingCut)
    truncator = make({"inline_limit": 50, "default_strategy": "json",
                      "detect_structure": False}, plugins=[plugin])
    text = "".join(f'{{"n": {i}, "s": "\u00e9t\u00e9 \u2603 \U0001f600"}}\r\n'
                   for i in range(800))
    raw = text.encode() + b"\xff\xfe tail \xe2\x98"  # invalid bytes, a broken end
    rng = random.Random(27)
    for content in (text, raw):
        for _ in range(8):
            chunks, at = [], 0
            while at < len(content):
                step = rng.choice((1, 2, 3, 7, 100, 4096, 20000))
                chunks.append(content[at:at + step])
                at += step
            streamed(truncator, chunks)
            cutter = plugin.cutters[-1]
            expected = content if isinstance(content, str) else content.decode("utf-8",
                                                                               "replace")
            assert "".join(cutter.pieces) == expected


def test_a_cutter_that_needs_no_more_is_not_fed_but_still_finishes() -> None:
    class FirstPieceOnly(_RecordingCut):
        """Knows its cut from the first piece it is fed: feed says so."""

        def feed(self, text: str) -> bool:  # type: ignore[override]
            super().feed(text)
            return False

    plugin = _JsonStreams(FirstPieceOnly)
    truncator = make({"inline_limit": 50, "default_strategy": "json",
                      "detect_structure": False}, plugins=[plugin])
    content = "[" + "1, " * 5000 + "1]"
    for chunks in ([content[i:i + 77] for i in range(0, len(content), 77)],
                   [content.encode()[i:i + 77] for i in range(0, len(content), 77)]):
        result = streamed(truncator, chunks)
        cutter = plugin.cutters[-1]
        assert len(cutter.pieces) == 1  # the head, up to the chunk that outgrew it
        first = cutter.pieces[0]
        assert content.startswith(first) and 0 < len(first) < len(content)
        assert len(first) % 77 == 0
        assert result.content == f"[{len(first)} chars of JSON]"


# -- a plugin's strategy runs in long streams exactly as in process() ------------------------


class _TaggedTail:
    """Overrides ``tail``: the built-in cut, tagged in the details. Declares it streamable
    when *streamable*."""

    def __init__(self, streamable: bool) -> None:
        self.__name__ = f"tagged-tail-{streamable}"
        self.streamable = streamable
        self.texts: list[str] = []

    @hookimpl
    def provides(self) -> Provides:
        return Provides(strategies=[Strategy(name="tail", description="the tail, tagged",
                                             cut=self.cut, streamable=self.streamable)])

    def cut(self, text: Any, *, budget: Any, facts: Any, markers: Any, **_: Any) -> Cut:
        from truncation_core.plugin import cut_text

        self.texts.append(type(text).__name__)
        cut = cut_text(text, budget=budget, facts=facts, markers=markers, head_share=0.0)
        return Cut(text=cut.text, omitted_chars=cut.omitted_chars,
                   omitted_lines=cut.omitted_lines, omissions=cut.omissions,
                   details={"by": "tagged"})


def test_a_plugin_overriding_a_streamable_strategy_cuts_long_streams() -> None:
    """The plugin's truncate wins in a stream longer than its kept ends, as in process()."""
    plugin = _TaggedTail(streamable=True)
    truncator = make({"inline_limit": 300, "default_strategy": "tail"}, plugins=[plugin])
    log = "".join(f"step {i}: ok\n" for i in range(20000))
    result = streamed(truncator, [log[i:i + 4096] for i in range(0, len(log), 4096)])
    assert result.metadata.details == {"by": "tagged"}
    assert plugin.texts == ["KeptEnds"]  # given the stream's ends, not the whole text
    processed = truncator.process(log)
    assert processed.metadata.details == {"by": "tagged"}
    assert result.content.splitlines()[1:] == processed.content.splitlines()[1:]


def test_a_plugin_strategy_that_does_not_stream_is_not_given_kept_ends() -> None:
    """Overriding ``tail`` without declaring it streamable: a long stream is cut by
    head_tail, and the notes say why; process() still uses the plugin."""
    plugin = _TaggedTail(streamable=False)
    truncator = make({"inline_limit": 300, "default_strategy": "tail"}, plugins=[plugin])
    log = "".join(f"step {i}: ok\n" for i in range(20000))
    result = streamed(truncator, [log])
    assert plugin.texts == [] and result.metadata.strategy_used == "head_tail"
    assert "strategy 'tail' cannot cut a stream this long; cut with head_tail instead" in (
        result.metadata.notes)
    assert truncator.process(log).metadata.details == {"by": "tagged"}
