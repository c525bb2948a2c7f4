"""The names the artifact tools get on a proxy, so that they never clash with a server's tools.

The tools keep their own names (``get_artifact``, ``artifact_head``, ``artifact_tail``,
``artifact_grep``) unless the downstream server has a tool of one of those names; then all
four get the prefix ``trunc_`` (``trunc_get_artifact`` ...), or ``trunc2_``, ``trunc3_`` ...
if a prefixed name is taken too. All four move together, so the model sees one family. The
marker templates and the calls that artifact tool results suggest use the names in force.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from types import MappingProxyType

import attrs

from truncation_core.config.model import Config
from truncation_core.tools.schemas import TOOL_NAMES
from truncation_core.types.templates import MarkerConfig
from truncation_core.types.tool_names import ArtifactToolNames

__all__ = ["ToolNames"]

_TEMPLATE_FIELDS = tuple(a.name for a in attrs.fields(MarkerConfig))
# A tool name written out in a template; not a ``{get_artifact}`` placeholder, which the
# ``artifact_tools`` setting fills.
_TOOL_NAME = re.compile(r"(?<!\{)\b(" + "|".join(TOOL_NAMES) + r")\b(?!\})")


def _frozen(names: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType(dict(names))


@attrs.frozen
class ToolNames:
    """Tool name -> the name the model sees it by."""

    shown: Mapping[str, str] = attrs.field(converter=_frozen)

    @classmethod
    def own(cls) -> ToolNames:
        return cls({name: name for name in TOOL_NAMES})

    @classmethod
    def avoiding(cls, taken: Collection[str]) -> ToolNames:
        """Names that none of *taken* (the downstream server's tool names) has."""
        prefix, n = "", 1
        while any(prefix + name in taken for name in TOOL_NAMES):
            n += 1
            prefix = "trunc_" if n == 2 else f"trunc{n - 1}_"
        return cls({name: prefix + name for name in TOOL_NAMES})

    @property
    def renamed(self) -> bool:
        return any(shown != name for name, shown in self.shown.items())

    def tool_for(self, shown_name: str) -> str | None:
        """The artifact tool shown as *shown_name*, or None when it is not one."""
        for name, shown in self.shown.items():
            if shown == shown_name:
                return name
        return None

    def rename(self, text: str) -> str:
        """*text* (a marker template) with each tool name replaced by the name shown."""
        if not self.renamed:
            return text
        return _TOOL_NAME.sub(lambda m: self.shown[m.group(1)], text)

    def config(self, config: Config) -> Config:
        """*config* naming the tools as shown: its ``artifact_tools`` setting (which the
        templates' ``{get_artifact}`` placeholders follow), and any name a template writes
        out."""
        if not self.renamed:
            return config
        marker = attrs.evolve(config.marker, **{
            field: self.rename(getattr(config.marker, field)) for field in _TEMPLATE_FIELDS})
        renamed = {name: shown for name, shown in self.shown.items() if shown != name}
        return attrs.evolve(config, marker=marker,
                            artifact_tools=ArtifactToolNames(names=renamed))
