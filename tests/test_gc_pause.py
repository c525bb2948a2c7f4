"""The collector pauses while a parsed JSON document is alive, and the document dies first.

A parsed 10 MB document is about a million objects; a collection while they live traverses
all of them (doubling the cost of ``process()`` on large JSON). These tests prove the pause
is on while the cut runs, that nothing keeps the document past the call (else the collector
would meet it later anyway), and that overlapping pauses, as threads make them, restore the
collector's state only when the last one ends.
"""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import pytest

from truncation_core import ContentFacts, Policy, Truncator, hookimpl
from truncation_core.structured import sniff
from truncation_core.structured.gc_pause import paused_gc

DOCUMENT = "[" + ", ".join(f'{{"id": {i}, "tags": ["a", "b"]}}' for i in range(3000)) + "]"


@pytest.fixture(autouse=True)
def collector_enabled() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


class Observer:
    """Reads the parse in ``select_strategy`` (as plugins may) and records what it saw."""

    __name__ = "observer"

    def __init__(self) -> None:
        self.collector_on: list[bool] = []
        self.parsed: list[weakref.ref[Any]] = []
        self.facts: list[weakref.ref[ContentFacts]] = []

    @hookimpl
    def select_strategy(self, tool: str | None, facts: ContentFacts, policy: Policy,
                        context: Mapping[str, Any]) -> str | None:
        before = gc.isenabled()
        self.parsed.append(weakref.ref(facts.parsed))
        self.collector_on.append((before, gc.isenabled()))
        self.facts.append(weakref.ref(facts))
        return None


def test_process_cuts_with_the_collector_paused_and_frees_the_document_first() -> None:
    observer = Observer()
    truncator = Truncator({"inline_limit": 2000}, plugins=[observer], load_entrypoints=False)
    result = truncator.process(DOCUMENT, tool="search_files")
    assert result.metadata.strategy_used == "element"
    assert observer.collector_on == [(True, False)]  # paused from the parse on
    assert gc.isenabled()
    # Nothing holds the facts, nor the parse they cached, once the call returns: freed by
    # reference counting while the collector was still off.
    assert observer.facts[0]() is None
    assert observer.parsed[0]() is None


class SeesTheCollector:
    __name__ = "sees-the-collector"

    def __init__(self) -> None:
        self.on: list[bool] = []

    @hookimpl
    def format_marker(self) -> None:
        self.on.append(gc.isenabled())


def test_content_that_is_never_parsed_never_pauses_the_collector() -> None:
    """The pause is process-wide: holding it where nothing is parsed would starve other
    threads' collections for nothing."""
    seen = SeesTheCollector()
    truncator = Truncator({"inline_limit": 2000}, plugins=[seen], load_entrypoints=False)
    log = "".join(f"line {i}\n" for i in range(5000))
    assert truncator.process(log).metadata.strategy_used == "head_tail"
    with truncator.stream() as s:
        s.write(log)
        s.result()
    assert seen.on and all(seen.on)


def test_a_child_forked_during_a_pause_starts_without_it() -> None:
    import os

    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with paused_gc():
            holding.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    holding.wait(10)
    try:
        pid = os.fork()
        if pid == 0:  # the child: the thread that paused does not exist here
            os._exit(0 if gc.isenabled() else 1)
        _, status = os.waitpid(pid, 0)
    finally:
        release.set()
        thread.join()
    assert os.waitstatus_to_exitcode(status) == 0
    assert gc.isenabled()


def test_process_restores_a_collector_the_application_turned_off() -> None:
    truncator = Truncator({"inline_limit": 2000}, load_entrypoints=False)
    gc.disable()
    truncator.process(DOCUMENT, tool="search_files")
    assert not gc.isenabled()


def test_a_finished_stream_no_longer_holds_its_parsed_document(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The stream object outlives its result (``with ... as s``); the parse must not."""
    parses: list[weakref.ref[Any]] = []
    truncator = Truncator({"inline_limit": 2000, "spill": False}, load_entrypoints=False)
    expected = truncator.process(DOCUMENT, tool="search_files").content
    real_parse = sniff.parse

    def observed_parse(text: str) -> Any:
        parsed = real_parse(text)
        parses.append(weakref.ref(parsed))
        return parsed

    monkeypatch.setattr(sniff, "parse", observed_parse)
    with truncator.stream(tool="search_files") as s:
        for start in range(0, len(DOCUMENT), 4096):
            s.write(DOCUMENT[start:start + 4096])
        result = s.result()
    assert result.metadata.strategy_used == "element"
    assert result.content == expected
    assert len(parses) == 1
    assert s.result() is result  # still answers, from the result it kept
    assert parses[0]() is None


# -- overlapping pauses ---------------------------------------------------------------------


@contextmanager
def naive_paused_gc() -> Iterator[None]:
    """The obvious version: each pause restores what it found."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@pytest.mark.parametrize("pause", [paused_gc, naive_paused_gc], ids=["counted", "naive"])
def test_overlapping_pauses_keep_the_collector_off_until_the_last_ends(pause: Any) -> None:
    """Threads end their pauses in any order: A starts, B starts, A ends, B ends."""
    a, b = pause(), pause()
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)
    b_still_paused = not gc.isenabled()
    b.__exit__(None, None, None)
    if pause is naive_paused_gc:
        # Negative control: A's end turns the collector back on under B's feet.
        assert not b_still_paused
        return
    assert b_still_paused
    assert gc.isenabled()


def test_nested_pauses_and_threads_leave_the_collector_as_they_found_it() -> None:
    with paused_gc():
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()

    truncator = Truncator({"inline_limit": 2000}, load_entrypoints=False)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(20):
                truncator.process(DOCUMENT, tool="search_files")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert gc.isenabled()
