"""process() keeps a large result without a full-size copy of it: the memory it needs beside
the input, with the store on (the default), stays within a quarter of the input plus 16 MiB.

Measured with tracemalloc (what Python allocates, the input excluded: it exists before the
measure starts), not with time. The artifact is written a piece at a time and the size limiter
holds only what its tail needs; before, the whole text was encoded for the store (1x), and the
limiter sliced everything after its head into a new object (1x more).
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from truncation_core import Truncator

MB = 1_000_000
SIZE = 50 * MB


def bound(size: int) -> float:
    return 0.25 * size + 16 * 2**20


def log_text(size: int, wide: bool) -> str:
    line = ("2024-05-01 12:00:00 INFO worker-3 processed request id=12345 status=200 "
            + ("😀 " if wide else "") + "in 3.2ms\n")
    count = size // len(line.encode())
    half = count // 2
    return line * half + "ERROR: the job failed\n" + line * (count - half)


def peak_of(fn):  # type: ignore[no-untyped-def]
    tracemalloc.start()
    try:
        value = fn()
        return value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.slow
@pytest.mark.parametrize("wide", [False, True], ids=["ascii", "4-byte characters"])
@pytest.mark.parametrize("tool", [None, "execute_command"])
def test_process_of_50_mb_with_the_store_on_stays_within_the_bound(
        tmp_path: Path, wide: bool, tool: str | None) -> None:
    text = log_text(SIZE, wide)
    size = len(text.encode("utf-8"))
    truncator = Truncator({"store": {"root": str(tmp_path)}}, load_entrypoints=False)
    truncator.process("warm-up\n" * 20_000, tool=tool)  # first-use caches, not per call
    result, peak = peak_of(lambda: truncator.process(text, tool=tool))
    ref = result.artifact
    assert ref is not None and ref.truncated and ref.cut is not None
    assert ref.cut.original_bytes == size
    assert result.metadata.original_bytes == size
    stored = truncator.artifacts.read(ref.id)
    assert stored.startswith(text[:1000].encode()) and stored.endswith(text[-1000:].encode())
    assert peak <= bound(size), f"{peak / 2**20:.1f} MiB beside a {size / MB:.0f} MB input"


@pytest.mark.slow
def test_the_bound_bites_a_full_size_copy() -> None:
    """Negative control: encoding the whole text once, as process() used to before storing
    it, alone needs more than the bound."""
    text = log_text(SIZE, wide=False)
    _, peak = peak_of(lambda: text.encode("utf-8", "surrogatepass"))
    assert peak > bound(len(text))
