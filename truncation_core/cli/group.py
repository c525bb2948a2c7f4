"""The ``trunc`` click group: its commands, its global options, and how it reports errors."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import click

from truncation_core import __version__
from truncation_core.cli.state import AppState, describe_os_error
from truncation_core.errors import TruncationCoreError

#: The built-in commands: name -> (module, attribute). A command's module is imported when
#: the command runs or is listed (``--help``): ``trunc apply`` does not import the others.
BUILTIN_COMMANDS: dict[str, tuple[str, str]] = {
    "apply": ("truncation_core.cli.apply", "apply_command"),
    "artifacts": ("truncation_core.cli.artifacts", "artifacts_group"),
    "config": ("truncation_core.cli.config", "config_group"),
    "plugins": ("truncation_core.cli.plugins", "plugins_command"),
    "run": ("truncation_core.cli.run", "run_command"),
}


class TruncGroup(click.Group):
    """A click group that turns library errors, and the system's (a missing directory, a
    read-only filesystem, a full disk), into clean CLI errors, imports a built-in command's
    module on first use (:data:`BUILTIN_COMMANDS`), and finds the commands that plugins add
    (see :mod:`truncation_core.cli.extensions`)."""

    #: Names of commands that are not a plugin's, whether their module is imported yet or not.
    builtin_names = frozenset(BUILTIN_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in BUILTIN_COMMANDS:
            module, attribute = BUILTIN_COMMANDS[cmd_name]
            command = getattr(importlib.import_module(module), attribute)
            self.add_command(command, cmd_name)
        if command is None:
            # Only a command that is not built in looks for plugins' commands: that loads the
            # plugins with their failure reporting (hooks/failures.py, 12 ms).
            from truncation_core.cli.extensions import plugin_commands

            command = plugin_commands(ctx).get(cmd_name)
        return command

    def list_commands(self, ctx: click.Context) -> list[str]:
        from truncation_core.cli.extensions import plugin_commands

        return sorted({*super().list_commands(ctx), *BUILTIN_COMMANDS, *plugin_commands(ctx)})

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except TruncationCoreError as exc:
            raise click.ClickException(str(exc)) from None
        except BrokenPipeError:
            raise  # the reader went away (| head): main() ends quietly
        except OSError as exc:
            raise click.ClickException(describe_os_error(exc)) from None


@click.group(cls=TruncGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="trunc")
@click.option(
    "--config",
    "config_path",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Read this config file instead of searching for .truncation.yaml or pyproject.toml.",
)
@click.pass_context
def cli(ctx: click.Context, config_path: Path | None) -> None:
    """Truncate tool output for LLM agents, keeping the full content as artifacts."""
    ctx.obj = AppState(config_path=config_path)
