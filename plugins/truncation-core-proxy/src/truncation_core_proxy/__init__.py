"""truncation-core for any agent: ``trunc proxy``, an HTTP proxy in front of the model API.

This module is imported whenever truncation-core loads its installed plugins (every
Truncator, and ``trunc`` itself), so it imports nothing heavy: the command, and the server
it runs, are imported only when ``trunc`` adds its commands or runs one of them.
"""

from __future__ import annotations

from typing import Any

from truncation_core import hookimpl

__all__ = ["register_commands"]


@hookimpl
def register_commands(cli: Any) -> None:
    from truncation_core_proxy.cli import proxy_command

    cli.add_command(proxy_command)
