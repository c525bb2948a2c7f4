"""The ``trunc`` command line.

Each command group lives in its own module and is registered on :data:`cli` here. User errors
(bad configuration, unknown names, bad arguments) are printed to stderr as one clear message
with a non-zero exit status, never as a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from truncation_core import __version__
from truncation_core.cli.state import AppState
from truncation_core.errors import TruncationCoreError

__all__ = ["cli", "main"]


class TruncGroup(click.Group):
    """A click group that turns library errors into clean CLI errors, and finds the commands
    that plugins add (see :mod:`truncation_core.cli.extensions`)."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None:
            from truncation_core.cli.extensions import plugin_commands

            command = plugin_commands(ctx).get(cmd_name)
        return command

    def list_commands(self, ctx: click.Context) -> list[str]:
        from truncation_core.cli.extensions import plugin_commands

        return sorted({*super().list_commands(ctx), *plugin_commands(ctx)})

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except TruncationCoreError as exc:
            raise click.ClickException(str(exc)) from None


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


def _register() -> None:
    from truncation_core.cli import apply, config, plugins, run
    from truncation_core.cli import artifacts as artifacts_cli

    cli.add_command(apply.apply_command)
    cli.add_command(plugins.plugins_command)
    cli.add_command(config.config_group)
    cli.add_command(artifacts_cli.artifacts_group)
    cli.add_command(run.run_command)


_register()


def main() -> None:
    cli(prog_name="trunc")
