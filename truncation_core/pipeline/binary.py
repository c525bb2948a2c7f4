"""Binary content: what the model sees instead of it, and what its artifact is told.

Bytes found to be binary (:mod:`truncation_core.text.binary`) are never shown: decoded, 5 MB
of them were some 6,800 tokens of NULs, control characters and U+FFFD. The model sees one
line, from the ``binary`` template (``binary_unkept`` when the artifact does not hold all of
it), with the format, the size, the sha256 and the artifact's id; the artifact keeps the
bytes as they came. ``process()`` and streams build the same result here, and the metadata's
``binary`` (a :class:`~truncation_core.pipeline.results.BinaryContent`) says what it is.

The summary fits the budget like any output: when the template does not, a shorter line
stands in, and none at all when even that does not fit (the metadata says it all).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from truncation_core.pipeline.results import (
    BinaryContent,
    TokenFigures,
    TruncationMetadata,
    TruncationResult,
)
from truncation_core.text.measure import measure
from truncation_core.tokens.estimate import EstimateTokenizer
from truncation_core.types.artifacts import ArtifactInfo, human_size
from truncation_core.types.ids import is_tool_call_id

if TYPE_CHECKING:
    from truncation_core.types.artifacts import ArtifactRef
    from truncation_core.types.models import Budget
    from truncation_core.types.policy import Policy
    from truncation_core.types.tokenizer import Tokenizer

__all__ = ["binary_content", "binary_info", "binary_lines", "summary"]


def binary_content(sample: bytes | bytearray, size: int, sha256: str) -> BinaryContent:
    """What binary content of *size* bytes starting with *sample* is."""
    from truncation_core.text.binary import DATA, binary_kind

    kind = binary_kind(sample) or DATA
    return BinaryContent(kind=kind.name, media_type=kind.media_type, bytes=size, sha256=sha256)


def binary_lines(data: bytes) -> int:
    """Lines in *data*, counted as a stream counts them (``\\n``, ``\\r\\n`` and ``\\r`` end
    one; a last line without a terminator counts)."""
    terminators = data.count(b"\n") + data.count(b"\r") - data.count(b"\r\n")
    return terminators + (1 if data and data[-1] not in (0x0A, 0x0D) else 0)


def binary_info(tool: str | None, context: Mapping[str, Any], found: BinaryContent,
                lines: int) -> ArtifactInfo:
    """What the store is told about binary content it keeps."""
    from truncation_core.pipeline.facts import _str_or_none

    described = next((context[key] for key in ("summary", "path", "command", "query", "url")
                      if isinstance(context.get(key), str) and context[key].strip()), None)
    summary = (described if described is not None and context.get("summary") == described
               else f"{tool or 'tool'}: {described}" if described is not None
               else f"{tool or 'tool'} output ({found.kind})")
    return ArtifactInfo(tool=tool, tool_call_id=_str_or_none(context.get("tool_call_id")),
                        server=_str_or_none(context.get("server")), summary=summary,
                        content_type=found.media_type, chars=found.bytes, lines=lines)


def _shown(found: BinaryContent, policy: Policy, artifact: ArtifactRef | None,
           artifact_error: str | None, tool: str | None) -> list[str]:
    """The summary lines to try, longest first."""
    templates = policy.marker
    values: dict[str, Any] = {"kind": found.kind, "media_type": found.media_type,
                              "size": human_size(found.bytes), "bytes": found.bytes,
                              "sha256": found.sha256, "tool": tool or "",
                              "bytes_s": "" if found.bytes == 1 else "s"}
    unit = "byte" if found.bytes == 1 else "bytes"
    if artifact is not None and not artifact.truncated:
        call_id = artifact.tool_call_id
        call = call_id if call_id is not None and is_tool_call_id(call_id) else None
        line = templates.binary.format(
            artifact_id=artifact.id, tool_call_id=call or "",
            tool_call=templates.tool_call.format(tool_call_id=call) if call else "", **values)
        short = f"[binary: {found.kind}, {found.bytes:,} {unit}, artifact {artifact.id}]"
    else:
        if artifact is not None:
            reason = (f"artifact {artifact.id} keeps only its first and last bytes (it is over "
                      "max_artifact_size)")
        elif artifact_error is not None:
            reason = f"not kept: {artifact_error}"
        else:
            reason = "not kept (spill is off)"
        line = templates.binary_unkept.format(reason=reason, **values)
        short = f"[binary: {found.kind}, {found.bytes:,} {unit}]"
    return [line, short, "[binary]"]


def summary(found: BinaryContent, *, lines: int, policy: Policy, budget: Budget,
            tool: str | None, artifact: ArtifactRef | None, artifact_error: str | None,
            notes: list[str], tokenizer: Tokenizer, above: str = "") -> TruncationResult:
    """What the model sees of binary content *found*: a summary within *budget* (and
    ``max_tokens``, with *above*, text the caller shows above it)."""
    content = ""
    for line in _shown(found, policy, artifact, artifact_error, tool):
        if budget.admits(measure(line)) and _within_tokens(above + line, policy, tokenizer):
            content = line
            break
    if not content:
        notes.append("the summary of the binary content does not fit the budget: nothing is "
                     "shown")
    metadata = TruncationMetadata(
        tool=tool, was_truncated=True, strategy_used=None, original_size=found.bytes,
        truncated_size=len(content), original_lines=lines, omitted_chars=found.bytes,
        omitted_lines=lines, limits=budget,
        artifact_id=artifact.id if artifact is not None else None,
        artifact_error=artifact_error, original_bytes=found.bytes,
        notes=(f"binary content ({found.kind}): not shown", *notes),
        artifact_truncated=artifact is not None and artifact.truncated, binary=found,
        tokenizer=tokenizer.name, max_tokens=policy.max_tokens,
        # Bytes that are not text have no tokens: the original counts none.
        tokens=TokenFigures(tokenizer, shown=content, original="", original_chars=0))
    return TruncationResult(content, artifact=artifact, metadata=metadata)


def _within_tokens(text: str, policy: Policy, tokenizer: Tokenizer) -> bool:
    if policy.max_tokens is None:
        return True
    try:
        return tokenizer.count(text) <= policy.max_tokens
    except Exception:  # a plugin tokenizer's bug: counted with estimate

        return EstimateTokenizer().count(text) <= policy.max_tokens
