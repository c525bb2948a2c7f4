"""The plain forms of ``trunc apply`` and ``trunc run``, run without click.

An agent that wraps each command in ``trunc run``, or a host hook that pipes each tool result
through ``trunc apply``, starts ``trunc`` on every tool call, and importing click is about a
sixth of that start-up. These two commands, given only options whose values are plainly
valid, are parsed here and run by the same functions as their click commands
(:mod:`truncation_core.cli.actions`), with errors reported as click reports them.

Everything else goes to click, untouched: any other command, ``--help``, a global option, an
option not listed here, a value click would have to check or reject (``--limit 0``, a value
starting with ``-``), an input file instead of ``-``, shell completion. A value that the
configuration rejects (``--strategy nosuch``) is reported with click's own usage error.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

from truncation_core.cli.actions import apply_to, limits_of, overrides_for, run_and_show
from truncation_core.cli.state import AppState, describe_os_error
from truncation_core.errors import ConfigError, TruncationCoreError

if TYPE_CHECKING:
    from truncation_core.truncator import Truncator

#: A value's check: the value as click would convert it, or None where click might see it
#: differently (it then parses the command line itself).
Check = Callable[[str], Any]


def _text(value: str) -> str | None:
    return None if value.startswith("-") else value


def _count(value: str) -> int | None:
    """A positive integer in plain decimal digits (click's IntRange(min=1) of it)."""
    if not (value.isascii() and value.isdigit()) or len(value) > 18:
        return None
    number = int(value)
    return number if number >= 1 else None


def _seconds(value: str) -> float | None:
    """A positive number of seconds written as digits with an optional fraction (click's
    FloatRange(min=0, min_open=True) of it)."""
    whole, dot, fraction = value.partition(".")
    plain = whole.isascii() and whole.isdigit() and len(value) <= 18 and (
        not dot or (fraction.isascii() and fraction.isdigit()))
    if not plain:
        return None
    seconds = float(value)
    return seconds if seconds > 0 else None


_LIMITS: dict[str, Check] = {"--limit": _count, "--max-tokens": _count, "--max-bytes": _count,
                             "--max-lines": _count, "--tokenizer": _text, "--session": _text}
#: The options of each plain form, with the check of their value (``--json`` is a flag).
APPLY_OPTIONS: dict[str, Check] = {"--tool": _text, "--strategy": _text, **_LIMITS}
RUN_OPTIONS: dict[str, Check] = {"--tool": _text, "--timeout": _seconds, **_LIMITS}


def parse(argv: list[str]) -> tuple[str, dict[str, Any], list[str]] | None:
    """``(command, options, the command to run)`` for a plain form of ``apply`` or ``run``,
    options by parameter name; None for anything click should parse."""
    if not argv or argv[0] not in ("apply", "run"):
        return None
    name, args = argv[0], argv[1:]
    options = APPLY_OPTIONS if name == "apply" else RUN_OPTIONS
    found: dict[str, Any] = {}
    i = 0
    while i < len(args):
        token = args[i]
        if name == "run" and (token == "--" or not token.startswith("-")):
            command = args[i + 1:] if token == "--" else args[i:]
            return (name, found, command) if command else None
        i += 1
        if token == "--json":
            found["as_json"] = True
            continue
        if name == "apply" and token == "-" and "source" not in found:
            found["source"] = token
            continue
        option, equals, value = token.partition("=")
        check = options.get(option)
        if check is None:
            return None
        if not equals:
            if i == len(args):
                return None
            value = args[i]
            i += 1
        checked = check(value)
        if checked is None:
            return None
        found[option[2:].replace("-", "_")] = checked
    return (name, found, []) if name == "apply" else None  # run: no command given


def run_plain(argv: list[str]) -> None:
    """Run *argv* and exit, if it is a plain form of ``apply`` or ``run``; otherwise return,
    for click to run it."""
    if os.environ.get("_TRUNC_COMPLETE"):  # click's shell completion
        return
    parsed = parse(argv)
    if parsed is None or (parsed[0] == "apply" and sys.stdin is None):
        return
    name, options, command = parsed
    as_json = options.get("as_json", False)
    if name == "apply":
        tool = options.get("tool")

        def work() -> None:
            truncator = _truncator(argv, tool, options)
            apply_to(truncator, sys.stdin.buffer, tool=tool, as_json=as_json)
    else:
        run_tool: str = options.get("tool", "execute_command")

        def work() -> None:
            truncator = _truncator(argv, run_tool, options)
            run_and_show(truncator, command, tool=run_tool, timeout=options.get("timeout"),
                         as_json=as_json)
    _as_click_would(work)


def _truncator(argv: list[str], tool: str | None, options: dict[str, Any]) -> Truncator:
    """The Truncator of the command's options, as the click command builds it; a problem with
    an option's value is reported as click reports it, naming the option."""
    limits = limits_of(options.get("max_tokens"), options.get("max_bytes"),
                       options.get("max_lines"), options.get("tokenizer"))
    strategy, session = options.get("strategy"), options.get("session")
    try:
        return AppState().truncator(overrides_for(tool, strategy, options.get("limit"),
                                                  session=session, limits=limits))
    except ConfigError as exc:
        import click

        from truncation_core.cli.apply import name_the_option

        error = name_the_option(exc, tool, strategy=strategy, session=session, limits=limits)
        if not isinstance(error, click.UsageError):
            raise error from None
        # click's usage error needs the command's context for its usage lines
        from truncation_core.cli.group import cli

        with cli.make_context("trunc", list(argv)) as group:
            command = cli.get_command(group, argv[0])
            assert command is not None
            error.ctx = command.make_context(argv[0], argv[1:], parent=group)
        error.show()
        sys.exit(error.exit_code)


def _as_click_would(work: Callable[[], None]) -> NoReturn:
    """Run *work*, then exit as the click group and click's standalone main would: 0; a
    library or system error as ``Error: ...`` and 1; a closed pipe quietly with 1; Ctrl-C as
    ``Aborted!`` and 1."""
    try:
        work()
    except TruncationCoreError as exc:
        message = str(exc)
    except BrokenPipeError:
        # Nothing more can reach the reader; what is still buffered must not fail the exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(1)
    except OSError as exc:
        message = describe_os_error(exc)
    except (EOFError, KeyboardInterrupt):
        sys.stderr.write("\nAborted!\n")
        sys.exit(1)
    else:
        sys.exit(0)
    sys.stderr.write(f"Error: {message}\n")
    sys.exit(1)
