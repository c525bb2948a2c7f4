"""Logging: each truncation at DEBUG on ``truncation_core`` with sizes, tool and strategy; and a
canary planted in tool output that must never reach a log record, an exception message, a
warning, or the repr of anything returned (reliability.md §6)."""

from __future__ import annotations

import json
import logging
import secrets
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from faults import Broken, FailingStore, Greedy

from truncation_core import StoreFull, Truncator
from truncation_core.storage.memory import MemoryStore
from truncation_core.types.cuts import Cut


@pytest.fixture
def canary() -> str:
    return "CANARY-" + secrets.token_hex(8)


def tool_output(canary: str) -> str:
    """Output with the canary in the head, in the middle (cut) and in the tail."""
    lines = [f"row {i:05d} value={i * 7}\n" for i in range(3000)]
    for i in (0, 1500, 2999):
        lines[i] = f"row {i:05d} secret={canary}\n"
    return "".join(lines)


class Leaks:
    """Everything a run produced that must not contain the canary."""

    def __init__(self, caplog: pytest.LogCaptureFixture | None = None,
                 caught: list[warnings.WarningMessage] | None = None) -> None:
        self.texts: list[str] = []
        self.caplog = caplog
        self.caught = caught if caught is not None else []

    def add(self, what: str, text: object) -> None:
        self.texts.append(f"{what}: {text}")

    def records(self, records: list[logging.LogRecord]) -> None:
        for record in records:
            self.add("log message", record.getMessage())
            self.add("log msg", record.msg)
            self.add("log args", repr(record.args))
            if record.exc_info:
                self.add("log exception", logging.Formatter().formatException(record.exc_info))

    def found(self, canary: str) -> list[str]:
        return [text for text in self.texts if canary in text]

    def assert_clean(self, canary: str) -> None:
        if self.caplog is not None:
            self.records(self.caplog.records)
        for warning in self.caught:
            self.add("warning", warning.message)
        assert self.texts, "nothing was checked"
        assert not self.found(canary), self.found(canary)[:5]


@pytest.fixture
def leaks(caplog: pytest.LogCaptureFixture) -> Iterator[Leaks]:
    caplog.set_level(logging.DEBUG, logger="truncation_core")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield Leaks(caplog, caught)


def reprs(leaks: Leaks, *objects: Any) -> None:
    for obj in objects:
        leaks.add(f"repr of {type(obj).__name__}", repr(obj))
        leaks.add(f"str of {type(obj).__name__}", str(obj))


def test_the_leak_detector_catches_a_leak(canary: str, caplog: pytest.LogCaptureFixture) -> None:
    """Negative control: naive logging of a hook object (attrs repr) leaks the content."""
    caplog.set_level(logging.DEBUG, logger="truncation_core")
    logging.getLogger("truncation_core").debug("cut: %r", Cut(text=canary, omitted_chars=0,
                                                              omitted_lines=0))
    found = Leaks()
    found.records(caplog.records)
    assert found.found(canary)


def test_each_truncation_is_logged_at_debug_with_sizes_tool_and_strategy(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="truncation_core")
    truncator = Truncator({"inline_limit": 500}, load_entrypoints=False)
    text = "".join(f"line {i}\n" for i in range(1000))
    result = truncator.process(text, tool="execute_command")
    truncations = [r for r in caplog.records if r.getMessage().startswith("truncated ")]
    assert len(truncations) == 1
    record = truncations[0]
    assert record.name == "truncation_core" and record.levelno == logging.DEBUG
    message = record.getMessage()
    assert "tool=execute_command" in message
    assert "strategy=adaptive" in message
    assert f"chars={len(text)}->{len(result.content)}" in message
    assert f"omitted_lines={result.metadata.omitted_lines}" in message
    assert f"artifact={result.artifact.id}" in message  # type: ignore[union-attr]
    stored = [r for r in caplog.records if r.getMessage().startswith("stored artifact ")]
    assert len(stored) == 1 and result.artifact.id in stored[0].getMessage()  # type: ignore[union-attr]
    assert f"bytes={len(text)}" in stored[0].getMessage()


def test_content_within_its_limit_is_not_logged(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="truncation_core")
    Truncator(load_entrypoints=False).process("small", tool="x")
    assert caplog.records == []


