"""OpenAI Agents SDK: wrapped function_tools and the artifact tools in a real Runner run, with
the SDK's ScriptedModel (its Model interface) standing in for the LLM."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from adapter_conversation import BIG_OUTPUT, Reader

from truncation_core import Truncator

pytest.importorskip("agents", reason="openai-agents is installed by `make test` (the "
                    "adapters' openai-agents extra); without it this adapter cannot be tested")

from agents import (
    Agent,
    FunctionTool,
    RunConfig,
    Runner,
    ToolOutputFileContent,
    ToolOutputImage,
    ToolOutputText,
    function_tool,
)
from agents.strict_schema import ensure_strict_json_schema
from agents.testing import (
    ModelCall,
    ModelStep,
    ScriptedModel,
    assistant_message,
    function_call,
)
from truncation_core_adapters.openai_agents import (
    artifact_tools,
    truncating_tools,
)

#: No traces exported: nothing leaves the machine.
_OFFLINE = RunConfig(tracing_disabled=True)


@function_tool
def build(target: str) -> str:
    """Build a target; returns the log."""
    return BIG_OUTPUT


@function_tool
def numbers(n: int) -> list[int]:
    """Numbers up to n."""
    return list(range(n))


def _outputs(call: ModelCall) -> dict[str, str]:
    """call_id -> output of every tool call so far."""
    return {item["call_id"]: item["output"] for item in call.input
            if isinstance(item, dict) and item.get("type") == "function_call_output"}


def test_artifact_tools_are_strict_as_the_sdk_wants(truncator: Truncator) -> None:
    tools = artifact_tools(truncator)
    assert [t.name for t in tools] == ["get_artifact", "artifact_head", "artifact_tail",
                                       "artifact_grep"]
    for tool in tools:
        assert tool.strict_json_schema is True
        schema = json.loads(json.dumps(tool.params_json_schema))
        assert ensure_strict_json_schema(json.loads(json.dumps(schema))) == schema
    # the control: the plain schema is not what strict mode wants
    plain = truncator.tool_schemas("openai")[0]["function"]["parameters"]
    assert sorted(plain["required"]) != sorted(plain["properties"])


def test_the_conversation(truncator: Truncator) -> None:
    reader = Reader()
    seen: dict[str, Any] = {}
    turn = 0

    def respond(call: ModelCall) -> Any:
        nonlocal turn
        turn += 1
        outputs = _outputs(call)
        if turn == 1:
            seen["tools"] = {t.name: t for t in call.tools if isinstance(t, FunctionTool)}
            return [function_call("build", {"target": "all"}, call_id="build-1"),
                    function_call("numbers", {"n": 5}, call_id="numbers-1")]
        if turn == 2:
            seen["cut"], seen["numbers"] = outputs["build-1"], outputs["numbers-1"]
            return [function_call("get_artifact", reader.after_cut(outputs["build-1"]),
                                  call_id="page-2")]
        following = reader.after_page(outputs[f"page-{turn - 1}"])
        if following is None:
            return [assistant_message("read it all")]
        return [function_call("get_artifact", following, call_id=f"page-{turn}")]

    model = ScriptedModel([ModelStep.respond(respond) for _ in range(100)])
    agent = Agent(name="builder", model=model,
                  tools=[*truncating_tools([build, numbers], truncator),
                         *artifact_tools(truncator)])
    result = asyncio.run(Runner.run(agent, "build it", max_turns=100, run_config=_OFFLINE))
    assert result.final_output == "read it all"
    reader.check()
    assert seen["tools"]["build"].strict_json_schema is True  # kept from function_tool
    assert len(seen["cut"]) <= 8000 and seen["cut"].startswith("[Artifact: art_")
    assert json.loads(seen["numbers"]) == [0, 1, 2, 3, 4]  # within its limit: unchanged


def test_a_bad_artifact_call_returns_its_error_to_the_model(truncator: Truncator) -> None:
    artifact_id = truncator.process(BIG_OUTPUT).artifact.id  # type: ignore[union-attr]
    seen: list[str] = []

    def first(call: ModelCall) -> Any:
        return [function_call("get_artifact", {"artifact_id": artifact_id, "start_line": 10,
                                               "end_line": 3, "offset": None}, call_id="c1")]

    def second(call: ModelCall) -> Any:
        seen.append(_outputs(call)["c1"])
        return [assistant_message("done")]

    agent = Agent(name="reader", model=ScriptedModel([ModelStep.respond(first),
                                                      ModelStep.respond(second)]),
                  tools=artifact_tools(truncator))
    asyncio.run(Runner.run(agent, "read", run_config=_OFFLINE))
    assert seen[0].startswith("Error 400 (bad request): end_line: must be at least")


#: An image as a data URL: far over the inline limit as text.
IMAGE_URL = "data:image/png;base64," + "iVBORw0KGgo" * 3_000


@function_tool
def screenshot() -> ToolOutputImage:
    """A screenshot."""
    return ToolOutputImage(image_url=IMAGE_URL, detail="high")


@function_tool
def report() -> list[Any]:
    """A report with its PDF."""
    return [ToolOutputText(text=BIG_OUTPUT),
            ToolOutputFileContent(file_data="JVBERi0" * 3_000, filename="report.pdf")]


def test_images_and_files_pass_through_unchanged(truncator: Truncator) -> None:
    outputs: dict[str, Any] = {}

    def first(call: ModelCall) -> Any:
        return [function_call("screenshot", {}, call_id="shot"),
                function_call("report", {}, call_id="report")]

    def second(call: ModelCall) -> Any:
        outputs.update(_outputs(call))
        return [assistant_message("seen")]

    agent = Agent(name="viewer", model=ScriptedModel([ModelStep.respond(first),
                                                      ModelStep.respond(second)]),
                  tools=truncating_tools([screenshot, report], truncator))
    asyncio.run(Runner.run(agent, "look", run_config=_OFFLINE))
    # the image reaches the model as an image, whole (it was JSON text, cut)
    assert outputs["shot"] == [{"type": "input_image", "image_url": IMAGE_URL,
                                "detail": "high"}]
    # beside a file, the text is cut and the file is kept whole
    text, pdf = outputs["report"]
    assert text["type"] == "input_text" and text["text"].startswith("[Artifact: art_")
    assert len(text["text"]) <= 8000
    assert pdf == {"type": "input_file", "file_data": "JVBERi0" * 3_000,
                   "filename": "report.pdf"}


def test_a_tool_named_like_an_artifact_tool_is_refused(truncator: Truncator) -> None:
    @function_tool
    def get_artifact(artifact_id: str) -> str:
        """Mine."""
        return "mine"

    with pytest.raises(ValueError, match="rename the artifact tools"):
        truncating_tools([build, get_artifact], truncator)
