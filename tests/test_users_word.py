"""The user's explicit word, enforced by the pipeline.

A strategy the user named for a tool (``tools.<name>.strategy`` in the configuration, or
``trunc apply --strategy``) beats any plugin's ``select_strategy``, whatever the plugin does:
the pipeline does not even ask. So do the user's limits, whatever strategy a plugin picks.
The metadata says who chose the strategy (``strategy_chosen_by``: ``user``, ``plugin NAME``
or ``default``). The plugins here always answer ``head``, for every tool: the most a plugin
can do to override the user.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from truncation_core import Truncator, hookimpl
from truncation_core.storage.memory import MemoryStore

LOG = "".join(f"line {i}: ok\n" for i in range(3000))
#: The user names tail for the tool ``build``.
USER_SAYS_TAIL = {"inline_limit": 500, "tools": {"build": {"strategy": "tail"}}}


class AlwaysHead:
    """A plugin whose select_strategy answers ``head`` for every result, asked first."""

    __name__ = "always-head"

    def __init__(self) -> None:
        self.asked: list[str | None] = []

    @hookimpl(tryfirst=True)
    def select_strategy(self, tool: str | None) -> str:
        self.asked.append(tool)
        return "head"


def make(config: dict[str, Any], *plugins: object) -> Truncator:
    return Truncator(config, plugins=list(plugins), load_entrypoints=False,
                     store=MemoryStore(), environ={})


def chosen(truncator: Truncator, tool: str | None = None, text: str = LOG) -> tuple[Any, ...]:
    meta = truncator.process(text, tool=tool).metadata
    return meta.strategy_used, meta.strategy_chosen_by


def test_a_plugin_does_not_override_the_strategy_the_user_named_for_a_tool() -> None:
    plugin = AlwaysHead()
    truncator = make(USER_SAYS_TAIL, plugin)
    # Before the pipeline enforced it (issue 27), the plugin's head cut this.
    assert truncator.process(LOG, tool="build").metadata.strategy_used == "tail"
    assert chosen(truncator, "build") == ("tail", "user")
    assert plugin.asked == []  # the user's word: no plugin is asked


def test_the_plugin_chooses_when_the_user_said_nothing() -> None:
    """Negative control: the same plugin does override what the user did not name: the
    default strategy, a built-in tool policy (execute_command's adaptive), another tool."""
    plugin = AlwaysHead()
    truncator = make(USER_SAYS_TAIL, plugin)
    assert chosen(truncator, "deploy") == ("head", "plugin explicit.always-head")
    assert chosen(truncator, "execute_command") == ("head", "plugin explicit.always-head")
    assert chosen(make({"inline_limit": 500, "default_strategy": "tail"}, plugin)) == (
        "head", "plugin explicit.always-head")
    assert plugin.asked == ["deploy", "execute_command", None]


def test_without_a_plugin_the_choice_is_the_default_or_the_users() -> None:
    truncator = make({**USER_SAYS_TAIL, "default_strategy": "head"})
    assert chosen(truncator, "build") == ("tail", "user")
    assert chosen(truncator, "deploy") == ("head", "default")
    assert chosen(truncator, "execute_command") == ("adaptive", "default")  # built-in policy
    structured = json.dumps(list(range(3000)))
    assert chosen(truncator, "deploy", structured) == ("element", "default")
    unchanged = truncator.process("short", tool="build").metadata
    assert unchanged.strategy_chosen_by is None
    assert truncator.process(LOG, tool="build").metadata.to_dict()["strategy_chosen_by"] == "user"


def test_a_stream_keeps_the_users_word_too() -> None:
    plugin = AlwaysHead()
    truncator = make(USER_SAYS_TAIL, plugin)
    for tool, expected in (("build", ("tail", "user")),
                           ("deploy", ("head", "plugin explicit.always-head"))):
        with truncator.stream(tool=tool) as s:
            for i in range(0, len(LOG), 4096):
                s.write(LOG[i:i + 4096])
        meta = s.result().metadata
        assert (meta.strategy_used, meta.strategy_chosen_by) == expected


def test_the_users_limits_hold_whatever_strategy_a_plugin_picks() -> None:
    """A plugin picks a strategy that returns everything; the tool's own limit (5 lines)
    holds: the pipeline measures the cut against the user's budget and cuts again."""

    from faults import Greedy

    class PicksGreedy:
        @hookimpl
        def select_strategy(self) -> str:
            return "greedy"

    truncator = make({"inline_limit": 5000, "tools": {"build": {"max_lines": 5}}},
                     Greedy(), PicksGreedy())
    result = truncator.process(LOG, tool="build")
    assert result.content.count("\n") <= 5
    assert result.metadata.strategy_chosen_by.startswith("plugin explicit.")
    assert result.metadata.strategy_used == "head_tail"
    assert any("returned output over the budget" in n for n in result.metadata.notes)


# -- an installed plugin, found by entry point ----------------------------------------------

ALWAYS_HEAD = """
from truncation_core import hookimpl


@hookimpl(tryfirst=True)
def select_strategy():
    return "head"
"""


def test_an_installed_plugin_does_not_override_the_users_word(site_dir: Any,
                                                             unique_name: str) -> None:
    site_dir.distribution("tc-always-head", entry_points={"always_head": unique_name},
                          modules={unique_name: ALWAYS_HEAD})
    truncator = Truncator(USER_SAYS_TAIL, store=MemoryStore(),
                          environ={"TRUNCATION_CORE_PLUGINS": "always_head"})
    assert "always_head" in {p.name for p in truncator.plugins.list_plugins()
                             if p.status == "loaded"}
    assert chosen(truncator, "build") == ("tail", "user")
    assert chosen(truncator, "deploy") == ("head", "plugin always_head")


def test_trunc_apply_strategy_beats_an_installed_plugin(
        site_dir: Any, unique_name: str, trunc_exe: str, trunc_env: dict[str, str],
        tmp_path: Path) -> None:
    site_dir.distribution("tc-always-head", entry_points={"always_head": unique_name},
                          modules={unique_name: ALWAYS_HEAD})
    env = {**trunc_env, "PYTHONPATH": str(site_dir.root),
           "TRUNCATION_CORE_PLUGINS": "always_head"}
    work = tmp_path / "work"
    work.mkdir()

    def apply(*args: str) -> tuple[str, str]:
        done = subprocess.run([trunc_exe, "apply", "--limit", "500", "--json", *args],
                              input=LOG.encode(), capture_output=True, cwd=work, env=env,
                              check=True)
        meta = json.loads(done.stdout)["metadata"]
        return meta["strategy_used"], meta["strategy_chosen_by"]

    assert apply("--strategy", "tail") == ("tail", "user")
    assert apply("--tool", "build", "--strategy", "tail") == ("tail", "user")
    assert apply() == ("head", "plugin always_head")  # control: the plugin is installed
    assert apply("--tool", "build") == ("head", "plugin always_head")
