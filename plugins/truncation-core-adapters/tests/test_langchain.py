"""LangChain (langchain-core): wrapped BaseTools and the artifact tools, driven by the
framework's GenericFakeChatModel in a tool-calling loop."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from adapter_conversation import BIG_OUTPUT, Reader

from truncation_core import Truncator

pytest.importorskip("langchain_core", reason="langchain-core is installed by `make test` (the "
                    "adapters' langchain extra); without it this adapter cannot be tested")

from langchain_core.language_models.fake_chat_models import (
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, InjectedToolCallId, ToolException, tool
from langchain_core.utils.function_calling import convert_to_openai_tool
from truncation_core_adapters.langchain import artifact_tools, truncating_tools


@tool
def build(target: str) -> str:
    """Build a target; returns the log."""
    return BIG_OUTPUT


@tool
def status() -> str:
    """A short status."""
    return "all good"


def _tool_call(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id,
                                              "type": "tool_call"}])


async def _converse(model: GenericFakeChatModel, tools: list[BaseTool],
                    history: list[BaseMessage]) -> AIMessage:
    """The tool-calling loop an agent runs: model, tools, model ... until plain text."""
    by_name = {t.name: t for t in tools}
    # What a chat model's bind_tools(tools, strict=True) sends (the fake model has none).
    bound = model.bind(tools=[convert_to_openai_tool(t, strict=True) for t in tools])
    for _ in range(100):
        reply = await bound.ainvoke(history)
        history.append(reply)
        if not reply.tool_calls:
            return reply
        for call in reply.tool_calls:
            history.append(await by_name[call["name"]].ainvoke(call))
    raise AssertionError("the conversation does not end")


def test_artifact_tools_bind_as_strict_openai_tools(truncator: Truncator) -> None:
    from openai.types.chat import ChatCompletionToolParam
    from pydantic import TypeAdapter

    for t in artifact_tools(truncator):
        converted = convert_to_openai_tool(t, strict=True)
        TypeAdapter(ChatCompletionToolParam).validate_python(converted, strict=True)
        parameters = converted["function"]["parameters"]
        assert sorted(parameters["required"]) == sorted(parameters["properties"])
        assert parameters["additionalProperties"] is False


def test_the_conversation(truncator: Truncator) -> None:
    reader = Reader()
    history: list[BaseMessage] = [HumanMessage("build it")]
    seen: dict[str, ToolMessage] = {}

    def script() -> Iterator[AIMessage]:
        yield AIMessage(content="", tool_calls=[
            {"name": "build", "args": {"target": "all"}, "id": "b1", "type": "tool_call"},
            {"name": "status", "args": {}, "id": "s1", "type": "tool_call"}])
        seen["cut"], seen["status"] = history[-2], history[-1]  # type: ignore[assignment]
        yield _tool_call("get_artifact", reader.after_cut(str(seen["cut"].content)), "p0")
        for turn in range(1, 100):
            page = history[-1]
            assert isinstance(page, ToolMessage) and page.status == "success", page
            following = reader.after_page(str(page.content))
            if following is None:
                break
            yield _tool_call("get_artifact", following, f"p{turn}")
        yield AIMessage(content="read it all")

    tools = [*truncating_tools([build, status], truncator), *artifact_tools(truncator)]
    final = asyncio.run(_converse(GenericFakeChatModel(messages=script()), tools, history))
    assert final.content == "read it all"
    reader.check()
    cut_message = seen["cut"]
    assert len(str(cut_message.content)) <= 8000
    assert str(cut_message.content).startswith("[Artifact: art_")
    assert cut_message.artifact["artifact_id"] == reader.calls[0]["artifact_id"]
    assert cut_message.artifact["truncation"]["original_size"] == len(BIG_OUTPUT)
    assert seen["status"].content == "all good" and seen["status"].artifact is None
    page = history[-2]
    assert isinstance(page, ToolMessage) and page.artifact["tool"] == "get_artifact"


def test_sync_invocation_and_errors_as_tool_exceptions(truncator: Truncator) -> None:
    [wrapped] = truncating_tools([build], truncator)
    assert wrapped.name == "build" and wrapped.args == build.args
    message = wrapped.invoke({"name": "build", "args": {"target": "x"}, "id": "c1",
                              "type": "tool_call"})
    assert isinstance(message, ToolMessage) and message.artifact["artifact_id"]
    get_artifact = artifact_tools(truncator)[0]
    error = get_artifact.invoke({"name": "get_artifact", "id": "c2", "type": "tool_call",
                                 "args": {"artifact_id": message.artifact["artifact_id"],
                                          "start_line": 10, "end_line": 3, "offset": None}})
    assert error.status == "error"
    assert "end_line: must be at least start_line (10), got 3" in error.content
    ok = get_artifact.invoke({"name": "get_artifact", "id": "c3", "type": "tool_call",
                              "args": {"artifact_id": message.artifact["artifact_id"],
                                       "start_line": 2, "end_line": 2, "offset": None}})
    assert ok.status == "success" and "000002 compiling" in ok.content
    assert json.dumps(ok.artifact)  # plain data


def _call(name: str, args: dict[str, Any], call_id: str = "call_1") -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def test_a_tool_with_an_injected_call_id_works_and_its_output_is_found_by_it(
        truncator: Truncator) -> None:
    @tool
    def deploy(target: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Deploy a target."""
        return BIG_OUTPUT.replace("ok", f"ok ({tool_call_id})")

    (wrapped,) = truncating_tools([deploy], truncator)
    assert "tool_call_id" not in wrapped.tool_call_schema.model_json_schema()["properties"]
    message = wrapped.invoke(_call("deploy", {"target": "prod"}, "call_7f3a"))
    assert isinstance(message, ToolMessage) and message.tool_call_id == "call_7f3a"
    assert message.content.startswith("[Artifact: art_") and "(tool call call_7f3a)" in \
        message.content
    # the call's id stands for its output: what was cut is read back by it
    page = truncator.call_tool("get_artifact", {"artifact_id": "call_7f3a", "start_line": 2,
                                                "end_line": 2})
    assert page.error is None and "000002 compiling" in page.content
    assert "ok (call_7f3a)" in page.content


