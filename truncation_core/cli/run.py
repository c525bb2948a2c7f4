"""``trunc run -- CMD ARGS...``: run a command and print what the model would see of its output."""

from __future__ import annotations

import contextlib
import errno
import json
import math
import signal
import sys
from collections.abc import Iterator
from typing import Any

import click

from truncation_core.cli.apply import describe, limit_options
from truncation_core.cli.completion import complete_tools
from truncation_core.cli.state import AppState, console, pass_state


@contextlib.contextmanager
def live_progress() -> Iterator[Any]:
    """A progress callback drawing bytes, lines and elapsed time on stderr, when stderr is a
    terminal; None otherwise (nothing is drawn when output is piped or captured)."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from truncation_core.artifacts.model import human_size

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=console(stderr=True), transient=True) as bar:
        task = bar.add_task("starting", total=None)

        def report(stream: Any, _elapsed: float) -> None:
            bar.update(task, description=f"{human_size(stream.bytes)} · {stream.lines:,} lines")

        yield report


@contextlib.contextmanager
def termination_as_exit() -> Iterator[None]:
    """Turn SIGTERM and SIGHUP into :class:`~truncation_core.streaming.command.Interrupted`
    while the command runs (SIGINT raises KeyboardInterrupt already).

    The command runs in its own session, so a signal that ends ``trunc`` would not reach it:
    raising instead lets ``run_command`` kill the command's process group on the way out, and
    keep what arrived as a partial artifact.
    """
    from truncation_core.streaming.command import Interrupted

    def stop(number: int, _frame: object) -> None:
        raise Interrupted(number)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


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
    from truncation_core.cli.apply import name_the_option, overrides_for
    from truncation_core.errors import ConfigError
    from truncation_core.streaming.command import run_command as run

    limits = {"max_tokens": max_tokens, "max_bytes": max_bytes, "max_lines": max_lines,
              "tokenizer": tokenizer}
    try:
        truncator = state.truncator(overrides_for(tool, None, limit, session=session,
                                                  limits=limits))
    except ConfigError as exc:
        raise name_the_option(exc, tool, session=session, limits=limits) from None
    try:
        with termination_as_exit(), live_progress() as progress:
            done = run(truncator, list(command), tool=tool, timeout=timeout, stdin=None,
                       progress=progress)
    except KeyboardInterrupt as exc:  # SIGINT, SIGTERM, SIGHUP: the group was killed
        partial = getattr(exc, "command_result", None)
        if partial is None:
            sys.exit(128 + getattr(exc, "signum", signal.SIGINT))
        done = partial  # what arrived, kept as a partial artifact: shown as any result
    except FileNotFoundError:
        click.secho(f"trunc run: command not found: {command[0]}", err=True, fg="red")
        sys.exit(127)
    except PermissionError:
        click.secho(f"trunc run: permission denied: {command[0]}", err=True, fg="red")
        sys.exit(126)
    except OSError as exc:  # found and permitted, but not runnable
        why = ("not an executable format (a script without a '#!' line?)"
               if exc.errno == errno.ENOEXEC else exc.strerror or type(exc).__name__)
        click.secho(f"trunc run: cannot execute {command[0]}: {why}", err=True, fg="red")
        sys.exit(126)
    if as_json:
        click.echo(json.dumps(done.to_dict(), ensure_ascii=False))
    else:
        out = sys.stdout
        out.write(done.text)
        if out.isatty() and not done.text.endswith("\n"):
            out.write("\n")
        out.flush()
        for line in describe(done.result):
            click.secho(line, err=True, dim=True)
        for note in done.status.notes:
            click.secho(f"note: {note}", err=True, dim=True)
        if done.result.metadata.interrupted:
            click.secho(f"note: {done.result.metadata.interrupted}: the output is partial",
                        err=True, dim=True)
    sys.exit(done.status.shell_exit_code)


def _finite(value: float | None) -> float | None:
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"expected a finite number of seconds, got {value}")
    return value
