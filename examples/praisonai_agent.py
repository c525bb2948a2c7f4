"""PraisonAI with truncation-core: tools through Truncator.tool, and the artifact tools.

Runs offline: PraisonAI's own ScriptedModel stands in for the LLM and does what a model would
do with a 1 MB build log: reads the cut result, then greps the artifact for the error. To use
a real model, give the Agent ``model="gpt-4.1"`` (and set OPENAI_API_KEY).

To keep PraisonAI's own cut but keep its artifacts in truncation-core's store (filesystem or
Redis), pass ``tool_config=ToolConfig(enable_artifacts=True,
artifact_store=TruncationArtifactStore(truncator))`` instead (docs/integrations.md).

    pip install "truncation-core-adapters[praisonai]" "praisonaiagents[llm]"
    python examples/praisonai_agent.py
"""

from __future__ import annotations

import json
import re
import tempfile
import warnings
from typing import Any

from praisonaiagents import Agent
from praisonaiagents.model_harness import ScriptedModel
from truncation_core_adapters.praisonai import artifact_tools

from truncation_core import Truncator

warnings.filterwarnings("ignore", module="praisonaiagents")


def build(target: str) -> str:
    """Build a target and return the log.

    Args:
        target: What to build.
    """
    lines = [f"[{i:06d}] compiling module_{i % 900:03d}.c ... ok" for i in range(15_000)]
    lines[9_000] = "[009000] error: undefined reference to `frobnicate'"
    return "\n".join(lines) + "\n"


def _result(request: Any) -> str:
    content = request.messages[-1]["content"]  # PraisonAI sends a str result as JSON
    return json.loads(content) if content.startswith('"') else content


def read_the_cut(request: Any) -> Any:
    seen = _result(request)
    print("--- what the model sees of 1 MB ---\n" + seen[:600] + " ...\n")
    artifact_id = re.search(r"art_\d+_[0-9a-f]{32}", seen).group()  # type: ignore[union-attr]
    return ScriptedModel.tool_call("artifact_grep", {"artifact_id": artifact_id,
                                                     "pattern": "error:", "context": 1})


def main() -> None:
    with tempfile.TemporaryDirectory() as workspace:
        truncator = Truncator({"store": {"root": workspace}})
        stand_in = ScriptedModel([ScriptedModel.tool_call("build", {"target": "all"}),
                                  read_the_cut,
                                  lambda request: "The build fails here:\n" + _result(request)])
        agent = Agent(instructions="You build software.", model=stand_in,
                      tools=[truncator.tool(build), *artifact_tools(truncator)])
        print(agent.start("Build everything and tell me what broke."))


if __name__ == "__main__":
    main()
