"""``trunc hook HOST``: answer a host's hook payload, or ``--install`` the hook."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import click

__all__ = ["hook_group"]


@click.group(name="hook")
def hook_group() -> None:
    """Cut what an agent host's tools return, through the host's hooks.

    The host runs `trunc hook HOST` on each tool call, with its hook payload on standard
    input; the answer goes to standard output. `--install` adds the hook to the host's
    settings.
    """


def _read_payload() -> dict[str, Any]:
    try:
        payload = json.loads(sys.stdin.buffer.read() or b"{}")
    except RecursionError:  # a tool's result nested thousands deep
        raise click.ClickException("the hook payload on standard input is nested too deeply "
                                   "to read") from None
    except ValueError as exc:  # not JSON, not UTF-8, a number of more than 4,300 digits
        raise click.ClickException(
            f"the hook payload on standard input is not JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise click.ClickException("the hook payload on standard input is not a JSON object")
    return payload


def _print(answer: dict[str, Any] | None) -> None:
    if answer is not None:
        text = json.dumps(answer, ensure_ascii=False)
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate from the tool's output: escaped
            data = json.dumps(answer).encode("ascii")
        sys.stdout.buffer.write(data + b"\n")
        sys.stdout.flush()


def _settings(host_dir: str, user: bool) -> Path:
    return (Path.home() if user else Path.cwd()) / host_dir / "settings.json"


def _install(path: Path, entries: list[tuple[str, str, str]]) -> None:
    from truncation_core_hosts.settings import SettingsError, install

    try:
        added = install(path, entries)
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"{path}: {exc.strerror or exc}") from None
    if added:
        click.echo(f"{path}: added the hook for {', '.join(added)}")
    else:
        click.echo(f"{path}: the hook is there already")


def _command(*args: str) -> str:
    from truncation_core_hosts.hosted import trunc_command

    return shlex.join([*trunc_command(), "hook", *args])


def _cut(text: str, *, tool: str, tool_call_id: str | None, cwd: Path | None) -> Any:
    from truncation_core import Truncator
    from truncation_core_hosts.hosted import host_overrides

    truncator = Truncator.from_config(start=cwd, overrides=host_overrides(cwd))
    return truncator.process(text, tool=tool, tool_call_id=tool_call_id)


_SCOPE = [click.option("--project", "scope", flag_value="project", default=True,
                       help="The project's settings (in the working directory; default)."),
          click.option("--user", "scope", flag_value="user",
                       help="Your settings, for every project.")]


@hook_group.command(name="claude-code")
@click.option("--install", is_flag=True,
              help="Add the hook to Claude Code's settings instead of answering a payload.")
@_SCOPE[0]
@_SCOPE[1]
@click.option("--permission", type=click.Choice(["ask", "allow"]), default="ask",
              show_default=True,
              help="What a rewritten Bash command asks of you: ask (you approve it) or allow "
                   "(it runs without asking; your deny and ask rules still apply).")
def claude_code(install: bool, scope: str, permission: str) -> None:
    """Claude Code's PreToolUse (Bash runs through `trunc run`) and PostToolUse (a large
    MCP result is cut) hooks."""
    from truncation_core_hosts import claude_code as host
    from truncation_core_hosts.hosted import trunc_command

    if install:
        extra = () if permission == "ask" else ("--permission", permission)
        command = _command("claude-code", *extra)
        _install(_settings(".claude", scope == "user"),
                 [("PreToolUse", "Bash", command), ("PostToolUse", "mcp__.*", command)])
        return
    _print(host.answer(_read_payload(), trunc=trunc_command(), permission=permission,
                       cut=_cut))


@hook_group.command(name="gemini-cli")
@click.option("--install", is_flag=True,
              help="Add the hook to Gemini CLI's settings instead of answering a payload.")
@_SCOPE[0]
@_SCOPE[1]
def gemini_cli(install: bool, scope: str) -> None:
    """Gemini CLI's BeforeTool hook (run_shell_command runs through `trunc run`). Its
    AfterTool hook cannot replace a result: cut MCP results with `trunc mcp proxy`."""
    from truncation_core_hosts import gemini_cli as host
    from truncation_core_hosts.hosted import trunc_command

    if install:
        _install(_settings(".gemini", scope == "user"),
                 [("BeforeTool", "run_shell_command", _command("gemini-cli"))])
        return
    _print(host.answer(_read_payload(), trunc=trunc_command()))
