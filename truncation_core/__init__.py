"""truncation-core: content-aware truncation of LLM tool results that never loses data.

    >>> from truncation_core import Truncator
    >>> truncator = Truncator(config={"inline_limit": 2000})
    >>> result = truncator.process(big_log, tool="execute_command")
    >>> result.content             # what the model sees
    >>> result.metadata.to_dict()  # what was cut, and where to read it back
    >>> result.artifact            # where the full content is kept

Plugin authors import from :mod:`truncation_core.plugin`; the hooks are documented in
:mod:`truncation_core.hooks.specs` and docs/hooks.md.

The names below are loaded on first use (PEP 562), so that ``import truncation_core`` costs
almost nothing: a program that only truncates never imports the CLI, the configuration
converter or the storage backends it does not use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0.dev0"

#: Public name -> the module that defines it.
_EXPORTS = {
    "ArtifactCut": "truncation_core.types.artifacts",
    "ArtifactInfo": "truncation_core.types.artifacts",
    "ArtifactRef": "truncation_core.types.artifacts",
    "ArtifactStore": "truncation_core.types.storage",
    "ArtifactWriter": "truncation_core.types.storage",
    "StorageBackend": "truncation_core.types.storage",
    "Config": "truncation_core.config.model",
    "Policy": "truncation_core.types.policy",
    "StoreConfig": "truncation_core.types.policy",
    "ToolConfig": "truncation_core.types.settings",
    "ArtifactError": "truncation_core.errors",
    "ArtifactNotFound": "truncation_core.errors",
    "ConfigError": "truncation_core.errors",
    "InvalidArtifactId": "truncation_core.errors",
    "InvalidSessionId": "truncation_core.errors",
    "PatternError": "truncation_core.errors",
    "PluginLoadError": "truncation_core.errors",
    "PluginLoadWarning": "truncation_core.errors",
    "StoreError": "truncation_core.errors",
    "StoreFull": "truncation_core.errors",
    "StoreRootRefused": "truncation_core.errors",
    "TruncationCoreError": "truncation_core.errors",
    "hookimpl": "truncation_core.hooks.specs",
    "Budget": "truncation_core.types.models",
    "ContentFacts": "truncation_core.types.cuts",
    "Cut": "truncation_core.types.cuts",
    "Marker": "truncation_core.types.cuts",
    "Omission": "truncation_core.types.cuts",
    "Provides": "truncation_core.types.models",
    "ToolResult": "truncation_core.tools.calls",
    "as_content": "truncation_core.tools.decorator",
    "TruncationMetadata": "truncation_core.pipeline.results",
    "TruncationResult": "truncation_core.pipeline.results",
    "Truncator": "truncation_core.truncator",
}

__all__ = [
    "ArtifactCut",
    "ArtifactError",
    "ArtifactInfo",
    "ArtifactNotFound",
    "ArtifactRef",
    "ArtifactStore",
    "ArtifactWriter",
    "Budget",
    "Config",
    "ConfigError",
    "ContentFacts",
    "Cut",
    "InvalidArtifactId",
    "InvalidSessionId",
    "Marker",
    "Omission",
    "PatternError",
    "PluginLoadError",
    "PluginLoadWarning",
    "Policy",
    "Provides",
    "StorageBackend",
    "StoreConfig",
    "StoreError",
    "StoreFull",
    "StoreRootRefused",
    "ToolConfig",
    "ToolResult",
    "TruncationCoreError",
    "TruncationMetadata",
    "TruncationResult",
    "Truncator",
    "__version__",
    "as_content",
    "hookimpl",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'truncation_core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


if TYPE_CHECKING:
    from truncation_core.config.model import Config
    from truncation_core.errors import (
        ArtifactError,
        ArtifactNotFound,
        ConfigError,
        InvalidArtifactId,
        InvalidSessionId,
        PatternError,
        PluginLoadError,
        PluginLoadWarning,
        StoreError,
        StoreFull,
        StoreRootRefused,
        TruncationCoreError,
    )
    from truncation_core.hooks.specs import hookimpl
    from truncation_core.pipeline.results import TruncationMetadata, TruncationResult
    from truncation_core.tools.calls import ToolResult
    from truncation_core.tools.decorator import as_content
    from truncation_core.truncator import Truncator
    from truncation_core.types.artifacts import ArtifactCut, ArtifactInfo, ArtifactRef
    from truncation_core.types.cuts import ContentFacts, Cut, Marker, Omission
    from truncation_core.types.models import Budget, Provides
    from truncation_core.types.policy import Policy, StoreConfig
    from truncation_core.types.settings import ToolConfig
    from truncation_core.types.storage import ArtifactStore, ArtifactWriter, StorageBackend
