"""Fakes used only to inject faults (the one place tests do not use the real parts)."""

from __future__ import annotations

from typing import BinaryIO

from truncation_core import ArtifactInfo, ArtifactRef, Cut, Provides, hookimpl
from truncation_core.artifacts import WriterBase


class FailingStore:
    """An artifact store that fails at one step of keeping an artifact: ``open`` (creating
    the writer), ``write`` or ``commit``. Its errors may quote anything, as a careless
    backend's might."""

    name = "failing"

    def __init__(self, error: BaseException, at: str = "write") -> None:
        self.error, self.at = error, at
        self.aborted = 0

    def writer(self, info: ArtifactInfo) -> WriterBase:
        if self.at == "open":
            raise self.error
        store = self

        class Writer(WriterBase):
            def _write(self, data: bytes) -> None:
                if store.at == "write":
                    raise store.error

            def _commit(self, info: ArtifactInfo | None = None) -> ArtifactRef:
                raise store.error

            def _abort(self) -> None:
                store.aborted += 1

        return Writer()

    def open(self, artifact_id: str) -> BinaryIO:
        raise AssertionError("nothing was stored")

    def stat(self, artifact_id: str) -> ArtifactRef:
        raise AssertionError("nothing was stored")

    def list(self) -> list[ArtifactRef]:
        return []

    def delete(self, artifact_id: str) -> bool:
        return False


class Greedy:
    """A strategy plugin that ignores its budget: ``greedy`` returns the whole text."""

    __name__ = "greedy"

    @hookimpl
    def provides(self) -> Provides:
        return Provides(strategies={"greedy": "returns everything"})

    @hookimpl
    def truncate(self, strategy: str, text: str) -> Cut | None:
        if strategy != "greedy":
            return None
        return Cut(text=text, omitted_chars=0, omitted_lines=0)
