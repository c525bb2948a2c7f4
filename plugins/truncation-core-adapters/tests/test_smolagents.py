"""smolagents: wrapped Tools and the artifact tools in a real ToolCallingAgent run, with a
scripted model (smolagents' Model interface; smolagents ships no fake model of its own)."""

from __future__ import annotations

from typing import Any

import pytest
from adapter_conversation import BIG_OUTPUT, Grepper

from truncation_core import Truncator

pytest.importorskip("smolagents", reason="smolagents is installed by `make test` (the "
                    "adapters' smolagents extra); without it this adapter cannot be tested")

from smolagents import Model, Tool, ToolCallingAgent, tool
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
)
from smolagents.tools import validate_tool_arguments
from truncation_core_adapters.smolagents import artifact_tools, truncating_tools


@tool
def build(target: str) -> str:
    """Build a target; returns the log.

    Args:
        target: What to build.
    """
    return BIG_OUTPUT


class ScriptedModel(Model):
    """Answers with the tool calls a function of the messages so far gives."""

    def __init__(self, respond: Any) -> None:
        super().__init__(model_id="scripted")
        self.respond = respond
        self.seen_tools: list[str] = []

    def generate(self, messages: list[ChatMessage], stop_sequences: list[str] | None = None,
                 response_format: Any = None, tools_to_call_from: list[Tool] | None = None,
                 **kwargs: Any) -> ChatMessage:
        self.seen_tools = [t.name for t in tools_to_call_from or ()]
        name, arguments = self.respond(messages)
        call = ChatMessageToolCall(id=f"call_{len(messages)}", type="function",
                                   function=ChatMessageToolCallFunction(name=name,
                                                                        arguments=arguments))
        return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[call])


def _observation(messages: list[ChatMessage]) -> str:
    """What the model read last: the observation of its last tool call."""
    last = messages[-1]
    content = last.content
    text = content if isinstance(content, str) else "".join(
        part.get("text", "") for part in content or ())
    return text.split("Observation:\n", 1)[-1].strip()


def test_the_conversation(truncator: Truncator) -> None:
    grepper = Grepper()
    turns: list[str] = []

    def respond(messages: list[ChatMessage]) -> tuple[str, dict[str, Any]]:
        turns.append("x")
        if len(turns) == 1:
            return "build", {"target": "all"}
        if len(turns) == 2:
            return "artifact_grep", grepper.after_cut(_observation(messages))
        grepper.after_grep(_observation(messages))
        return "final_answer", {"answer": "found it"}

    model = ScriptedModel(respond)
    agent = ToolCallingAgent(tools=[*truncating_tools([build], truncator),
                                    *artifact_tools(truncator)], model=model, max_steps=5,
                             verbosity_level=0)
    assert agent.run("build it") == "found it"
    grepper.check()
    assert {"build", "get_artifact", "artifact_grep"} <= set(model.seen_tools)


def test_artifact_tools_take_their_optional_inputs_as_null(truncator: Truncator) -> None:
    grep = {t.name: t for t in artifact_tools(truncator)}["artifact_grep"]
    assert grep.inputs["artifact_id"].get("nullable") is None  # required
    assert grep.inputs["regex"]["nullable"] is True
    artifact_id = truncator.process(BIG_OUTPUT, tool="build").metadata.artifact_id
    arguments = {"artifact_id": artifact_id, "pattern": "undefined", "regex": None,
                 "ignore_case": None, "context": None, "max_matches": None,
                 "start_line": None}
    validate_tool_arguments(grep, arguments)  # smolagents' own check accepts nulls
    assert "8501:" in grep(**arguments)
    with pytest.raises(ValueError, match="Fix the arguments"):
        grep(artifact_id=artifact_id, pattern="(", regex=True)


def test_a_tool_named_like_an_artifact_tool_is_refused(truncator: Truncator) -> None:
    @tool
    def get_artifact(artifact_id: str) -> str:
        """Mine.

        Args:
            artifact_id: An id.
        """
        return "mine"

    with pytest.raises(ValueError, match="rename the artifact tools"):
        truncating_tools([get_artifact], truncator)
