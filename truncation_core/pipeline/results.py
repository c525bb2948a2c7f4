"""What :meth:`Truncator.process <truncation_core.Truncator.process>` returns."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from truncation_core.hooks.models import Budget, Omission, frozen_mapping

if TYPE_CHECKING:
    from truncation_core.artifacts.model import ArtifactRef
    from truncation_core.config.model import Policy
    from truncation_core.streaming.command import CommandStatus

__all__ = ["TruncationMetadata", "TruncationResult", "estimate_tokens"]


def estimate_tokens(chars: int) -> int:
    """Approximate tokens as characters / 4, rounded up (FR-017)."""
    return (chars + 3) // 4


def _tuples_as_lists(_inst: object, _field: object, value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


@attrs.frozen(kw_only=True)
class TruncationMetadata:
    """What was done to one tool result, in numbers a program (or a model) can act on.

    Sizes are in characters unless the name says otherwise (FR-016).
    """

    #: The tool the result came from, if given.
    tool: str | None
    #: True when the model sees less than the full content (FR-070).
    was_truncated: bool
    #: The strategy that produced the content, or None when nothing was cut (FR-068).
    strategy_used: str | None
    #: Size of the original content (FR-066).
    original_size: int
    #: Size of what the model sees, markers included (FR-067).
    truncated_size: int
    #: Lines in the original content.
    original_lines: int
    #: Characters of the original that the model does not see.
    omitted_chars: int
    #: Lines of the original that the model does not see at all.
    omitted_lines: int
    #: Estimated tokens of what the model sees (chars / 4).
    estimated_tokens: int
    #: Estimated tokens of the original content.
    original_tokens: int
    #: The limits that were applied.
    limits: Budget
    #: The artifact holding the full content (FR-069), or None.
    artifact_id: str | None = None
    #: Why the full content could not be kept, when spilling was on but failed.
    artifact_error: str | None = None
    #: Size of the original in UTF-8 bytes, when it was measured (always when spilled).
    original_bytes: int | None = None
    #: The omitted regions: their lines and bytes in the original, and in ``in_artifact``
    #: the numbers the marker shows, which read them back from the artifact (see
    #: :meth:`retrieve`).
    omissions: tuple[Omission, ...] = attrs.field(default=(), converter=tuple)
    #: Remarks, e.g. which fallback was taken and why.
    notes: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    #: Strategy-specific, machine-readable details. They may quote content (a highlighted
    #: line, a JSON key in a cut's path), so they are left out of the repr, which ends up in
    #: logs; ``to_dict`` and ``to_json`` include them.
    details: Mapping[str, Any] = attrs.field(factory=dict, converter=frozen_mapping,
                                             repr=False)
    #: True when the tool marked its result as already truncated, so it was left alone.
    opted_out: bool = False
    #: True when the artifact itself keeps only the head and tail of the original (content
    #: beyond ``max_artifact_size``); ``artifact.cut`` says what it lacks.
    artifact_truncated: bool = False
    #: How the command ended, for output of a command run by truncation-core (``trunc run``,
    #: :func:`truncation_core.streaming.command.run_command`): exit code, signal, timeout, wall time.
    command: CommandStatus | None = None
    #: Set when the content is partial: its stream (or command) was interrupted, and this is
    #: what had arrived (``interrupted after 1,234 lines (KeyboardInterrupt)``).
    interrupted: str | None = None

    def retrieve(self, omission: Omission) -> dict[str, Any] | None:
        """The arguments of the ``get_artifact`` call that reads *omission* back (one of
        :attr:`omissions`), as its marker gives them: ``{"artifact_id": ..., "start_line":
        ..., "end_line": ...}`` for :meth:`Truncator.call_tool
        <truncation_core.Truncator.call_tool>`. None when nothing of it is stored."""
        span = omission.in_artifact
        if self.artifact_id is None or span is None:
            return None
        return {"artifact_id": self.artifact_id, "start_line": span.start_line,
                "end_line": span.end_line}

    def to_dict(self) -> dict[str, Any]:
        """A plain dict of JSON-compatible values. Each omission also gives ``chars`` and
        ``retrieve`` (see :meth:`retrieve`)."""
        # attrs.asdict keeps tuples; a plain dict has lists, as its JSON does.
        data = attrs.asdict(self, recurse=True, value_serializer=_tuples_as_lists)
        data["details"] = dict(self.details)
        for region, omission in zip(data["omissions"], self.omissions, strict=True):
            region["chars"] = omission.chars
            region["retrieve"] = self.retrieve(omission)
        return data

    def to_json(self, **kwargs: Any) -> str:
        """The metadata as a JSON document (keyword arguments go to :func:`json.dumps`)."""
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def unchanged(cls, content: str, policy: Policy, *,
                  opted_out: bool = False) -> TruncationMetadata:
        """Metadata for content passed through untouched."""
        from truncation_core.text.measure import count_lines

        chars = len(content)
        return cls(
            tool=policy.tool,
            was_truncated=False,
            strategy_used=None,
            original_size=chars,
            truncated_size=chars,
            original_lines=count_lines(content),
            omitted_chars=0,
            omitted_lines=0,
            estimated_tokens=estimate_tokens(chars),
            original_tokens=estimate_tokens(chars),
            limits=policy.budget,
            notes=("the tool marked its result as already truncated",) if opted_out else (),
            opted_out=opted_out,
        )


@attrs.frozen(repr=False)
class TruncationResult:
    """What the model sees, what was done, and where the full content is kept.

    For content within its limits this object is all the processor builds: its metadata is
    computed only if you ask for it.
    """

    #: What the model sees.
    content: str
    #: The stored full content, or None when nothing was stored.
    artifact: ArtifactRef | None = None
    _metadata: TruncationMetadata | None = attrs.field(default=None, alias="metadata", eq=False)
    _policy: Policy | None = attrs.field(default=None, alias="policy", eq=False)

    @property
    def metadata(self) -> TruncationMetadata:
        """What was done (see :class:`TruncationMetadata`)."""
        if self._metadata is None:
            if self._policy is None:
                raise ValueError("TruncationResult needs metadata or a policy")
            # Computed on first access only: the pass-through path must stay cheap.
            object.__setattr__(self, "_metadata", TruncationMetadata.unchanged(
                self.content, self._policy))
        return self._metadata  # type: ignore[return-value]

    @property
    def was_truncated(self) -> bool:
        return self._metadata is not None and self._metadata.was_truncated

    def __repr__(self) -> str:  # never the content: results end up in logs
        artifact = self.artifact.id if self.artifact else None
        return (
            f"TruncationResult(chars={len(self.content)}, "
            f"was_truncated={self.was_truncated}, artifact={artifact!r})"
        )
