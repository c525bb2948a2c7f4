"""What the pipeline knows about one tool result before it cuts: its facts, and the artifact
description a store is given.

:func:`content_facts` makes the :class:`~truncation_core.hooks.models.ContentFacts` of text
in memory with one pass (a terminator count); the rest is O(1) or deferred until a hook asks
(the byte size, a JSON parse). A stream builds its facts from its counts instead
(:mod:`truncation_core.streaming.stream`).
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Mapping
from typing import Any

from truncation_core.artifacts.model import ArtifactInfo
from truncation_core.hooks.models import ContentFacts
from truncation_core.structured.sniff import looks_like_json, looks_like_xml, parse_in
from truncation_core.text.measure import count_lines, count_terminators, utf8_size
from truncation_core.text.offsets import raw_locator, text_locator

__all__ = ["PROVISIONAL_FACTS", "artifact_info", "content_facts", "summary_for"]

#: Context keys that describe the result for its artifact's one-line summary, in order.
_SUMMARY_KEYS = ("summary", "path", "command", "query", "url")


def content_facts(text: str, *, from_bytes: bool = False, encoded: bytes | None = None,
                  byte_offsets: bool = True,
                  scope: contextlib.ExitStack | None = None) -> ContentFacts:
    """Facts about *text*: one pass to count line terminators, the rest O(1) or deferred.

    *encoded* is the content as bytes when already at hand (the tool's own bytes, or the
    encoding made for the artifact); otherwise the byte size is measured on first use. When
    the tool returned bytes (*from_bytes*), *encoded* must be those bytes: byte offsets then
    refer to them, even where they are not valid UTF-8. With *byte_offsets* false, omissions
    get no byte offsets (:meth:`ContentFacts.byte_offset` answers None). With *scope*, a
    parse (if anything asks for it) keeps the cyclic GC paused until *scope* closes.
    """
    terminators = count_terminators(text)
    json = looks_like_json(text)
    # Measured on first use, and once: an O(1) length for ASCII, an encode otherwise.
    byte_size = (encoded.__len__ if encoded is not None
                 else text.__len__ if text.isascii()
                 else functools.cache(lambda: utf8_size(text)))
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
