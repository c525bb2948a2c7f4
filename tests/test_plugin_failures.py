"""A plugin that raises never fails the tool call, and nothing is lost.

Each hook's failure falls back to the built-ins, says so in ``metadata.notes``, and logs a
WARNING naming the plugin and the exception's type (test_logging.py checks that no content
reaches the log); with ``plugins.strict`` the exception propagates. The plugins here are real
pluggy plugins whose code raises, as a buggy one would, with the content in the message.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path
from typing import Any

import pytest
from faults import Broken, BrokenWriter
from reference import expected_marker, line_count

from truncation_core import Cut, Provides, Truncator, hookimpl
from truncation_core.errors import PluginLoadError, PluginLoadWarning
from truncation_core.storage.memory import MemoryStore

LOG = "".join(f"line {i:04d}\n" for i in range(2000))


def make(hook: str, config: dict[str, Any] | None = None, *, strict: bool = False,
         error: type[Exception] = ValueError) -> tuple[Truncator, Broken]:
    plugin = Broken(hook, error)
    settings = {"inline_limit": 500, **(config or {}), "plugins": {"strict": strict}}
    truncator = Truncator(settings, plugins=[plugin], load_entrypoints=False,
                          store=MemoryStore())
    return truncator, plugin


def warnings_logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_the_plugin_really_raises() -> None:
    """Negative control: in strict mode each failure reaches the caller, as it did before
    the processor caught them."""
    for hook in ("select_strategy", "truncate", "format_marker", "store_artifact", "write",
                 "commit", "salient_detector"):
        truncator, plugin = make(hook, {"highlights": 3}, strict=True, error=KeyError)
        with pytest.raises(KeyError):
            truncator.process(LOG)
        assert plugin.calls or hook in ("write", "commit"), hook


def test_select_strategy_failure_uses_the_policy_strategy(
        caplog: pytest.LogCaptureFixture) -> None:
    truncator, plugin = make("select_strategy")
    result = truncator.process(LOG, tool="execute_command")
    assert plugin.calls == 1
    meta = result.metadata
    assert meta.strategy_used == "adaptive" and len(result.content) <= 500
    assert meta.notes == ("plugin 'explicit.broken' raised ValueError in select_strategy; "
                          "used 'adaptive'",)
    assert warnings_logged(caplog) == [meta.notes[0] + " (tool=execute_command)"]


def test_select_strategy_returning_a_non_name_uses_the_policy_strategy() -> None:
    class Odd:
        @hookimpl
        def select_strategy(self) -> Any:
            return ["head"]

    truncator = Truncator({"inline_limit": 500}, plugins=[Odd()], load_entrypoints=False,
                          store=MemoryStore())
    meta = truncator.process(LOG).metadata
    assert meta.strategy_used == "head_tail"
    assert meta.notes == ("plugin 'explicit.Odd-0' returned a list from select_strategy, not "
                          "a strategy name; used 'head_tail'",)


@pytest.mark.parametrize("hook", ["truncate", "format_marker"])
def test_truncate_or_marker_failure_cuts_with_head_tail_and_the_builtin_markers(
        hook: str, caplog: pytest.LogCaptureFixture) -> None:
    truncator, plugin = make(hook, {"spill": False, "marker": {"middle": "\n[{lines} cut]\n"}})
    result = truncator.process(LOG)
    assert plugin.calls >= 1
    meta = result.metadata
    assert meta.strategy_used == "head_tail" and len(result.content) <= 500
    region = meta.omissions[0]
    # The configured template, rendered by the built-in format_marker.
    assert f"\n[{region.lines} cut]\n" in result.content
    assert result.content.startswith(LOG[:region.start])
    assert result.content.endswith(LOG[region.end:])
    assert meta.notes == (f"plugin 'explicit.broken' raised ValueError in {hook}; cut with "
                          "head_tail and the built-in markers",)
    assert len(warnings_logged(caplog)) == 1


def test_a_failing_strategy_of_its_own_falls_back_to_head_tail() -> None:
    truncator, plugin = make("none", {"default_strategy": "fragile"})
    result = truncator.process(LOG)
    assert plugin.calls == 1
    assert result.metadata.strategy_used == "head_tail"
    assert result.artifact is not None  # still kept: the markers say how to read it back
    assert f'get_artifact(artifact_id="{result.artifact.id}"' in result.content


def test_marker_failure_in_the_artifact_reference_uses_the_builtin_markers() -> None:
    truncator, _ = make("format_marker", {"artifact_threshold": 5000})
    result = truncator.process(LOG)
    assert result.artifact is not None
    assert result.content.startswith(f"[Artifact: {result.artifact.id}] ")
    assert result.metadata.notes[0] == ("plugin 'explicit.broken' raised ValueError in "
                                        "format_marker; used the built-in markers")


def test_a_strategy_returning_a_non_cut_falls_back_to_head_tail() -> None:
    class Odd:
        @hookimpl
        def truncate(self) -> Any:
            return "not a cut"

    truncator = Truncator({"inline_limit": 500}, plugins=[Odd()], load_entrypoints=False,
                          store=MemoryStore())
    meta = truncator.process(LOG).metadata
    assert meta.strategy_used == "head_tail"
    assert meta.notes == ("plugin 'explicit.Odd-0' returned a str from truncate, not a Cut; "
                          "cut with head_tail and the built-in markers",)


@pytest.mark.parametrize("at", ["store_artifact", "write", "commit", "bad-commit"])
def test_store_failure_degrades_to_an_inline_truncation_that_says_so(
        at: str, caplog: pytest.LogCaptureFixture) -> None:
    truncator, _ = make(at, {"artifact_threshold": 5000})
    result = truncator.process(LOG, tool="read_file")
    meta = result.metadata
    assert result.artifact is None and meta.artifact_error == "the artifact store failed"
    assert not result.content.startswith("[Artifact:")
    region = meta.omissions[0]
    assert expected_marker("middle", chars=region.chars, lines=region.lines,
                           total_chars=len(LOG), total_lines=line_count(LOG),
                           unavailable="the artifact store failed") in result.content
    error = "TypeError" if at == "bad-commit" else "ValueError"
    assert meta.notes == (f"plugin 'explicit.broken' raised {error} in store_artifact; the "
                          "full content is not kept",)
    assert len(warnings_logged(caplog)) == 1
    assert truncator.store.list() == []


def test_a_failing_writer_is_aborted() -> None:
    plugin = Broken("write")
    writers: list[BrokenWriter] = []

    class Spy:
        @hookimpl(wrapper=True)
        def store_artifact(self) -> Any:
            writer = yield
            writers.append(writer)
            return writer

    truncator = Truncator({"inline_limit": 500}, plugins=[plugin, Spy()],
                          load_entrypoints=False, store=MemoryStore())
    assert truncator.process(LOG).artifact is None
    assert [w.aborted for w in writers] == [True]


def test_store_errors_are_not_plugin_bugs_and_degrade_even_when_strict() -> None:
    truncator, _ = make("write", strict=True, error=PermissionError)
    meta = truncator.process(LOG).metadata
    assert meta.artifact_error == "the artifact store failed"
    assert meta.notes == ()


def test_salient_detector_failure_shows_no_highlights() -> None:
    truncator, plugin = make("salient_detector", {"highlights": 3})
    text = LOG[:10_000] + "Traceback (most recent call last):\n" + LOG[10_000:]
    result = truncator.process(text, tool="execute_command")
    assert "highlights" not in result.metadata.details
    assert result.metadata.notes == ("plugin 'explicit.broken' raised ValueError in "
                                     "salient_detector; no highlights",)
    truncator.process(text, tool="execute_command")
    assert plugin.calls == 2  # not cached: every result says why it has no highlights


def test_a_stream_degrades_the_same_way() -> None:
    # Short enough for the stream to keep it whole, so that its strategy runs on the text
    # (a longer stream cuts its windows with the built-in text strategies).
    truncator, plugin = make("truncate", {"spill": False})
    text = LOG[:1000]
    with truncator.stream() as s:
        for i in range(0, len(text), 100):
            s.write(text[i:i + 100])
    assert plugin.calls == 1
    expected = truncator.process(text)
    assert s.result().content == expected.content
    assert s.result().metadata.notes == expected.metadata.notes != ()


def test_a_stream_whose_writer_fails_keeps_going() -> None:
    truncator, _ = make("write")
    with truncator.stream() as s:
        for i in range(0, len(LOG), 1000):
            s.write(LOG[i:i + 1000])
    result = s.result()
    assert result.artifact is None
    assert result.metadata.artifact_error == "the artifact store failed"
    assert len(result.content) <= 500


def test_stream_cutter_failure_opens_the_stream(caplog: pytest.LogCaptureFixture) -> None:
    truncator, _ = make("stream_cutter")
    with truncator.stream(tool="list_directory") as s:
        # (longer than the head the stream keeps: a shorter one makes no cutter)
        s.write('{"a": [' + ", ".join(str(i) for i in range(20000)) + "]}")
    assert len(s.result().content) <= 500
    assert warnings_logged(caplog) == [
        "plugin 'explicit.broken' raised ValueError in stream_cutter; strategy 'fragile' "
        "cuts the stream as text (tool=list_directory)"]


def test_a_failing_provides_is_a_plugin_that_failed_to_load() -> None:
    class NoProvides:
        __name__ = "no-provides"

        @hookimpl
        def provides(self) -> Provides:
            raise RuntimeError("boom")

        @hookimpl
        def truncate(self) -> Cut:
            raise AssertionError("a plugin that failed to load is never called")

    with pytest.warns(PluginLoadWarning, match="'explicit.no-provides' failed to load: "
                                               "RuntimeError"):
        truncator = Truncator({"inline_limit": 500}, plugins=[NoProvides()],
                              load_entrypoints=False, store=MemoryStore())
    assert truncator.process(LOG).metadata.strategy_used == "head_tail"
    (info,) = [p for p in truncator.plugins.list_plugins() if p.name == "explicit.no-provides"]
    assert info.status == "error" and info.hooks == ()
    with pytest.raises(PluginLoadError), warnings.catch_warnings():
        Truncator({"plugins": {"strict": True}}, plugins=[NoProvides()],
                  load_entrypoints=False, store=MemoryStore())


def test_a_project_plugin_is_named_by_its_module(tmp_path: Path, unique_name: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / f"{unique_name}.py").write_text(
        "from truncation_core import hookimpl\n"
        "\n"
        "def _helper(text):\n"
        "    return text[10**9]\n"
        "\n"
        "@hookimpl\n"
        "def truncate(text):\n"
        "    return _helper(text)\n")
    (tmp_path / ".truncation.yaml").write_text(
        f"inline_limit: 500\nplugins: {{modules: [{unique_name}], autoload: false}}\n"
        "store: {backend: memory}\n")
    monkeypatch.chdir(tmp_path)
    result = Truncator.from_config().process(LOG)
    assert result.metadata.notes == (f"plugin {unique_name!r} raised IndexError in truncate; "
                                     "cut with head_tail and the built-in markers",)
