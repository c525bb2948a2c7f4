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
from truncation_core.artifacts.model import ArtifactInfo
from truncation_core.storage.memory import MemoryStore

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
