"""The seam for strategies that must see all of a stream: an incremental truncator fed as the
stream arrives.

A stream keeps only its first and last characters (:mod:`truncation_core.pipeline.ends`),
which is all a strategy that declares itself ``streamable`` needs. A strategy that decides
from the whole content (the ``element`` strategy for JSON, a plugin's own) can cut a long
stream only through an :class:`IncrementalCut` that a plugin returns from the
``stream_cutter`` hook, fed every chunk as decoded text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from truncation_core.types.cuts import ContentFacts, Cut
    from truncation_core.types.markers import MarkerRenderer
    from truncation_core.types.models import Budget

__all__ = ["IncrementalCut"]


@runtime_checkable
class IncrementalCut(Protocol):
    """A content-specific truncator fed as a stream arrives (the seam for structured data).

    Returned by the ``stream_cutter`` hook when a stream opens. It receives every chunk as
    decoded text, so it sees exactly what ``process`` would (bytes that are not UTF-8 appear as
    U+FFFD, a UTF-8 sequence split across chunks is whole). Its memory must be bounded by the
    budget, not by the input. When the stream ends and the selected strategy is
    :attr:`strategy`, :meth:`finish` produces the cut.
    """

    #: The strategy this cutter implements, as named by ``select_strategy``.
    strategy: str

    def feed(self, text: str) -> bool | None:
        """Take the next piece of the content. Never raises on content.

        Return False once nothing more of the content is needed (it is not for this cutter,
        or it already knows its cut): the stream then stops feeding it, which spares decoding
        a bytes stream that nothing else reads; :meth:`finish` is still called.
        """
        ...

    def finish(self, *, text: str, budget: Budget, facts: ContentFacts,
               markers: MarkerRenderer) -> Cut | None:
        """The cut of everything fed, within *budget*; None if it cannot cut this content:
        the stream then cuts it as text.

        *text* stands for the whole content: a :class:`~truncation_core.pipeline.ends.KeptEnds`
        that answers for its first and last characters (what a text strategy reads), so a
        cutter can fall back to a text cut exactly as ``process`` would. It may be called
        more than once, with smaller budgets (a highlights block takes room from the
        first cut), and must answer each time.
        """
        ...
