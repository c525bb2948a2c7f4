"""Artifacts: the full content of a tool result, kept so that nothing cut is ever lost.

What every part of truncation-core knows an artifact by: its id (random, strictly
validated: :mod:`truncation_core.types.ids`, whose names are exported here too), the
:class:`ArtifactInfo` the processor gives a store, the :class:`ArtifactRef`
a stored artifact is known by, and the :class:`ArtifactCut` of an artifact that keeps only
the head and tail of its content. How backends store them is
:mod:`truncation_core.types.storage`.
"""

from __future__ import annotations

import re

import attrs

from truncation_core.types.ids import (
    ARTIFACT_ID_REGEX,
    SESSION_ID_REGEX,
    TOOL_CALL_ID_REGEX,
    content_name,
    is_tool_call_id,
    new_artifact_id,
    new_session_id,
    validate_artifact_id,
    validate_session_id,
)

__all__ = [
    "ARTIFACT_ID_REGEX",
    "SESSION_ID_REGEX",
    "TOOL_CALL_ID_REGEX",
    "ArtifactCut",
    "ArtifactInfo",
    "ArtifactRef",
    "content_name",
    "human_size",
    "is_tool_call_id",
    "new_artifact_id",
    "new_session_id",
    "validate_artifact_id",
    "validate_session_id",
]

SUMMARY_MAX_CHARS = 100


def human_size(n: int) -> str:
    """``2.3 MB``-style size, in decimal units, as artifact references show it."""
    if n < 1000:
        return f"{n} B"
    value = float(n)
    for unit in ("kB", "MB", "GB"):
        value /= 1000
        if value < 999.95:
            return f"{value:.1f} {unit}"
    return f"{value / 1000:.1f} TB"


#: Characters a summary must not carry into the model's context or a terminal: controls
#: (an ESC starts a terminal escape sequence), bidirectional overrides and invisible
#: formatting characters (they make text read differently from what it is), and lone
#: surrogates. Each becomes U+FFFD. (Compiled on first use, by :mod:`re`'s cache: compiling
#: it takes a millisecond, at every start-up if it were done on import.)
_UNSAFE_IN_SUMMARY = (
    "[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ud800-\udfff]")


def clip_summary(summary: str) -> str:
    """Clip a summary to the 100 characters a reference allows, on one line, without control or
    invisible formatting characters (it comes from a command line or a path, which a tool
    call's arguments may fill with anything)."""
    # Bounded before it is split: a summary may come from a huge argument.
    bounded = summary.lstrip()[:20 * SUMMARY_MAX_CHARS]
    one_line = re.sub(_UNSAFE_IN_SUMMARY, "\ufffd", " ".join(bounded.split()))
    if len(one_line) <= SUMMARY_MAX_CHARS:
        return one_line
    return one_line[: SUMMARY_MAX_CHARS - 1] + "…"


@attrs.frozen(kw_only=True)
class ArtifactCut:
    """What a stored artifact lacks when the original exceeded ``max_artifact_size``.

    The artifact keeps the original's head and tail with a one-line marker between them (see
    :mod:`truncation_core.artifacts.limit`). Line numbers are 1-based and inclusive. Original
    lines up to ``head_last_line`` keep their numbers in the artifact; original line
    ``tail_first_line`` and the ones after it are found ``tail_artifact_line -
    tail_first_line`` lines further on (usually fewer: the missing lines are not there).
    """

    #: Size of the original, in bytes and lines.
    original_bytes: int
    original_lines: int
    #: Bytes of the original kept at the start and at the end.
    head_bytes: int
    tail_bytes: int
    #: The original lines the dropped region touches (inclusive): they are missing, or only
    #: partly kept when a line is longer than the part kept.
    first_line: int
    last_line: int
    #: Original lines lying entirely inside the dropped region.
    omitted_lines: int
    #: The last original line kept (whole or in part) at the start; 0 for none.
    head_last_line: int
    #: The first original line kept (whole or in part) at the end, and its line in the artifact.
    tail_first_line: int
    tail_artifact_line: int

    @property
    def omitted_bytes(self) -> int:
        return self.original_bytes - self.head_bytes - self.tail_bytes

    def artifact_lines(self, first: int, last: int) -> tuple[int, int] | None:
        """The artifact lines holding what is kept of original lines *first* to *last*.

        None when none of them is kept. When the range spans the cut, the result includes the
        marker line between head and tail, which says what is missing there.
        """
        lo: int | None = None
        hi: int | None = None
        if first <= self.head_last_line:
            lo, hi = first, min(last, self.head_last_line)
        if self.tail_bytes and last >= self.tail_first_line:
            tail_from = max(first, self.tail_first_line)
            shift = self.tail_artifact_line - self.tail_first_line
            lo = tail_from + shift if lo is None else lo
            hi = last + shift
        return None if lo is None or hi is None else (lo, hi)


