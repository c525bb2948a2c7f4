"""The ``provides`` hook: declared strategies (one object each), backends and tokenizers are
available to config by name."""

from __future__ import annotations

from typing import Any

import pytest

from truncation_core import (
    ConfigError,
    PluginLoadError,
    PluginLoadWarning,
    Provides,
    Truncator,
    hookimpl,
)
from truncation_core.plugin import Cut, Strategy
from truncation_core.storage.memory import MemoryStore


def first_line(text: str, **_: Any) -> Cut:
    first = text[: text.find("\n") + 1]
    return Cut(text=first, omitted_chars=len(text) - len(first),
               omitted_lines=text.count("\n") - 1)


FIRST_LINE = Strategy(name="first_line", description="keep only the first line", cut=first_line)


class ProvidesStrategy:
    __name__ = "provides-strategy"

    def __init__(self) -> None:
        self.calls = 0

    @hookimpl
    def provides(self) -> Provides:
        self.calls += 1
        return Provides(strategies=[FIRST_LINE])


def test_hook_provides_makes_a_strategy_name_valid_in_config() -> None:
    with pytest.raises(ConfigError, match="unknown strategy 'first_line'"):
        Truncator({"default_strategy": "first_line"}, load_entrypoints=False)
    plugin = ProvidesStrategy()
    truncator = Truncator({"default_strategy": "first_line", "inline_limit": 50},
                          plugins=[plugin], load_entrypoints=False)
    result = truncator.process("".join(f"line {i}\n" for i in range(100)))
    assert result.content == "line 0\n"
    assert result.metadata.strategy_used == "first_line"
    assert truncator.plugins.strategies["first_line"] is FIRST_LINE


def test_hook_provides_is_called_once_per_truncator() -> None:
    plugin = ProvidesStrategy()
    truncator = Truncator({"inline_limit": 50}, plugins=[plugin], load_entrypoints=False)
    for _ in range(3):
        truncator.process("x\n" * 100)
    assert plugin.calls == 1
    Truncator(plugins=[plugin], load_entrypoints=False)
    assert plugin.calls == 2


def test_hook_provides_a_backend_selected_by_config() -> None:
    made: list[Any] = []

    class Backend:
        __name__ = "backend"

        @hookimpl
        def provides(self) -> Provides:
            def factory(config: Any) -> MemoryStore:
                made.append(config)
                store = MemoryStore()
                store.name = "scratch"  # type: ignore[misc]
                return store
            return Provides(backends={"scratch": factory})

    with pytest.raises(ConfigError, match=r"store\.backend: unknown backend 'scratch'"):
        Truncator({"store": {"backend": "scratch"}}, load_entrypoints=False)
    truncator = Truncator({"store": {"backend": "scratch"}, "inline_limit": 50},
                          plugins=[Backend()], load_entrypoints=False)
    assert len(made) == 1 and made[0].backend == "scratch"
    result = truncator.process("y\n" * 100)
    assert truncator.store.stat(result.artifact.id) == result.artifact  # type: ignore[union-attr]


def test_hook_provides_returning_none_provides_nothing() -> None:
    class Nothing:
        __name__ = "nothing"

        @hookimpl
        def provides(self) -> None:
            return None

    truncator = Truncator(plugins=[Nothing()], load_entrypoints=False)
    assert truncator.plugins.strategies == Truncator(load_entrypoints=False).plugins.strategies
    info = {p.name: p for p in truncator.plugins.list_plugins()}["explicit.nothing"]
    assert info.strategies == () and info.hooks == ("provides",)


def test_hook_provides_a_later_plugin_describes_a_name_it_overrides() -> None:
    class Override:
        __name__ = "override"

        @hookimpl
        def provides(self) -> Provides:
            return Provides(strategies=[Strategy(name="tail", description="my tail",
                                                 cut=first_line)])

    tail = {"tools": {"execute_command": {"strategy": "tail"}}}
    truncator = Truncator(tail, plugins=[Override()], load_entrypoints=False)
    assert truncator.plugins.strategies["tail"].description == "my tail"
    assert truncator.process("line\n" * 3000, tool="execute_command").content == "line\n"


def test_hook_provides_two_plugins_claiming_one_strategy_name_are_reported() -> None:
    from truncation_core.errors import PluginLoadWarning

    class Other(ProvidesStrategy):
        __name__ = "other-first-line"

    with pytest.warns(PluginLoadWarning, match=r"strategy 'first_line' is provided by both "
                      r"plugin 'explicit.provides-strategy' and 'explicit.other-first-line'"):
        Truncator(plugins=[ProvidesStrategy(), Other()], load_entrypoints=False)
    import warnings

    with warnings.catch_warnings():  # overriding a built-in's name is not a conflict
        warnings.simplefilter("error", PluginLoadWarning)
        test_hook_provides_a_later_plugin_describes_a_name_it_overrides()


