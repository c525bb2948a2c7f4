"""Configuration: the settings, where they come from, and the effective policy of a tool.

:mod:`~truncation_core.types.settings` declares each per-tool setting once (type, default,
check, one-line doc); :mod:`~truncation_core.config.model` builds ``Config``, ``ToolConfig``
and ``Policy`` from it; :mod:`~truncation_core.types.templates` holds the marker templates;
:mod:`~truncation_core.config.sources` reads files and the environment;
:mod:`~truncation_core.config.trust` decides whether a file found by searching may have been
planted by another user;
:mod:`~truncation_core.config.converter` structures mappings into config with path-style
error messages.
"""

from typing import Any

from truncation_core.config.model import Config, PluginsConfig
from truncation_core.types.policy import Policy, StoreConfig
from truncation_core.types.settings import ToolConfig
from truncation_core.types.templates import MarkerConfig

__all__ = [
    "Config",
    "MarkerConfig",
    "PluginsConfig",
    "Policy",
    "StoreConfig",
    "ToolConfig",
    "config_from_mapping",
]


def __getattr__(name: str) -> Any:
    # The converter imports cattrs: only configuration given as a mapping needs it.
    if name == "config_from_mapping":
        from truncation_core.config.converter import config_from_mapping

        return config_from_mapping
    raise AttributeError(f"module 'truncation_core.config' has no attribute {name!r}")
