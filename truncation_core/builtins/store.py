"""The default ``store_artifact``: open a writer on the configured backend."""

from __future__ import annotations

from truncation_core.artifacts import ArtifactInfo, ArtifactStore, ArtifactWriter
from truncation_core.hookspecs import hookimpl


@hookimpl(trylast=True)
def store_artifact(store: ArtifactStore, info: ArtifactInfo) -> ArtifactWriter:
    return store.writer(info)
