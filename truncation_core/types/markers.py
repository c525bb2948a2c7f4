"""Rendering markers for one tool result through the ``format_marker`` hook.

A strategy never formats marker text itself: it describes what it omitted (an
:class:`~truncation_core.types.cuts.Omission`) and asks the :class:`MarkerRenderer` it was
given. The renderer adds what the strategy does not know (the tool, where the full content is
kept, why it could not be kept) and calls the hook, so a project restyles every marker in one
place. :func:`render_configured` renders a marker with the configured templates: what the
built-in ``format_marker`` returns.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from truncation_core.types.artifacts import human_size
from truncation_core.types.cuts import (
    ArtifactSpan,
    ContentFacts,
    ElementOmission,
    Marker,
    MarkerPosition,
    Omission,
)
from truncation_core.types.ids import is_tool_call_id
from truncation_core.types.resume import locate, located
from truncation_core.types.templates import TOOL_PLACEHOLDERS, plurals

if TYPE_CHECKING:
    from truncation_core.types.artifacts import ArtifactRef
    from truncation_core.types.policy import Policy
    from truncation_core.types.templates import MarkerConfig

__all__ = ["MarkerRenderer", "render_configured"]


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
        (:attr:`Omission.in_artifact <truncation_core.types.cuts.Omission.in_artifact>`),
        which the metadata carries too.
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
        """This renderer with the configured templates only (:func:`render_configured`):
        the fallback when a plugin's ``format_marker`` raises."""
        return attrs.evolve(self, format=render_configured)

    def rest(self) -> tuple[str, str]:
        """The note a structured cut adds to say how to read what it left out, and the key
        it goes under in a JSON object; empty when nothing is stored."""
        if self.artifact is None:
            return "", ""
        note = self.format(marker=self._marker("rest", None), policy=self.policy) or ""
        key = self.format(marker=self._marker("rest_key", None), policy=self.policy) or ""
        return note, key

    def reference(self) -> str:
        """The artifact reference shown above the cut of content over
        ``artifact_threshold`` (empty when nothing is stored)."""
        if self.artifact is None:
            return ""
        return self.format(marker=self._marker("reference", None), policy=self.policy) or ""

    def reference_inside(self) -> tuple[str, str]:
        """The artifact reference as a note inside a JSON, JSON Lines or XML document, and
        the key it goes under in a JSON object (``rest_key``); empty when nothing is stored.

        Rendered as kind ``reference`` in its one-line form (``marker.reference``, or
        ``reference_cut``), whatever ``reference_preview`` says: the short form ends by
        announcing a preview, which the document itself is. Blanks around it are dropped.
        """
        if self.artifact is None:
            return "", ""
        policy = self.policy
        if policy.reference_preview != "full":
            from truncation_core.types.checks import PreviewForm

            policy = attrs.evolve(policy, reference_preview=PreviewForm("full"))
        note = self.format(marker=self._marker("reference", None), policy=policy) or ""
        key = self.format(marker=self._marker("rest_key", None), policy=self.policy) or ""
        return note.strip(), key


def render_configured(marker: Marker, policy: Policy) -> str:
    """*marker* rendered with the configured templates (``policy.marker``): what the
    built-in ``format_marker`` returns, and the fallback when a plugin's raises."""
    templates = policy.marker
    artifact = marker.artifact
    tool = marker.tool or ""
    names = policy.artifact_tools.all()
    lacking = _lacking(policy)
    if marker.kind == "rest":
        if artifact is None:
            return ""
        return _format(
            templates.rest_no_tool if lacking(templates.rest) else templates.rest,
            artifact_id=artifact.id, lines=artifact.lines, chars=marker.original_chars,
            bytes=artifact.bytes, size=human_size(artifact.bytes), strategy=marker.strategy,
            tool=tool, **names)
    if marker.kind == "rest_key":
        return templates.rest_key.format(artifact_id=artifact.id if artifact else "",
                                         strategy=marker.strategy, tool=tool)
    if marker.kind == "reference":
        if artifact is None:
            return ""
        short = policy.reference_preview == "short"
        if lacking(templates.reference_cut_short if short and artifact.cut is not None
                   else templates.reference_cut if artifact.cut is not None
                   else templates.reference_short if short else templates.reference):
            return _format(
                templates.reference_no_tool, artifact_id=artifact.id, summary=artifact.summary,
                size=human_size(artifact.bytes), chars=marker.original_chars,
                lines=marker.original_lines, bytes=artifact.bytes, tool=tool,
                **_tool_call(templates, artifact))
        if artifact.cut is not None:
            cut = artifact.cut
            form = templates.reference_cut_short if short else templates.reference_cut
            return _format(
                form, artifact_id=artifact.id, summary=artifact.summary,
                size=human_size(artifact.bytes), original_size=human_size(cut.original_bytes),
                original_lines=cut.original_lines, original_bytes=cut.original_bytes,
                head_lines=cut.head_last_line,
                tail_lines=cut.original_lines - cut.tail_first_line + 1 if cut.tail_bytes else 0,
                cut_first_line=cut.first_line, cut_last_line=cut.last_line,
                cut_bytes=cut.omitted_bytes, tool=tool, **names,
                **_tool_call(templates, artifact))
        form = templates.reference_short if short else templates.reference
        return _format(
            form, artifact_id=artifact.id, summary=artifact.summary,
            size=human_size(artifact.bytes), chars=marker.original_chars,
            lines=marker.original_lines, bytes=artifact.bytes,
            tool=tool, **names, **_tool_call(templates, artifact),
        )
    element = marker.element
    if element is not None:
        template: str = getattr(templates, marker.kind)
        return _format(
            template, count=element.count, total=element.total,
            kept=element.total - element.count, unit=_unit(element.unit, element.count),
            units=element.unit,
            path=element.path, artifact_id=artifact.id if artifact else "",
            strategy=marker.strategy, tool=tool,
        )
    region = marker.omission
    if region is None:
        return ""
    if artifact is not None:
        hint = _hint(templates, artifact, region, names, lacking)
    elif marker.artifact_error:
        hint = templates.unavailable.format(reason=marker.artifact_error)
    else:
        hint = ""
    omission_template: str = getattr(templates, marker.kind)
    return _format(
        omission_template, lines=region.lines, chars=region.chars, first_line=region.first_line,
        last_line=region.last_line, hint=hint, original_lines=marker.original_lines,
        original_chars=marker.original_chars, strategy=marker.strategy, tool=tool,
    )


