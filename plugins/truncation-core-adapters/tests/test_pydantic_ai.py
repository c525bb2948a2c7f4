"""pydantic-ai: TruncatingToolset in a real Agent run, with FunctionModel as the model."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from adapter_conversation import BIG_OUTPUT, Reader

from truncation_core import Truncator

pytest.importorskip("pydantic_ai", reason="pydantic-ai is installed by `make test` (the "
                    "adapters' pydantic-ai extra); without it this adapter cannot be tested")

from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.toolsets import FunctionToolset
from truncation_core_adapters.pydantic_ai import TruncatingToolset


def _toolset() -> FunctionToolset[Any]:
    toolset: FunctionToolset[Any] = FunctionToolset()

    @toolset.tool_plain
    def build(target: str) -> str:
        """Build a target; returns the log."""
        return BIG_OUTPUT

    @toolset.tool_plain
    def status() -> str:
        """A short status."""
        return "all good"

    return toolset


def _is_retry(part: Any) -> bool:
    """A ModelRetry reaches the model as a retry prompt (or, in newer pydantic-ai, as a
    tool return whose outcome is "retried")."""
    return isinstance(part, RetryPromptPart) or getattr(part, "outcome", None) == "retried"


def _last_part(messages: list[ModelMessage]) -> Any:
    return messages[-1].parts[-1]


def test_the_conversation(truncator: Truncator) -> None:
    reader = Reader()
    seen: dict[str, Any] = {}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        part = _last_part(messages)
        if len(messages) == 1:
            seen["tools"] = {t.name: t for t in info.function_tools}
            return ModelResponse(parts=[ToolCallPart("status", {}),
                                        ToolCallPart("build", {"target": "all"})])
        if isinstance(part, ToolReturnPart) and part.tool_name == "build":
            seen["status"] = messages[-1].parts[0].content
            seen["cut"] = part.content
            seen["metadata"] = part.metadata
            return ModelResponse(parts=[ToolCallPart("get_artifact",
                                                     reader.after_cut(part.content))])
        assert isinstance(part, ToolReturnPart) and part.tool_name == "get_artifact", part
        following = reader.after_page(part.content)
        if following is None:
            return ModelResponse(parts=[TextPart("read it all")])
        return ModelResponse(parts=[ToolCallPart("get_artifact", following)])

    agent = Agent(FunctionModel(model), toolsets=[TruncatingToolset(_toolset(), truncator)])
    result = asyncio.run(agent.run("build it"))
    assert result.output == "read it all"
    reader.check()
    # the artifact tools are strict: every property required, the optional ones nullable
    definition = seen["tools"]["get_artifact"]
    assert definition.strict is True
    schema = definition.parameters_json_schema
    assert sorted(schema["required"]) == sorted(schema["properties"])
    assert schema["properties"]["offset"]["type"] == ["integer", "null"]
    # what the model saw of the 1 MB: a reference and a preview, under the inline limit
    assert len(seen["cut"]) <= 8000 and seen["cut"].startswith("[Artifact: art_")
    assert seen["status"] == "all good"  # within its limit: unchanged
    assert seen["metadata"]["truncation"]["artifact_id"] == reader.calls[0]["artifact_id"]


def test_a_bad_artifact_call_asks_the_model_to_retry(truncator: Truncator) -> None:
    artifact_id = truncator.process(BIG_OUTPUT).artifact.id  # type: ignore[union-attr]
    turns: list[Any] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        part = _last_part(messages)
        turns.append(part)
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("get_artifact", {
                "artifact_id": artifact_id, "start_line": 10, "end_line": 3, "offset": None})])
        if _is_retry(part):
            return ModelResponse(parts=[ToolCallPart("get_artifact", {
                "artifact_id": artifact_id, "start_line": 3.0, "end_line": 4, "offset": None})])
        return ModelResponse(parts=[TextPart(part.content)])

    agent = Agent(FunctionModel(model), toolsets=[TruncatingToolset(_toolset(), truncator)])
    result = asyncio.run(agent.run("read"))
    retry = turns[1]
    assert _is_retry(retry)
    assert "end_line: must be at least start_line (10), got 3" in str(retry.content)
    assert "000003 compiling" in result.output and "000005" not in result.output


def test_a_name_clash_is_refused(truncator: Truncator) -> None:
    toolset: FunctionToolset[Any] = FunctionToolset()

    @toolset.tool_plain
    def get_artifact() -> str:
        return "mine"

    agent = Agent(FunctionModel(lambda m, i: ModelResponse(parts=[TextPart("x")])),
                  toolsets=[TruncatingToolset(toolset, truncator)])
    with pytest.raises(Exception, match="rename the artifact tools"):
        asyncio.run(agent.run("x"))
