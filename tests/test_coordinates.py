"""Resume coordinates: the marker and the metadata give the same exact line and byte ranges."""

from __future__ import annotations

import re
from typing import Any

import pytest
from distributions import SiteDir
from hypothesis import example, given, settings
from hypothesis import strategies as st

from truncation_core import Truncator
from truncation_core.storage.memory import MemoryStore
from truncation_core.text.offsets import prefix_bytes, sync_point


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


# -- when the artifact itself is cut (max_artifact_size) ----------------------------------------
#
# The artifact then keeps the output's head and tail with one marker line between them, so
# the output's line and byte numbers past its head do not address it. Every number shown
# must address the artifact as stored, and the metadata must give the same numbers.

MARKER_HINT = re.compile(
    r'get_artifact\(artifact_id="(art_\w+)", start_line=(\d+), end_line=(\d+)\); bytes (\d+):(\d+)'
    r"|(; not kept: )")
ARTIFACT_LIMIT = 96 * 1024


def rows_of(content: str) -> list[tuple[int, str]]:
    """The numbered lines of a get_artifact page."""
    return [(int(m.group(1)), m.group(2))
            for m in re.finditer(r"^ *(\d+)\t(.*)$", content, flags=re.M)]


def follow(truncator: Truncator, arguments: dict[str, Any]) -> list[tuple[int, str]]:
    """Call get_artifact with *arguments*, then follow next_arguments to the end."""
    rows: list[tuple[int, str]] = []
    for _ in range(10_000):
        answer = truncator.call_tool("get_artifact", arguments)
        assert not answer.is_error, answer.content
        for number, text in rows_of(answer.content):
            if rows and rows[-1][0] == number:  # a long line continued by offset
                rows[-1] = (number, rows[-1][1] + text)
            else:
                rows.append((number, text))
        if answer.next_arguments is None:
            return rows
        arguments = dict(answer.next_arguments)
    raise AssertionError("paging did not end")


