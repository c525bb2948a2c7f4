"""Everything a plugin author imports, and nothing else.

    from truncation_core.plugin import Cut, Provides, cut_text, hookimpl

* the hook marker, :data:`hookimpl` (the hooks are documented in
  :mod:`truncation_core.hooks.specs` and docs/hooks.md);
* the value objects hooks receive and return: :class:`Budget`, :class:`Size`,
  :class:`ContentFacts`, :class:`Omission`, :class:`ArtifactSpan`, :class:`Cut`,
  :class:`Marker`, :class:`ElementOmission`, :class:`Provides`, and the effective
  :class:`Policy`;
* what strategies build with: the :class:`MarkerRenderer` they are given, and the text
  helpers (:func:`cut_text`, :func:`fit_prefix`, :func:`fit_suffix`, :func:`snap_prefix`,
  :func:`snap_suffix`, :func:`omission`, :func:`measure`, :func:`count_lines`,
  :func:`is_line_start`);
* the seam for streams, :class:`IncrementalCut`, and what the highlights are made of:
  :class:`SalientPattern`, :class:`SalientUnit` (with :class:`UnitLines`,
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
    "ArtifactSpan": "truncation_core.hooks.models",
    "Budget": "truncation_core.hooks.models",
    "ContentFacts": "truncation_core.hooks.models",
    "Cut": "truncation_core.hooks.models",
    "ElementOmission": "truncation_core.hooks.models",
    "Marker": "truncation_core.hooks.models",
    "Omission": "truncation_core.hooks.models",
    "Provides": "truncation_core.hooks.models",
    "Size": "truncation_core.hooks.models",
    "Policy": "truncation_core.config.model",
    "StoreConfig": "truncation_core.config.model",
    "MarkerRenderer": "truncation_core.pipeline.markers",
    "cut_text": "truncation_core.text.cut",
    "fit_prefix": "truncation_core.text.cut",
    "fit_suffix": "truncation_core.text.cut",
    "omission": "truncation_core.text.cut",
    "snap_prefix": "truncation_core.text.cut",
    "snap_suffix": "truncation_core.text.cut",
    "count_lines": "truncation_core.text.measure",
    "is_line_start": "truncation_core.text.measure",
    "measure": "truncation_core.text.measure",
    "IncrementalCut": "truncation_core.streaming.incremental",
    "SalientPattern": "truncation_core.highlights.patterns",
    "SalientRecord": "truncation_core.highlights.records",
    "SalientUnit": "truncation_core.highlights.units",
    "UnitLines": "truncation_core.highlights.units",
    "lines_above": "truncation_core.highlights.units",
    "lines_below": "truncation_core.highlights.units",
    "ArtifactStore": "truncation_core.storage.protocol",
    "ArtifactWriter": "truncation_core.storage.protocol",
    "CleanReport": "truncation_core.storage.reports",
    "SessionInfo": "truncation_core.storage.reports",
    "StorageBackend": "truncation_core.storage.protocol",
    "WriterBase": "truncation_core.storage.protocol",
    "ArtifactCut": "truncation_core.artifacts.model",
    "ArtifactInfo": "truncation_core.artifacts.model",
    "ArtifactRef": "truncation_core.artifacts.model",
    "new_artifact_id": "truncation_core.artifacts.ids",
    "new_session_id": "truncation_core.artifacts.ids",
    "validate_artifact_id": "truncation_core.artifacts.ids",
    "validate_session_id": "truncation_core.artifacts.ids",
    "ref_document": "truncation_core.artifacts.documents",
    "ref_from_document": "truncation_core.artifacts.documents",
    "Retrieval": "truncation_core.retrieval",
    "human_size": "truncation_core.artifacts.model",
    "ArtifactNotFound": "truncation_core.errors",
    "ConfigError": "truncation_core.errors",
    "StoreError": "truncation_core.errors",
    "StoreFull": "truncation_core.errors",
    "TruncationCoreError": "truncation_core.errors",
    "Tokenizer": "truncation_core.tokens.contract",
    "fit_prefix_by_count": "truncation_core.tokens.contract",
    "fit_suffix_by_count": "truncation_core.tokens.contract",
    "visible_text": "truncation_core.tokens.contract",
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
    "ElementOmission",
    "IncrementalCut",
    "Marker",
    "MarkerRenderer",
    "Omission",
    "Policy",
    "Provides",
    "Retrieval",
    "SalientPattern",
    "SalientRecord",
    "SalientUnit",
    "SessionInfo",
    "Size",
    "StorageBackend",
    "StoreConfig",
    "StoreError",
    "StoreFull",
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
    from truncation_core.artifacts.ids import (
        new_artifact_id,
        new_session_id,
        validate_artifact_id,
        validate_session_id,
    )
    from truncation_core.artifacts.model import ArtifactCut, ArtifactInfo, ArtifactRef, human_size
    from truncation_core.config.model import Policy, StoreConfig
    from truncation_core.errors import (
        ArtifactNotFound,
        ConfigError,
        StoreError,
        StoreFull,
        TruncationCoreError,
    )
    from truncation_core.highlights.patterns import SalientPattern
    from truncation_core.highlights.records import SalientRecord
    from truncation_core.highlights.units import SalientUnit, UnitLines, lines_above, lines_below
    from truncation_core.hooks.models import (
        ArtifactSpan,
        Budget,
        ContentFacts,
        Cut,
        ElementOmission,
        Marker,
        Omission,
        Provides,
        Size,
    )
    from truncation_core.hooks.specs import hookimpl
    from truncation_core.pipeline.markers import MarkerRenderer
    from truncation_core.retrieval import Retrieval
    from truncation_core.storage.protocol import (
        ArtifactStore,
        ArtifactWriter,
        StorageBackend,
        WriterBase,
    )
    from truncation_core.storage.reports import CleanReport, SessionInfo
    from truncation_core.streaming.incremental import IncrementalCut
    from truncation_core.text.cut import (
        cut_text,
        fit_prefix,
        fit_suffix,
        omission,
        snap_prefix,
        snap_suffix,
    )
    from truncation_core.text.measure import count_lines, is_line_start, measure
    from truncation_core.tokens.contract import (
        Tokenizer,
        fit_prefix_by_count,
        fit_suffix_by_count,
        visible_text,
    )
    from truncation_core.tokens.pretokenize import CL100K_PATTERN, O200K_PATTERN
