"""``trunc run -- CMD ARGS...``: run a command and print what the model would see of its output.

The command's options, as click parses them; what it does is in
:mod:`truncation_core.cli.actions`.
"""

from __future__ import annotations

import math

import click

from truncation_core.cli.actions import limits_of, overrides_for, run_and_show
from truncation_core.cli.apply import limit_options, name_the_option
from truncation_core.cli.completion import complete_tools
from truncation_core.cli.state import AppState, pass_state
from truncation_core.errors import ConfigError


@click.command("run", context_settings={"ignore_unknown_options": True,
                                        "allow_interspersed_args": False})
@click.option("--tool", default="execute_command", show_default=True,
              help="Tool name whose policy applies.", shell_complete=complete_tools)
@click.option("--limit", type=click.IntRange(min=1), help="Inline limit in characters.")
@limit_options
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True),
              callback=lambda _ctx, _param, v: _finite(v),
              help="Seconds; then the command is killed with its process group (exit 124).")
@click.option("--session", help="Store the artifact in this session (default: a new one).")
@click.option("--json", "as_json", is_flag=True,
              help="Print content, metadata and artifact as one JSON document.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@pass_state
def run_command(state: AppState, tool: str, limit: int | None, max_tokens: int | None,
                max_bytes: int | None, max_lines: int | None, tokenizer: str | None,
                timeout: float | None, session: str | None, as_json: bool,
                command: tuple[str, ...]) -> None:
    """Run COMMAND, stream its output (stdout and stderr, merged) through the truncator, and
    print what the model would see: a short header (exit code, wall time, total lines) and
    the cut output. The full output is kept as an artifact. Exits with the command's own
    exit code (124 after --timeout, 128+N when killed by signal N).

    Every limit can be given: --limit (characters), --max-tokens, --max-bytes, --max-lines;
    the stricter wins, the header included.

    Put the command after --:  trunc run --timeout 600 -- pytest -x tests/
    """
    if command[0].startswith("-"):
        # An option run does not know, taken for the command (unknown options are passed to
        # the command, so that `trunc run pytest -x` needs no --): no program is named so.
        ctx = click.get_current_context()
        raise click.NoSuchOption(command[0], possibilities=[
            name for param in ctx.command.params for name in param.opts
            if name.startswith("--")], ctx=ctx)
    limits = limits_of(max_tokens, max_bytes, max_lines, tokenizer)
    try:
        truncator = state.truncator(overrides_for(tool, None, limit, session=session,
                                                  limits=limits))
    except ConfigError as exc:
        raise name_the_option(exc, tool, session=session, limits=limits) from None
    run_and_show(truncator, list(command), tool=tool, timeout=timeout, as_json=as_json)


def _finite(value: float | None) -> float | None:
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"expected a finite number of seconds, got {value}")
    return value
