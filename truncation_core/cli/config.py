"""``trunc config show`` and ``trunc config validate``."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from truncation_core.cli.completion import complete_tools
from truncation_core.cli.state import AppState, console, pass_state
from truncation_core.config.converter import converter
from truncation_core.config.model import (
    BUILTIN_TOOL_POLICIES,
    limit_warnings,
    raised_for_own_limits,
)
from truncation_core.config.sources import SOURCE_BUILTIN_POLICY
from truncation_core.errors import ConfigError, PluginDisabledWarning, PluginLoadWarning
from truncation_core.truncator import Truncator
from truncation_core.types.settings import OVERRIDE_NAMES

if TYPE_CHECKING:
    from truncation_core.config.sources import LoadedConfig


def config_rows(loaded: LoadedConfig, tool: str | None) -> list[tuple[str, Any, str]]:
    """(key, value, source) for every setting, or for one tool's effective policy."""
    config = loaded.config
    if tool is not None:
        policy = config.policy_for(tool)
        rows = []
        builtin = BUILTIN_TOOL_POLICIES.get(tool)
        own_config = config.tools.get(tool)
        raised = {} if own_config is None else raised_for_own_limits(
            own_config, {"inline_limit": config.inline_limit,
                         "preview_limit": config.preview_limit, **own_config.overrides})
        limit = "max_bytes" if own_config is not None and own_config.max_bytes else "max_lines"
        for key in OVERRIDE_NAMES:
            global_key = "default_strategy" if key == "strategy" else key
            own = f"tools.{tool}.{key}"
            if key in raised:
                source = f"raised to let tools.{tool}.{limit} bind"
            elif own in loaded.sources:
                source = loaded.sources[own]
            elif builtin is not None and getattr(builtin, key) is not None:
                source = SOURCE_BUILTIN_POLICY
            else:
                source = loaded.source_of(global_key)
            rows.append((key, getattr(policy, key), source))
        return rows

    data = converter.unstructure(config)
    tools = data.pop("tools")
    rows = []

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict):
            for key, child in value.items():
                walk(f"{prefix}.{key}" if prefix else key, child)
        else:
            rows.append((prefix, value, loaded.source_of(prefix)))

    walk("", data)
    for name in sorted({*BUILTIN_TOOL_POLICIES, *tools}):
        for key in OVERRIDE_NAMES:
            path = f"tools.{name}.{key}"
            value, source = tools.get(name, {}).get(key), loaded.source_of(path)
            if value is None:
                value = getattr(BUILTIN_TOOL_POLICIES.get(name), key, None)
                source = SOURCE_BUILTIN_POLICY
            if value is not None:
                rows.append((path, value, source))
    return rows


#: The strategies that cut text at line boundaries, keeping one contiguous omission: the
#: highlights block goes after their marker. (``element`` and ``ranked`` cut JSON and XML at
#: element boundaries, where a block of lines would break the structure.)
TEXT_STRATEGIES = ("head", "tail", "head_tail", "lines", "outline", "adaptive")


def highlight_rows(loaded: LoadedConfig) -> list[tuple[str, Any, str]]:
    """(``highlights.<tool>``, lines shown, why) for each tool configuration knows of, and
    for any other tool: which tools get a highlights block."""
    config = loaded.config
    rows = []
    for tool in [*sorted({*BUILTIN_TOOL_POLICIES, *config.tools}), None]:
        policy = config.policy_for(tool)
        if not policy.highlights:
            why = "off (highlights: 0)"
        elif policy.strategy in TEXT_STRATEGIES:
            own = None if tool is None else (
                (config.tools[tool].strategy if tool in config.tools else None)
                or (BUILTIN_TOOL_POLICIES[tool].strategy if tool in BUILTIN_TOOL_POLICIES
                    else None))
            why = (f"on: {policy.strategy} cuts text (and JSON or XML content goes to "
                   "element, without)" if policy.detect_structure and own is None
                   else f"on: {policy.strategy} cuts text")
        elif policy.strategy == "element":
            why = ("records: element puts the salient records of JSON Lines back, as "
                   "records; other JSON and XML have none")
        elif policy.strategy == "ranked":
            why = "none: ranked keeps the best-scored results whole"
        else:
            why = f"on if {policy.strategy!r} leaves one contiguous omission"
        rows.append((f"highlights.{tool or '(any other tool)'}",
                     0 if why.startswith(("off", "none")) else policy.highlights, why))
    return rows


