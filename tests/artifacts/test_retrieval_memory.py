"""Retrieval reads what it returns, not the artifact: memory stays bounded on a large one.

reliability.md section 6: the peak (tracemalloc) of head, tail, lines, paging, grep and the
tools over a 64 MB artifact stays under 16 MiB, even when the model asks for a billion lines.
The negative control reads the artifact whole, as naive code does, and peaks above its size.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from truncation_core import Truncator
from truncation_core.storage.filesystem import FilesystemStore

from .conftest import put

#: Alone: a 64 MiB grep under tracemalloc has the whole search deadline (2 s) to itself.
pytestmark = pytest.mark.serial

SIZE = 64 << 20
BOUND = 16 << 20


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> tuple[Truncator, str]:
    root = tmp_path_factory.mktemp("large") / "artifacts"
    line = b"%08d a build log line that goes on for a while, ok\n"
    block = b"".join(line % i for i in range(20_000))
    data = (block * (SIZE // len(block) + 1))[:SIZE]
    ref = put(FilesystemStore(str(root), "large"), data, lines=data.count(b"\n") + 1)
    return Truncator({"store": {"root": str(root), "session": "large"}},
                     load_entrypoints=False), ref.id


def peak(fn: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("operation", [
    "head", "tail", "lines_far", "page_far", "grep_literal", "grep_regex", "tool_tail_billion",
    "tool_head_billion", "tool_get_far", "tool_grep"])
def test_retrieval_memory_is_bounded(large: tuple[Truncator, str], operation: str) -> None:
    t, artifact_id = large
    a = t.artifacts
    run: dict[str, Callable[[], object]] = {
        "head": lambda: a.head(artifact_id, 100),
        "tail": lambda: a.tail(artifact_id, 100),
        "lines_far": lambda: a.lines(artifact_id, 1_000_000, 1_000_100),
        "page_far": lambda: a.page(artifact_id, SIZE - 100_000, max_chars=8000),
        "grep_literal": lambda: a.grep(artifact_id, "not in there"),
        "grep_regex": lambda: a.grep(artifact_id, r"0{7}1 a", regex=True, max_matches=1000),
        "tool_tail_billion": lambda: t.call_tool("artifact_tail",
                                                 {"artifact_id": artifact_id, "lines": 10**9}),
        "tool_head_billion": lambda: t.call_tool("artifact_head",
                                                 {"artifact_id": artifact_id, "lines": 10**9}),
        "tool_get_far": lambda: t.call_tool("get_artifact",
                                            {"artifact_id": artifact_id, "start_line": 1_200_000}),
        "tool_grep": lambda: t.call_tool("artifact_grep", {"artifact_id": artifact_id,
                                                           "pattern": "99 a build",
                                                           "max_matches": 200, "context": 20}),
    }
    assert peak(run[operation]) < BOUND


def test_control_reading_whole_peaks_above_the_artifact(large: tuple[Truncator, str]) -> None:
    t, artifact_id = large
    path = Path(t.store.path) / f"{artifact_id}.txt"
    assert peak(lambda: path.read_bytes().splitlines()[-100:]) > SIZE


_LONG_LINE_GREP = """
import io, resource, sys
limit = 512 << 20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
data = b"ab" * (4 << 20) + b"\\n"  # one 8 MiB line
if sys.argv[1] == "grep":
    from truncation_core.retrieval import grep
    result = grep(io.BytesIO(data), "(a|b)+$", regex=True, timeout=120)
    assert [m.line.number for m in result.matches] == [1]
else:
    import regex
    regex.compile("(a|b)+$", regex.MULTILINE).search(data.decode())
"""


@pytest.mark.parametrize("who", ["grep", "control"])
def test_a_regular_expression_over_a_long_line_stays_bounded(who: str) -> None:
    """A repeated group keeps about 100 bytes per character it runs over: over one 8 MiB
    line, the regex module alone needs more than 512 MiB (the control fails); grep searches
    the line in pieces and finds the match within that limit."""
    import subprocess
    import sys

    child = subprocess.run([sys.executable, "-c", _LONG_LINE_GREP, who], capture_output=True,
                           timeout=300)
    if who == "grep":
        assert child.returncode == 0, child.stderr[-500:]
    else:
        assert child.returncode != 0 and b"MemoryError" in child.stderr
