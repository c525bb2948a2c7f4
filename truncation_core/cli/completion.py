"""Shell completion of the names ``trunc`` options take: strategies and tools.

click completes commands and options by itself (``_TRUNC_COMPLETE=bash_source trunc``, see
docs/cli.md); these complete the values: ``--strategy`` from the strategies the loaded plugins
provide, ``--tool`` from the tools the configuration (and the built-in tool policies) name.
A broken configuration completes nothing rather than print an error into the shell.
"""

from __future__ import annotations

from typing import Any

import click
from click.shell_completion import CompletionItem

from truncation_core.config.model import BUILTIN_TOOL_POLICIES
from truncation_core.config.sources import load_config
from truncation_core.truncator import Truncator

__all__ = ["complete_strategies", "complete_tools"]


def _config_path(ctx: click.Context) -> Any:
    root = ctx.find_root()
    return root.params.get("config_path")


def complete_strategies(ctx: click.Context, param: click.Parameter,
                        incomplete: str) -> list[Any]:
    try:
        truncator = Truncator.from_config(_config_path(ctx))
        strategies = truncator.plugins.strategies
    except Exception:  # completion must never fail the shell
        return []
    return [CompletionItem(name, help=strategy.description)
            for name, strategy in sorted(strategies.items()) if name.startswith(incomplete)]


def complete_tools(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[Any]:
    try:
        names = {*BUILTIN_TOOL_POLICIES, *load_config(_config_path(ctx)).config.tools}
    except Exception:
        return []
    return [CompletionItem(name) for name in sorted(names) if name.startswith(incomplete)]
