"""Everything a plugin author imports, and nothing else.

    from truncation_core.plugin import Cut, Provides, cut_text, hookimpl

* the hook marker, :data:`hookimpl` (the hooks are documented in
  :mod:`truncation_core.hooks.specs` and docs/hooks.md);
* the value objects hooks receive and return: :class:`Budget`, :class:`Size`,
  :class:`ContentFacts`, :class:`Omission`, :class:`ArtifactSpan`, :class:`Cut`,
  :class:`Marker`, :class:`ElementOmission`, :class:`Provides`, and the effective
  :class:`Policy`;
* a strategy, :class:`Strategy` (``Provides(strategies=[...])``): its ``cut``
  (:class:`CutFunction`) and, for long streams, the :class:`IncrementalCut` its
  ``stream_cutter`` makes; what strategies build with: the :class:`MarkerRenderer` they are
  given, and the text helpers (:func:`cut_text`, :func:`fit_prefix`, :func:`fit_suffix`,
  :func:`snap_prefix`, :func:`snap_suffix`, :func:`omission`, :func:`measure`,
  :func:`count_lines`, :func:`is_line_start`);
* a highlights detector, :class:`SalientDetector` (from ``salient_detector``), and what it
  is made of: :class:`SalientPattern`, :class:`SalientUnit` (with :class:`UnitLines`,
  :func:`lines_below` and :func:`lines_above`) and :class:`SalientRecord`;
* for tokenizers (``Provides(tokenizers=...)``): the :class:`Tokenizer` contract, the fits
  built on ``count`` alone (:func:`fit_prefix_by_count`, :func:`fit_suffix_by_count`),
  :func:`visible_text`, and the pre-tokenizer patterns of cl100k_base and o200k_base
  (:data:`CL100K_PATTERN`, :data:`O200K_PATTERN`);
* the storage protocol, for backends: :class:`StorageBackend`, :class:`ArtifactStore`,
  :class:`ArtifactWriter`, :class:`WriterBase`, :class:`SessionInfo`, :class:`CleanReport`,
  :class:`StoreConfig`, the artifact model (:class:`ArtifactInfo`, :class:`ArtifactRef`,
  :class:`ArtifactCut`, :func:`new_artifact_id`, :func:`validate_artifact_id`,
  :func:`new_session_id`, :func:`validate_session_id`, :func:`human_size`), the metadata
  documents
  (:func:`ref_document`, :func:`ref_from_document`), :class:`Retrieval` for backends that
  read faster than through ``open``, and the errors a backend raises (``ConfigError`` for
  its settings).

Names load on first use, so that a plugin module importing this stays cheap to import. To
test a plugin, see :mod:`truncation_core.testing`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: Public name -> the module that defines it.
_EXPORTS = {
    "hookimpl": "truncation_core.hooks.specs",
    "ArtifactSpan": "truncation_core.types.cuts",
    "Budget": "truncation_core.types.models",
    "ContentFacts": "truncation_core.types.cuts",
    "Cut": "truncation_core.types.cuts",
    "ElementOmission": "truncation_core.types.cuts",
    "Marker": "truncation_core.types.cuts",
    "Omission": "truncation_core.types.cuts",
    "Provides": "truncation_core.types.models",
    "Size": "truncation_core.types.models",
    "Policy": "truncation_core.types.policy",
    "StoreConfig": "truncation_core.types.policy",
    "MarkerRenderer": "truncation_core.types.markers",
    "cut_text": "truncation_core.text.cut",
    "fit_prefix": "truncation_core.text.cut",
    "fit_suffix": "truncation_core.text.cut",
    "omission": "truncation_core.text.cut",
    "snap_prefix": "truncation_core.text.cut",
    "snap_suffix": "truncation_core.text.cut",
    "count_lines": "truncation_core.text.measure",
    "is_line_start": "truncation_core.text.measure",
    "measure": "truncation_core.text.measure",
    "CutFunction": "truncation_core.types.strategy",
    "IncrementalCut": "truncation_core.types.strategy",
    "Strategy": "truncation_core.types.strategy",
    "SalientDetector": "truncation_core.types.salient",
    "SalientPattern": "truncation_core.types.salient",
    "SalientRecord": "truncation_core.types.salient",
    "SalientUnit": "truncation_core.types.salient",
    "UnitLines": "truncation_core.types.salient",
    "lines_above": "truncation_core.types.salient",
    "lines_below": "truncation_core.types.salient",
    "ArtifactStore": "truncation_core.types.storage",
    "ArtifactWriter": "truncation_core.types.storage",
    "CleanReport": "truncation_core.types.reports",
    "SessionInfo": "truncation_core.types.reports",
    "StorageBackend": "truncation_core.types.storage",
    "WriterBase": "truncation_core.types.storage",
    "ArtifactCut": "truncation_core.types.artifacts",
    "ArtifactInfo": "truncation_core.types.artifacts",
    "ArtifactRef": "truncation_core.types.artifacts",
    "new_artifact_id": "truncation_core.types.ids",
    "new_session_id": "truncation_core.types.ids",
    "validate_artifact_id": "truncation_core.types.ids",
    "validate_session_id": "truncation_core.types.ids",
    "ref_document": "truncation_core.artifacts.documents",
    "ref_from_document": "truncation_core.artifacts.documents",
    "Retrieval": "truncation_core.retrieval",
    "human_size": "truncation_core.types.artifacts",
    "ArtifactNotFound": "truncation_core.errors",
    "ConfigError": "truncation_core.errors",
    "StoreError": "truncation_core.errors",
    "StoreFull": "truncation_core.errors",
    "TruncationCoreError": "truncation_core.errors",
    "Tokenizer": "truncation_core.types.tokenizer",
    "fit_prefix_by_count": "truncation_core.types.tokenizer",
    "fit_suffix_by_count": "truncation_core.types.tokenizer",
    "visible_text": "truncation_core.types.tokenizer",
    "CL100K_PATTERN": "truncation_core.tokens.pretokenize",
    "O200K_PATTERN": "truncation_core.tokens.pretokenize",
}

__all__ = [
    "CL100K_PATTERN",
    "O200K_PATTERN",
    "ArtifactCut",
    "ArtifactInfo",
    "ArtifactNotFound",
    "ArtifactRef",
    "ArtifactSpan",
    "ArtifactStore",
    "ArtifactWriter",
    "Budget",
    "CleanReport",
    "ConfigError",
    "ContentFacts",
    "Cut",
    "CutFunction",
    "ElementOmission",
    "IncrementalCut",
    "Marker",
    "MarkerRenderer",
    "Omission",
    "Policy",
    "Provides",
    "Retrieval",
    "SalientDetector",
    "SalientPattern",
    "SalientRecord",
    "SalientUnit",
    "SessionInfo",
    "Size",
    "StorageBackend",
    "StoreConfig",
    "StoreError",
    "StoreFull",
    "Strategy",
    "Tokenizer",
    "TruncationCoreError",
    "UnitLines",
    "WriterBase",
    "count_lines",
    "cut_text",
    "fit_prefix",
    "fit_prefix_by_count",
    "fit_suffix",
    "fit_suffix_by_count",
    "hookimpl",
    "human_size",
    "is_line_start",
    "lines_above",
    "lines_below",
    "measure",
    "new_artifact_id",
    "new_session_id",
    "omission",
    "ref_document",
    "ref_from_document",
    "snap_prefix",
    "snap_suffix",
    "validate_artifact_id",
    "validate_session_id",
    "visible_text",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'truncation_core.plugin' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


if TYPE_CHECKING:
    from truncation_core.artifacts.documents import ref_document, ref_from_document
    from truncation_core.errors import (
        ArtifactNotFound,
        ConfigError,
        StoreError,
        StoreFull,
        TruncationCoreError,
    )
    from truncation_core.hooks.specs import hookimpl
    from truncation_core.retrieval import Retrieval
    from truncation_core.text.cut import (
        cut_text,
        fit_prefix,
        fit_suffix,
        omission,
        snap_prefix,
        snap_suffix,
    )
    from truncation_core.text.measure import count_lines, is_line_start, measure
    from truncation_core.tokens.pretokenize import CL100K_PATTERN, O200K_PATTERN
    from truncation_core.types.artifacts import ArtifactCut, ArtifactInfo, ArtifactRef, human_size
    from truncation_core.types.cuts import (
        ArtifactSpan,
        ContentFacts,
        Cut,
        ElementOmission,
        Marker,
        Omission,
    )
    from truncation_core.types.ids import (
        new_artifact_id,
        new_session_id,
        validate_artifact_id,
        validate_session_id,
    )
    from truncation_core.types.markers import MarkerRenderer
    from truncation_core.types.models import Budget, Provides, Size
    from truncation_core.types.policy import Policy, StoreConfig
    from truncation_core.types.reports import CleanReport, SessionInfo
    from truncation_core.types.salient import (
        SalientDetector,
        SalientPattern,
        SalientRecord,
        SalientUnit,
        UnitLines,
        lines_above,
        lines_below,
    )
    from truncation_core.types.storage import (
        ArtifactStore,
        ArtifactWriter,
        StorageBackend,
        WriterBase,
    )
    from truncation_core.types.strategy import CutFunction, IncrementalCut, Strategy
    from truncation_core.types.tokenizer import (
        Tokenizer,
        fit_prefix_by_count,
        fit_suffix_by_count,
        visible_text,
    )
