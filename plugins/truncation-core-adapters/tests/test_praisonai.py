"""PraisonAI (praisonaiagents): tools through Truncator.tool and the artifact tools in a real
Agent run, and TruncationArtifactStore as PraisonAI's ArtifactStoreProtocol, with PraisonAI's
own ScriptedModel (praisonaiagents.model_harness) standing in for the LLM."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from adapter_conversation import BIG_LINES, BIG_OUTPUT, Grepper
from praisonaiagents import Agent
from praisonaiagents.config import ToolConfig
from praisonaiagents.context.artifacts import (
    ArtifactMetadata,
    ArtifactRef,
    ArtifactStoreProtocol,
)
from praisonaiagents.model_harness import ScriptedModel, allow_model_requests
from redis_server import redis_server  # noqa: F401 (a fixture)
from truncation_core_adapters.praisonai import TruncationArtifactStore, artifact_tools

from truncation_core import Truncator

allow_model_requests(False)  # nothing here may reach a provider
warnings.filterwarnings("ignore", module="praisonaiagents")


def build(target: str) -> str:
    """Build a target; returns the log.

    Args:
        target: What to build.
    """
    return BIG_OUTPUT


def _tool_result(request: Any) -> str:
    """The last tool result the agent sent (PraisonAI sends a str result as JSON)."""
    content = request.messages[-1]["content"]
    assert request.messages[-1]["role"] == "tool"
    return json.loads(content) if content.startswith('"') else content


def test_the_conversation(truncator: Truncator) -> None:
    grepper = Grepper()
    model = ScriptedModel([
        ScriptedModel.tool_call("build", {"target": "all"}),
        lambda request: ScriptedModel.tool_call("artifact_grep",
                                                grepper.after_cut(_tool_result(request))),
        lambda request: grepper.after_grep(_tool_result(request)) or "found it",
    ])
    agent = Agent(instructions="You build things.", model=model,
                  tools=[truncator.tool(build), *artifact_tools(truncator)])
    assert agent.start("build it") == "found it"
    grepper.check()
    offered = {t["function"]["name"]: t["function"] for t in model.requests[0].tools}
    assert {"build", "get_artifact", "artifact_head", "artifact_tail",
            "artifact_grep"} <= set(offered)
    grep = offered["artifact_grep"]["parameters"]
    assert set(grep["required"]) == {"artifact_id", "pattern"}


@pytest.fixture(params=["filesystem", "redis"])
def store_truncator(request: pytest.FixtureRequest, tmp_path: Path) -> Truncator:
    if request.param == "filesystem":
        return Truncator({"store": {"root": str(tmp_path / "artifacts")}},
                         load_entrypoints=False)
    # a real redis-server (started by the test; CI installs it and may not skip)
    server = request.getfixturevalue("redis_server")
    return Truncator({"store": {"backend": "redis", "url": server.url, "prefix": "praison",
                                "session": "work"}, "plugins": {"enable": ["redis"]}})


def test_the_store_protocol_over_our_store(store_truncator: Truncator) -> None:
    store = TruncationArtifactStore(store_truncator)
    assert isinstance(store, ArtifactStoreProtocol)
    ref = store.store(BIG_OUTPUT, ArtifactMetadata(agent_id="builder", run_id="run-1",
                                                   tool_name="build", turn_id=3))
    assert ref.path == ref.artifact_id and ref.artifact_id.startswith("art_")
    assert ref.size_bytes == len(BIG_OUTPUT.encode()) and len(ref.checksum) == 64
    assert store_truncator.store.stat(ref.artifact_id).backend == \
        store_truncator.config.store.backend
    # PraisonAI's tools pass the path alone
    bare = ArtifactRef(path=ref.path, summary="", size_bytes=0)
    assert store.load(bare) == BIG_OUTPUT
    assert store.head(bare, 2) == "\n".join(BIG_LINES[:2]) + "\n"
    assert store.tail(bare, 1) == BIG_LINES[-1] + "\n"
    assert store.chunk(bare, 8500, 8502) == "\n".join(BIG_LINES[8499:8502]) + "\n"
    (match,) = store.grep(bare, r"undefined reference to `\w+'", context_lines=1)
    assert (match.line_number, match.line_content) == (8501, BIG_LINES[8500])
    assert match.context_before == [BIG_LINES[8499]] and match.context_after == [BIG_LINES[8501]]
    data = store.store({"rows": [1, 2]}, ArtifactMetadata(agent_id="other", run_id="run-2"))
    assert store.load(data) == {"rows": [1, 2]}
    assert [r.artifact_id for r in store.list_artifacts(run_id="run-1")] == [ref.artifact_id]
    assert [r.artifact_id for r in store.list_artifacts(agent_id="other")] == [data.artifact_id]
    assert store.list_artifacts(tool_name="build")[0].turn_id == 0  # not kept: the ref has it
    assert store.delete(bare) is True and store.delete(bare) is False
    assert [r.artifact_id for r in store.list_artifacts()] == [data.artifact_id]


def test_praisonai_spills_into_our_store_and_our_tools_read_it(tmp_path: Path) -> None:
    """PraisonAI's own cut, its artifact in our store, read back with our artifact tools
    (PraisonAI's own artifact tools do not register in praisonaiagents 1.7: importing
    praisonaiagents.tools.artifact_tools fails)."""
    truncator = Truncator({"store": {"root": str(tmp_path / "artifacts")}},
                          load_entrypoints=False)
    seen: dict[str, Any] = {}

    def grep_it(request: Any) -> Any:
        seen["cut"] = cut = _tool_result(request)
        path = cut.rsplit("[Artifact from build: ", 1)[1].split(" ", 1)[0]
        return ScriptedModel.tool_call("artifact_grep", {"artifact_id": path,
                                                         "pattern": "undefined reference"})

    def answer(request: Any) -> str:
        seen["found"] = _tool_result(request)
        return "found it"

    model = ScriptedModel([ScriptedModel.tool_call("build", {"target": "all"}), grep_it,
                           answer])
    config = ToolConfig(enable_artifacts=True,
                        artifact_store=TruncationArtifactStore(truncator))
    agent = Agent(instructions="You build things.", model=model,
                  tools=[build, *artifact_tools(truncator)], tool_config=config)
    assert agent.start("build it") == "found it"
    # PraisonAI's own cut, and its reference to the artifact in our store
    assert "[Artifact from build: art_" in seen["cut"] and len(seen["cut"]) < len(BIG_OUTPUT)
    (stored,) = truncator.store.list()
    assert truncator.artifacts.text(stored.id) == BIG_OUTPUT
    grepper = Grepper()
    grepper.after_grep(seen["found"])
    grepper.check()


def test_the_example_runs() -> None:
    from test_examples import check_example

    check_example("praisonai_agent")
