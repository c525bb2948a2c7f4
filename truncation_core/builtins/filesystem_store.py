"""The ``filesystem`` storage backend, the default (implemented in
:mod:`truncation_core.storage.filesystem`)."""

from __future__ import annotations

from truncation_core.hooks.specs import hookimpl
from truncation_core.storage.filesystem import NAME, FilesystemStore
from truncation_core.types.models import Provides


@hookimpl(trylast=True)
def provides() -> Provides:
    return Provides(backends={NAME: FilesystemStore.from_config})
