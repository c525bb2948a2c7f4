"""The OpenAI Agents SDK with truncation-core: wrap the function tools, add the artifact tools.

Runs offline: the SDK's ScriptedModel stands in for the LLM and does what a model would do
with a 1 MB build log: reads the cut result, then greps the artifact for the error. To use a
real model, drop ``model=`` (and set OPENAI_API_KEY).

    pip install "truncation-core-adapters[openai-agents]"
    python examples/openai_agents_agent.py
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from typing import Any

from agents import Agent, RunConfig, Runner, function_tool
from agents.testing import (
    ModelCall,
    ModelStep,
    ScriptedModel,
    assistant_message,
    function_call,
)
from truncation_core_adapters.openai_agents import artifact_tools, truncating_tools

from truncation_core import Truncator


@function_tool
def build(target: str) -> str:
    """Build a target and return the log."""
    lines = [f"[{i:06d}] compiling module_{i % 900:03d}.c ... ok" for i in range(15_000)]
    lines[9_000] = "[009000] error: undefined reference to `frobnicate'"
    return "\n".join(lines) + "\n"


def _output(call: ModelCall, call_id: str) -> str:
    return next(str(item["output"]) for item in call.input if isinstance(item, dict)
                and item.get("call_id") == call_id and item.get("type") == "function_call_output")


def read_the_cut(call: ModelCall) -> Any:
    seen = _output(call, "build-1")
    print("--- what the model sees of 1 MB ---\n" + seen[:600] + " ...\n")
    artifact_id = re.search(r"art_\d+_[0-9a-f]{32}", seen).group()  # type: ignore[union-attr]
    return [function_call("artifact_grep", {
        "artifact_id": artifact_id, "pattern": "error:", "regex": None, "ignore_case": None,
        "context": 1, "max_matches": None, "start_line": None}, call_id="grep-1")]


def answer(call: ModelCall) -> Any:
    return [assistant_message("The build fails here:\n" + _output(call, "grep-1"))]


async def main() -> None:
    with tempfile.TemporaryDirectory() as workspace:
        truncator = Truncator({"store": {"root": workspace}})
        stand_in = ScriptedModel([
            [function_call("build", {"target": "all"}, call_id="build-1")],
            ModelStep.respond(read_the_cut), ModelStep.respond(answer)])
        agent = Agent(name="builder", model=stand_in,
                      tools=[*truncating_tools([build], truncator), *artifact_tools(truncator)])
        result = await Runner.run(agent, "Build everything and tell me what broke.",
                                  run_config=RunConfig(tracing_disabled=True))
        print(result.final_output)


if __name__ == "__main__":
    asyncio.run(main())