def test_a_content_and_artifact_tool_keeps_its_own_artifact(truncator: Truncator) -> None:
    @tool(response_format="content_and_artifact")
    def query(sql: str) -> tuple[str, dict[str, int]]:
        """Run a query."""
        return BIG_OUTPUT, {"rows": 17_000}

    (wrapped,) = truncating_tools([query], truncator)
    message = wrapped.invoke(_call("query", {"sql": "select"}))
    assert message.artifact == {"rows": 17_000}
    assert message.content.startswith("[Artifact: art_")
    truncation = message.response_metadata["truncation"]
    assert truncation["truncation"]["original_size"] == len(BIG_OUTPUT)


def test_a_handled_tool_exception_keeps_its_error_status(truncator: Truncator) -> None:
    @tool
    def compile_all() -> str:
        """Compile everything."""
        raise ToolException(BIG_OUTPUT)

    compile_all.handle_tool_error = True
    (wrapped,) = truncating_tools([compile_all], truncator)
    message = wrapped.invoke(_call("compile_all", {}))
    assert message.status == "error"
    assert message.content.startswith("[Artifact: art_") and len(message.content) <= 8000


def test_image_and_file_blocks_pass_through_unchanged(truncator: Truncator) -> None:
    image = {"type": "image", "base64": "iVBORw0KGgo" * 3_000, "mime_type": "image/png"}
    pdf = {"type": "file", "base64": "JVBERi0" * 3_000, "mime_type": "application/pdf"}

    @tool
    def screenshot() -> list[dict[str, Any]]:
        """A screenshot."""
        return [image]

    @tool
    def report() -> list[dict[str, Any]]:
        """A report with its PDF."""
        return [{"type": "text", "text": BIG_OUTPUT}, pdf]

    shot, rep = truncating_tools([screenshot, report], truncator)
    assert shot.invoke(_call("screenshot", {})).content == [image]
    text, kept = rep.invoke(_call("report", {})).content
    assert text["type"] == "text" and text["text"].startswith("[Artifact: art_")
    assert len(text["text"]) <= 8000 and kept == pdf


def test_a_tool_named_like_an_artifact_tool_is_refused(truncator: Truncator) -> None:
    @tool
    def artifact_grep(pattern: str) -> str:
        """Mine."""
        return "mine"

    with pytest.raises(ValueError, match="rename the artifact tools"):
        truncating_tools([build, artifact_grep], truncator)
