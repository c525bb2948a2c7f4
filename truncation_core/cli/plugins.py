"""``trunc plugins``: what is installed and loaded, and what each plugin provides."""

from __future__ import annotations

import json

import attrs
import click

from truncation_core.cli.state import AppState, console, pass_state, plugin_warnings_to_stderr
from truncation_core.errors import did_you_mean
from truncation_core.hooks.host import PluginHost


@click.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.option("--hook", "hook_name", help="Only plugins implementing this hook.")
@pass_state
def plugins_command(state: AppState, as_json: bool, hook_name: str | None) -> None:
    """List plugins: built-ins, installed (entry points), project and failed ones."""
    loaded = state.load()
    with plugin_warnings_to_stderr():
        host = PluginHost.build(settings=loaded.config.plugins, project_root=loaded.project_root)
    if hook_name is not None and hook_name not in host.hook_names():
        hooks = sorted(host.hook_names())
        raise click.BadParameter(f"no hook {hook_name!r}{did_you_mean(hook_name, hooks)} "
                                 f"(hooks: {', '.join(hooks)})", param_hint="'--hook'")
    infos = [p for p in host.list_plugins() if hook_name is None or hook_name in p.hooks]
    if as_json:
        click.echo(json.dumps([{**attrs.asdict(p), "status": p.status} for p in infos],
                              indent=2))
        return
    from rich.table import Table

    table = Table(title="truncation-core plugins")
    for column in ("name", "kind", "distribution", "hooks", "provides", "status"):
        table.add_column(column)
    for p in infos:
        dist = f"{p.distribution} {p.version}" if p.distribution else "-"
        provides = ", ".join([*p.strategies, *(f"{b} (store)" for b in p.backends),
                              *(f"{t} (tokenizer)" for t in p.tokenizers)]) or "-"
        status = (f"error: {p.error}" if p.error is not None
                  else f"disabled ({p.disabled_by})" if p.disabled_by else p.status)
        style = "red" if p.error else ("dim" if p.disabled else None)
        table.add_row(p.name, p.kind, dist, ", ".join(p.hooks) or "-", provides, status,
                      style=style)
    console().print(table)
