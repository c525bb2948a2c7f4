"""The default ``store_artifact``: open a writer on the configured backend."""

from __future__ import annotations

from typing import TYPE_CHECKING

from truncation_core.hooks.specs import hookimpl

if TYPE_CHECKING:  # the artifact model is built when something is stored, not at start-up
    from truncation_core.types.artifacts import ArtifactInfo
    from truncation_core.types.storage import ArtifactStore, ArtifactWriter


@hookimpl(trylast=True)
def store_artifact(store: ArtifactStore, info: ArtifactInfo) -> ArtifactWriter:
    return store.writer(info)
