"""``trunc config show`` and ``trunc config validate``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from truncation_core.cli.state import AppState, console, pass_state

if TYPE_CHECKING:
    from truncation_core.config.sources import LoadedConfig


def config_rows(loaded: LoadedConfig, tool: str | None) -> list[tuple[str, Any, str]]:
    """(key, value, source) for every setting, or for one tool's effective policy."""
    from truncation_core.config.converter import converter
    from truncation_core.config.model import BUILTIN_TOOL_POLICIES
    from truncation_core.config.settings import OVERRIDE_NAMES
    from truncation_core.config.sources import SOURCE_BUILTIN_POLICY

    config = loaded.config
    if tool is not None:
        policy = config.policy_for(tool)
        rows = []
        builtin = BUILTIN_TOOL_POLICIES.get(tool)
        for key in OVERRIDE_NAMES:
            global_key = "default_strategy" if key == "strategy" else key
            own = f"tools.{tool}.{key}"
            if own in loaded.sources:
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


@click.group("config")
def config_group() -> None:
    """Show or check the configuration."""


@config_group.command("show")
@click.option("--tool", help="Show the effective policy of this tool instead.")
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@pass_state
def show_command(state: AppState, tool: str | None, as_json: bool) -> None:
    """Show the effective configuration and where each value came from."""
    loaded = state.load()
    rows = config_rows(loaded, tool)
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
@pass_state
def validate_command(state: AppState, path: Path | None) -> None:
    """Check the configuration (PATH, or the one found) and the plugins it names."""
    import warnings

    from truncation_core.errors import PluginDisabledWarning, PluginLoadWarning
    from truncation_core.truncator import Truncator

    if path is not None:
        state = AppState(config_path=path)
    loaded = state.load()  # raises ConfigError, one line per problem
    # A plugin that fails to load is a warning when running (the rest keeps working), but
    # here it is what the user asked about: a problem, and a failed validation.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PluginLoadWarning)
        truncator = Truncator(loaded.config, project_root=loaded.project_root)
    problems = []
    for w in caught:
        if issubclass(w.category, PluginDisabledWarning):
            click.secho(f"warning: {w.message}", fg="yellow", err=True)
        elif issubclass(w.category, PluginLoadWarning):
            problems.append(str(w.message))
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    if problems:
        for problem in problems:
            click.echo(f"error: {problem}", err=True)
        raise SystemExit(1)
    where = loaded.path
    click.echo(f"configuration is valid ({where or 'defaults only'}); "
               f"{len(truncator.plugins.strategies)} strategies, store "
               f"{truncator.config.store.backend!r}")
