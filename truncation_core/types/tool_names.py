"""What the artifact tools are called where the model sees them (``artifact_tools:``).

Agent frameworks prefix tool names (``trunc_get_artifact``), and projects rename tools to
avoid a clash. :class:`ArtifactToolNames` maps each artifact tool's own name
(:data:`ARTIFACT_TOOLS`) to the name the model sees: ``names`` first, else ``prefix`` + the
own name. Every text the model reads that names a tool (marker hints, the artifact reference,
the footers of the tools' own pages) and the published schemas use it. ``published`` says which
of the tools the model is given: the schemas list only those, and a marker that would name
another is rendered in its tool-free form (``hint_no_tool``, ``reference_no_tool``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import attrs

from truncation_core.errors import did_you_mean

__all__ = ["ARTIFACT_TOOLS", "ArtifactToolNames", "check_published_tools", "check_tool_name_map",
           "check_tool_prefix"]

#: The artifact tools, by their own names.
ARTIFACT_TOOLS = ("get_artifact", "artifact_head", "artifact_tail", "artifact_grep")

#: What OpenAI, Anthropic and MCP clients all accept as a function name.
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_PREFIX = re.compile(r"[A-Za-z0-9_-]{0,48}")


def check_tool_prefix(value: object) -> str:
    if type(value) is not str or not _PREFIX.fullmatch(value):
        raise ValueError("must be a string of at most 48 letters, digits, '_' or '-', got "
                         f"{value!r}" if type(value) is str and len(value) <= 60
                         else "must be a string of at most 48 letters, digits, '_' or '-'")
    return value


def check_tool_name_map(value: object) -> Mapping[str, str]:
    if not isinstance(value, Mapping):
        raise ValueError("must be a mapping of artifact tool names to the names the model sees")
    out: dict[str, str] = {}
    for key, name in value.items():
        if key not in ARTIFACT_TOOLS:
            hint = did_you_mean(str(key), ARTIFACT_TOOLS)
            raise ValueError(f"{key!r} is not an artifact tool{hint} "
                             f"(expected one of {', '.join(ARTIFACT_TOOLS)})")
        if type(name) is not str or not _NAME.fullmatch(name):
            raise ValueError(f"{key}: must be 1 to 64 letters, digits, '_' or '-'")
        out[key] = name
    return MappingProxyType(out)


def check_published_tools(value: object) -> tuple[str, ...]:
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple | set | frozenset):
        raise ValueError("must be a list of artifact tool names (any of "
                         f"{', '.join(ARTIFACT_TOOLS)})")
    out: list[str] = []
    for name in value:
        if name not in ARTIFACT_TOOLS:
            hint = did_you_mean(str(name), ARTIFACT_TOOLS)
            raise ValueError(f"{str(name)[:64]!r} is not an artifact tool{hint} (expected any "
                             f"of {', '.join(ARTIFACT_TOOLS)})")
        if name not in out:
            out.append(name)
    # In the tools' own order, so that equal sets give equal settings.
    return tuple(tool for tool in ARTIFACT_TOOLS if tool in out)


def _check_prefix(_instance: Any, _attribute: Any, value: object) -> None:
    check_tool_prefix(value)


def _check_names(_instance: Any, _attribute: Any, value: object) -> None:
    check_tool_name_map(value)


def _frozen(value: Mapping[str, str] | None) -> Mapping[str, str]:
    return MappingProxyType(dict(value or {}))


@attrs.frozen(kw_only=True)
class ArtifactToolNames:
    """The names the model sees for the artifact tools. docs/artifacts.md describes the keys."""

    #: Put before each artifact tool's own name (``trunc_`` gives ``trunc_get_artifact``).
    prefix: str = attrs.field(default="", validator=_check_prefix)
    #: Own name -> the name the model sees; wins over ``prefix``.
    names: Mapping[str, str] = attrs.field(factory=dict, converter=_frozen,
                                           validator=_check_names)
    #: The tools the model is given (own names): the schemas list these, and the markers
    #: name no other.
    published: tuple[str, ...] = attrs.field(default=ARTIFACT_TOOLS,
                                             converter=check_published_tools)

    #: Own name -> the name the model sees, worked out once (every marker names them).
    _all: Mapping[str, str] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_all", MappingProxyType(
            {tool: self.name(tool) for tool in ARTIFACT_TOOLS}))
        seen: dict[str, str] = {}
        for tool in ARTIFACT_TOOLS:
            name = self.name(tool)
            if len(name) > 64:
                raise ValueError(f"{tool}: the name {name!r} is longer than 64 characters")
            if name in seen:
                raise ValueError(f"{tool} and {seen[name]} would both be called {name!r}")
            seen[name] = tool

    def name(self, tool: str) -> str:
        """The name the model sees for artifact tool *tool* (its own name)."""
        return self.names.get(tool) or self.prefix + tool

    def all(self) -> dict[str, str]:
        """Own name -> the name the model sees, for every artifact tool."""
        return dict(self._all)

    def given(self) -> dict[str, str]:
        """Own name -> the name the model sees, for the tools it is given (``published``)."""
        return {tool: name for tool, name in self._all.items() if tool in self.published}

    def own_name(self, name: str) -> str | None:
        """The artifact tool the model means by *name*: its configured name, or its own
        name when no other tool is configured to be called that; None for any other name."""
        for tool in ARTIFACT_TOOLS:
            if self.name(tool) == name:
                return tool
        if name in ARTIFACT_TOOLS:
            return name
        return None

    def placeholders(self) -> dict[str, str]:
        """The template placeholders naming each tool: ``{get_artifact}`` and so on."""
        return self.all()
