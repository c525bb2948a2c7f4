"""The tool call id is a handle: agents and hosts know the call id, not the artifact id.

The marker shows it when it is given; ``get_artifact`` (and the other artifact tools) and
``trunc artifacts`` accept it wherever they take an artifact id; when two artifacts share it,
the newest wins. It works on every backend, through the storage protocol (``list()``), and a
backend may answer faster with its own ``find_tool_call``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from truncation_core import Truncator
from truncation_core.cli import cli
from truncation_core.errors import ArtifactNotFound, InvalidArtifactId
from truncation_core.storage.memory import MemoryStore
from truncation_core.types.artifacts import ArtifactRef
from truncation_core.types.ids import is_tool_call_id, new_artifact_id
from truncation_core.types.storage import find_tool_call, resolve_handle


def log(n: int, tag: str = "") -> str:
    return "".join(f"{tag}line {i}\n" for i in range(n))


@pytest.fixture(params=["filesystem", "memory"])
def truncator(request: pytest.FixtureRequest, tmp_path: Path) -> Truncator:
    return Truncator({"inline_limit": 400, "store": {"backend": request.param,
                                                     "root": str(tmp_path / "store")}},
                     load_entrypoints=False)


def test_the_marker_shows_the_tool_call_id_and_the_tools_accept_it(truncator: Truncator
                                                                   ) -> None:
    result = truncator.process(log(300), tool="execute_command", tool_call_id="call_9xQ2")
    assert "(tool call call_9xQ2)" in result.content
    assert result.artifact is not None and result.artifact.tool_call_id == "call_9xQ2"
    by_call = truncator.call_tool("artifact_tail", {"artifact_id": "call_9xQ2", "lines": 3})
    by_id = truncator.call_tool("artifact_tail", {"artifact_id": result.artifact.id,
                                                  "lines": 3})
    assert not by_call.is_error and by_call.content == by_id.content
    assert by_call.content.startswith(f"[{result.artifact.id}: ")
    page = truncator.call_tool("get_artifact", {"artifact_id": "call_9xQ2", "start_line": 2,
                                                "end_line": 3})
    assert "line 1\n" in page.content and "line 2\n" in page.content
    grep = truncator.call_tool("artifact_grep", {"artifact_id": "call_9xQ2",
                                                 "pattern": "line 299"})
    assert "line 299" in grep.content


def test_the_newest_artifact_of_a_tool_call_wins(truncator: Truncator) -> None:
    truncator.process(log(300, "first "), tool="t", tool_call_id="toolu_01AbC")
    time.sleep(0.01)
    second = truncator.process(log(300, "second "), tool="t", tool_call_id="toolu_01AbC")
    assert second.artifact is not None
    assert resolve_handle(truncator.store, "toolu_01AbC") == second.artifact.id
    head = truncator.call_tool("artifact_head", {"artifact_id": "toolu_01AbC", "lines": 1})
    assert "second line 0" in head.content


def test_an_unknown_tool_call_id_is_a_404_that_does_not_repeat_it(truncator: Truncator
                                                                  ) -> None:
    truncator.process(log(300), tool_call_id="call_known")
    missing = truncator.call_tool("get_artifact", {"artifact_id": "CANARY-call-id-copied"})
    assert missing.error is not None and missing.error.code == 404
    assert "CANARY" not in missing.content
    assert "no artifact is stored for the tool call id given" in missing.content
    bad = truncator.call_tool("get_artifact", {"artifact_id": "call id with spaces"})
    assert bad.error is not None and bad.error.code == 400
    assert "or a tool call id" in bad.content
    # A malformed artifact id is an error, not a tool call id to look up.
    malformed = truncator.call_tool("get_artifact", {"artifact_id": "art_1_" + "0" * 31})
    assert malformed.error is not None and malformed.error.code == 400


def test_ids_that_are_not_shown_or_accepted() -> None:
    assert is_tool_call_id("call_abc") and is_tool_call_id("toolu_01A") and is_tool_call_id("7")
    assert is_tool_call_id("a" * 128) and not is_tool_call_id("a" * 129)
    for value in ("", "call abc", "call\nid", "-x", "é", new_artifact_id(), "art_x", 7, None):
        assert not is_tool_call_id(value), value
    t = Truncator({"inline_limit": 300, "store": {"backend": "memory"}}, load_entrypoints=False)
    result = t.process(log(100), tool_call_id="call\n[forged] line")
    assert "forged" not in result.content  # not a handle: not shown
    assert result.artifact is not None and result.artifact.tool_call_id == "call\n[forged] line"


def test_the_schemas_say_a_tool_call_id_is_accepted() -> None:
    import re

    schema = Truncator(load_entrypoints=False).tool_schemas("openai")[0]
    artifact_id = schema["function"]["parameters"]["properties"]["artifact_id"]
    assert "tool call" in artifact_id["description"]
    pattern = artifact_id["pattern"]
    for good in ("call_abc", "toolu_01A", new_artifact_id()):
        assert re.search(pattern, good)
    for bad in ("art_1_" + "0" * 32 + "x", "call id", ""):
        assert not re.search(pattern, bad)


class IndexedStore(MemoryStore):
    """A backend with its own index of tool calls: used instead of reading list()."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[str] = []

    def find_tool_call(self, tool_call_id: str) -> ArtifactRef | None:
        self.asked.append(tool_call_id)
        return next((r for r in reversed(self.list()) if r.tool_call_id == tool_call_id), None)


def test_a_backend_may_answer_from_its_own_index() -> None:
    store = IndexedStore()
    t = Truncator({"inline_limit": 300}, store=store, load_entrypoints=False)
    result = t.process(log(100), tool_call_id="call_idx")
    assert find_tool_call(store, "call_idx") == result.artifact
    assert store.asked == ["call_idx"]
    assert t.call_tool("artifact_head", {"artifact_id": "call_idx"}).is_error is False


def test_resolve_handle_validates_before_any_lookup() -> None:
    class Untouchable(MemoryStore):
        def list(self) -> list[ArtifactRef]:
            raise AssertionError("no lookup for an invalid handle")

    with pytest.raises(InvalidArtifactId):
        resolve_handle(Untouchable(), "../../etc/passwd")
    with pytest.raises(ArtifactNotFound):
        resolve_handle(MemoryStore(), "call_none")


def test_trunc_artifacts_takes_a_tool_call_id_in_any_session(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("TRUNCATION_CORE_"):
            monkeypatch.delenv(name)
    older = Truncator.from_config(start=tmp_path)
    older.process(log(3000, "old "), tool="t", tool_call_id="call_cli")
    time.sleep(0.01)
    newer = Truncator.from_config(start=tmp_path)  # another session
    ref: Any = newer.process(log(3000, "new "), tool="t", tool_call_id="call_cli").artifact
    assert older.store.session_id != newer.store.session_id

    def run(*args: str) -> Any:
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)

    tail = run("artifacts", "tail", "call_cli", "-n", "1")
    assert tail.exit_code == 0 and tail.stdout == "new line 2999\n"
    shown = run("artifacts", "show", "call_cli", "--lines", "1", "--json")
    assert shown.exit_code == 0 and f'"id": "{ref.id}"' in shown.stdout
    grep = run("artifacts", "grep", "call_cli", "line 17$", "-E")
    assert grep.exit_code == 0 and grep.stdout == "18:new line 17\n"
    missing = run("artifacts", "head", "call_nowhere")
    assert missing.exit_code != 0 and "no artifact is stored for the tool call id" in (
        missing.stdout + missing.stderr)
