"""LineFramer: messages split the same whatever the chunks, oversized messages dropped with
their ends kept, and work linear in the bytes fed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from truncation_core_mcp.framing import EDGE, LineFramer, Oversized


def _feed_all(framer: LineFramer, chunks: list[bytes]) -> list[bytes | Oversized]:
    out: list[bytes | Oversized] = []
    for chunk in chunks:
        out.extend(framer.feed(chunk))
    return out


def test_messages_across_chunks_crlf_and_blank_lines() -> None:
    framer = LineFramer(1000)
    assert _feed_all(framer, [b'{"a":', b'1}\n{"b"', b':2}\r\n\n\n{"c":3}', b"\n"]) == [
        b'{"a":1}', b'{"b":2}', b'{"c":3}']
    assert framer.pending == 0


@given(st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=20),
       st.lists(st.integers(min_value=1, max_value=17), min_size=1, max_size=50))
def test_any_chunking_gives_the_same_messages(messages: list[bytes], sizes: list[int]) -> None:
    stream = b"".join(m + b"\n" for m in messages)
    expected = [m.removesuffix(b"\r") for m in messages if m.removesuffix(b"\r")]
    chunks, i = [], 0
    for size in sizes * (len(stream) // max(sum(sizes), 1) + 1):
        if i >= len(stream):
            break
        chunks.append(stream[i:i + size])
        i += size
    chunks.append(stream[i:])
    assert _feed_all(LineFramer(10_000), chunks) == expected


def test_an_oversized_message_is_dropped_with_its_ends_and_the_next_one_is_read() -> None:
    framer = LineFramer(100_000)
    big = b'{"jsonrpc":"2.0","id":7,"result":{"x":"' + b"z" * 300_000 + b'"}}'
    chunks = [big[i:i + 4096] for i in range(0, len(big), 4096)] + [b'\n{"ok":1}\n']
    out = _feed_all(framer, chunks)
    assert len(out) == 2
    dropped, after = out
    assert isinstance(dropped, Oversized)
    assert dropped.size == len(big)
    assert dropped.head == big[:EDGE] and dropped.tail == big[-EDGE:]
    assert after == b'{"ok":1}'
    assert framer.pending == 0


def test_an_oversized_message_in_one_chunk() -> None:
    framer = LineFramer(1000)
    out = framer.feed(b"a" * 5000 + b"\r\nnext\n")
    assert isinstance(out[0], Oversized) and out[0].size == 5000 and out[1] == b"next"


def _naive_scanned(chunks: list[bytes]) -> int:
    """The bytes the SDK's stdio client touches: ``(buffer + chunk).split("\\n")`` per chunk."""
    buffer, touched = b"", 0
    for chunk in chunks:
        joined = buffer + chunk
        touched += len(joined)
        buffer = joined.split(b"\n")[-1]
    return touched


def test_work_is_linear_in_the_bytes_fed() -> None:
    """A 20 MB message in 64 KiB chunks: each byte is scanned once. The naive framer (the
    negative control) touches each byte once per later chunk: hundreds of times."""
    message = b"x" * (20 * 1024 * 1024)
    chunks = [message[i:i + 65536] for i in range(0, len(message), 65536)] + [b"\n"]
    framer = LineFramer(64 * 1024 * 1024)
    out = _feed_all(framer, chunks)
    assert out == [message]
    assert framer.scanned == len(message) + 1
    assert _naive_scanned(chunks) > 100 * len(message)
