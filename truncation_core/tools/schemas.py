"""The artifact tools' definitions in each function-calling format.

``get_artifact`` (line ranges, and pages), ``artifact_head``, ``artifact_tail`` and
``artifact_grep``: :func:`tool_schemas` gives their JSON schemas as OpenAI Chat Completions,
OpenAI Responses, Anthropic Messages and MCP expect them. The same schemas are what
:mod:`truncation_core.tools.calls` checks arguments against.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from truncation_core.errors import did_you_mean
from truncation_core.retrieval.patterns import PATTERN_MAX_CHARS
from truncation_core.types.ids import ARTIFACT_ID_REGEX, TOOL_CALL_ID_REGEX
from truncation_core.types.tool_names import ARTIFACT_TOOLS

__all__ = ["FORMATS", "REQUIRED", "SCHEMA_KEYWORDS", "SPECS", "TOOL_NAMES", "tool_schemas"]

#: The tools by their own names (``artifact_tools:`` sets the names the model sees).
TOOL_NAMES = ARTIFACT_TOOLS
FORMATS = ("openai", "openai-responses", "anthropic", "mcp")
#: Lines shown by artifact_head / artifact_tail when the call does not say.
DEFAULT_LINES = 50
GREP_DEFAULT_MATCHES = 50
GREP_MAX_MATCHES = 1000
GREP_MAX_CONTEXT = 20

_ID_SCHEMA = {
    "type": "string",
    # ECMA-262 regex: "$" is the end, no newline.
    "pattern": f"^(?:{ARTIFACT_ID_REGEX}|{TOOL_CALL_ID_REGEX})$",
    "description": "The artifact id, as shown in the truncation marker (art_<digits>_<hex>), "
                   "or the id of the tool call whose output was truncated (its newest "
                   "artifact).",
}


def _int(description: str, minimum: int, maximum: int | None = None,
         default: int | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer", "minimum": minimum, "description": description}
    if maximum is not None:
        schema["maximum"] = maximum
    if default is not None:
        schema["default"] = default
    return schema


def _bool(description: str) -> dict[str, Any]:
    return {"type": "boolean", "default": False, "description": description}


#: name -> (description, JSON schema of each argument): the one definition of each tool's
#: arguments, which :mod:`truncation_core.tools.calls` checks calls against.
SPECS: Mapping[str, tuple[str, dict[str, Any]]] = MappingProxyType({
    "get_artifact": (
        "Read lines of a tool output that was truncated and stored as an artifact. Returns "
        "numbered lines, as many as fit one page, and says where the next page starts. "
        "Without start_line, reads from the first line.",
        {"artifact_id": _ID_SCHEMA,
         "start_line": _int("First line to read (1-based).", 1, default=1),
         "end_line": _int("Last line to read (inclusive). Optional: omit to read a full page.",
                          1),
         "offset": _int("Byte offset to continue a line too long for one page, as given by "
                        "the previous page. Use instead of start_line (end_line still "
                        "applies).", 0)},
    ),
    "artifact_head": (
        "Read the first lines of a stored tool output (artifact), numbered.",
        {"artifact_id": _ID_SCHEMA,
         "lines": _int("How many lines.", 1, default=DEFAULT_LINES)},
    ),
    "artifact_tail": (
        "Read the last lines of a stored tool output (artifact), numbered. Errors and "
        "summaries of commands are usually at the end.",
        {"artifact_id": _ID_SCHEMA,
         "lines": _int("How many lines.", 1, default=DEFAULT_LINES)},
    ),
    "artifact_grep": (
        "Search a stored tool output (artifact) for lines containing a text, and return them "
        "with their line numbers. The pattern is literal text unless regex is true.",
        {"artifact_id": _ID_SCHEMA,
         "pattern": {"type": "string", "minLength": 1, "maxLength": PATTERN_MAX_CHARS,
                     "description": "Text to find (or a regular expression, with regex)."},
         "regex": _bool("Treat pattern as a regular expression."),
         "ignore_case": _bool("Ignore upper and lower case."),
         "context": _int("Lines to show before and after each match.", 0, GREP_MAX_CONTEXT,
                         default=0),
         "max_matches": _int("Most matching lines to return.", 1, GREP_MAX_MATCHES,
                             default=GREP_DEFAULT_MATCHES),
         "start_line": _int("Search from this line on (to continue a search).", 1,
                            default=1)},
    ),
})
REQUIRED = {"get_artifact": ("artifact_id",), "artifact_head": ("artifact_id",),
             "artifact_tail": ("artifact_id",), "artifact_grep": ("artifact_id", "pattern")}


#: Keywords the published schemas use, and so what :mod:`truncation_core.tools.calls` checks.
SCHEMA_KEYWORDS = frozenset({"type", "description", "default", "minimum", "maximum",
                             "minLength", "maxLength", "pattern"})
#: Keywords OpenAI's strict mode refuses: their checks stay with :func:`call_tool`'s
#: validation, and a default is said in the description.
_NOT_STRICT = frozenset({"default", "minLength", "maxLength"})


def _parameters(name: str, *, strict: bool) -> dict[str, Any]:
    _, properties = SPECS[name]
    properties = json.loads(json.dumps(properties))
    required = list(REQUIRED[name])
    if strict:
        for key, schema in properties.items():
            properties[key] = _strict_property(schema, optional=key not in required)
        required = list(properties)
    return {"type": "object", "properties": properties, "required": required,
            "additionalProperties": False}


def _strict_property(schema: dict[str, Any], *, optional: bool) -> dict[str, Any]:
    """*schema* as strict mode wants it: required, so nullable when optional (``null`` means
    not given), and without the keywords strict mode refuses."""
    out = {k: v for k, v in schema.items() if k not in _NOT_STRICT}
    if optional:
        out["type"] = [schema["type"], "null"]
        default = schema.get("default")
        shown = json.dumps(default) if default is not None else "not given"
        out["description"] = f"{schema['description']} null: {shown}."
    return out


def tool_schemas(format: str = "openai", *, strict: bool = False,
                 names: Mapping[str, str] | None = None,
                 tools: tuple[str, ...] = TOOL_NAMES) -> list[dict[str, Any]]:
    """The tools' definitions in a function-calling *format*.

    ``openai`` (Chat Completions ``tools``), ``openai-responses`` (Responses API),
    ``anthropic`` (Messages API ``tools``) or ``mcp`` (an MCP ``tools/list`` entry).

    With *strict*, every property is required and the optional ones are nullable (``null``
    means not given), as OpenAI's strict mode (and openai-agents, and pydantic-ai for OpenAI
    models) demands; the entry says ``"strict": true`` where the format has the field.
    *names* maps each tool's own name to the name the model sees (``artifact_tools:``).
    """
    if format not in FORMATS:
        raise ValueError(f"format: expected one of {', '.join(FORMATS)}, got {format!r}"
                         f"{did_you_mean(str(format), FORMATS)}")
    if type(strict) is not bool:
        raise ValueError(f"strict: expected true or false, got {strict!r}")
    names = names or {}
    out: list[dict[str, Any]] = []
    for tool in tools:
        description, _ = SPECS[tool]
        parameters = _parameters(tool, strict=strict)
        name = names.get(tool, tool)
        description = _named(description, names)
        if format == "openai":
            function: dict[str, Any] = {"name": name, "description": description,
                                        "parameters": parameters}
            if strict:
                function["strict"] = True
            out.append({"type": "function", "function": function})
        elif format == "openai-responses":
            # FunctionToolParam requires ``strict`` (true or false, or null for the default).
            out.append({"type": "function", "name": name, "description": description,
                        "parameters": parameters, "strict": strict})
        elif format == "anthropic":
            entry: dict[str, Any] = {"name": name, "description": description,
                                     "input_schema": parameters}
            if strict:
                entry["strict"] = True
            out.append(entry)
        else:
            out.append({"name": name, "description": description, "inputSchema": parameters})
    return out


def _named(description: str, names: Mapping[str, str]) -> str:
    """*description* with the tools it mentions called what the model sees."""
    for tool, name in names.items():
        if name != tool:
            description = re.sub(rf"\b{tool}\b", name, description)
    return description
