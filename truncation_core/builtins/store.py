"""The default ``store_artifact``: open a writer on the configured backend."""

from __future__ import annotations

from truncation_core.artifacts.model import ArtifactInfo, ArtifactStore, ArtifactWriter
from truncation_core.hooks.specs import hookimpl


@hookimpl(trylast=True)
def store_artifact(store: ArtifactStore, info: ArtifactInfo) -> ArtifactWriter:
    return store.writer(info)
