"""The default ``format_marker``: the templates from configuration (``marker:``).

With the default templates the markers are seed 000's, with numbers written like ``12,340``:
``\\n... [X lines / Y chars omitted] ...\\n`` for head_tail, ``... [Beginning omitted: X lines /
Y chars] ...`` for tail and ``... [Remainder omitted: X lines / Y chars] ...`` for head. When
the omitted part is kept, ``{hint}`` says how to read it back. Notes of structured strategies
(``marker.element`` set) use the ``json_*``, ``jsonl_records``, ``ranked_results`` and ``xml_*``
templates.
"""

from __future__ import annotations

from truncation_core.artifacts.model import ArtifactRef, human_size
from truncation_core.config.markers import MarkerConfig
from truncation_core.config.model import Policy
from truncation_core.hooks.models import Marker, Omission
from truncation_core.hooks.specs import hookimpl
from truncation_core.pipeline.resume import locate


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
    if artifact is not None:
        hint = _hint(templates, artifact, region)
    elif marker.artifact_error:
        hint = templates.unavailable.format(reason=marker.artifact_error)
    else:
        hint = ""
    return getattr(templates, marker.kind).format(
        lines=region.lines, chars=region.chars, first_line=region.first_line,
        last_line=region.last_line, hint=hint, original_lines=marker.original_lines,
        original_chars=marker.original_chars, strategy=marker.strategy, tool=tool,
    )


def _hint(templates: MarkerConfig, artifact: ArtifactRef, region: Omission) -> str:
    """How to read *region* back: the artifact's line numbers and bytes
    (``region.in_artifact``, which the metadata gives too). When the artifact is itself cut,
    a region it keeps only in part says so, and one it does not keep says that instead."""
    span = region.in_artifact if region.in_artifact is not None else locate(region, artifact)
    cut = artifact.cut
    if span is None:
        assert cut is not None  # an artifact that is not cut holds every region
        return templates.hint_not_kept.format(lines=region.lines, chars=region.chars,
                                              cut_first_line=cut.first_line,
                                              cut_last_line=cut.last_line)
    fields = {"artifact_id": artifact.id, "start_line": span.start_line,
              "end_line": span.end_line, "lines": region.lines, "chars": region.chars}
    if span.complete or cut is None:
        hint = templates.hint.format(**fields)
    else:
        hint = templates.hint_cut.format(**fields, cut_first_line=cut.first_line,
                                         cut_last_line=cut.last_line)
    if span.start_byte is not None and span.end_byte is not None:
        hint += templates.hint_bytes.format(start_byte=span.start_byte, end_byte=span.end_byte,
                                            bytes=span.end_byte - span.start_byte)
    return hint
