"""Resume coordinates: the marker and the metadata give the same exact line and byte ranges."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from truncation_core import Truncator
from truncation_core.builtins.memory_store import MemoryStore
from truncation_core.offsets import prefix_bytes, sync_point


def make(config: Any = None, **kwargs: Any) -> Truncator:
    """A Truncator on the memory store, with only the built-in plugins (and *kwargs*')."""
    return Truncator(config, load_entrypoints=False, store=MemoryStore(), **kwargs)


HINT = re.compile(r'get_artifact\(artifact_id="(art_\w+)", start_line=(\d+), end_line=(\d+)\)'
                  r"; bytes (\d+):(\d+)")


def stored(truncator: Truncator, artifact_id: str) -> bytes:
    with truncator.store.open(artifact_id) as f:
        return f.read()


def lines_of(data: bytes, first: int, last: int) -> bytes:
    """Lines first..last (1-based, inclusive) of *data*, by the library's line definition."""
    text = data.decode("utf-8", "surrogateescape")
    pieces = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)
    return "".join(pieces[first - 1:last]).encode("utf-8", "surrogateescape")


def check(truncator: Truncator, content: str | bytes, **kwargs: Any) -> Any:
    result = truncator.process(content, **kwargs)
    raw = content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass")
    text = content if isinstance(content, str) else content.decode("utf-8", "replace")
    hints = HINT.findall(result.content)
    assert len(hints) == len(result.metadata.omissions) == 1
    (artifact_id, first, last, start_byte, end_byte) = hints[0]
    region = result.metadata.omissions[0]
    # The numbers in the marker are the numbers in the metadata.
    assert artifact_id == result.metadata.artifact_id
    assert (int(first), int(last)) == (region.first_line, region.last_line)
    assert (int(start_byte), int(end_byte)) == (region.start_byte, region.end_byte)
    assert result.metadata.to_dict()["omissions"][0]["start_byte"] == region.start_byte
    # And they address the artifact exactly.
    data = stored(truncator, artifact_id)
    assert data == raw
    omitted = data[region.start_byte:region.end_byte]
    assert omitted.decode("utf-8", "replace") == text[region.start:region.end]
    assert omitted in lines_of(data, region.first_line, region.last_line)
    return result


@pytest.mark.parametrize("strategy", ["head", "tail", "head_tail", "lines"])
def test_marker_and_metadata_agree_for_text(strategy: str) -> None:
    truncator = make({"inline_limit": 600, "default_strategy": strategy})
    check(truncator, "".join(f"line {i}: été 😀\r\n" for i in range(500)))


def test_byte_offsets_refer_to_the_original_bytes_when_they_are_not_utf8() -> None:
    truncator = make({"inline_limit": 600})
    # Each "\xe2\x82" shows as one U+FFFD but is two bytes; "\xff" one byte.
    content = b"".join(b"row %d \xe2\x82 \xff ok\n" % i for i in range(500))
    result = check(truncator, content)
    region = result.metadata.omissions[0]
    text = content.decode("utf-8", "replace")
    assert region.end_byte - region.start_byte != len(
        text[region.start:region.end].encode())  # the re-encoded size would be wrong


def test_streams_give_the_same_coordinates() -> None:
    truncator = make({"inline_limit": 600})
    content = b"".join(b"row %d \xe2\x82 \xf0\x9f\x98\x80\n" % i for i in range(5000))
    with truncator.stream() as s:
        for i in range(0, len(content), 999):
            s.write(content[i:i + 999])
    region = s.result().metadata.omissions[0]
    assert region == truncator.process(content).metadata.omissions[0]
    assert region.end_byte - region.start_byte == region.bytes > 0


# Bytes that decode to U+FFFD in every way: broken sequences of 1 to 3 bytes, encoded
# surrogates (b"\xed\xa0" is two U+FFFD), sequences cut short, stray continuation bytes.
tricky_bytes = st.lists(st.one_of(
    st.binary(max_size=4),
    st.sampled_from([b"\xed\xa0", b"\xed\xa0\x80", b"\xe2\x82", b"\xf0\x9f\x98", b"\x80",
                     b"\xff", b"\xc3", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"a"]),
), max_size=20).map(b"".join)


@settings(max_examples=500, deadline=None)
@given(tricky_bytes, st.data())
@example(b"\xed\xa0", None).via("the decoder gives two characters for these at the end")
def test_prefix_bytes_follow_the_decoder(data: bytes, draw: Any) -> None:
    text = data.decode("utf-8", "replace")
    for chars in range(len(text) + 1):
        offset = prefix_bytes(data, chars)
        assert data[:offset].decode("utf-8", "replace") == text[:chars]
        assert data[offset:].decode("utf-8", "replace") == text[chars:]
    if draw is None:
        return
    start = draw.draw(st.integers(0, len(data)))
    point = sync_point(data, start)
    assert point - start <= 3
    whole = data[:point].decode("utf-8", "replace") + data[point:].decode("utf-8", "replace")
    assert whole == text
