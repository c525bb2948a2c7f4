"""Claude Code's hooks: the answer to a ``PreToolUse`` or ``PostToolUse`` payload.

The contract is Claude Code's hooks reference (https://code.claude.com/docs/en/hooks) and the
types of its Agent SDK (``PreToolUseHookInput``, ``PostToolUseHookInput``,
``PreToolUseHookSpecificOutput``, ``PostToolUseHookSpecificOutput`` in
``claude_agent_sdk/types.py``): the payload on stdin has ``hook_event_name``, ``tool_name``,
``tool_input``, ``tool_use_id``, ``cwd`` (and ``tool_response`` after the tool); the answer on
stdout is ``{"hookSpecificOutput": {"hookEventName": ..., ...}}``, and no output leaves the
call as it is.

- ``PreToolUse`` of ``Bash``: ``updatedInput`` is the tool's input with its ``command``
  running through ``trunc run`` (see :mod:`truncation_core_hosts.shell`); the other fields
  (``timeout``, ``description`` ...) are kept, and ``trunc run`` gets a timeout a little
  shorter than the tool's, so that a command that runs out of time still gives its cut output
  and exit status 124. Claude Code applies ``updatedInput`` with a ``permissionDecision``: by
  default ``ask`` (you see and approve the rewritten command), or ``allow`` (Claude Code runs
  it without asking; your deny and ask rules still apply). A background command
  (``run_in_background``) is left alone: the model reads its output as it comes.
- ``PostToolUse`` of an MCP tool (``mcp__<server>__<tool>``): a result whose text is over its
  limit is replaced (``updatedMCPToolOutput``) by the cut, in the shape it came in (a string,
  a list of content blocks, or a result object with ``content``); its image and other
  non-text blocks are kept. The full output is kept as an artifact, with the call's
  ``tool_use_id``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from truncation_core_hosts.shell import wrapped

__all__ = ["DEFAULT_TIMEOUT_MS", "PERMISSIONS", "answer"]

#: What Claude Code gives a Bash command that names no timeout (``BASH_DEFAULT_TIMEOUT_MS``
#: changes it).
DEFAULT_TIMEOUT_MS = 120_000
#: The ``permissionDecision`` values a rewrite can go with.
PERMISSIONS = ("ask", "allow")


def _trunc_timeout(timeout_ms: float) -> float:
    """Seconds ``trunc run`` gives the command: a little under the host's *timeout_ms*, so
    that ``trunc`` ends it and reports first."""
    margin = min(5_000.0, timeout_ms / 10)
    return round(max(timeout_ms - margin, 1.0) / 1000, 3)


def answer(payload: dict[str, Any], *, trunc: list[str], permission: str = "ask",
           environ: dict[str, str] | None = None,
           cut: Callable[..., Any] | None = None) -> dict[str, Any] | None:
    """The hook's answer to *payload*, or None to leave the call as it is.

    *trunc* starts ``trunc``; *cut* (``cut(text, tool=..., tool_call_id=..., cwd=...)`` ->
    a ``TruncationResult``) cuts an MCP tool's text."""
    event = payload.get("hook_event_name")
    tool = payload.get("tool_name")
    if event == "PreToolUse" and tool == "Bash":
        return _rewrite_bash(payload, trunc, permission, environ or dict(os.environ))
    if (event == "PostToolUse" and isinstance(tool, str) and tool.startswith("mcp__")
            and cut is not None):
        return _cut_mcp(payload, tool, cut)
    return None


def _cwd(payload: dict[str, Any]) -> Path | None:
    cwd = payload.get("cwd")
    return Path(cwd) if isinstance(cwd, str) and cwd else None


def _rewrite_bash(payload: dict[str, Any], trunc: list[str], permission: str,
                  environ: dict[str, str]) -> dict[str, Any] | None:
    from truncation_core_hosts.hosted import host_environment

    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict) or tool_input.get("run_in_background"):
        return None
    command = tool_input.get("command")
    if not isinstance(command, str):
        return None
    timeout = tool_input.get("timeout")
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        try:
            timeout = float(environ.get("BASH_DEFAULT_TIMEOUT_MS", DEFAULT_TIMEOUT_MS))
        except ValueError:
            timeout = DEFAULT_TIMEOUT_MS
    rewritten = wrapped(command, trunc, timeout=_trunc_timeout(float(timeout)),
                        env=host_environment(_cwd(payload)))
    if rewritten is None:
        return None
    return {"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": permission,
        "permissionDecisionReason": "truncation-core: the output goes through trunc run (cut "
                                    "to its budget, the full output kept)",
        "updatedInput": {**tool_input, "command": rewritten},
    }}


def _cut_mcp(payload: dict[str, Any], tool: str,
             cut: Callable[..., Any]) -> dict[str, Any] | None:
    response = payload.get("tool_response")
    if isinstance(response, dict) and isinstance(response.get("content"), list):
        blocks = response["content"]
    elif isinstance(response, list):
        blocks = response
    elif isinstance(response, str):
        blocks = None
    else:
        return None
    if blocks is None:
        text = response
    else:
        texts = [b["text"] for b in blocks if isinstance(b, dict) and b.get("type") == "text"
                 and isinstance(b.get("text"), str)]
        if not texts:
            return None
        text = "\n".join(texts)
    call_id = payload.get("tool_use_id")
    result = cut(text, tool=tool, tool_call_id=call_id if isinstance(call_id, str) else None,
                 cwd=_cwd(payload))
    if not result.metadata.was_truncated:
        return None
    if blocks is None:
        replaced: Any = result.content
    else:
        kept = [b for b in blocks if not (isinstance(b, dict) and b.get("type") == "text")]
        content = [{"type": "text", "text": result.content}, *kept]
        replaced = content if isinstance(response, list) else {
            key: value for key, value in response.items() if key != "structuredContent"
        } | {"content": content}
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse",
                                   "updatedMCPToolOutput": replaced}}
