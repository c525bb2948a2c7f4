"""The hosts' documented hook contracts, as JSON Schemas the answers are checked against.

Claude Code: the hooks reference (https://code.claude.com/docs/en/hooks) and the Agent SDK's
types (``SyncHookJSONOutput``, ``PreToolUseHookSpecificOutput``,
``PostToolUseHookSpecificOutput`` in anthropics/claude-agent-sdk-python,
src/claude_agent_sdk/types.py); the Bash tool's input (``command``, ``timeout`` in
milliseconds up to 600000, ``description``, ``run_in_background``).

Gemini CLI: docs/hooks/reference.md in google-gemini/gemini-cli, and ``HookOutput``,
``BeforeToolOutput`` in packages/core/src/hooks/types.ts; ``ShellToolParams`` in
packages/core/src/tools/shell.ts.
"""

from __future__ import annotations

from typing import Any

_STRING = {"type": "string"}
_BOOLEAN = {"type": "boolean"}

CLAUDE_PRE_TOOL_USE = {
    "type": "object", "additionalProperties": False, "required": ["hookEventName"],
    "properties": {
        "hookEventName": {"const": "PreToolUse"},
        "permissionDecision": {"enum": ["allow", "deny", "ask", "defer"]},
        "permissionDecisionReason": _STRING,
        "updatedInput": {"type": "object"},
        "additionalContext": _STRING,
    },
}
CLAUDE_POST_TOOL_USE = {
    "type": "object", "additionalProperties": False, "required": ["hookEventName"],
    "properties": {
        "hookEventName": {"const": "PostToolUse"},
        "additionalContext": _STRING,
        "updatedToolOutput": {},
        "updatedMCPToolOutput": {},
    },
}
CLAUDE_OUTPUT: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "continue": _BOOLEAN, "suppressOutput": _BOOLEAN, "stopReason": _STRING,
        "decision": {"enum": ["block"]}, "systemMessage": _STRING, "reason": _STRING,
        "hookSpecificOutput": {"oneOf": [CLAUDE_PRE_TOOL_USE, CLAUDE_POST_TOOL_USE]},
    },
}
#: The Bash tool's input: what ``updatedInput`` replaces it with must still be one.
CLAUDE_BASH_INPUT = {
    "type": "object", "required": ["command"],
    "properties": {
        "command": {"type": "string", "minLength": 1},
        "timeout": {"type": "number", "maximum": 600_000},
        "description": _STRING,
        "run_in_background": _BOOLEAN,
    },
}
#: An MCP tool's result as Claude Code hands it to PostToolUse: content blocks.
MCP_CONTENT = {
    "type": "array",
    "items": {"type": "object", "required": ["type"], "oneOf": [
        {"properties": {"type": {"const": "text"}, "text": _STRING}, "required": ["text"]},
        {"properties": {"type": {"enum": ["image", "audio"]}, "data": _STRING,
                        "mimeType": _STRING}, "required": ["data", "mimeType"]},
        {"properties": {"type": {"enum": ["resource", "resource_link"]}}},
    ]},
}

GEMINI_OUTPUT: dict[str, Any] = {
    "type": "object", "additionalProperties": False,
    "properties": {
        "continue": _BOOLEAN, "stopReason": _STRING, "suppressOutput": _BOOLEAN,
        "systemMessage": _STRING, "decision": {"enum": ["allow", "deny", "block"]},
        "reason": _STRING,
        "hookSpecificOutput": {
            "type": "object", "additionalProperties": False, "required": ["hookEventName"],
            "properties": {"hookEventName": {"const": "BeforeTool"},
                           "tool_input": {"type": "object"}},
        },
    },
}
#: ``ShellToolParams``: the keys ``tool_input`` may merge over.
GEMINI_SHELL_INPUT = {
    "type": "object", "additionalProperties": False, "required": ["command"],
    "properties": {"command": {"type": "string", "minLength": 1}, "description": _STRING,
                   "dir_path": _STRING, "is_background": _BOOLEAN,
                   "delay_ms": {"type": "number"}},
}
