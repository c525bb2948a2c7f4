"""pydantic-ai: TruncatingToolset in a real Agent run, with FunctionModel as the model."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest
from adapter_conversation import BIG_OUTPUT, Reader

from truncation_core import Truncator

pytest.importorskip("pydantic_ai", reason="pydantic-ai is installed by `make test` (the "
                    "adapters' pydantic-ai extra); without it this adapter cannot be tested")

from pydantic_ai import Agent
from pydantic_ai.messages import (
    BinaryContent,
    ImageUrl,
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.toolsets import FunctionToolset, PrefixedToolset
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


#: A PNG's bytes (a signature and data): far over the inline limit as JSON text.
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 400


def _returns(toolset: FunctionToolset[Any], truncator: Truncator,
             *calls: str) -> list[ToolReturnPart]:
    """The tool returns the model reads after calling each of *calls* (no arguments)."""
    returns: list[ToolReturnPart] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart(name, {}) for name in calls])
        returns.extend(p for p in messages[-1].parts if isinstance(p, ToolReturnPart))
        return ModelResponse(parts=[TextPart("seen")])

    asyncio.run(Agent(FunctionModel(model),
                      toolsets=[TruncatingToolset(toolset, truncator)]).run("go"))
    return returns


def test_media_parts_pass_through_unchanged(truncator: Truncator) -> None:
    toolset: FunctionToolset[Any] = FunctionToolset()
    image_url = ImageUrl(url="https://example.com/" + "x" * 9_000 + ".png")

    @toolset.tool_plain
    def screenshot() -> BinaryContent:
        return BinaryContent(data=PNG, media_type="image/png")

    @toolset.tool_plain
    def page() -> list[Any]:
        return [BIG_OUTPUT, image_url]

    shot, listed = _returns(toolset, truncator, "screenshot", "page")
    # the image reaches the model as the image it is, byte for byte (it was JSON text, cut)
    assert isinstance(shot.content, BinaryContent) and shot.content.data == PNG
    # in a list, the text is cut and the image is kept as it is
    text, image = listed.content
    assert text.startswith("[Artifact: art_") and len(text) <= 8000
    assert image == image_url


def test_a_prefix_outside_is_refused(truncator: Truncator) -> None:
    with pytest.raises(ValueError, match="put it inside"):
        TruncatingToolset(_toolset(), truncator).prefixed("ci")
    agent = Agent(FunctionModel(lambda m, i: ModelResponse(parts=[TextPart("x")])),
                  toolsets=[PrefixedToolset(TruncatingToolset(_toolset(), truncator), "ci")])
    with pytest.raises(ValueError, match="put it inside"):
        asyncio.run(agent.run("x"))


def test_a_prefix_inside_names_the_tools_once(tmp_path: Any) -> None:
    truncator = Truncator({"store": {"root": str(tmp_path)}, "artifact_tools": {"prefix": "ci_"},
                           "tools": {"get_artifact": {"inline_limit": 120_000}}},
                          load_entrypoints=False)
    reader = Reader("ci_get_artifact")
    listed: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        part = _last_part(messages)
        if len(messages) == 1:
            listed.extend(t.name for t in info.function_tools)
            return ModelResponse(parts=[ToolCallPart("ci_build", {"target": "all"})])
        if part.tool_name == "ci_build":
            return ModelResponse(parts=[ToolCallPart("ci_get_artifact",
                                                     reader.after_cut(part.content))])
        following = reader.after_page(part.content)
        if following is None:
            return ModelResponse(parts=[TextPart("read it all")])
        return ModelResponse(parts=[ToolCallPart("ci_get_artifact", following)])

    agent = Agent(FunctionModel(model),
                  toolsets=[TruncatingToolset(_toolset().prefixed("ci"), truncator)])
    assert asyncio.run(agent.run("build")).output == "read it all"
    reader.check()
    assert sorted(listed) == ["ci_artifact_grep", "ci_artifact_head", "ci_artifact_tail",
                              "ci_build", "ci_get_artifact", "ci_status"]


@pytest.mark.parametrize("published", [None, ["get_artifact"]])
def test_markers_name_only_the_tools_the_model_has(tmp_path: Any,
                                                   published: list[str] | None) -> None:
    """Without the artifact tools (artifact_tools=False), or with only some published, the
    cut names no tool the model cannot call."""
    names = {} if published is None else {"published": published}
    truncator = Truncator({"store": {"root": str(tmp_path)}, "artifact_tools": names},
                          load_entrypoints=False)
    seen: dict[str, Any] = {}

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            seen["tools"] = {t.name for t in info.function_tools}
            return ModelResponse(parts=[ToolCallPart("build", {"target": "all"})])
        seen["cut"] = _last_part(messages).content
        return ModelResponse(parts=[TextPart("done")])

    toolset = TruncatingToolset(_toolset(), truncator, artifact_tools=published is not None)
    asyncio.run(Agent(FunctionModel(model), toolsets=[toolset]).run("build"))
    named = set(re.findall(r"\b(get_artifact|artifact_head|artifact_tail|artifact_grep)\b",
                           seen["cut"]))
    assert seen["cut"].startswith("[Artifact: art_")
    assert named <= seen["tools"], (named, seen["tools"])
    assert seen["tools"] - {"build", "status"} == set(published or ())


def test_a_renaming_outside_that_leaves_the_artifact_tools_is_kept(truncator: Truncator) -> None:
    listed: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            listed.extend(t.name for t in info.function_tools)
            return ModelResponse(parts=[ToolCallPart("make", {"target": "all"})])
        return ModelResponse(parts=[TextPart(_last_part(messages).content[:15])])

    toolset = TruncatingToolset(_toolset(), truncator).renamed({"make": "build"})
    result = asyncio.run(Agent(FunctionModel(model), toolsets=[toolset]).run("build"))
    assert "make" in listed and "get_artifact" in listed
    assert result.output == "[Artifact: art_"
