"""Rendering markers for one tool result through the ``format_marker`` hook.

A strategy never formats marker text itself: it describes what it omitted (an
:class:`~truncation_core.hooks.models.Omission`) and asks the :class:`MarkerRenderer` it was given.
The renderer adds what the strategy does not know (the tool, where the full content is kept,
why it could not be kept) and calls the hook, so a project restyles every marker in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs

from truncation_core.hooks.models import (
    ArtifactSpan,
    ContentFacts,
    ElementOmission,
    Marker,
    MarkerPosition,
    Omission,
)
from truncation_core.pipeline.resume import located

if TYPE_CHECKING:
    from truncation_core.artifacts.model import ArtifactRef
    from truncation_core.config.model import Policy

__all__ = ["MarkerRenderer"]


@attrs.frozen(kw_only=True)
class MarkerRenderer:
    """Renders the markers of one tool result. Passed to ``truncate`` as ``markers``."""

    #: The ``format_marker`` hook caller (keyword arguments ``marker`` and ``policy``).
    format: Callable[..., str | None] = attrs.field(repr=False)
    policy: Policy = attrs.field(repr=False)
    strategy: str
    tool: str | None
    facts: ContentFacts = attrs.field(repr=False)
    #: Where the full content is kept, if it is.
    artifact: ArtifactRef | None = None
    #: Why the full content could not be kept, if spilling failed.
    artifact_error: str | None = None

    def _marker(self, kind: str, region: Omission | None,
                element: ElementOmission | None = None) -> Marker:
        return Marker(
            kind=kind,  # type: ignore[arg-type]
            omission=region,
            strategy=self.strategy,
            tool=self.tool,
            original_chars=self.facts.chars,
            original_lines=self.facts.lines,
            artifact=self.artifact,
            artifact_error=self.artifact_error,
            element=element,
        )

    def render(self, omission: Omission) -> str:
        """The marker text for *omission*, separators included.

        The marker gets the omission with its coordinates in the artifact
        (:attr:`Omission.in_artifact <truncation_core.hooks.models.Omission.in_artifact>`), which the
        metadata carries too.
        """
        marker = self._marker(omission.position, located(omission, self.artifact))
        return self.format(marker=marker, policy=self.policy) or ""

    def worst_case(self, position: MarkerPosition) -> str:
        """The marker for the largest omission possible at *position*.

        Strategies reserve room for this before cutting; numbers only shrink after, so with
        the default templates the real marker is never longer.
        """
        n, lines = self.facts.chars, self.facts.lines
        # Byte offsets appear only in the hint, which needs an artifact (and then the byte
        # size is known: the content was just stored).
        size = self.facts.bytes if self.artifact is not None else 0
        # Every number at its largest possible value, so every number is at its widest; in a
        # cut artifact, the region only partly kept (whose hint is the longest).
        span = None
        if self.artifact is not None:
            top, top_byte = max(lines, self.artifact.lines), max(size, self.artifact.bytes)
            span = ArtifactSpan(start_line=top, end_line=top, start_byte=top_byte,
                                end_byte=top_byte, complete=self.artifact.cut is None)
        region = Omission(position=position, start=0, end=n, lines=lines,
                          first_line=lines, last_line=lines,
                          start_byte=size, end_byte=size, in_artifact=span)
        return self.format(marker=self._marker(position, region), policy=self.policy) or ""

    def note(self, element: ElementOmission) -> str:
        """The note a structured strategy puts in place of *element* (raw text, unescaped).

        Rendered through ``format_marker`` with ``marker.kind == element.kind``.
        """
        return self.format(marker=self._marker(element.kind, None, element),
                           policy=self.policy) or ""

    def without_plugins(self) -> MarkerRenderer:
        """This renderer with the built-in ``format_marker`` only (the configured templates):
        the fallback when a plugin's ``format_marker`` raises."""
        from truncation_core.builtins.markers import format_marker

        return attrs.evolve(self, format=format_marker)

    def reference(self) -> str:
        """The artifact reference shown above a preview (empty when nothing is stored)."""
        if self.artifact is None:
            return ""
        return self.format(marker=self._marker("reference", None), policy=self.policy) or ""
