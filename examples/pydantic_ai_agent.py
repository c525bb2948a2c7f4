"""pydantic-ai with truncation-core: one line, ``TruncatingToolset(toolset, truncator)``.

Runs offline: a FunctionModel stands in for the LLM and does what a model would do with a
1 MB build log: reads the cut result, then greps the artifact for the error. To use a real
model, pass ``"openai:gpt-4.1"`` (or any model name) to ``Agent`` instead.

    pip install "truncation-core-adapters[pydantic-ai]"
    python examples/pydantic_ai_agent.py
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.toolsets import FunctionToolset
from truncation_core_adapters.pydantic_ai import TruncatingToolset

from truncation_core import Truncator

tools: FunctionToolset[None] = FunctionToolset()


@tools.tool_plain
def build(target: str) -> str:
    """Build a target and return the log."""
    lines = [f"[{i:06d}] compiling module_{i % 900:03d}.c ... ok" for i in range(15_000)]
    lines[9_000] = "[009000] error: undefined reference to `frobnicate'"
    return "\n".join(lines) + "\n"


def stand_in_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """What an LLM would do: build, then grep the artifact the cut result names."""
    last: Any = messages[-1].parts[-1]
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart("build", {"target": "all"})])
    if getattr(last, "tool_name", None) == "build":
        print("--- what the model sees of 1 MB ---\n" + last.content[:600] + " ...\n")
        artifact_id = re.search(r"art_\d+_[0-9a-f]{32}", last.content).group()  # type: ignore[union-attr]
        return ModelResponse(parts=[ToolCallPart("artifact_grep", {
            "artifact_id": artifact_id, "pattern": "error:", "regex": None,
            "ignore_case": None, "context": 1, "max_matches": None, "start_line": None})])
    return ModelResponse(parts=[TextPart("The build fails here:\n" + last.content)])


def main() -> None:
    with tempfile.TemporaryDirectory() as workspace:
        truncator = Truncator({"store": {"root": workspace}})
        agent = Agent(FunctionModel(stand_in_model),
                      toolsets=[TruncatingToolset(tools, truncator)])
        result = asyncio.run(agent.run("Build everything and tell me what broke."))
        print(result.output)


if __name__ == "__main__":
    main()
