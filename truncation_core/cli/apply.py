"""``trunc apply``: show what the model would see of a file or of standard input.

The command's options, as click parses them; what it does is in
:mod:`truncation_core.cli.actions`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, BinaryIO

import click

from truncation_core.cli.actions import LIMIT_OPTIONS, apply_to, limits_of, overrides_for
from truncation_core.cli.completion import complete_strategies, complete_tools
from truncation_core.cli.state import AppState, pass_state
from truncation_core.errors import ConfigError


def limit_options(f: Any) -> Any:
    """``--max-tokens``, ``--max-bytes``, ``--max-lines`` and ``--tokenizer``."""
    f = click.option("--tokenizer", help="How tokens are counted: estimate (the default), or "
                     "a name a plugin provides, such as o200k_base.")(f)
    f = click.option("--max-lines", type=click.IntRange(min=1), help="Limit in lines.")(f)
    f = click.option("--max-bytes", type=click.IntRange(min=1),
                     help="Limit in UTF-8 bytes.")(f)
    f = click.option("--max-tokens", type=click.IntRange(min=1),
                     help="Limit in tokens, counted by --tokenizer (or the configured one).")(f)
    return f


def name_the_option(exc: ConfigError, tool: str | None, *, strategy: str | None = None,
                    session: str | None = None,
                    limits: Mapping[str, Any] | None = None) -> Exception:
    """A bad ``--strategy``, ``--session`` or ``--tokenizer`` (or limit) value as a usage
    error naming the option, not the config key it set. Only for an option that was given
    (its value then replaces the configuration's); a problem in the configuration file is
    left as it is."""
    options = {}
    if strategy is not None:
        options[f"tools.{tool or ''}.strategy: "] = "--strategy"
    if session is not None:
        options["store.session: "] = "--session"
    for key, value in (limits or {}).items():
        if value is not None:
            options[f"tools.{tool}.{key}: " if tool else f"{key}: "] = LIMIT_OPTIONS[key]
    for problem in exc.problems:
        for key, option in options.items():
            if problem.startswith(key):
                return click.BadParameter(problem[len(key):].removesuffix(_FROM_CODE),
                                          param_hint=f"'{option}'")
    return exc


_FROM_CODE = " (from code)"


@click.command("apply")
@click.argument("source", default="-", type=click.File("rb"))
@click.option("--tool", help="Tool name: selects the tool's policy (e.g. execute_command).",
              shell_complete=complete_tools)
@click.option("--strategy", help="Strategy to use instead of the configured one.",
              shell_complete=complete_strategies)
@click.option("--limit", type=click.IntRange(min=1), help="Inline limit in characters.")
@limit_options
@click.option("--session", help="Store the artifact in this session (default: a new one).")
@click.option("--json", "as_json", is_flag=True,
              help="Print content, metadata and artifact as one JSON document.")
@pass_state
def apply_command(state: AppState, source: BinaryIO, tool: str | None, strategy: str | None,
                  limit: int | None, max_tokens: int | None, max_bytes: int | None,
                  max_lines: int | None, tokenizer: str | None, session: str | None,
                  as_json: bool) -> None:
    """Print what the model would see of SOURCE (a file, or - for standard input).

    The content goes to stdout and the metadata to stderr, or both to stdout with --json.
    Every limit can be given: --limit (characters), --max-tokens, --max-bytes, --max-lines;
    the stricter wins.

    Input is streamed in bounded memory when the strategy can cut a stream; a strategy that
    cannot (a plugin's, not streamable) gets it whole, up to 64 MiB.
    """
    limits = limits_of(max_tokens, max_bytes, max_lines, tokenizer)
    try:
        truncator = state.truncator(overrides_for(tool, strategy, limit, session=session,
                                                  limits=limits))
    except ConfigError as exc:
        raise name_the_option(exc, tool, strategy=strategy, session=session,
                              limits=limits) from None
    apply_to(truncator, source, tool=tool, as_json=as_json)
