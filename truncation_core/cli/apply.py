"""``trunc apply``: show what the model would see of a file or of standard input."""

from __future__ import annotations

import json
import sys
from typing import Any, BinaryIO

import attrs
import click

from truncation_core.cli.state import AppState, pass_state
from truncation_core.results import TruncationResult


def overrides_for(tool: str | None, strategy: str | None, limit: int | None) -> dict[str, Any]:
    """Config overrides for ``--strategy`` and ``--limit``, scoped to ``--tool`` if given."""
    settings: dict[str, Any] = {}
    if strategy is not None:
        settings["strategy" if tool else "default_strategy"] = strategy
    if limit is not None:
        settings["inline_limit"] = limit
    if not settings:
        return {}
    return {"tools": {tool: settings}} if tool else settings


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
    lines = [
        f"truncated with {m.strategy_used}: {m.original_size:,} chars, {m.original_lines:,} "
        f"lines -> {m.truncated_size:,} chars (~{m.estimated_tokens:,} tokens)",
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
@click.option("--tool", help="Tool name: selects the tool's policy (e.g. execute_command).")
@click.option("--strategy", help="Strategy to use instead of the configured one.")
@click.option("--limit", type=click.IntRange(min=1), help="Inline limit in characters.")
@click.option("--json", "as_json", is_flag=True,
              help="Print content, metadata and artifact as one JSON document.")
@pass_state
def apply_command(state: AppState, source: BinaryIO, tool: str | None, strategy: str | None,
                  limit: int | None, as_json: bool) -> None:
    """Print what the model would see of SOURCE (a file, or - for standard input).

    The content goes to stdout and the metadata to stderr, or both to stdout with --json.
    """
    truncator = state.truncator(overrides_for(tool, strategy, limit))
    result = truncator.process(source.read(), tool=tool)
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
