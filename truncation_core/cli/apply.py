"""``trunc apply``: show what the model would see of a file or of standard input."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO

import attrs
import click

from truncation_core.cli.completion import complete_strategies, complete_tools
from truncation_core.cli.state import AppState, pass_state
from truncation_core.errors import ConfigError

if TYPE_CHECKING:
    from truncation_core.pipeline.results import TruncationResult
    from truncation_core.truncator import Truncator


def overrides_for(tool: str | None, strategy: str | None, limit: int | None, *,
                  session: str | None = None, limits: Mapping[str, Any] | None = None
                  ) -> dict[str, Any]:
    """Config overrides for ``--strategy``, ``--limit`` and the other limits (*limits*:
    ``max_tokens``, ``max_bytes``, ``max_lines``, ``tokenizer``, each None when not given),
    scoped to ``--tool`` if given.

    ``--strategy`` is what the user asked for, whatever the content: without ``--tool`` it
    sets ``default_strategy`` and turns off the structure sniff, which would otherwise send
    JSON and XML to ``element`` (with ``--tool``, the tool's own strategy already wins).
    ``--session`` names the store's session, so that another process (an agent reading the
    artifact back) can find it there.
    """
    settings: dict[str, Any] = {}
    if strategy is not None:
        settings["strategy" if tool else "default_strategy"] = strategy
        if not tool:
            settings["detect_structure"] = False
    if limit is not None:
        settings["inline_limit"] = limit
    settings.update({key: value for key, value in (limits or {}).items() if value is not None})
    overrides: dict[str, Any] = ({"tools": {tool: settings}} if tool else settings) if settings \
        else {}
    if session is not None:
        overrides["store"] = {"session": session}
    return overrides


#: The options that set one limit each, as ``trunc apply`` and ``trunc run`` take them.
LIMIT_OPTIONS = {"max_tokens": "--max-tokens", "max_bytes": "--max-bytes",
                 "max_lines": "--max-lines", "tokenizer": "--tokenizer"}


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


_CHUNK = 1 << 20
#: A strategy that cannot cut a stream gets the input whole, up to this many bytes; a larger
#: input streams, and the stream cuts it with head_tail (the notes say so).
WHOLE_INPUT_BYTES = 64 << 20


def cuts_streams(truncator: Truncator, tool: str | None) -> bool:
    """Whether the strategy *tool*'s policy asks for can cut a stream as it cuts whole text:
    it is ``streamable`` (declared in ``provides``), or a ``stream_cutter`` offers a cutter
    for it."""
    policy = truncator.policy(tool)
    if policy.strategy in truncator.plugins.streamable:
        return True
    try:
        cutters, _ = truncator.plugins.stream_cutters(tool=tool, policy=policy, context={})
    except Exception:  # a plugin's bug: the stream reports it, and cuts as text
        return False
    return any(cutter.strategy == policy.strategy for cutter in cutters)


def _apply(truncator: Truncator, tool: str | None, source: BinaryIO) -> TruncationResult:
    """What the model would see of *source*: an input that ends within the first chunk goes
    to process() whole (a stream of it gives the same result, but costs more to open: its
    cutters, its highlights' matcher); a longer one is streamed in chunks (memory bounded by
    the budget, the result the one process() gives for the whole content) when the strategy
    can cut a stream; otherwise read whole, so that the strategy itself cuts it, up to
    :data:`WHOLE_INPUT_BYTES`."""
    first = min(_CHUNK, WHOLE_INPUT_BYTES)
    head = source.read(first)
    while len(head) < first:  # the end, or a short read
        more = source.read(first - len(head))
        if not more:
            return truncator.process(head, tool=tool)
        head += more
    if not cuts_streams(truncator, tool):
        head += source.read(WHOLE_INPUT_BYTES + 1 - len(head))
        if len(head) <= WHOLE_INPUT_BYTES:
            return truncator.process(head, tool=tool)
        click.secho(f"note: the input is larger than {WHOLE_INPUT_BYTES >> 20} MiB and "
                    f"strategy {truncator.policy(tool).strategy!r} cannot cut a stream: "
                    "streamed, and cut with head_tail", err=True, dim=True)
    with truncator.stream(tool=tool) as stream:
        stream.write(head)
        while chunk := source.read(_CHUNK):
            stream.write(chunk)
    return stream.result()


def name_the_option(exc: ConfigError, tool: str | None, *, strategy: str | None = None,
                    session: str | None = None,
                    limits: Mapping[str, Any] | None = None) -> Exception:
    """A bad ``--strategy``, ``--session`` or ``--tokenizer`` (or limit) value as a usage
    error naming the option, not the config key it set. Only for an option that was given
    (its value then replaces the configuration's); a problem in the configuration file is
    left as it is."""
    options = {}
    if strategy is not None:
        options[f"tools.{tool}.strategy: " if tool else "default_strategy: "] = "--strategy"
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


def result_document(result: TruncationResult) -> dict[str, Any]:
    return {
        "content": result.content,
        "metadata": result.metadata.to_dict(),
        "artifact": attrs.asdict(result.artifact) if result.artifact else None,
    }


def describe(result: TruncationResult) -> list[str]:
    """Human-readable metadata lines for stderr."""
    m = result.metadata
    if not m.was_truncated:
        return [f"unchanged: {m.original_size:,} chars, {m.original_lines:,} lines"
                + (" (the tool marked it as already truncated)" if m.opted_out else "")]
    tokens = (f"{m.estimated_tokens:,} tokens by {m.tokenizer}"
              + (f", limit {m.max_tokens:,}" if m.max_tokens is not None else ""))
    lines = [
        f"truncated with {m.strategy_used}: {m.original_size:,} chars, {m.original_lines:,} "
        f"lines -> {m.truncated_size:,} chars ({tokens})",
        f"omitted: {m.omitted_lines:,} lines / {m.omitted_chars:,} chars",
    ]
    for region in m.omissions:
        lines.append(f"  {region.position}: lines {region.first_line:,}-{region.last_line:,}, "
                     f"chars {region.start:,}-{region.end:,}")
    if result.artifact is not None:
        a = result.artifact
        lines.append(f"artifact: {a.id} ({a.size}, {a.backend} store)")
    elif m.artifact_error:
        lines.append(f"artifact: not kept ({m.artifact_error})")
    lines.extend(f"note: {note}" for note in m.notes)
    return lines


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
    cannot (a plugin's, not declared streamable) gets it whole, up to 64 MiB.
    """
    limits = {"max_tokens": max_tokens, "max_bytes": max_bytes, "max_lines": max_lines,
              "tokenizer": tokenizer}
    try:
        truncator = state.truncator(overrides_for(tool, strategy, limit, session=session,
                                                  limits=limits))
    except ConfigError as exc:
        raise name_the_option(exc, tool, strategy=strategy, session=session,
                              limits=limits) from None
    result = _apply(truncator, tool, source)
    if as_json:
        click.echo(json.dumps(result_document(result), ensure_ascii=False))
        return
    out = sys.stdout
    out.write(result.content)
    if out.isatty() and not result.content.endswith("\n"):
        out.write("\n")
    out.flush()
    for line in describe(result):
        click.secho(line, err=True, dim=True)
