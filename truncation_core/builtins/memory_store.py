"""The ``memory`` storage backend (implemented in :mod:`truncation_core.storage.memory`)."""

from __future__ import annotations

from truncation_core.hooks.models import Provides
from truncation_core.hooks.specs import hookimpl
from truncation_core.storage.memory import NAME, MemoryStore


@hookimpl(trylast=True)
def provides() -> Provides:
    return Provides(backends={NAME: MemoryStore.from_config})
