"""smolagents with truncation-core: wrap the tools, add the artifact tools.

Runs offline: a scripted model (smolagents' Model interface) does what a model would do with
a 1 MB build log: reads the cut result, then greps the artifact for the error. To use a real
model, pass one of smolagents' models instead (InferenceClientModel, LiteLLMModel ...).

    pip install "truncation-core-adapters[smolagents]"
    python examples/smolagents_agent.py
"""

from __future__ import annotations

import json
import re
import tempfile
from typing import Any

from smolagents import Model, ToolCallingAgent, tool
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
)
from truncation_core_adapters.smolagents import artifact_tools, truncating_tools

from truncation_core import Truncator


@tool
def build(target: str) -> str:
    """Build a target and return the log.

    Args:
        target: What to build.
    """
    lines = [f"[{i:06d}] compiling module_{i % 900:03d}.c ... ok" for i in range(15_000)]
    lines[9_000] = "[009000] error: undefined reference to `frobnicate'"
    return "\n".join(lines) + "\n"


class StandIn(Model):
    """Builds, greps the artifact the cut names, and answers with what it found."""

    turn = 0

    def generate(self, messages: list[ChatMessage], stop_sequences: Any = None,
                 response_format: Any = None, tools_to_call_from: Any = None,
                 **kwargs: Any) -> ChatMessage:
        content = messages[-1].content
        seen = content if isinstance(content, str) else "".join(
            part.get("text", "") for part in content or ())
        self.turn += 1
        if self.turn == 1:
            name, arguments = "build", {"target": "all"}
        elif self.turn == 2:
            cut = seen.split("Observation:\n", 1)[1].strip()
            print("--- what the model sees of 1 MB ---\n" + cut[:600] + " ...\n")
            artifact_id = re.search(r"art_\d+_[0-9a-f]{32}", cut).group()  # type: ignore[union-attr]
            name, arguments = "artifact_grep", {"artifact_id": artifact_id,
                                                "pattern": "error:", "context": 1}
        else:
            found = seen.split("Observation:\n", 1)[1].strip()
            name, arguments = "final_answer", {"answer": "The build fails here:\n" + found}
        call = ChatMessageToolCall(id=f"call_{len(messages)}", type="function",
                                   function=ChatMessageToolCallFunction(
                                       name=name, arguments=json.dumps(arguments)))
        return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[call])


def main() -> None:
    with tempfile.TemporaryDirectory() as workspace:
        truncator = Truncator({"store": {"root": workspace}})
        agent = ToolCallingAgent(tools=[*truncating_tools([build], truncator),
                                        *artifact_tools(truncator)],
                                 model=StandIn(model_id="stand-in"), verbosity_level=0)
        print(agent.run("Build everything and tell me what broke."))


if __name__ == "__main__":
    main()