def artifact_lines(data: bytes) -> list[tuple[int, int]]:
    """(start, end) byte offsets of each line of *data*, terminator included."""
    return [(m.start(), m.end()) for m in re.finditer(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", data)]


def line_at(spans: list[tuple[int, int]], offset: int) -> int:
    """The 1-based line of *spans* holding byte *offset*."""
    return next(i for i, (start, end) in enumerate(spans, 1) if start <= offset < end)


def check_cut_artifact(truncator: Truncator, result: Any, original: bytes) -> list[str]:
    """Every omission of *result* against its marker, its metadata and the stored artifact,
    read back through call_tool as the model would. Returns how each region is kept."""
    meta = result.metadata
    assert result.artifact is not None and result.artifact.cut is not None
    assert meta.artifact_truncated
    data = stored(truncator, meta.artifact_id)
    assert len(data) <= ARTIFACT_LIMIT
    # Where the artifact's head ends and its tail starts, found in the artifact itself.
    head_len = data.index(b"[... ")
    tail_from = data.index(b" ...]\n", head_len) + len(b" ...]\n")
    dropped_to = len(original) - (len(data) - tail_from)  # where the kept tail starts
    hints = MARKER_HINT.findall(result.content)
    assert len(hints) == len(meta.omissions) > 0
    spans = artifact_lines(data)
    kinds = []
    for hint, region, as_dict in zip(hints, meta.omissions, meta.to_dict()["omissions"],
                                     strict=True):
        artifact_id, first, last, start_byte, end_byte, not_kept = hint
        omitted = original[region.start_byte:region.end_byte]
        # The original coordinates are unchanged: the region of the output.
        assert omitted.decode("utf-8", "replace") == result_text(original)[region.start:region.end]
        span = region.in_artifact
        if not_kept:
            # Nothing of it is in the artifact, and nothing claims it is.
            assert span is None and as_dict["retrieve"] is None
            assert region.start_byte >= head_len and region.end_byte <= dropped_to
            assert omitted not in data
            kinds.append("not kept")
            continue
        assert span is not None and artifact_id == meta.artifact_id
        # The numbers in the marker are the numbers in the metadata.
        assert (int(first), int(last), int(start_byte), int(end_byte)) == (
            span.start_line, span.end_line, span.start_byte, span.end_byte)
        assert as_dict["in_artifact"]["start_line"] == span.start_line
        assert as_dict["retrieve"] == meta.retrieve(region) == {
            "artifact_id": meta.artifact_id, "start_line": span.start_line,
            "end_line": span.end_line}
        # bytes a:b is a slice of the artifact: what it keeps of the region, with the
        # artifact's own marker line where the region spans the part not kept.
        kept_head = original[region.start_byte:min(region.end_byte, head_len)]
        kept_tail = original[max(region.start_byte, dropped_to):region.end_byte]
        between = data[head_len:tail_from] if kept_head and kept_tail else b""
        assert data[span.start_byte:span.end_byte] == kept_head + between + kept_tail
        assert span.complete == (data[span.start_byte:span.end_byte] == omitted)
        # The lines are exactly those holding those bytes, and get_artifact, followed page by
        # page, returns exactly them.
        assert (span.start_line, span.end_line) == (
            line_at(spans, span.start_byte), line_at(spans, span.end_byte - 1))
        expected = [(n, strip_line(data[spans[n - 1][0]:spans[n - 1][1]]))
                    for n in range(span.start_line, span.end_line + 1)]
        assert follow(truncator, as_dict["retrieve"]) == expected
        kinds.append("whole" if span.complete else "part")
    return kinds


def result_text(original: bytes) -> str:
    return original.decode("utf-8", "replace")


def strip_line(raw: bytes) -> str:
    return re.sub(rb"(\r\n|\r|\n)$", b"", raw).decode("utf-8", "replace")


def cut_config(strategy: str, threshold: int | None = None) -> dict[str, Any]:
    config: dict[str, Any] = {"inline_limit": 3000, "default_strategy": strategy,
                              "max_artifact_size": ARTIFACT_LIMIT}
    if threshold is not None:
        config["artifact_threshold"] = threshold
    return config


def long_output(as_bytes: bool) -> str | bytes:
    rows = [f"row {i:06d}: été {'x' * (i % 40)}" for i in range(6000)]
    text = "\r\n".join(rows[:3000]) + "\n" + "\n".join(rows[3000:]) + "\n"
    if as_bytes:  # with bytes that are not UTF-8: offsets count the tool's own bytes
        return text.encode().replace(b"\xc3\xa9t", b"\xc3t")
    return text


@pytest.mark.parametrize("strategy", ["head", "tail", "head_tail", "lines"])
@pytest.mark.parametrize("threshold", [None, 10**9], ids=["reference", "inline"])
@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_marker_and_metadata_address_a_cut_artifact(strategy: str, threshold: int | None,
                                                    as_bytes: bool) -> None:
    truncator = make(cut_config(strategy, threshold))
    content = long_output(as_bytes)
    original = content if isinstance(content, bytes) else content.encode()
    assert len(original) > 2 * ARTIFACT_LIMIT
    result = truncator.process(content)
    assert check_cut_artifact(truncator, result, original) == ["part"]
    # A stream gives the same result: content, markers and metadata.
    with truncator.stream() as s:
        for i in range(0, len(content), 7001):
            s.write(content[i:i + 7001])
    streamed = s.result()
    assert check_cut_artifact(truncator, streamed, original) == ["part"]
    assert streamed.metadata.omissions == result.metadata.omissions
    assert streamed.content.replace(streamed.artifact.id, "<id>") == result.content.replace(
        result.artifact.id, "<id>")


def test_regions_kept_whole_in_part_or_not_at_all_by_a_cut_artifact(
        example_plugin: SiteDir) -> None:
    """The example plugin's ``sample`` strategy leaves six gaps: one in the artifact's head,
    one across its end, three in the part it does not keep, one across the start of its
    tail."""
    import truncation_core_example

    config = cut_config("sample", 10**9) | {"inline_limit": 8000}  # room for 5 samples
    truncator = make(config, plugins=[truncation_core_example])
    content = long_output(as_bytes=False)
    assert isinstance(content, str)
    result = truncator.process(content)
    kinds = check_cut_artifact(truncator, result, content.encode())
    assert kinds == ["whole", "part", "not kept", "not kept", "not kept", "part"]


def test_the_uncut_artifact_is_addressed_by_the_original_numbers() -> None:
    truncator = make({"inline_limit": 600})
    result = check(truncator, "".join(f"line {i}: été\n" for i in range(500)))
    region = result.metadata.omissions[0]
    assert region.in_artifact is not None and region.in_artifact.complete
    assert (region.in_artifact.start_line, region.in_artifact.end_line,
            region.in_artifact.start_byte, region.in_artifact.end_byte) == (
        region.first_line, region.last_line, region.start_byte, region.end_byte)
    retrieve = result.metadata.to_dict()["omissions"][0]["retrieve"]
    assert retrieve == {"artifact_id": result.artifact.id, "start_line": region.first_line,
                        "end_line": region.last_line}
    rows = follow(truncator, retrieve)
    assert [n for n, _ in rows] == list(range(region.first_line, region.last_line + 1))
