"""truncation-core for agent hosts: ``trunc hook claude-code`` and ``trunc hook gemini-cli``.

This module is imported whenever truncation-core loads its installed plugins (every
Truncator, and ``trunc`` itself), so it imports nothing: the commands are imported only when
``trunc`` adds its commands or runs one of them.

A plugin of its own rather than part of the adapters: a host hook is a process the host starts
on every tool call, so it goes where ``trunc`` finds commands (``register_commands``, through
this distribution's entry point), while the adapters are libraries imported by an agent's own
code and register no entry point at all.
"""

from __future__ import annotations

from typing import Any

from truncation_core import hookimpl

__all__ = ["register_commands"]


@hookimpl
def register_commands(cli: Any) -> None:
    from truncation_core_hosts.cli import hook_group

    cli.add_command(hook_group)
