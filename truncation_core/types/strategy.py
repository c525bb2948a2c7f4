"""A strategy: one object that says how a tool result is cut, as text and as a stream.

A plugin provides strategies with ``Provides(strategies=[Strategy(...), ...])`` from its
``provides`` hook; the built-in ones are declared the same way
(:mod:`truncation_core.builtins.strategies`). The pipeline asks the object: the ``truncate``
hook's built-in implementation calls :attr:`Strategy.cut` (so that a plugin can still wrap or
override a cut), and a stream asks what the strategy can cut from it.

A stream keeps only its first and last characters (:mod:`truncation_core.pipeline.ends`). A
strategy whose ``cut`` reads only those (as :func:`~truncation_core.text.cut.cut_text` does)
says so with ``streamable=True``, and cuts any stream. One that decides from the whole
content (the ``element`` strategy for JSON, a plugin's own) cuts a long stream through an
:class:`IncrementalCut` made by its ``stream_cutter`` once the stream's text outgrows the
head the stream keeps, and fed all of the text from its start, as decoded text. Any other
strategy still cuts every stream short enough to be held whole, exactly as ``process``
would; a longer one is cut by ``head_tail``, in the same bounded memory, and the metadata's
notes say so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import attrs

if TYPE_CHECKING:
    from truncation_core.types.cuts import ContentFacts, Cut
    from truncation_core.types.markers import MarkerRenderer
    from truncation_core.types.models import Budget
    from truncation_core.types.policy import Policy

__all__ = ["CutFunction", "IncrementalCut", "Strategy"]


class CutFunction(Protocol):
    """How a strategy cuts *text* to *budget*: :attr:`Strategy.cut`."""

    def __call__(self, text: str, *, budget: Budget, facts: ContentFacts, policy: Policy,
                 markers: MarkerRenderer) -> Cut | None: ...


def _check_name(_inst: object, _attr: object, value: Any) -> None:
    if not isinstance(value, str) or not value or value != value.strip():
        raise ValueError(f"name: expected a non-empty name without surrounding blanks "
                         f"(head_tail, sample), got {value!r}")


def _check_text(_inst: object, attr: attrs.Attribute[Any], value: Any) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{attr.name}: expected a str, got {type(value).__name__}")


def _check_callable(_inst: object, attr: attrs.Attribute[Any], value: Any) -> None:
    if value is not None and not callable(value):
        raise TypeError(f"{attr.name}: expected a function, got {type(value).__name__}")


def _check_streamable(_inst: object, _attr: object, value: Any) -> None:
    if type(value) is not bool:
        raise TypeError(f"streamable: expected True or False, got {type(value).__name__}")


@attrs.frozen(kw_only=True)
class Strategy:
    """One strategy: its name, what it does, how it cuts text, and what it can cut of a
    stream. Provided by a plugin's ``provides`` hook (``Provides(strategies=[...])``).

    ``Strategy(name="sample", description="head, tail and lines from the middle",
    cut=sample_cut)`` is a complete strategy: it cuts results and streams short enough to be
    held whole; a longer stream is cut by ``head_tail`` (see :mod:`this module
    <truncation_core.types.strategy>`).
    """

    #: The name configuration (``tools.<name>.strategy``) and ``select_strategy`` use.
    name: str = attrs.field(validator=_check_name)
    #: One line, for ``trunc plugins`` and the errors that list what is available.
    description: str = attrs.field(validator=_check_text)
    #: ``cut(text, *, budget, facts, policy, markers) -> Cut | None``: *text* cut to
    #: *budget* (characters, and optionally bytes and lines; markers included), each omitted
    #: region rendered with ``markers.render(omission)``; None when it cannot cut this
    #: content (``head_tail`` cuts it then, and the notes say so). The pipeline checks the
    #: size of what it returns. It must not raise on content.
    cut: CutFunction = attrs.field(validator=_check_callable, repr=False)
    #: True when ``cut`` reads only the first and last characters of *text* (slicing and
    #: ``find``/``rfind`` near its ends, ``len``, and its line terminators counted anywhere),
    #: as :func:`~truncation_core.text.cut.cut_text` does: it is then given a stream's
    #: :class:`~truncation_core.pipeline.ends.KeptEnds` as *text*, and cuts streams of any
    #: length.
    streamable: bool = attrs.field(default=False, validator=_check_streamable)
    #: ``stream_cutter(policy) -> IncrementalCut | None``, for a strategy that is not
    #: ``streamable`` but can cut a long stream as it arrives: called once a stream's text
    #: outgrows the head the stream keeps (a stream that never does is cut from its whole
    #: text, as ``process`` cuts it, without a cutter), before ``select_strategy`` chooses
    #: (which it does at the end), so it returns a fresh cutter when the strategy may be
    #: chosen for *policy*'s tool, else None.
    stream_cutter: Callable[[Policy], IncrementalCut | None] | None = attrs.field(
        default=None, validator=_check_callable, repr=False)


@runtime_checkable
class IncrementalCut(Protocol):
    """A content-specific truncator fed as a stream arrives (the seam for structured data).

    Made by its :attr:`Strategy.stream_cutter` once a stream's text outgrows the head the
    stream keeps. It receives all of the text from its start (what the head holds, then every
    chunk) as decoded text, so it sees exactly what ``process`` would (bytes that are not UTF-8
    appear as U+FFFD, a UTF-8 sequence split across chunks is whole). Its memory must be
    bounded by the budget, not by the input. When the stream ends and ``select_strategy``
    chose its strategy, :meth:`finish` produces the cut.
    """

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
