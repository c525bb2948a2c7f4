"""The default ``format_marker``: the templates from configuration (``marker:``).

With the default templates the markers are seed 000's, with numbers written like ``12,340``:
``\\n... [X lines / Y chars omitted] ...\\n`` for head_tail, ``... [Beginning omitted: X lines /
Y chars] ...`` for tail and ``... [Remainder omitted: X lines / Y chars] ...`` for head. When
the omitted part is kept, ``{hint}`` says how to read it back. Notes of structured strategies
(``marker.element`` set) use the ``json_*``, ``jsonl_records``, ``ranked_results`` and ``xml_*``
templates.
"""

from __future__ import annotations

from truncation_core.artifacts import ArtifactRef, human_size
from truncation_core.config import MarkerConfig, Policy
from truncation_core.hookspecs import hookimpl
from truncation_core.models import Marker, Omission


@hookimpl(trylast=True)
def format_marker(marker: Marker, policy: Policy) -> str:
    templates = policy.marker
    artifact = marker.artifact
    tool = marker.tool or ""
    if marker.kind == "reference":
        if artifact is None:
            return ""
        if artifact.cut is not None:
            cut = artifact.cut
            return templates.reference_cut.format(
                artifact_id=artifact.id, summary=artifact.summary,
                size=human_size(artifact.bytes), original_size=human_size(cut.original_bytes),
                original_lines=cut.original_lines, original_bytes=cut.original_bytes,
                head_lines=cut.head_last_line,
                tail_lines=cut.original_lines - cut.tail_first_line + 1 if cut.tail_bytes else 0,
                cut_first_line=cut.first_line, cut_last_line=cut.last_line,
                cut_bytes=cut.omitted_bytes, tool=tool)
        return templates.reference.format(
            artifact_id=artifact.id, summary=artifact.summary, size=human_size(artifact.bytes),
            chars=marker.original_chars, lines=marker.original_lines, bytes=artifact.bytes,
            tool=tool,
        )
    element = marker.element
    if element is not None:
        return getattr(templates, marker.kind).format(
            count=element.count, total=element.total, kept=element.total - element.count,
            unit=element.unit, path=element.path, artifact_id=artifact.id if artifact else "",
            strategy=marker.strategy, tool=tool,
        )
    region = marker.omission
    if region is None:
        return ""
    if artifact is not None and artifact.cut is not None:
        hint = _hint_in_cut_artifact(templates, artifact, region)
    elif artifact is not None:
        hint = templates.hint.format(
            artifact_id=artifact.id, start_line=region.first_line, end_line=region.last_line,
            lines=region.lines, chars=region.chars,
        )
        if region.start_byte is not None and region.end_byte is not None:
            hint += templates.hint_bytes.format(start_byte=region.start_byte,
                                                end_byte=region.end_byte, bytes=region.bytes)
    elif marker.artifact_error:
        hint = templates.unavailable.format(reason=marker.artifact_error)
    else:
        hint = ""
    return getattr(templates, marker.kind).format(
        lines=region.lines, chars=region.chars, first_line=region.first_line,
        last_line=region.last_line, hint=hint, original_lines=marker.original_lines,
        original_chars=marker.original_chars, strategy=marker.strategy, tool=tool,
    )


def _hint_in_cut_artifact(templates: MarkerConfig, artifact: ArtifactRef,
                          region: Omission) -> str:
    """The hint for an omitted region when the artifact keeps only the original's head and
    tail: artifact line numbers for what is kept, and a plain statement for what is not."""
    cut = artifact.cut
    assert cut is not None
    mapped = cut.artifact_lines(region.first_line, region.last_line)
    if mapped is None:
        return templates.hint_not_kept.format(lines=region.lines, chars=region.chars,
                                              cut_first_line=cut.first_line,
                                              cut_last_line=cut.last_line)
    whole = region.last_line < cut.first_line or region.first_line > cut.last_line
    template = templates.hint if whole else templates.hint_cut
    return template.format(artifact_id=artifact.id, start_line=mapped[0], end_line=mapped[1],
                           lines=region.lines, chars=region.chars,
                           cut_first_line=cut.first_line, cut_last_line=cut.last_line)