def test_canary_stays_out_of_logs_warnings_and_reprs(canary: str, leaks: Leaks) -> None:
    truncator = Truncator({"inline_limit": 2000, "artifact_threshold": 60_000},
                          load_entrypoints=False)
    text = tool_output(canary)
    results = [
        truncator.process(text, tool="execute_command", command="make"),
        truncator.process(text, tool="read_file", path="data.csv"),
        truncator.process(text.encode(), tool="search_files"),
        truncator.process(text + "\ud800", tool=None),
        truncator.process(text * 30, tool="read_file"),  # over the artifact threshold
        truncator.process(text, already_truncated=True),
        truncator.process(canary),  # within the limit
    ]
    assert canary in results[0].content  # control: the canary is in what the model sees
    for result in results:
        reprs(leaks, result, result.metadata, result.metadata.to_json(), result.artifact,
              result.metadata.omissions)
    reprs(leaks, truncator, truncator.store, truncator.stats(), truncator.store.list(),
          truncator.plugins.list_plugins())
    leaks.assert_clean(canary)


@pytest.mark.parametrize("kind", ["full", "oserror"])
def test_canary_stays_out_of_store_failure_paths(canary: str, leaks: Leaks, kind: str,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    error = (StoreFull(f"no room for {canary}") if kind == "full"
             else OSError(5, f"I/O error writing {canary}"))
    truncator = Truncator({"inline_limit": 500}, store=FailingStore(error),
                          load_entrypoints=False)
    result = truncator.process(tool_output(canary), tool="read_file")
    assert result.metadata.artifact_error
    reprs(leaks, result, result.metadata, result.metadata.to_json())
    failures = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(failures) == 1  # the failure is logged, without the content
    assert "tool=read_file" in failures[0].getMessage()
    leaks.assert_clean(canary)


def test_canary_stays_out_of_exceptions(canary: str, leaks: Leaks) -> None:
    truncator = Truncator({"inline_limit": 500}, load_entrypoints=False)
    result = truncator.process(tool_output(canary))
    hostile_ids = [canary, f"art_1_{canary}", f"../{canary}",
                   f"art_1700000000_{'0' * 32}\n{canary}"]
    for artifact_id in hostile_ids:
        for operation in (truncator.store.open, truncator.store.stat, truncator.store.delete):
            with pytest.raises(ValueError) as info:
                operation(artifact_id)
            reprs(leaks, info.value)
    missing = "art_1700000000_" + "0" * 32
    with pytest.raises(LookupError) as not_found:
        truncator.store.open(missing)
    reprs(leaks, not_found.value)
    with pytest.raises(TypeError) as wrong_type:
        truncator.process([canary])  # type: ignore[arg-type]
    reprs(leaks, wrong_type.value)
    assert result.artifact is not None
    leaks.assert_clean(canary)


def test_canary_stays_out_of_a_plugin_fallback(canary: str, leaks: Leaks) -> None:
    truncator = Truncator({"inline_limit": 500, "default_strategy": "greedy"},
                          plugins=[Greedy()], load_entrypoints=False)
    result = truncator.process(tool_output(canary))
    assert "returned output over the budget" in " ".join(result.metadata.notes)
    reprs(leaks, result, result.metadata)
    leaks.assert_clean(canary)


@pytest.mark.parametrize("hook", ["select_strategy", "truncate", "format_marker",
                                  "store_artifact", "write", "salient_detector",
                                  "stream_cutter"])
def test_canary_stays_out_of_plugin_failures(canary: str, leaks: Leaks, hook: str,
                                             caplog: pytest.LogCaptureFixture) -> None:
    text = tool_output(canary)
    plugin = Broken(hook, quote=text)
    truncator = Truncator({"inline_limit": 2000, "artifact_threshold": 20_000},
                          plugins=[plugin], load_entrypoints=False, store=MemoryStore())
    with pytest.raises(ValueError) as control:  # negative control: the message quotes it
        plugin.fail()
    assert canary in str(control.value)
    if hook == "stream_cutter":  # the stream cutter of the plugin's strategy
        with truncator.stream(tool="execute_command") as s:
            s.write(text)
        result = s.result()
    else:
        result = truncator.process(text, tool="execute_command")
    failures = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(failures) == 1 and "'explicit.broken' raised ValueError" in (
        failures[0].getMessage())
    reprs(leaks, result, result.metadata, result.metadata.to_json())
    leaks.assert_clean(canary)


def test_metadata_repr_leaves_out_details_which_may_quote_content() -> None:
    # A structured cut names the key it cut inside in details' paths; a key is content.
    canary = "CANARY-key-4f1d"
    text = json.dumps({canary: list(range(3000))})
    meta = Truncator({"spill": False, "inline_limit": 300},
                     load_entrypoints=False).process(text).metadata
    assert canary in json.dumps(meta.to_dict())  # control: the details do hold it
    assert canary not in repr(meta)
