"""An artifact's metadata as a JSON document: how backends and archives keep an
:class:`~truncation_core.types.artifacts.ArtifactRef` next to the content.

Reading one back trusts nothing: a document from an archive (or a damaged file) that is not
one we wrote for that artifact id gives None, and the caller rebuilds what it can from the
content or refuses it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs

from truncation_core.types.artifacts import ArtifactCut, ArtifactRef

__all__ = ["FORMAT", "ref_document", "ref_from_document"]

#: The document's format number, written as ``"format"``.
FORMAT = 1


def ref_document(ref: ArtifactRef) -> bytes:
    """The metadata document of *ref* (ASCII JSON: a lone surrogate in a summary is escaped)."""
    data = attrs.asdict(ref)
    data["format"] = FORMAT
    return json.dumps(data, ensure_ascii=True, sort_keys=True).encode("ascii")


_REF_TYPES: dict[str, tuple[type, ...]] = {
    "tool": (str, type(None)), "tool_call_id": (str, type(None)), "server": (str, type(None)),
    "summary": (str,), "content_type": (str,), "chars": (int,), "bytes": (int,),
    "lines": (int,), "sha256": (str, type(None)), "created_at": (int, float),
    "truncated": (bool,), "interrupted": (str, type(None)),
}
_SHA256 = re.compile(r"[0-9a-f]{64}")
#: Sizes, counts and times are below this: a larger number is not one we wrote (JSON allows
#: integers of thousands of digits, which a header or a marker would then print).
MAX_NUMBER = 1 << 62
_CUT_FIELDS = tuple(a.name for a in attrs.fields(ArtifactCut))


def ref_from_document(data: bytes, artifact_id: str, *, backend: str,
                      session: str) -> ArtifactRef | None:
    """The ref in a metadata document, or None when it is not one we wrote for
    *artifact_id*."""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or doc.get("id") != artifact_id:
        return None
    values: dict[str, Any] = {}
    for key, types in _REF_TYPES.items():
        value = doc.get(key)
        if value is None and type(None) not in types:
            continue
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            return None
        # Sizes and times are finite and not negative (an imported archive may say anything).
        if isinstance(value, int | float) and not isinstance(value, bool) and not (
                0 <= value < MAX_NUMBER):
            return None
        values[key] = value
    if values.get("sha256") is not None and not _SHA256.fullmatch(values["sha256"]):
        values["sha256"] = None  # not a digest we wrote: checksum() hashes the content
    cut = doc.get("cut")
    if isinstance(cut, dict):
        if not all(type(cut.get(k)) is int and 0 <= cut[k] < MAX_NUMBER for k in _CUT_FIELDS):
            return None
        values["cut"] = ArtifactCut(**{k: cut[k] for k in _CUT_FIELDS})
    return ArtifactRef(id=artifact_id, backend=backend, session=session, **values)
