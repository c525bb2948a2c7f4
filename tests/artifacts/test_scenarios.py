"""Seed 000's user verification scenarios 1 to 6, end to end, on the default store.

Each runs the way a newcomer would: Truncator.from_config() in a project directory (so the
filesystem store under .truncation/artifacts), then the tool calls an agent would make.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from truncation_core import Truncator
from truncation_core.storage.filesystem import FilesystemStore


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Truncator:
    monkeypatch.chdir(tmp_path)
    t = Truncator.from_config(environ={}, load_entrypoints=False)
    assert isinstance(t.store, FilesystemStore)
    return t


def numbered(content: str) -> list[tuple[int, str]]:
    return [(int(m.group(1)), m.group(2))
            for m in re.finditer(r"^\s*(\d+)\t(.*)$", content, flags=re.M)]


def test_scenario_1_small_content_no_truncation(project: Truncator, tmp_path: Path) -> None:
    small = "def f():\n    return 1\n" * 100
    assert len(small) < 8000
    result = project.process(small, tool="read_file", path="small.py")
    assert result.content == small
    assert "omitted" not in result.content
    assert result.artifact is None and not result.metadata.was_truncated
    assert not (tmp_path / ".truncation").exists()


def test_scenario_2_medium_content_truncation(project: Truncator) -> None:
    lines = [f"line {i}: some source text" for i in range(1, 1201)]
    medium = "\n".join(lines) + "\n"
    assert 8000 < len(medium) < 50000
    result = project.process(medium, tool="read_file", path="medium.py")
    assert result.metadata.was_truncated and len(result.content) <= 8000
    m = re.search(r"\.\.\. \[([\d,]+) lines? / ([\d,]+) chars? omitted", result.content)
    assert m is not None
    assert result.content.startswith("line 1: some source text\n")
    assert result.content.endswith("line 1200: some source text\n")
    region = result.metadata.omissions[0]
    assert int(m.group(1).replace(",", "")) == region.lines


def test_scenario_3_large_content_artifact(project: Truncator) -> None:
    large = "".join(f"{i:06d} large file content\n" for i in range(10_000))
    assert len(large) > 50000
    result = project.process(large, tool="read_file", path="large.txt")
    ref = result.artifact
    assert ref is not None
    assert result.content.startswith(f"[Artifact: {ref.id}] read_file: large.txt ({ref.size})")
    call = project.call_tool("get_artifact", {"artifact_id": ref.id})
    assert call.error is None
    assert numbered(call.content)[0] == (1, "000000 large file content")
    assert project.artifacts.read(ref.id) == large.encode()


def test_scenario_4_tail_strategy(project: Truncator) -> None:
    log = "".join(f"[{i:05d}] step ok\n" for i in range(20_000)) + "FAILED: 3 errors\n"
    result = project.process(log, tool="execute_command", command="make")
    # The log fails at its end: adaptive keeps only its tail (the outline of the omitted
    # part names the lines where it starts: "1: [00000] step ok").
    assert result.metadata.strategy_used == "adaptive"
    assert result.metadata.details["split"]["head_share"] == 0.0
    assert result.content.rstrip().endswith("FAILED: 3 errors")
    assert "\n[00000] step ok" not in result.content
    assert "[19999] step ok" in result.content


def test_scenario_5_search_results_as_json(project: Truncator) -> None:
    results = [{"path": f"src/m{i}.py", "line": i} for i in range(3000)]
    document = json.dumps({"total_count": 3000, "results": results}, indent=1)
    result = project.process(document, tool="search_files", query="handler")
    ref = result.artifact
    assert ref is not None and ref.content_type == "application/json"
    assert result.metadata.was_truncated
    assert '"src/m0.py"' in result.content  # the first element
    assert '"src/m2999.py"' in result.content  # the last element
    # The structured cut inline JSON gets, valid JSON alone, whose note says what was
    # omitted, and with the artifact reference inside it (the object's last member).
    view = json.loads(result.content)
    assert view["[truncated]"].startswith(f"[Artifact: {ref.id}] search_files: handler (153.8 kB)")
    notes = [item for item in view["results"] if isinstance(item, str)]
    assert len(notes) == 1 and re.fullmatch(r"\.\.\. [\d,]+ items? omitted \.\.\.", notes[0])
    # The artifact keeps the whole document as valid JSON, in a .json file.
    assert json.loads(project.artifacts.read(ref.id)) == {"total_count": 3000,
                                                          "results": results}
    assert Path(project.store.path, f"{ref.id}.json").is_file()  # type: ignore[attr-defined]


def test_scenario_6_partial_artifact_retrieval(project: Truncator) -> None:
    text = "".join(f"row {i}\n" for i in range(1, 20_001))
    ref = project.process(text, tool="read_file").artifact
    assert ref is not None
    call = project.call_tool("get_artifact", {"artifact_id": ref.id, "start_line": 100,
                                              "end_line": 200})
    rows = numbered(call.content)
    assert [n for n, _ in rows] == list(range(100, 201))
    assert all(body == f"row {n}" for n, body in rows)
    assert call.next_arguments is None  # only the requested lines: nothing more to follow
    assert "[Lines 201 and on: get_artifact(" in call.content
    page = project.artifacts.lines(ref.id, 100, 200)
    assert page.text == "".join(f"row {i}\n" for i in range(100, 201))
