"""The ``memory`` storage backend (implemented in :mod:`truncation_core.storage.memory`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from truncation_core.hooks.specs import hookimpl
from truncation_core.types.models import Provides

if TYPE_CHECKING:
    # only when the memory backend is chosen (python -X importtime: 19 ms, 2026-12)
    from truncation_core.storage.memory import MemoryStore
    from truncation_core.types.policy import StoreConfig

NAME = "memory"


def open_store(config: StoreConfig) -> MemoryStore:
    """A memory store for *config*; the backend's module is imported when one is opened."""
    from truncation_core.storage.memory import MemoryStore

    return MemoryStore.from_config(config)


@hookimpl(trylast=True)
def provides() -> Provides:
    return Provides(backends={NAME: open_store})
