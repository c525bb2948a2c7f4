"""The sizes and limits every Truncator uses from the start, and what a plugin provides.

Every class here is ``@attrs.frozen(kw_only=True)``: hooks cannot change shared state (they return
``attrs.evolve(x, ...)`` instead), and fields can be added later without breaking plugins that
build these objects by keyword. The objects of a cut are in :mod:`truncation_core.types.cuts`,
imported with the first cut.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

import attrs

from truncation_core.types.converters import frozen_mapping
from truncation_core.types.strategy import Strategy

if TYPE_CHECKING:
    from truncation_core.types.storage import ArtifactStore
    from truncation_core.types.tokenizer import Tokenizer

__all__ = ["Budget", "Provides", "Size"]


@attrs.frozen(kw_only=True)
class Size:
    """The measured size of a text in every unit a budget can limit."""

    chars: int
    bytes: int
    lines: int

    def __add__(self, other: Size) -> Size:
        return Size(
            chars=self.chars + other.chars,
            bytes=self.bytes + other.bytes,
            lines=self.lines + other.lines,
        )


@attrs.frozen(kw_only=True)
class Budget:
    """How large an output may be. ``bytes`` and ``lines`` are optional extra limits.

    When several limits are set the output must satisfy all of them: the stricter wins.
    """

    #: Maximum characters (code points).
    chars: int
    #: Maximum UTF-8 bytes, or None for no byte limit.
    bytes: int | None = None
    #: Maximum lines, or None for no line limit.
    lines: int | None = None

    def admits(self, size: Size) -> bool:
        """True when something of *size* fits this budget."""
        return (
            size.chars <= self.chars
            and (self.bytes is None or size.bytes <= self.bytes)
            and (self.lines is None or size.lines <= self.lines)
        )

    def minus(self, size: Size) -> Budget | None:
        """What is left after spending *size*, or None when *size* does not fit."""
        if not self.admits(size):
            return None
        return Budget(
            chars=self.chars - size.chars,
            bytes=None if self.bytes is None else self.bytes - size.bytes,
            lines=None if self.lines is None else self.lines - size.lines,
        )

    def scaled(self, share: float) -> Budget:
        """This budget times *share* (0..1), rounded down in every unit."""
        return Budget(
            chars=math.floor(self.chars * share),
            bytes=None if self.bytes is None else math.floor(self.bytes * share),
            lines=None if self.lines is None else math.floor(self.lines * share),
        )

    def capped(self, chars: int) -> Budget:
        """This budget with at most *chars* characters."""
        return attrs.evolve(self, chars=min(self.chars, chars))


def _strategies(value: Iterable[Strategy]) -> tuple[Strategy, ...]:
    return tuple(value)


@attrs.frozen(kw_only=True)
class Provides:
    """What a plugin makes available, returned by the ``provides`` hook: strategies, storage
    backends and tokenizers, each under the name configuration uses."""

    #: The strategies (:class:`~truncation_core.types.strategy.Strategy`), each one object:
    #: its name, description, how it cuts text and what it can cut of a stream.
    strategies: tuple[Strategy, ...] = attrs.field(default=(), converter=_strategies)
    #: Backend name -> factory ``(StoreConfig) -> ArtifactStore``.
    backends: Mapping[str, Callable[..., ArtifactStore]] = attrs.field(
        factory=dict, converter=frozen_mapping
    )
    #: Tokenizer name -> factory ``() -> Tokenizer`` (see
    #: :class:`~truncation_core.types.tokenizer.Tokenizer`), for the ``tokenizer`` setting.
    #: A factory is called once per Truncator, the first time a policy names it; it should
    #: return at once and load its vocabulary on first use.
    tokenizers: Mapping[str, Callable[[], Tokenizer]] = attrs.field(
        factory=dict, converter=frozen_mapping)

    def problems(self) -> list[str]:
        """What is wrong with this declaration (a strategy that is not a
        :class:`~truncation_core.types.strategy.Strategy`, a name given twice, names of the
        wrong type); empty when it is well-formed."""
        out = []
        seen: set[str] = set()
        for strategy in self.strategies:
            if not isinstance(strategy, Strategy):
                out.append(f"strategies: expected Strategy objects (Strategy(name=..., "
                           f"description=..., cut=...)), got {type(strategy).__name__}")
            elif strategy.name in seen:
                out.append(f"strategies: {strategy.name!r} is given twice")
            else:
                seen.add(strategy.name)
        for name, factory in self.backends.items():
            if not isinstance(name, str) or not name or not callable(factory):
                out.append(f"backends: expected non-empty names mapped to store factories, "
                           f"got {type(name).__name__} -> {type(factory).__name__}")
        for name, make in self.tokenizers.items():
            if not isinstance(name, str) or not name or not callable(make):
                out.append(f"tokenizers: expected non-empty names mapped to tokenizer "
                           f"factories, got {type(name).__name__} -> {type(make).__name__}")
        return out
