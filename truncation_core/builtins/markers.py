"""The default ``format_marker``: the templates from configuration (``marker:``).

With the default templates the markers are seed 000's, with numbers written like ``12,340``:
``\\n... [X lines / Y chars omitted] ...\\n`` for head_tail, ``... [Beginning omitted: X lines /
Y chars] ...`` for tail and ``... [Remainder omitted: X lines / Y chars] ...`` for head. When
the omitted part is kept, ``{hint}`` says how to read it back.
"""

from __future__ import annotations

from truncation_core.artifacts import human_size
from truncation_core.config import Policy
from truncation_core.hookspecs import hookimpl
from truncation_core.models import Marker


@hookimpl(trylast=True)
def format_marker(marker: Marker, policy: Policy) -> str:
    templates = policy.marker
    artifact = marker.artifact
    tool = marker.tool or ""
    if marker.kind == "reference":
        if artifact is None:
            return ""
        return templates.reference.format(
            artifact_id=artifact.id, summary=artifact.summary, size=human_size(artifact.bytes),
            chars=marker.original_chars, lines=marker.original_lines, bytes=artifact.bytes,
            tool=tool,
        )
    region = marker.omission
    if region is None:
        return ""
    if artifact is not None:
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

