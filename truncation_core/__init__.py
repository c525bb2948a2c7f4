"""truncation-core: content-aware truncation of LLM tool results that never loses data.

    >>> from truncation_core import Truncator
    >>> truncator = Truncator(config={"inline_limit": 2000})
    >>> result = truncator.process(big_log, tool="execute_command")
    >>> result.content             # what the model sees
    >>> result.metadata.to_dict()  # what was cut, and where to read it back
    >>> result.artifact            # where the full content is kept

Plugin authors: ``from truncation_core import hookimpl``; the hooks are documented in
:mod:`truncation_core.hooks.specs` and docs/hooks.md.
"""

from truncation_core.artifacts.model import (
    ArtifactCut,
    ArtifactInfo,
    ArtifactRef,
    ArtifactStore,
    ArtifactWriter,
)
from truncation_core.config.model import Config, Policy, StoreConfig, ToolConfig
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
    TruncationCoreError,
)
from truncation_core.hooks.models import Budget, ContentFacts, Cut, Marker, Omission, Provides
from truncation_core.hooks.specs import hookimpl
from truncation_core.pipeline.results import TruncationMetadata, TruncationResult
from truncation_core.truncator import Truncator

__version__ = "0.1.0.dev0"

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
    "StoreConfig",
    "StoreError",
    "StoreFull",
    "ToolConfig",
    "TruncationCoreError",
    "TruncationMetadata",
    "TruncationResult",
    "Truncator",
    "__version__",
    "hookimpl",
]
