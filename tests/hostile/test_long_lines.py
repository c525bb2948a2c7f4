"""Every reader is bounded on long lines: ``trunc artifacts show`` streams, grep context is
clipped while it is read, and a JSON stream holding one huge string stays within
``stream_threshold``.

Each test has a negative control: the naive reader (a page read whole, a loop that copies
what it carries for every chunk, a parser allowed to hold the whole token) bites.
"""

from __future__ import annotations

import io
import json
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from bounded import run_bounded
from click.testing import CliRunner

from truncation_core import Truncator
from truncation_core.retrieval import scanning
from truncation_core.retrieval.pages import clipped_lines
from truncation_core.retrieval.searching import grep
from truncation_core.storage.filesystem import FilesystemStore
from truncation_core.types.artifacts import ArtifactInfo

LONG = 48 << 20  # one line of 48 MiB
BOUND = 8 << 20


def peak(fn: Callable[[], object]) -> tuple[int, Any]:
    tracemalloc.start()
    try:
        value = fn()
        return tracemalloc.get_traced_memory()[1], value
    finally:
        tracemalloc.stop()


@pytest.fixture(scope="module")
def long_line_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """An artifact: a short line, one line of 48 MiB, a matching short line, and the end."""
    root = tmp_path_factory.mktemp("long") / "artifacts"
    store = FilesystemStore(str(root), "long")
    with store.writer(ArtifactInfo(tool="t", lines=4)) as w:
        w.write(b"first\n")
        block = b"x" * (1 << 20)
        for _ in range(LONG >> 20):
            w.write(block)
        w.write(b"\nERROR here\nlast\n")
        ref = w.commit()
    return root, ref.id


# -- raw_lines: linear in a line's length -------------------------------------------------------


class CountingBytearray(bytearray):
    """Counts the bytes copied into new bytearrays (the carry of a long line)."""

    copied = 0

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        CountingBytearray.copied += len(self)


def naive_raw_lines(f: Any, offset: int, chunk: int) -> Iterator[bytes]:
    """The loop as it was: the carry is copied afresh for every chunk of a long line."""
    carry = CountingBytearray()
    for _, piece in scanning.chunks(f, offset, chunk):
        buf = carry + piece if carry else piece
        start = 0
        while (end := scanning.next_terminator_end(buf, start, b"\r" in buf)) != -1:
            yield bytes(buf[start:end])
            start = end
        carry = CountingBytearray(buf[start:])
    if carry:
        yield bytes(carry)


def test_reading_one_long_line_copies_it_once(monkeypatch: pytest.MonkeyPatch) -> None:
    size, chunk = 8 << 20, 1 << 16
    data = b"y" * size + b"\nz\n"
    monkeypatch.setattr(scanning, "bytearray", CountingBytearray, raising=False)
    CountingBytearray.copied = 0
    lines = [raw for raw, _ in scanning.raw_lines(io.BytesIO(data), 0, chunk, None)]
    assert lines == [b"y" * size + b"\n", b"z\n"]
    assert CountingBytearray.copied <= 2 * chunk  # the carry grows in place

    CountingBytearray.copied = 0  # negative control: quadratic in the line's length
    assert list(naive_raw_lines(io.BytesIO(data), 0, chunk)) == lines
    assert CountingBytearray.copied > 50 * size


# -- trunc artifacts show ----------------------------------------------------------------------


SHOW_LIMIT = 160 << 20  # the interpreter, click and the library take about 90 MiB of it


def show_in_child(root: Path, artifact_id: str, out: Path, *args: str) -> Any:
    """``trunc artifacts show`` in a child whose address space is capped, writing to *out*."""
    return run_bounded(f"""
        import sys
        from truncation_core.cli import cli
        sys.stdout = open({str(out)!r}, "w", encoding="utf-8")
        try:
            cli(["--config", {str(root / 'c.yaml')!r}, "artifacts", "show", {artifact_id!r},
                 *{list(args)!r}], standalone_mode=False)
        finally:
            sys.stdout.close()
            sys.stdout = sys.__stdout__
        report(done=True)
    """, limit=SHOW_LIMIT, timeout=120)


def test_show_streams_an_artifact_with_one_long_line(long_line_store: tuple[Path, str],
                                                     tmp_path: Path) -> None:
    """48 MiB in one line, shown under a memory cap that a page read whole cannot meet."""
    root, artifact_id = long_line_store
    (root / "c.yaml").write_text(json.dumps({"store": {"root": str(root)}}))
    data = (root / "long" / f"{artifact_id}.txt").read_bytes()
    out = tmp_path / "shown"
    assert show_in_child(root, artifact_id, out).result == {"done": True}
    assert out.read_bytes() == data
    assert show_in_child(root, artifact_id, out, "--lines", "2-3").result == {"done": True}
    assert out.read_bytes() == data[6:6 + LONG + len(b"\nERROR here\n")]
    result = CliRunner().invoke(_cli(), ["--config", str(root / "c.yaml"), "artifacts",
                                         "show", artifact_id, "--lines", "3-", "--json"])
    doc = json.loads(result.stdout)
    assert doc["text"] == "ERROR here\nlast\n"
    assert (doc["first_line"], doc["last_line"], doc["next_line"]) == (3, 4, None)


def test_negative_control_a_page_read_whole_does_not_fit(long_line_store: tuple[Path, str]
                                                         ) -> None:
    """What show did: the lines as one page (decoded text), then their bytes again."""
    root, artifact_id = long_line_store
    outcome = run_bounded(f"""
        from truncation_core.storage.filesystem import FilesystemStore
        store = FilesystemStore({str(root)!r}, "long")
        page = store.lines({artifact_id!r}, 1, None)
        with store.open({artifact_id!r}) as f:
            f.seek(page.offset)
            data = f.read(page.end_offset - page.offset)
        report(chars=len(page.text), bytes=len(data))
    """, limit=SHOW_LIMIT, timeout=120)
    assert outcome.memory_error and not outcome.results, outcome


