"""Reading artifacts back from async code: :class:`Retrieval`'s methods in a worker thread.

Each method of :class:`AsyncRetrieval` runs the same method of a
:class:`~truncation_core.retrieval.Retrieval` through :func:`asyncio.to_thread`, so that a
large read or a regular expression running to its deadline never blocks the event loop.
Cancelling the awaiting task raises :class:`asyncio.CancelledError` at once; the read in the
thread runs on to its end (a grep at most to its deadline), closes its file, and its result
is dropped.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from truncation_core.retrieval import Retrieval
    from truncation_core.retrieval.pages import Page
    from truncation_core.retrieval.searching import GrepResult
    from truncation_core.types.artifacts import ArtifactRef

__all__ = ["AsyncRetrieval"]


class AsyncRetrieval:
    """The async form of a :class:`~truncation_core.retrieval.Retrieval` (see the module)."""

    def __init__(self, reader: Retrieval) -> None:
        self.reader = reader

    async def stat(self, artifact_id: str) -> ArtifactRef:
        return await asyncio.to_thread(self.reader.stat, artifact_id)

    async def read(self, artifact_id: str) -> bytes:
        return await asyncio.to_thread(self.reader.read, artifact_id)

    async def text(self, artifact_id: str) -> str:
        return await asyncio.to_thread(self.reader.text, artifact_id)

    async def lines(self, artifact_id: str, start: int = 1, end: int | None = None,
                    **kwargs: Any) -> Page:
        return await asyncio.to_thread(self.reader.lines, artifact_id, start, end, **kwargs)

    async def head(self, artifact_id: str, n: int = 10, **kwargs: Any) -> Page:
        return await asyncio.to_thread(self.reader.head, artifact_id, n, **kwargs)

    async def tail(self, artifact_id: str, n: int = 10, **kwargs: Any) -> Page:
        return await asyncio.to_thread(self.reader.tail, artifact_id, n, **kwargs)

    async def page(self, artifact_id: str, offset: int = 0, **kwargs: Any) -> Page:
        return await asyncio.to_thread(self.reader.page, artifact_id, offset, **kwargs)

    async def grep(self, artifact_id: str, pattern: str, **kwargs: Any) -> GrepResult:
        return await asyncio.to_thread(self.reader.grep, artifact_id, pattern, **kwargs)

    async def checksum(self, artifact_id: str) -> str:
        return await asyncio.to_thread(self.reader.checksum, artifact_id)