@click.group("config")
def config_group() -> None:
    """Show or check the configuration."""


@config_group.command("show")
@click.option("--tool", help="Show the effective policy of this tool instead.",
              shell_complete=complete_tools)
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@pass_state
def show_command(state: AppState, tool: str | None, as_json: bool) -> None:
    """Show the effective configuration and where each value came from."""
    loaded = state.load()
    rows = config_rows(loaded, tool)
    if tool is None:
        rows += highlight_rows(loaded)
    if as_json:
        click.echo(json.dumps([{"key": k, "value": v, "source": s} for k, v, s in rows],
                              indent=2))
        return
    from rich.table import Table

    path = loaded.path
    table = Table(title=f"effective configuration{f' for tool {tool}' if tool else ''}",
                  caption=f"config file: {path}" if path else "no config file found")
    for column in ("key", "value", "source"):
        table.add_column(column)
    for key, value, source in rows:
        table.add_row(key, repr(value) if isinstance(value, str) else str(value), source)
    console().print(table)


@config_group.command("validate")
@click.argument("path", required=False, type=click.Path(exists=True, dir_okay=False,
                                                         path_type=Path))
@click.option("--json", "as_json", is_flag=True,
              help="Print the verdict, problems and warnings as one JSON document.")
@pass_state
def validate_command(state: AppState, path: Path | None, as_json: bool) -> None:
    """Check the configuration (PATH, or the one found) and the plugins it names.

    Problems (a bad value, a plugin that fails to load) fail the validation; warnings (a
    limit that never binds, and the key that wins instead) do not.
    """
    if path is not None:
        state = AppState(config_path=path)
    try:
        loaded = state.load()
    except ConfigError as exc:
        if not as_json:
            raise  # one line per problem, exit status 1
        _print_verdict(None, list(exc.problems), [], None)
        raise SystemExit(1) from None
    # A plugin that fails to load is a warning when running (the rest keeps working), but
    # here it is what the user asked about: a problem, and a failed validation.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PluginLoadWarning)
        try:
            truncator = Truncator(loaded.config, project_root=loaded.project_root)
        except ConfigError as exc:  # a strategy or backend no plugin provides
            if not as_json:
                raise
            _print_verdict(loaded.path, list(exc.problems), [], None)
            raise SystemExit(1) from None
    problems = []
    for w in caught:
        if issubclass(w.category, PluginDisabledWarning):
            click.secho(f"warning: {w.message}", fg="yellow", err=True)
        elif issubclass(w.category, PluginLoadWarning):
            problems.append(str(w.message))
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    notes = limit_warnings(truncator.config)
    if as_json:
        _print_verdict(loaded.path, problems, notes, truncator)
        if problems:
            raise SystemExit(1)
        return
    for note in notes:
        click.secho(f"warning: {note}", fg="yellow", err=True)
    if problems:
        for problem in problems:
            click.echo(f"error: {problem}", err=True)
        raise SystemExit(1)
    where = loaded.path
    click.echo(f"configuration is valid ({where or 'defaults only'}); "
               f"{len(truncator.plugins.strategies)} strategies, store "
               f"{truncator.config.store.backend!r}")


def _print_verdict(path: Path | None, problems: list[str], warnings: list[str],
                   truncator: Any) -> None:
    click.echo(json.dumps({
        "valid": not problems, "path": str(path) if path else None, "problems": problems,
        "warnings": warnings,
        "strategies": sorted(truncator.plugins.strategies) if truncator else None,
        "store": truncator.config.store.backend if truncator else None}, indent=2))
