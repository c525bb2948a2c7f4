"""What the pipeline knows about one tool result before it cuts: its facts, and the artifact
description a store is given.

:func:`content_facts` makes the :class:`~truncation_core.types.cuts.ContentFacts` of text
in memory with one pass (a terminator count); the rest is O(1) or deferred until a hook asks
(the byte size, a JSON parse). A stream builds its facts from its counts instead
(:mod:`truncation_core.streaming.stream`).

The byte size of text is O(1) for ASCII; for other text it is measured a piece at a time
(:class:`Utf8Size`), or learnt from writing the artifact, which encodes the text a piece at a
time too: no full-size encoding of the content is made beside it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any

from truncation_core.structured.sniff import looks_like_json, looks_like_xml, parse_in
from truncation_core.text.measure import count_lines, count_terminators
from truncation_core.text.offsets import raw_locator, text_locator
from truncation_core.types.artifacts import ArtifactInfo
from truncation_core.types.cuts import ContentFacts

__all__ = ["PROVISIONAL_FACTS", "Utf8Size", "artifact_info", "content_facts", "summary_for"]

#: Context keys that describe the result for its artifact's one-line summary, in order.
_SUMMARY_KEYS = ("summary", "path", "command", "query", "url")


def content_facts(text: str, *, from_bytes: bool = False, encoded: bytes | None = None,
                  byte_size: Callable[[], int] | None = None, byte_offsets: bool = True,
                  scope: contextlib.ExitStack | None = None) -> ContentFacts:
    """Facts about *text*: one pass to count line terminators, the rest O(1) or deferred.

    *encoded* is the content as bytes when already at hand (the tool's own bytes); otherwise
    the byte size comes from *byte_size* (a :class:`Utf8Size`, which writing the artifact
    informs), or is measured on first use. When the tool returned bytes (*from_bytes*),
    *encoded* must be those bytes: byte offsets then refer to them, even where they are not
    valid UTF-8. With *byte_offsets* false, omissions get no byte offsets
    (:meth:`ContentFacts.byte_offset` answers None). With *scope*, a parse (if anything asks
    for it) keeps the cyclic GC paused until *scope* closes.
    """
    terminators = count_terminators(text)
    json = looks_like_json(text)
    if byte_size is None:
        byte_size = encoded.__len__ if encoded is not None else Utf8Size(text)
    locate: Callable[[int], int] | None = None
    if from_bytes and encoded is not None:
        locate = raw_locator(encoded, encoded, total_chars=len(text), total_bytes=len(encoded),
                             tail_is_start=True)
    elif byte_offsets:
        locate = text_locator(text, byte_size)
    return ContentFacts(
        chars=len(text), lines=count_lines(text, terminators), terminators=terminators,
        looks_like_json=json, from_bytes=from_bytes,
        byte_size=byte_size, locate_byte=locate,
        looks_like_xml=not json and looks_like_xml(text),
        parse=lambda: parse_in(text, scope), scope=scope)


#: Characters encoded at a time to measure the UTF-8 size of text that is not ASCII.
_MEASURE_CHARS = 1 << 20


class Utf8Size:
    """The UTF-8 size of *text* (a lone surrogate counting three bytes): O(1) for ASCII;
    otherwise measured on first use, a piece at a time (a whole encoding would be a
    full-size copy of the content), unless writing the artifact told it first
    (:meth:`learn`)."""

    __slots__ = ("_size", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._size: int | None = len(text) if text.isascii() else None

    def __call__(self) -> int:
        if self._size is None:
            text = self._text
            self._size = sum(len(text[i:i + _MEASURE_CHARS].encode("utf-8", "surrogatepass"))
                             for i in range(0, len(text), _MEASURE_CHARS))
        return self._size

    def learn(self, size: int) -> None:
        """The size, as the bytes of the whole text written somewhere showed it."""
        self._size = size


#: Facts used to open a stream's artifact before its size is known.
PROVISIONAL_FACTS = ContentFacts(chars=0, lines=0, terminators=0, looks_like_json=False,
                                 byte_size=lambda: 0)


def summary_for(tool: str | None, context: Mapping[str, Any], facts: ContentFacts) -> str:
    """A one-line description of a tool result for its artifact (``ArtifactInfo`` clips it to
    100 characters)."""
    for key in _SUMMARY_KEYS:
        value = context.get(key)
        if isinstance(value, str) and value.strip():
            return value if key == "summary" else f"{tool or 'tool'}: {value}"
    kind = "JSON" if facts.looks_like_json else "output"
    return f"{tool} {kind}" if tool else f"tool {kind}"


def artifact_info(tool: str | None, context: Mapping[str, Any],
                  facts: ContentFacts) -> ArtifactInfo:
    """What the store is told about a tool result it keeps."""
    return ArtifactInfo(
        tool=tool,
        tool_call_id=_str_or_none(context.get("tool_call_id")),
        server=_str_or_none(context.get("server")),
        summary=summary_for(tool, context, facts),
        content_type="application/json" if facts.looks_like_json else "text/plain",
        chars=facts.chars,
        lines=facts.lines,
    )


def _str_or_none(value: object) -> str | None:
    return None if value is None else str(value)
