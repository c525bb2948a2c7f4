"""max_artifact_size: beyond it the artifact keeps head and tail, and says it is cut.

The model must never be told it can read everything when it cannot: the stored artifact
carries an in-band marker line, the ref has ``truncated=True`` and an ArtifactCut whose line
mapping is checked here against a naive split of the original, and the reference and hints
that process() renders use the artifact's line numbers.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from truncation_core import Truncator
from truncation_core.artifacts.limit import MARKER_RESERVE, SizeLimitedWriter
from truncation_core.storage.memory import MemoryStore
from truncation_core.types.artifacts import ArtifactInfo

from .conftest import naive_lines, strip


def store_limited(data: bytes, limit: int, splits: list[int] | None = None,
                  head_share: float = 0.6):  # type: ignore[no-untyped-def]
    store = MemoryStore()
    info = ArtifactInfo(tool="t", chars=len(data), lines=len(naive_lines(data)))
    writer = SizeLimitedWriter(store.writer(info), info=info, limit=limit, head_share=head_share)
    with writer:
        pos = 0
        for cut in sorted(splits or []):
            writer.write(data[pos:cut])
            pos = cut
        writer.write(data[pos:])
        ref = writer.commit()
    return store, ref


def test_content_within_the_limit_is_stored_exactly() -> None:
    data = b"a\r\nb\rc\n" * 100
    store, ref = store_limited(data, limit=len(data))
    assert store.read(ref.id) == data
    assert not ref.truncated and ref.cut is None


def test_the_writer_contract_holds_when_cutting() -> None:
    """commit() is idempotent and write() after it is refused, as for every writer (it was
    not, before: a second commit wrote the marker again into a committed writer)."""
    data = b"line\n" * 1000
    store = MemoryStore()
    info = ArtifactInfo(tool="t")
    writer = SizeLimitedWriter(store.writer(info), info=info, limit=MARKER_RESERVE + 100)
    with writer:
        writer.write(data)
        ref = writer.commit()
        assert writer.commit() is ref
        with pytest.raises(ValueError, match="after commit"):
            writer.write(b"more")
    assert ref.truncated and store.read(ref.id).startswith(b"line\n")
    with SizeLimitedWriter(store.writer(info), info=info, limit=10) as aborted:
        aborted.write(data)
    assert [r.id for r in store.list()] == [ref.id]  # left without commit: nothing stored


pieces = st.sampled_from([b"\n", b"\r\n", b"\r", b"short", b"x" * 300, "é".encode(),
                          "😀".encode(), b"\xff", b"0123456789"])


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(pieces, min_size=1, max_size=200), extra=st.integers(0, 1500),
       share=st.sampled_from([0.0, 0.3, 0.6, 1.0]), data=st.data())
def test_cut_artifacts_keep_head_and_tail_and_map_lines_exactly(
        parts: list[bytes], extra: int, share: float, data: st.DataObject) -> None:
    original = b"".join(parts)
    limit = MARKER_RESERVE + extra
    splits = data.draw(st.lists(st.integers(0, len(original)), max_size=8))
    store, ref = store_limited(original, limit, splits, head_share=share)
    stored = store.read(ref.id)
    if len(original) <= limit:
        assert stored == original and not ref.truncated
        return
    cut = ref.cut
    assert ref.truncated and cut is not None
    assert len(stored) <= limit
    assert cut.original_bytes == len(original)
    assert stored.startswith(original[: cut.head_bytes])
    assert cut.tail_bytes == 0 or stored.endswith(original[-cut.tail_bytes:])
    assert len(re.findall(rb"\[\.\.\. [0-9,]+ bytes not kept here", stored)) == 1
    # The same bytes and the same line map whatever the chunking.
    single_store, single_ref = store_limited(original, limit, head_share=share)
    assert single_store.read(single_ref.id) == stored
    assert (single_ref.cut, single_ref.lines, single_ref.chars) == (cut, ref.lines, ref.chars)

    lines = naive_lines(original)
    artifact_lines = naive_lines(stored)
    assert cut.original_lines == len(lines)
    assert ref.lines == len(artifact_lines)
    dropped_lo, dropped_hi = cut.head_bytes, len(original) - cut.tail_bytes
    starts = [sum(len(x) for x in lines[:i]) for i in range(len(lines))]
    touched = [i + 1 for i, s in enumerate(starts)
               if s < dropped_hi and s + len(lines[i]) > dropped_lo]
    assert (cut.first_line, cut.last_line) == (touched[0], touched[-1])
    whole = [n for n in touched if starts[n - 1] >= dropped_lo
             and starts[n - 1] + len(lines[n - 1]) <= dropped_hi]
    assert cut.omitted_lines == len(whole)
    for number in range(1, len(lines) + 1):
        mapped = cut.artifact_lines(number, number)
        if number < cut.first_line or number > cut.last_line:  # kept whole
            assert mapped is not None and mapped[0] == mapped[1]
            assert strip(artifact_lines[mapped[0] - 1]) == strip(lines[number - 1])
        elif number in whole:
            assert mapped is None


@pytest.mark.parametrize("share", [0.0, 0.6, 1.0])
@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64])
def test_a_crlf_split_between_chunks_counts_once_wherever_it_falls(share: float,
                                                                   chunk: int) -> None:
    """A "\r" ending one write and its "\n" starting the next are one line end, whether
    both go to the head, are dropped, or straddle the dropped part and the kept tail."""
    original = b"".join(b"line %d\r\n" % i for i in range(400))
    splits = list(range(chunk, len(original), chunk))
    whole_store, whole = store_limited(original, MARKER_RESERVE + 300, head_share=share)
    store, ref = store_limited(original, MARKER_RESERVE + 300, splits, head_share=share)
    assert store.read(ref.id) == whole_store.read(whole.id)
    assert ref.cut is not None and ref.cut.original_lines == 400
    assert (ref.cut, ref.lines, ref.chars) == (whole.cut, whole.lines, whole.chars)


def text_limited(text: str, limit: int, *, head_share: float, piece: int,
                 terminators: int | None, before: bytes = b""):  # type: ignore[no-untyped-def]
    """Store *text* through ``write_text`` (after *before*, written as bytes), with pieces
    of *piece* bytes; return the store, the ref, what write_text returned, and how many
    writes it made."""
    store = MemoryStore()
    data = before + text.encode("utf-8", "surrogatepass")
    info = ArtifactInfo(tool="t", chars=len(data), lines=len(naive_lines(data)))
    writer = SizeLimitedWriter(store.writer(info), info=info, limit=limit,
                               head_share=head_share, piece=piece)
    writes = []
    real_write = writer.write

    def counted(data: bytes) -> None:
        writes.append(len(data))
        real_write(data)

    writer.write = counted  # type: ignore[method-assign]
    with writer:
        real_write(before)
        written = writer.write_text(text, terminators=terminators)
        ref = writer.commit()
    return store, ref, written, writes


text_pieces = st.sampled_from(["\n", "\r\n", "\r", "short", "x" * 300, "0123456789", "é", "😀",
                               "\ud800", "\udfff"])
ascii_pieces = st.sampled_from(["\n", "\r\n", "\r", "short", "x" * 300, "0123456789"])


@settings(max_examples=400, deadline=None)
@given(parts=st.lists(st.one_of(ascii_pieces, text_pieces), min_size=1, max_size=200),
       ascii_only=st.booleans(), extra=st.integers(0, 1500),
       share=st.sampled_from([0.0, 0.3, 0.6, 1.0]), piece=st.integers(1, 700),
       known=st.booleans(), before=st.sampled_from([b"", b"\r", b"x\n" * 400]))
def test_write_text_stores_what_writing_the_encoded_text_stores(
        parts: list[str], ascii_only: bool, extra: int, share: float, piece: int,
        known: bool, before: bytes) -> None:
    """write_text encodes a piece at a time and, for ASCII over the limit, only counts the
    middle it drops: the artifact, its line map and its counts are those of one write of the
    whole encoding, wherever the pieces and the dropped middle begin and end (a "\r\n" across
    either edge included), and whether the terminator count is given or not."""
    if ascii_only:
        parts = [p for p in parts if p.isascii()] or ["\n"]
    text = "".join(parts)
    encoded = text.encode("utf-8", "surrogatepass")
    limit = MARKER_RESERVE + extra
    whole_store, whole = store_limited(before + encoded, limit, head_share=share)
    terminators = (text.count("\n") + text.count("\r") - text.count("\r\n")) if known else None
    store, ref, written, _ = text_limited(text, limit, head_share=share, piece=piece,
                                          terminators=terminators, before=before)
    assert written == len(encoded)
    assert store.read(ref.id) == whole_store.read(whole.id)
    assert (ref.cut, ref.lines, ref.chars, ref.bytes, ref.sha256) == (
        whole.cut, whole.lines, whole.chars, whole.bytes, whole.sha256)


@pytest.mark.parametrize("unit", ["a\r\n", "ab\r\n\r", "\r\n"])
@pytest.mark.parametrize("share", [0.0, 0.6, 1.0])
@pytest.mark.parametrize("known", [True, False])
def test_write_text_counts_a_crlf_across_either_edge_of_the_skipped_middle_once(
        unit: str, share: float, known: bool) -> None:
    """Every position of the middle's two edges against a "\r\n" pair (the limit and the
    piece size move them), compared with one write of the whole encoding."""
    text = unit * 700
    terminators = (text.count("\n") + text.count("\r") - text.count("\r\n")) if known else None
    for extra in range(0, 40, 3):
        for piece in (1, 2, 3, 5, 8):
            limit = MARKER_RESERVE + 200 + extra
            whole_store, whole = store_limited(text.encode(), limit, head_share=share)
            store, ref, _, _ = text_limited(text, limit, head_share=share, piece=piece,
                                            terminators=terminators)
            assert store.read(ref.id) == whole_store.read(whole.id)
            assert (ref.cut, ref.lines, ref.chars) == (whole.cut, whole.lines, whole.chars), (
                extra, piece)


def test_write_text_skips_the_middle_of_ascii_text() -> None:
    """The middle of a long ASCII text is counted, not written: write_text makes writes for
    the head and the tail's end only (negative control: text that is not ASCII is written
    whole, a piece at a time)."""
    limit, piece = MARKER_RESERVE + 1000, 100
    text = "".join(f"line {i}\n" for i in range(100_000))  # about 1 MB
    _store, ref, written, writes = text_limited(text, limit, head_share=0.6, piece=piece,
                                               terminators=100_000)
    assert written == len(text) and ref.cut is not None and ref.cut.original_lines == 100_000
    assert sum(writes) < 2 * limit + 3 * piece  # the head, the tail's end: not 1 MB
    wide = text.replace("line 5\n", "ligne é\n")
    _, wide_ref, _, wide_writes = text_limited(wide, limit, head_share=0.6, piece=piece,
                                               terminators=100_000)
    assert sum(wide_writes) == len(wide.encode()) and wide_ref.cut is not None


def test_process_says_the_artifact_is_cut_in_reference_hint_and_metadata() -> None:
    t = Truncator({"max_artifact_size": 20_000, "inline_limit": 3000, "store":
                   {"backend": "memory"}, "tools": {"wide": {"artifact_threshold": 10**9}}},
                  load_entrypoints=False)
    log = "".join(f"line {i} output\n" for i in range(1, 5001))
    result = t.process(log, tool="execute_command")
    ref = result.artifact
    assert ref is not None and ref.truncated and ref.cut is not None
    assert result.metadata.artifact_truncated
    assert any("artifact itself is cut" in n for n in result.metadata.notes)
    assert "stored in full" not in result.content
    assert f"kept of {ref.cut.original_bytes / 1000:.1f} kB" in result.content
    assert "were not kept" in result.content
    # Inline truncation (no reference): the hint gives the artifact's own line numbers.
    inline = t.process(log, tool="wide")
    m = re.search(r'get_artifact\(artifact_id="(art_\w+)", start_line=(\d+), end_line=(\d+)\)',
                  inline.content)
    assert m and "partly kept" in inline.content
    artifact_id, lo, hi = m.group(1), int(m.group(2)), int(m.group(3))
    region = inline.metadata.omissions[0]
    shown = t.artifacts.lines(artifact_id, lo, hi).text.splitlines()
    assert shown[0] == f"line {region.first_line} output"
    assert shown[-1] == f"line {region.last_line} output"
    assert any("bytes not kept here" in line for line in shown)
