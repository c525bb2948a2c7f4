"""One tool result on its way through the pipeline, as a frozen value.

Everything the steps after the artifact is kept need to know about one call: the content (a
``str``, or a stream's :class:`~truncation_core.pipeline.ends.KeptEnds` standing for it),
its facts, the policy and the budget held by the host, the strategy chosen, where the
content is kept, and what a stream found on its way (its incremental cutters, the salient
lines of any region). :class:`~truncation_core.pipeline.pipeline.Pipeline` takes it as one
argument instead of a dozen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    from truncation_core.highlights.bank import Pools
    from truncation_core.pipeline.ends import KeptEnds
    from truncation_core.types.artifacts import ArtifactRef
    from truncation_core.types.cuts import ContentFacts, Omission
    from truncation_core.types.models import Budget
    from truncation_core.types.policy import Policy
    from truncation_core.types.strategy import IncrementalCut

__all__ = ["Call"]


def _cutters(value: Mapping[str, IncrementalCut]) -> Mapping[str, IncrementalCut]:
    return MappingProxyType(dict(value))


@attrs.frozen(kw_only=True)
class Call:
    """One tool result over its limits, once its strategy is chosen and its content kept."""

    tool: str | None
    #: The effective policy hooks see.
    policy: Policy
    #: The limits the output must fit, as the host holds them: a hook cannot widen them.
    budget: Budget
    #: The keyword arguments given to ``process`` or ``stream`` besides ``tool``.
    context: Mapping[str, Any] = attrs.field(repr=False)
    #: The whole content, or a stream's kept ends standing for it.
    text: str | KeptEnds = attrs.field(repr=False)
    facts: ContentFacts = attrs.field(repr=False)
    #: The strategy chosen, and who chose it: ``user``, ``plugin NAME`` or ``default``.
    strategy: str
    strategy_chosen_by: str = "default"
    #: Where the full content is kept, or why it could not be.
    artifact: ArtifactRef | None = None
    artifact_error: str | None = None
    #: Whether the original's byte size was measured (it is given in the metadata).
    byte_size_known: bool = False
    #: A stream's incremental cutters (strategy name -> cutter), for strategies that need
    #: all of the content.
    cutters: Mapping[str, IncrementalCut] = attrs.field(factory=dict, converter=_cutters,
                                                        repr=False)
    #: The salient lines a stream found in any region, when it scanned as it went.
    pools_for: Callable[[Omission], Pools] | None = attrs.field(default=None, repr=False)
    #: Text shown above the content (a command's header): it counts against ``max_tokens``
    #: with the content (its characters, bytes and lines are already out of :attr:`budget`).
    above: str = attrs.field(default="", repr=False)
    #: The encoding the content was decoded from by its byte-order mark (``UTF-16LE`` ...),
    #: or None for UTF-8: the metadata says it.
    decoded_from: str | None = None
    #: Characters per token of the part of the content counted to find it over
    #: ``max_tokens``, if one was: where the first cut to the limit is made.
    chars_per_token: float | None = None

    @property
    def whole(self) -> bool:
        """True when :attr:`text` is the whole content (not a stream's kept ends)."""
        return isinstance(self.text, str)
