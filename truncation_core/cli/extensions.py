"""Commands that plugins add to ``trunc`` through the ``register_commands`` hook.

Plugins are loaded for their commands only when ``trunc`` is asked for a command that is not
built in, or lists its commands (``--help``): a built-in command starts without them. The
commands found are kept on the root click context, so each run of ``trunc`` asks the plugins
once, and nothing is added to the shared command group.
"""

from __future__ import annotations

import click

from truncation_core.cli.state import plugin_warnings_to_stderr
from truncation_core.config.model import PluginsConfig
from truncation_core.config.sources import load_config
from truncation_core.errors import TruncationCoreError
from truncation_core.hooks.failures import PluginFailure
from truncation_core.hooks.host import PluginHost

__all__ = ["plugin_commands"]

_FOUND = "truncation_core.plugin_commands"


def plugin_commands(ctx: click.Context) -> dict[str, click.Command]:
    """Name -> command, for every command the configured plugins add (loaded once per run)."""
    root = ctx.find_root()
    found: dict[str, click.Command] | None = root.meta.get(_FOUND)
    if found is None:
        builtin = ({*root.command.commands, *getattr(root.command, "builtin_names", ())}
                   if isinstance(root.command, click.Group) else set())
        found = root.meta[_FOUND] = _load(root, builtin)
    return found


def _load(ctx: click.Context, builtin: set[str]) -> dict[str, click.Command]:
    try:
        loaded = load_config(ctx.params.get("config_path"))
        settings, project_root = loaded.config.plugins, loaded.project_root
    except TruncationCoreError:
        # The command reports a bad configuration itself; until then, plugins load as they
        # would without one, so that the command is found and gets to say so.
        settings, project_root = PluginsConfig(), None
    try:
        with plugin_warnings_to_stderr():
            host = PluginHost.build(settings=settings, project_root=project_root)
    except TruncationCoreError as exc:  # plugins.strict, and a plugin failed to load
        raise click.ClickException(str(exc)) from None
    commands: dict[str, click.Command] = {}
    for impl in host.pm.hook.register_commands.get_hookimpls():
        group = click.Group(name="trunc")
        try:
            impl.function(**{name: group for name in impl.argnames if name == "cli"})
        except Exception as exc:
            failure = PluginFailure(plugin=impl.plugin_name, hook="register_commands",
                                    error=type(exc).__name__)
            message = failure.describe("its commands are not available")
            if host.strict:
                raise click.ClickException(message) from None
            click.secho(f"warning: {message}", fg="yellow", err=True)
            continue
        for name, command in group.commands.items():
            if name in builtin or name in commands:
                what = "a built-in command" if name in builtin else "a command of another plugin"
                click.secho(f"warning: plugin {impl.plugin_name!r} adds command {name!r}, which "
                            f"is already {what}; skipped", fg="yellow", err=True)
                continue
            commands[name] = command
    return commands
