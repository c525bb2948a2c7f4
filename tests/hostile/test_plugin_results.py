"""A plugin's return value is checked like its exceptions.

Each wrong result falls back with a warning (and a note) that names the plugin; the negative
controls show each wrong value does what it would to naive code (an int where a str is
concatenated, a str used as a writer, a Cut with negative counts summed ...).
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from truncation_core import Cut, Provides, Truncator, hookimpl
from truncation_core.errors import PluginLoadError, PluginLoadWarning
from truncation_core.plugin import Strategy
from truncation_core.storage.memory import MemoryStore

LOG = "".join(f"line {i}: a log line of some length\n" for i in range(2000))


def make(*plugins: object, **config: Any) -> Truncator:
    return Truncator({"inline_limit": 500, **config}, plugins=list(plugins),
                     load_entrypoints=False, store=MemoryStore())


def warned(caplog: pytest.LogCaptureFixture, plugin: str) -> list[str]:
    return [r.getMessage() for r in caplog.records
            if r.levelno == logging.WARNING and f"plugin {plugin!r}" in r.getMessage()]


class IntMarker:
    __name__ = "int-marker"

    @hookimpl
    def format_marker(self, marker: Any) -> Any:
        return 42


def test_format_marker_returning_an_int(caplog: pytest.LogCaptureFixture) -> None:
    result = make(IntMarker()).process(LOG, tool="read_file")
    assert result.was_truncated and len(result.content) <= 500
    assert "lines" in result.content  # the built-in marker
    assert warned(caplog, "explicit.int-marker")
    assert any("returned a int from format_marker, not a str" in n
               for n in result.metadata.notes)


def test_negative_control_an_int_marker_breaks_naive_concatenation() -> None:
    with pytest.raises(TypeError):
        "head" + IntMarker().format_marker(None) + "tail"  # type: ignore[operator]


class StrWriter:
    __name__ = "str-writer"

    @hookimpl
    def store_artifact(self, info: Any) -> Any:
        return "not a writer"


def test_store_artifact_returning_a_str(caplog: pytest.LogCaptureFixture) -> None:
    result = make(StrWriter()).process(LOG, tool="read_file")
    assert result.was_truncated and len(result.content) <= 500
    assert warned(caplog, "explicit.str-writer")
    assert result.artifact is None and result.metadata.artifact_error is not None
    assert "could not be kept" in result.content  # the marker says so


def test_negative_control_a_str_used_as_a_writer() -> None:
    with pytest.raises(AttributeError):
        StrWriter().store_artifact(None).write(b"x")


def _none(text: str, **_: Any) -> None:
    return None


class IntCutter:
    """A strategy (replacing ``head_tail``) whose stream cutter returns an int."""

    __name__ = "int-cutter"

    @hookimpl
    def provides(self) -> Provides:
        return Provides(strategies=[Strategy(name="head_tail", description="x", cut=_none,
                                             stream_cutter=lambda policy: 7)])


def test_stream_cutter_returning_an_int(caplog: pytest.LogCaptureFixture) -> None:
    truncator = make(IntCutter())
    with truncator.stream(tool="read_file") as s:
        s.write(LOG)
    result = s.result()
    assert result.was_truncated and len(result.content) <= 500
    assert warned(caplog, "explicit.int-cutter")


class FeedRaises:
    """A stream cutter whose feed raises (a bug in the plugin)."""

    __name__ = "feed-raises"

    class Cutter:
        def feed(self, text: str) -> bool:
            raise RuntimeError("feed broke on " + text[:20])

        def finish(self, **kwargs: Any) -> Cut:
            raise AssertionError("a cutter that failed is not used to finish")

    @hookimpl
    def provides(self) -> Provides:
        return Provides(strategies=[Strategy(name="feedy", description="x", cut=_none,
                                             stream_cutter=lambda policy: self.Cutter())])


def test_incremental_cut_feed_raising(caplog: pytest.LogCaptureFixture) -> None:
    truncator = make(FeedRaises())
    with truncator.stream(tool="read_file") as s:
        for i in range(0, len(LOG), 1000):
            s.write(LOG[i:i + 1000])
    result = s.result()
    assert result.was_truncated and len(result.content) <= 500
    assert len(warned(caplog, "explicit.feed-raises")) == 1  # once, then not fed again
    assert any("feed-raises" in n and "RuntimeError" in n for n in result.metadata.notes)
    assert result.artifact is not None
    assert truncator.artifacts.read(result.artifact.id) == LOG.encode()
    assert "feed broke" not in caplog.text  # the message (which quotes content) is not logged


def test_negative_control_an_unguarded_feed_escapes_write() -> None:
    cutter = FeedRaises.Cutter()
    with pytest.raises(RuntimeError):
        [c for c in [cutter] if c.feed("x") is not False]


def test_a_raising_feed_is_an_error_in_strict_mode() -> None:
    truncator = make(FeedRaises(), plugins={"strict": True})
    with pytest.raises(RuntimeError), truncator.stream(tool="read_file") as s:
        s.write(LOG)


class StrProvides:
    __name__ = "str-provides"

    @hookimpl
    def provides(self) -> Any:
        return "everything"


def test_provides_returning_a_str() -> None:
    with pytest.warns(PluginLoadWarning, match=r"plugin 'explicit.str-provides' failed to load"
                                               r".*provides\(\) returned a str, not a Provides"):
        truncator = make(StrProvides())
    assert truncator.process(LOG, tool="read_file").was_truncated


class BadBackend:
    __name__ = "bad-backend"

    def __init__(self, returns: object = None) -> None:
        self.returns = returns

    @hookimpl
    def provides(self) -> Provides:
        def factory(config: Any) -> Any:
            if self.returns is None:
                raise OSError("cannot reach the bucket")
            return self.returns

        return Provides(backends={"bucket": factory})


@pytest.mark.parametrize("returns", [None, "a string"])
def test_a_backend_factory_raising_or_returning_junk_falls_back(
        tmp_path: Path, returns: object, caplog: pytest.LogCaptureFixture) -> None:
    config = {"inline_limit": 500, "store": {"backend": "bucket",
                                             "root": str(tmp_path / "artifacts")}}
    with pytest.warns(PluginLoadWarning, match=r"the 'bucket' backend could not be opened "
                                               r"\(plugin 'explicit.bad-backend'"):
        truncator = Truncator(config, plugins=[BadBackend(returns)], load_entrypoints=False)
    result = truncator.process(LOG, tool="read_file")
    assert result.artifact is not None and result.artifact.backend == "filesystem"
    assert truncator.artifacts.read(result.artifact.id) == LOG.encode()
    with pytest.raises((OSError, TypeError)):
        Truncator({**config, "plugins": {"strict": True}}, plugins=[BadBackend(returns)],
                  load_entrypoints=False)


class NegativeCut:
    __name__ = "negative-cut"

    @hookimpl
    def provides(self) -> Provides:
        return Provides(strategies=[Strategy(name="liar", description="negative counts",
                                             cut=self.cut)])

    @staticmethod
    def cut(text: str, **_: Any) -> Cut:
        return Cut(text=text[:100], omitted_chars=-5, omitted_lines=-1)


def test_a_cut_with_negative_counts_is_rejected() -> None:
    truncator = make(NegativeCut(), tools={"read_file": {"strategy": "liar"}})
    result = truncator.process(LOG, tool="read_file")
    assert result.metadata.strategy_used == "head_tail"
    assert result.metadata.omitted_chars > 0 and result.metadata.omitted_lines > 0
    assert any("returned negative counts" in n for n in result.metadata.notes)


def test_negative_control_negative_counts_make_the_totals_lie() -> None:
    cut = NegativeCut().cut(LOG)
    assert cut is not None
    assert len(cut.text) + cut.omitted_chars != len(LOG)


class Typo:
    __name__ = "typo"

    @hookimpl
    def truncat(self, strategy: str) -> None:
        return None


def test_an_unknown_hook_in_a_code_plugin_is_a_warning() -> None:
    with pytest.warns(PluginLoadWarning, match=r"plugin 'explicit.typo' failed to load: "
                                               r"PluginValidationError.*unknown hook\(s\) "
                                               r"truncat; known hooks: format_marker"):
        truncator = make(Typo())
    assert truncator.process(LOG, tool="read_file").was_truncated
    with pytest.raises(PluginLoadError):
        make(Typo(), plugins={"strict": True})


def test_an_entry_point_calling_sys_exit_on_import_is_caught_and_named(
        site_dir: Any) -> None:
    site_dir.distribution("tc-exit-dist", entry_points={"exiter": "exiting_plugin_mod"},
                          modules={"exiting_plugin_mod": "import sys\nsys.exit(3)\n"})
    sys.modules.pop("exiting_plugin_mod", None)
    with pytest.warns(PluginLoadWarning, match=r"plugin 'exiter' from tc-exit-dist 1.0 failed "
                                               r"to load: SystemExit"):
        truncator = Truncator({"inline_limit": 500}, store=MemoryStore())
    info = {p.name: p for p in truncator.plugins.list_plugins()}
    assert info["exiter"].status == "error"


class Lifter:
    """Mutates the frozen policy it is given, lifting the limit, and returns everything."""

    __name__ = "lifter"

    @hookimpl
    def provides(self) -> Provides:
        return Provides(strategies=[Strategy(name="lift", description="lifts the limit",
                                             cut=self.cut)])

    @staticmethod
    def cut(text: str, *, policy: Any, budget: Any, **_: Any) -> Cut:
        object.__setattr__(policy, "inline_limit", 10 ** 9)
        object.__setattr__(budget, "chars", 10 ** 9)
        return Cut(text=text, omitted_chars=0, omitted_lines=0)


def test_mutating_the_frozen_policy_cannot_lift_the_hosts_budget() -> None:
    truncator = make(Lifter(), tools={"read_file": {"strategy": "lift"}})
    for _ in range(2):  # the second call sees the mutated policy object
        result = truncator.process(LOG, tool="read_file")
        assert len(result.content) <= 500 and result.metadata.strategy_used == "head_tail"
        assert result.metadata.limits.chars == 500
    with truncator.stream(tool="read_file") as s:
        s.write(LOG)
    assert len(s.result().content) <= 500


def test_negative_control_object_setattr_does_lift_a_frozen_policy() -> None:
    truncator = make()
    policy = truncator.policy("read_file")
    object.__setattr__(policy, "inline_limit", 10 ** 9)
    assert policy.inline_limit == 10 ** 9 and policy.budget.chars == 10 ** 9
