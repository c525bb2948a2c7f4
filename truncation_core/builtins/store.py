"""The default ``store_artifact``: open a writer on the configured backend."""

from __future__ import annotations

from truncation_core.artifacts.model import ArtifactInfo
from truncation_core.hooks.specs import hookimpl
from truncation_core.storage.protocol import ArtifactStore, ArtifactWriter


@hookimpl(trylast=True)
def store_artifact(store: ArtifactStore, info: ArtifactInfo) -> ArtifactWriter:
    return store.writer(info)