@attrs.frozen(kw_only=True)
class ArtifactInfo:
    """What the processor knows about content it asks a store to keep."""

    #: The tool that produced the content.
    tool: str | None = None
    #: The id of the tool call, when the agent framework has one.
    tool_call_id: str | None = None
    #: The MCP server (or other source) the tool belongs to.
    server: str | None = None
    #: A one-line description, at most 100 characters.
    summary: str = attrs.field(default="", converter=clip_summary)
    #: ``application/json`` for JSON content, ``text/plain`` otherwise.
    content_type: str = "text/plain"
    #: Size of the stored content in characters and lines (bytes are counted by the store).
    #: Without a cut, that is the size of the original.
    chars: int = 0
    lines: int = 0
    #: Set when the stored content is only the head and tail of the original.
    cut: ArtifactCut | None = None
    #: Set when the output is partial: its stream was interrupted (``interrupted after 1,234
    #: lines (SIGINT)``), and the artifact keeps what arrived until then.
    interrupted: str | None = None


@attrs.frozen(kw_only=True)
class ArtifactRef:
    """A stored artifact: how to find it and what it holds."""

    id: str
    #: Name of the backend that holds it.
    backend: str
    tool: str | None = None
    tool_call_id: str | None = None
    server: str | None = None
    summary: str = ""
    content_type: str = "text/plain"
    #: Size of the stored content.
    chars: int = 0
    bytes: int = 0
    lines: int = 0
    #: sha256 of the stored bytes, lowercase hex; None when the backend does not compute it
    #: (the built-in ones always do; ``checksum(id)`` hashes the content then).
    sha256: str | None = None
    #: Creation time, seconds since the epoch.
    created_at: float = 0.0
    #: The session the artifact belongs to, for backends that have sessions.
    session: str | None = None
    #: True when the stored artifact is itself cut (content beyond ``max_artifact_size``).
    truncated: bool = False
    #: What is missing from a cut artifact (None when it holds the whole original).
    cut: ArtifactCut | None = None
    #: Why the output is partial, when its stream was interrupted (see
    #: :attr:`ArtifactInfo.interrupted`); None for a complete output.
    interrupted: str | None = None

    @property
    def size(self) -> str:
        return human_size(self.bytes)

    @classmethod
    def from_info(cls, info: ArtifactInfo, *, id: str, backend: str, bytes: int,
                  sha256: str | None, created_at: float, session: str | None = None
                  ) -> ArtifactRef:
        """The ref of an artifact stored from *info*: what every backend's commit returns."""
        return cls(id=id, backend=backend, tool=info.tool, tool_call_id=info.tool_call_id,
                   server=info.server, summary=info.summary, content_type=info.content_type,
                   chars=info.chars, bytes=bytes, lines=info.lines, sha256=sha256,
                   created_at=created_at, session=session, truncated=info.cut is not None,
                   cut=info.cut, interrupted=info.interrupted)