def test_hook_provides_a_plugin_overrides_a_builtin_backend() -> None:
    mine = MemoryStore()

    class OwnMemory:
        __name__ = "own-memory"

        @hookimpl
        def provides(self) -> Provides:
            return Provides(backends={"memory": lambda config: mine})

    truncator = Truncator({"inline_limit": 50, "store": {"backend": "memory"}},
                          plugins=[OwnMemory()], load_entrypoints=False)
    assert truncator.store is mine
    result = truncator.process("z\n" * 100)
    assert mine.stat(result.artifact.id) == result.artifact  # type: ignore[union-attr]


# -- a bad answer is a plugin's bug, reported like an exception ------------------------------


class _Answers:
    """A plugin whose provides() returns *value* (or is a wrapper)."""

    def __init__(self, name: str, value: Any) -> None:
        self.__name__ = name
        self.value = value

    @hookimpl
    def provides(self) -> Any:
        return self.value


class _Wrapper:
    __name__ = "wrapper"

    @hookimpl(wrapper=True)
    def provides(self) -> Any:
        return (yield)


BAD_ANSWERS = [
    ("a-dict", {"strategies": {"x": "y"}}),
    ("a-str", "tail"),
    ("a-list", [Provides()]),
    ("names-not-strategies", Provides(strategies={"x": "the form before Strategy objects"})),
    ("given-twice", Provides(strategies=[FIRST_LINE, FIRST_LINE])),
    ("bad-backend", Provides(backends={"b": "not callable"})),
]


@pytest.mark.parametrize(("name", "value"), BAD_ANSWERS, ids=[n for n, _ in BAD_ANSWERS])
def test_hook_provides_a_wrong_answer_skips_the_plugin_with_a_warning(
        name: str, value: Any) -> None:
    with pytest.warns(PluginLoadWarning, match=f"plugin 'explicit.{name}' failed to load: "
                                               "TypeError: provides"):
        truncator = Truncator(plugins=[_Answers(name, value)], load_entrypoints=False,
                              store=MemoryStore())
    record = {p.name: p for p in truncator.plugins.list_plugins()}[f"explicit.{name}"]
    assert record.status == "error" and record.hooks == ()
    assert truncator.process("x\n" * 9000).metadata.strategy_used == "head_tail"


def test_hook_provides_as_a_wrapper_is_refused_with_a_warning() -> None:
    with pytest.warns(PluginLoadWarning, match="plugin 'explicit.wrapper' failed to load: "
                                               "TypeError: provides.. must be a plain"):
        truncator = Truncator(plugins=[_Wrapper()], load_entrypoints=False, store=MemoryStore())
    assert "head_tail" in truncator.plugins.strategies  # the others' answers still count


@pytest.mark.parametrize(("name", "value"), BAD_ANSWERS[:2], ids=[n for n, _ in BAD_ANSWERS[:2]])
def test_hook_provides_a_wrong_answer_raises_in_strict_mode(name: str, value: Any) -> None:
    with pytest.raises(PluginLoadError, match=f"plugin 'explicit.{name}' failed to load"):
        Truncator({"plugins": {"strict": True}}, plugins=[_Answers(name, value)],
                  load_entrypoints=False, store=MemoryStore())


def streamable(truncator: Truncator) -> set[str]:
    return {name for name, s in truncator.plugins.strategies.items() if s.streamable}


def test_hook_provides_declares_which_strategies_can_cut_long_streams() -> None:
    truncator = Truncator(load_entrypoints=False, store=MemoryStore())
    assert streamable(truncator) == {"head", "tail", "head_tail", "lines", "outline",
                                    "adaptive"}
    # A plugin that provides a name again decides for it: here, not streamable.
    mine = Provides(strategies=[Strategy(name="tail", description="my tail", cut=first_line)])
    again = Truncator(plugins=[_Answers("mine", mine)], load_entrypoints=False,
                      store=MemoryStore())
    assert streamable(again) == {"head", "head_tail", "lines", "outline", "adaptive"}


@pytest.mark.parametrize(("fields", "error"), [
    ({"name": ""}, "name: expected a non-empty name"),
    ({"name": 7}, "name: expected a non-empty name"),
    ({"description": None}, "description: expected a str"),
    ({"cut": "head_tail"}, "cut: expected a function"),
    ({"streamable": "yes"}, "streamable: expected True or False"),
    ({"stream_cutter": 3}, "stream_cutter: expected a function"),
])
def test_a_strategy_is_checked_when_it_is_made(fields: dict[str, Any], error: str) -> None:
    """A plugin that makes a bad Strategy fails in its own provides(), which names it."""
    good: dict[str, Any] = {"name": "x", "description": "d", "cut": first_line}
    with pytest.raises((TypeError, ValueError), match=error):
        Strategy(**{**good, **fields})