def _cli() -> Any:
    from truncation_core.cli import cli

    return cli


def test_show_json_of_a_long_line_is_the_same_document(long_line_store: tuple[Path, str]
                                                       ) -> None:
    root, artifact_id = long_line_store
    (root / "c.yaml").write_text(json.dumps({"store": {"root": str(root)}}))
    result = CliRunner().invoke(_cli(), ["--config", str(root / "c.yaml"), "artifacts",
                                         "show", artifact_id, "--json"])
    doc = json.loads(result.stdout)
    assert len(doc["text"]) == LONG + len("first\n\nERROR here\nlast\n")
    assert (doc["first_line"], doc["last_line"], doc["next_line"]) == (1, 4, None)


def test_negative_control_a_page_read_whole_holds_the_line(long_line_store: tuple[Path, str]
                                                           ) -> None:
    root, artifact_id = long_line_store
    store = FilesystemStore(str(root), "long")
    peak_bytes, page = peak(lambda: store.lines(artifact_id, 1, 2))
    assert len(page.text) > LONG and peak_bytes > 2 * LONG


# -- grep context ------------------------------------------------------------------------------


def test_grep_context_clips_a_huge_neighbour_while_reading_it(
        long_line_store: tuple[Path, str]) -> None:
    """Grep itself holds at most a block of a long line (GREP_MAX_BLOCK); the context around
    a match adds no more than what it shows."""
    root, artifact_id = long_line_store
    store = FilesystemStore(str(root), "long")
    with store.open(artifact_id) as f:
        without, _ = peak(lambda: grep(f, "ERROR", context=0, line_chars=200))
        peak_bytes, result = peak(lambda: grep(f, "ERROR", context=1, line_chars=200))
    (match,) = result.matches
    (before,) = match.before
    (after,) = match.after
    assert match.line.number == 3 and before.number == 2 and after.text == "last"
    assert before.clipped and before.text == "x" * 200
    assert peak_bytes < without + (1 << 20)


def test_clipped_lines_keeps_numbers_offsets_and_terminators() -> None:
    data = b"short\r\n" + b"w" * 5000 + b"\rtail\xc3\xa9 end\nlast"
    lines = clipped_lines(io.BytesIO(data), 0, first_line=7, count=10, width=4, chunk=64)
    assert [(line.number, line.text, line.clipped) for line in lines] == [
        (7, "shor", True), (8, "wwww", True), (9, "tail", True), (10, "last", False)]
    assert [line.offset for line in lines] == [0, 7, 5008, 5008 + 11]
    assert [line.text for line in clipped_lines(io.BytesIO(data), 0, first_line=1, count=2,
                                                width=100)] == ["short", "w" * 100]


def test_negative_control_reading_context_as_pages_holds_the_neighbour(
        long_line_store: tuple[Path, str]) -> None:
    from truncation_core.retrieval.pages import read_page

    root, artifact_id = long_line_store
    store = FilesystemStore(str(root), "long")
    with store.open(artifact_id) as f:
        peak_bytes, page = peak(lambda: read_page(f, offset=6, max_lines=1))
    assert len(page.text) > LONG and peak_bytes > LONG


# -- one huge string in a JSON stream -----------------------------------------------------------

JSON_STREAM = """
    from truncation_core import Truncator
    from truncation_core.structured import json_stream
    if {naive}:
        json_stream.JsonStreamTruncator._holds_too_much = lambda self, piece: False
    t = Truncator({{"inline_limit": 2000, "spill": False,
                   "tools": {{"api": {{"strategy": "element"}}}}}}, load_entrypoints=False)
    chunk = b"a" * (1 << 20)
    with t.stream(tool="api") as s:
        s.write(b'{{"id": 1, "blob": "')
        for _ in range({megabytes}):
            s.write(chunk)
        s.write(b'", "end": true}}')
    result = s.result()
    report(chars=len(result.content), notes=list(result.metadata.notes),
           strategy=result.metadata.strategy_used)
"""


def test_a_json_stream_holding_one_huge_string_stays_bounded() -> None:
    outcome = run_bounded(JSON_STREAM.format(naive=False, megabytes=90), limit=170 << 20,
                          timeout=120)
    result = outcome.result
    assert result["chars"] <= 2000 and result["strategy"] == "head_tail"
    assert any("longer than 16,777,216 bytes (stream_threshold)" in note
               for note in result["notes"]), result["notes"]


def test_negative_control_a_parser_allowed_to_hold_the_token_runs_out_of_memory() -> None:
    outcome = run_bounded(JSON_STREAM.format(naive=True, megabytes=90), limit=170 << 20,
                          timeout=120)
    # The parser fails for want of memory (or the process dies of it): either way it bites.
    assert not outcome.results or any("MemoryError" in note
                                      for note in outcome.results[-1]["notes"]), outcome


def test_json_with_ordinary_strings_is_still_cut_as_json() -> None:
    t = Truncator({"inline_limit": 2000, "spill": False, "stream_threshold": 1 << 16,
                   "tools": {"api": {"strategy": "element"}}}, load_entrypoints=False)
    items = [{"id": i, "text": "word " * 40} for i in range(3000)]
    with t.stream(tool="api") as s:
        s.write(json.dumps(items))
    result = s.result()
    assert result.metadata.strategy_used == "element"
    json.loads(result.content)
