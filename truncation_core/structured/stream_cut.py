"""The ``element`` strategy for streams: cut exactly as ``process`` cuts the same content.

A stream keeps only the two ends of its text, but ``element`` decides from the whole: whether
it parses, and what to keep of it. :class:`ElementStreamCut` bridges the two without holding
more than ``process`` would need:

* while the content could be structured (it starts like JSON or XML) and is no larger than
  ``stream_threshold``, the cutter keeps the whole text; when the stream ends, it runs the
  very same :func:`~truncation_core.structured.dispatch.element_cut` on it;
* once the content is larger than ``stream_threshold``, ``process`` would not parse it whole
  either: the cutter drops the text and feeds the same streaming truncator that ``process``
  feeds (:func:`~truncation_core.structured.dispatch.new_json_stream`), from the start, and
  keeps feeding it as the stream goes on;
* content that starts like JSON but whose first 64 KiB already prove it is not (a log whose
  lines start with ``[2024-05-01 ...``) keeps only the parser's verdict, which is the verdict
  on the whole (:func:`~truncation_core.structured.sniff.parse_prefix`), and goes on to the
  streaming truncator as if it were large;
* content whose start rules out ``element`` parsing it is dropped at once: either
  ``select_strategy`` will not pick ``element`` for it (it does only for content starting
  with ``{``, ``[`` or ``<``, unless the tool's policy is ``element``), or ``element`` cuts it
  as text, and for both the stream's two ends are all it takes.

So the text it holds is at most ``stream_threshold`` characters (16 MiB by default), and only
for content that is JSON as far as 64 KiB show, or that starts like XML; anything else costs
at most 64 KiB, or nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from truncation_core.structured.dispatch import (
    guarded,
    new_json_stream,
    starts_like_json,
)
from truncation_core.structured.ranked import element_or_ranked, ranked_cut
from truncation_core.structured.sniff import (
    SCALAR_STARTS,
    SNIFF_CHARS,
    Parsed,
    parse_in,
    parse_prefix,
    starts_like_scalars,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from truncation_core.structured.json_stream import JsonStreamTruncator
    from truncation_core.types.cuts import ContentFacts, Cut
    from truncation_core.types.markers import MarkerRenderer
    from truncation_core.types.models import Budget
    from truncation_core.types.policy import Policy

__all__ = ["ElementStreamCut"]

_BLANKS = "\ufeff \t\r\n"
#: What a JSON value (or an XML document) can start with, after a BOM and blanks: when the
#: policy's strategy is element, element_cut parses anything that starts so.
_ELEMENT_STARTS = '{["-0123456789tfn<'
#: Otherwise select_strategy sends content to element only when it starts with one of these
#: (ContentFacts.looks_like_json and looks_like_xml); a scalar's start (JSON Lines of numbers
#: or strings, one long string) only when the lines at its ends are JSON values too: a log
#: line starting with a date is text, and once _CHECK_CHARS are kept its text is dropped.
_SNIFFED_STARTS = "{[<" + SCALAR_STARTS
#: Once this many characters are kept, the cutter checks whether they already prove that the
#: content is not JSON (see :func:`~truncation_core.structured.sniff.parse_prefix`).
_CHECK_CHARS = 64 * 1024


def _element_or_ranked(text: str, **kwargs: Any) -> Cut:
    """:func:`~truncation_core.structured.ranked.element_or_ranked`, imported on the first
    cut: most streams never get that far, and it brings the JSON fitter."""
    return element_or_ranked(text, **kwargs)


class ElementStreamCut:
    """An :class:`~truncation_core.types.strategy.IncrementalCut` for ``element``, and for
    ``ranked`` (*strategy*), which parses the same content the same way, and hands to
    ``element`` what it cannot rank."""

    def __init__(self, policy: Policy, strategy: str = "element") -> None:
        self._policy = policy
        self.strategy = strategy
        if strategy == "ranked":
            self._cut: Callable[..., Cut] = ranked_cut
        else:
            self._cut = _element_or_ranked
        # ranked parses whatever it is given, as JSON: nothing rules it out at the start.
        self._starts = (None if strategy == "ranked" else _ELEMENT_STARTS
                        if policy.strategy == strategy else _SNIFFED_STARTS)
        #: The whole text so far, while it may still be needed; None once it is not.
        self._parts: list[str] | None = []
        self._chars = 0
        self._sniff = ""
        #: What parsing the whole content gives, when its start alone decides it.
        self._parsed: Parsed | None = None
        #: The event-driven truncator, once the text is not kept.
        self._json: JsonStreamTruncator | None = None
        #: The stream's facts, parsing the content as element_cut needs (once finishing).
        self._facts: ContentFacts | None = None

    def __repr__(self) -> str:  # never the content
        state = ("streaming" if self._json is not None
                 else "keeping" if self._parts is not None else "text")
        return f"ElementStreamCut({state}, chars={self._chars})"

    @property
    def holds_text(self) -> bool:
        """True while the cutter keeps the whole text, which it parses when finishing."""
        return self._parts is not None

    def feed(self, text: str) -> bool:
        """Take the next piece; False once the rest is not needed (see IncrementalCut)."""
        before = self._chars
        self._chars += len(text)
        if self._json is not None:
            self._json.feed(text)
            return not self._json.failed
        if self._parts is None:
            return False
        self._parts.append(text)
        if len(self._sniff) < SNIFF_CHARS:
            self._sniff += text[: SNIFF_CHARS - len(self._sniff)]
            start = self._sniff.lstrip(_BLANKS)
            if start and self._starts is not None and (
                    start[0] not in self._starts or (
                        self._starts is _SNIFFED_STARTS and start[0] in SCALAR_STARTS
                        and len(self._sniff) == SNIFF_CHARS
                        and not starts_like_scalars(start))):
                # element will not parse it (a log whose lines start with a digit is no
                # JSON Lines): its ends are enough
                self._parts = None
                return False
        if self._chars > self._policy.stream_threshold:
            return self._to_events()
        # (element parses what starts with "<" as XML: a JSON parser's verdict says nothing)
        if before < _CHECK_CHARS <= self._chars and (self._starts is None
                                                     or self._starts_like_json()):
            self._parsed = parse_prefix("".join(self._parts))
            if self._parsed is not None:  # not JSON, whatever follows: keep no text
                return self._to_events()
        return True

    def _starts_like_json(self) -> bool:
        return self._sniff.lstrip(_BLANKS)[:1] in ("{", "[") or starts_like_json(self._sniff)

    def _to_events(self) -> bool:
        """Drop the text, and feed what it held, and all that follows, to the event-driven
        truncator, as ``process`` does for large content (its memory is bounded by the
        budget)."""
        parts, self._parts = self._parts or [], None
        if not self._starts_like_json():
            return False  # not JSON, and too large to parse as XML: cut as text
        self._json = new_json_stream(self._policy, None)  # markers come at finish
        for part in parts:
            self._json.feed(part)
            if self._json.failed:
                return False
        return True

    def finish(self, *, text: str, budget: Budget, facts: ContentFacts,
               markers: MarkerRenderer) -> Cut:
        if self._facts is None:
            # The first of possibly several calls (one per budget tried: a highlights block
            # takes room and the content is cut again): parse once.
            self._facts = self._parsing(facts)
        if self._parts is not None:
            text = self._parts[0]
        return guarded(self._cut, text, budget=budget, facts=self._facts,
                       policy=self._policy, markers=markers, prefed=self._json)

    def _parsing(self, facts: ContentFacts) -> ContentFacts:
        """The stream's facts, with the parse of the content that ``element_cut`` reads."""
        if self._parts is not None:  # the whole text was kept: join it once
            whole = "".join(self._parts)
            self._parts = [whole]
            return facts.parsing(whole, parse_in)
        if self._parsed is not None:
            parsed = self._parsed
            return attrs.evolve(facts, parse=lambda: parsed)
        return facts
