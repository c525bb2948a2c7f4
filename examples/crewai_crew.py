"""CrewAI with truncation-core: an after_tool_call hook, and the artifact tools.

Runs offline: a scripted LLM (CrewAI's BaseLLM interface, in CrewAI's ReAct text) does what a
model would do with a 1 MB build log: reads the cut result, then greps the artifact for the
error. To use a real model, give the Agent ``llm="gpt-4.1"`` (and set OPENAI_API_KEY).

    pip install "truncation-core-adapters[crewai]"
    python examples/crewai_crew.py
"""

from __future__ import annotations

import json
import re
import tempfile
from typing import Any

from crewai import Agent, Crew, Task
from crewai.hooks import after_tool_call, unregister_after_tool_call_hook
from crewai.llms.base_llm import BaseLLM
from crewai.tools import tool
from truncation_core_adapters.crewai import artifact_tools, truncating_hook

from truncation_core import Truncator


@tool("build")
def build(target: str) -> str:
    """Build a target and return the log."""
    lines = [f"[{i:06d}] compiling module_{i % 900:03d}.c ... ok" for i in range(15_000)]
    lines[9_000] = "[009000] error: undefined reference to `frobnicate'"
    return "\n".join(lines) + "\n"


class StandIn(BaseLLM):
    """Builds, greps the artifact the cut names, and answers with what it found."""

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None,
             available_functions: Any = None, from_task: Any = None, from_agent: Any = None,
             response_model: Any = None) -> str:
        said = [m["content"] for m in messages if m["role"] == "assistant"]
        if not said:
            return 'Thought: build it\nAction: build\nAction Input: {"target": "all"}'
        seen = said[-1].split("Observation:", 1)[1].strip()
        if "Action: build" in said[-1]:
            print("--- what the model sees of 1 MB ---\n" + seen[:600] + " ...\n")
            artifact_id = re.search(r"art_\d+_[0-9a-f]{32}", seen).group()  # type: ignore[union-attr]
            return ("Thought: find the error\nAction: artifact_grep\nAction Input: "
                    + json.dumps({"artifact_id": artifact_id, "pattern": "error:",
                                  "context": 1}))
        return "Thought: found it\nFinal Answer: The build fails here:\n" + seen

    def supports_function_calling(self) -> bool:
        return False


def main() -> None:
    with tempfile.TemporaryDirectory() as workspace:
        truncator = Truncator({"store": {"root": workspace}})
        hook = after_tool_call(truncating_hook(truncator))
        try:
            agent = Agent(role="builder", goal="Build the project", backstory="A build bot.",
                          llm=StandIn(model="stand-in"),
                          tools=[build, *artifact_tools(truncator)])
            task = Task(description="Build everything and tell me what broke.",
                        expected_output="The line that failed", agent=agent)
            print(Crew(agents=[agent], tasks=[task]).kickoff())
        finally:
            unregister_after_tool_call_hook(hook)


if __name__ == "__main__":
    main()
