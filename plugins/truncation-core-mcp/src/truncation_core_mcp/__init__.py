"""truncation-core for MCP: ``trunc mcp proxy`` and ``trunc mcp serve``.

This module is imported whenever truncation-core loads its installed plugins (every
Truncator, and ``trunc`` itself), so it imports nothing heavy: the commands, and the MCP SDK
they use, are imported only when ``trunc`` adds its commands or runs one of them.
"""

from __future__ import annotations

from typing import Any

from truncation_core import hookimpl

__all__ = ["register_commands"]


@hookimpl
def register_commands(cli: Any) -> None:
    from truncation_core_mcp.cli import mcp_group

    cli.add_command(mcp_group)