def _tool_call(templates: MarkerConfig, artifact: ArtifactRef) -> dict[str, str]:
    """``{tool_call}`` and ``{tool_call_id}``: the id of the call whose output the artifact
    holds, when it has one the artifact tools accept (other ids are not shown: they may be
    anything a host sends)."""
    call_id = artifact.tool_call_id
    if call_id is None or not is_tool_call_id(call_id):
        return {"tool_call": "", "tool_call_id": ""}
    return {"tool_call": templates.tool_call.format(tool_call_id=call_id),
            "tool_call_id": call_id}


def _lacking(policy: Policy) -> Callable[[str], bool]:
    """Whether a template names an artifact tool the model is not given
    (``artifact_tools.published``); never, when it is given all of them."""
    published = policy.artifact_tools.published
    if len(published) == len(TOOL_PLACEHOLDERS):
        return _never
    return lambda template: not _tools_named(template) <= set(published)


def _never(template: str) -> bool:
    return False


@functools.lru_cache(maxsize=64)
def _tools_named(template: str) -> frozenset[str]:
    """The artifact tools *template* names (by their placeholders)."""
    import string

    return frozenset(field for _, field, _, _ in string.Formatter().parse(template)
                     if field in TOOL_PLACEHOLDERS)


def _hint(templates: MarkerConfig, artifact: ArtifactRef, region: Omission,
          names: dict[str, str], lacking: Callable[[str], bool] = _never) -> str:
    """How to read *region* back: the artifact's line numbers and bytes
    (``region.in_artifact``, which the metadata gives too). When the artifact is itself cut,
    a region it keeps only in part says so, and one it does not keep says that instead."""
    span = region.in_artifact if region.in_artifact is not None else locate(region, artifact)
    cut = artifact.cut
    if span is None:
        assert cut is not None  # an artifact that is not cut holds every region
        return _format(templates.hint_not_kept, lines=region.lines, chars=region.chars,
                       cut_first_line=cut.first_line, cut_last_line=cut.last_line)
    fields = {"artifact_id": artifact.id, "start_line": span.start_line,
              "end_line": span.end_line, "lines": region.lines, "chars": region.chars,
              **names, **_tool_call(templates, artifact)}
    if lacking(templates.hint if span.complete or cut is None else templates.hint_cut):
        hint = _format(templates.hint_no_tool, **fields)
    elif span.complete or cut is None:
        hint = _format(templates.hint, **fields)
    else:
        hint = _format(templates.hint_cut, **fields, cut_first_line=cut.first_line,
                       cut_last_line=cut.last_line)
    if span.start_byte is not None and span.end_byte is not None:
        hint += _format(templates.hint_bytes, start_byte=span.start_byte,
                        end_byte=span.end_byte, bytes=span.end_byte - span.start_byte)
    return hint


def _format(template: str, **values: Any) -> str:
    """*template* filled with *values*, and the ``_s`` companion of each count in them
    (``{lines:,} line{lines_s}``: ``1 line``, ``2 lines``)."""
    return template.format(**values, **plurals(values))


def _unit(unit: str, count: int) -> str:
    """A structured note's ``{unit}`` (``items``, ``keys``, ``records``...) for *count* of
    them: singular for one."""
    return unit[:-1] if count == 1 and unit.endswith("s") else unit
