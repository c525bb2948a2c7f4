"""Resume coordinates in the stored artifact: the numbers a marker and a highlight show.

A cut finds an omitted region in the original output: its lines (``first_line`` to
``last_line``) and its bytes (``start_byte`` to ``end_byte``, from
:mod:`truncation_core.text.offsets`).
The model reads it back from the artifact, with ``get_artifact(start_line=..., end_line=...)``.
While the artifact holds the whole output, the two are the same numbers. When the output
exceeded ``max_artifact_size``, the artifact keeps only its head and its tail, with one marker
line between them (:mod:`truncation_core.artifacts.limit`), so original numbers past the head
do not address it. This module maps them, once, for the marker (through
:class:`~truncation_core.types.markers.MarkerRenderer`), the metadata and the highlights block
alike,
so that every number shown to the model addresses the artifact as stored and the metadata gives
the same numbers:

* a region the artifact keeps whole gets its lines and bytes in the artifact;
* a region the artifact keeps part of gets the artifact lines and bytes from the first kept
  part to the last, which take in the artifact's marker line where the region spans the part
  not kept (``complete`` is then false);
* a region the artifact keeps none of gets no coordinates (None): the marker says it is not kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from truncation_core.types.cuts import ArtifactSpan, Omission

if TYPE_CHECKING:
    from truncation_core.types.artifacts import ArtifactCut, ArtifactRef

__all__ = ["artifact_line", "locate", "located"]


def locate(region: Omission, artifact: ArtifactRef | None) -> ArtifactSpan | None:
    """Where *region* (original coordinates) is in *artifact*; None when nothing of it is
    stored there."""
    if artifact is None:
        return None
    cut = artifact.cut
    if cut is None:
        return ArtifactSpan(start_line=region.first_line, end_line=region.last_line,
                            start_byte=region.start_byte, end_byte=region.end_byte)
    if region.first_line <= 0:  # an empty region
        return None
    if region.start_byte is None or region.end_byte is None:
        return _locate_by_lines(region, cut)
    start, end = region.start_byte, region.end_byte
    # The original's bytes [0, head_end) and [tail_start, original_bytes) are kept; the tail
    # is found `shift` bytes further on in the artifact (head, marker line, tail).
    head_end = cut.head_bytes
    tail_start = cut.original_bytes - cut.tail_bytes
    in_head = start < head_end
    in_tail = cut.tail_bytes > 0 and end > tail_start
    if not (in_head or in_tail):
        return None
    shift = artifact.bytes - cut.original_bytes
    line_shift = cut.tail_artifact_line - cut.tail_first_line
    return ArtifactSpan(
        start_line=(region.first_line if in_head
                    else max(region.first_line, cut.tail_first_line) + line_shift),
        end_line=(region.last_line + line_shift if in_tail
                  else min(region.last_line, cut.head_last_line)),
        start_byte=start if in_head else max(start, tail_start) + shift,
        end_byte=end + shift if in_tail else min(end, head_end),
        complete=end <= head_end or start >= tail_start,
    )


def _locate_by_lines(region: Omission, cut: ArtifactCut) -> ArtifactSpan | None:
    """For a region without byte offsets (a plugin strategy's): by its lines alone."""
    mapped = cut.artifact_lines(region.first_line, region.last_line)
    if mapped is None:
        return None
    return ArtifactSpan(start_line=mapped[0], end_line=mapped[1],
                        complete=region.last_line < cut.first_line
                        or region.first_line > cut.last_line)


def located(region: Omission, artifact: ArtifactRef | None) -> Omission:
    """*region* with its coordinates in *artifact* (:attr:`Omission.in_artifact`)."""
    span = locate(region, artifact)
    return region if span == region.in_artifact else attrs.evolve(region, in_artifact=span)


def artifact_line(line: int, artifact: ArtifactRef | None) -> int | None:
    """The artifact's number for original line *line*; None when the artifact does not keep
    that line whole (it is itself cut, and the line is in, or runs into, the part dropped).

    With no artifact, *line* itself: it numbers the output, and nothing is stored to address.
    """
    cut = artifact.cut if artifact is not None else None
    if cut is None:
        return line
    if line < cut.first_line:
        return line
    if line > cut.last_line:
        return line + cut.tail_artifact_line - cut.tail_first_line
    return None
