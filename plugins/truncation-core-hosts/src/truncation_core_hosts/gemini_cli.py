"""Gemini CLI's hooks: the answer to a ``BeforeTool`` payload.

The contract is Gemini CLI's hooks reference (docs/hooks/reference.md in
google-gemini/gemini-cli; ``BeforeToolInput``, ``BeforeToolOutput`` and ``AfterToolOutput`` in
packages/core/src/hooks/types.ts): the payload has ``hook_event_name``, ``tool_name``,
``tool_input`` and ``cwd``; ``hookSpecificOutput.tool_input`` is merged over the model's
arguments before the tool runs.

- ``BeforeTool`` of ``run_shell_command``: its ``command`` runs through ``trunc run`` (see
  :mod:`truncation_core_hosts.shell`). The tool has no timeout argument, so none is added; a
  background command (``is_background``) is left alone. Gemini CLI appends a line saying that
  a hook changed the command's parameters.
- ``AfterTool`` cannot replace a tool's output: its ``decision: "deny"`` turns the result into
  an error (``Tool result blocked: ...``), ``additionalContext`` only appends, and
  ``tailToolCallRequest`` runs another tool. So MCP results are left to ``trunc mcp proxy``,
  put in front of the server in Gemini CLI's ``mcpServers`` (docs/mcp.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from truncation_core_hosts.shell import wrapped

__all__ = ["answer"]


def answer(payload: dict[str, Any], *, trunc: list[str]) -> dict[str, Any] | None:
    """The hook's answer to *payload*, or None to leave the call as it is."""
    from truncation_core_hosts.hosted import host_environment

    if payload.get("hook_event_name") != "BeforeTool" or \
            payload.get("tool_name") != "run_shell_command":
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict) or tool_input.get("is_background"):
        return None
    command = tool_input.get("command")
    if not isinstance(command, str):
        return None
    cwd = payload.get("cwd")
    rewritten = wrapped(command, trunc,
                        env=host_environment(Path(cwd) if isinstance(cwd, str) and cwd
                                             else None))
    if rewritten is None:
        return None
    return {"hookSpecificOutput": {"hookEventName": "BeforeTool",
                                   "tool_input": {"command": rewritten}}}
