"""CrewAI: truncating_hook registered with crewai.hooks.after_tool_call, and the artifact tools
as BaseTools, in a real Crew kickoff with a scripted LLM (CrewAI's BaseLLM interface, in its
text ReAct form: CrewAI ships no fake model)."""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from adapter_conversation import BIG_OUTPUT, Grepper
from crewai import Agent, Crew, Task
from crewai.hooks import after_tool_call, unregister_after_tool_call_hook
from crewai.llms.base_llm import BaseLLM
from crewai.tools import tool
from truncation_core_adapters.crewai import artifact_tools, truncating_hook

from truncation_core import Truncator

warnings.filterwarnings("ignore", module="crewai")


@tool("build")
def build(target: str) -> str:
    """Build a target; returns the log."""
    return BIG_OUTPUT


class ScriptedLLM(BaseLLM):
    """Replies in CrewAI's ReAct text with what ``respond(action, observation)`` gives."""

    respond: Any = None

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None,
             available_functions: Any = None, from_task: Any = None, from_agent: Any = None,
             response_model: Any = None) -> str:
        said = [m["content"] for m in messages if m["role"] == "assistant"]
        if not said:
            return self.respond(None, None)
        action = re.search(r"Action: (\w+)", said[-1])
        observation = said[-1].split("Observation:", 1)[1].strip()
        return self.respond(action.group(1) if action else None, observation)

    def supports_function_calling(self) -> bool:
        return False


@pytest.fixture
def hooked(truncator: Truncator) -> Iterator[Truncator]:
    """The hook registered (CrewAI's hooks are the process's), and unregistered after."""
    hook = after_tool_call(truncating_hook(truncator))
    yield truncator
    unregister_after_tool_call_hook(hook)


def _kickoff(truncator: Truncator, respond: Any) -> str:
    agent = Agent(role="builder", goal="build the project", backstory="A build bot.",
                  llm=ScriptedLLM(model="scripted", respond=respond),
                  tools=[build, *artifact_tools(truncator)], verbose=False)
    task = Task(description="build it", expected_output="what failed", agent=agent)
    return str(Crew(agents=[agent], tasks=[task], verbose=False).kickoff())


def test_the_conversation(hooked: Truncator) -> None:
    grepper = Grepper()

    def respond(action: str | None, observation: str | None) -> str:
        if action is None:
            return 'Thought: build it\nAction: build\nAction Input: {"target": "all"}'
        if action == "build":
            return ("Thought: find the failure\nAction: artifact_grep\nAction Input: "
                    + json.dumps(grepper.after_cut(observation or "")))
        grepper.after_grep(observation or "")
        return "Thought: done\nFinal Answer: found it"

    assert _kickoff(hooked, respond) == "found it"
    grepper.check()


def test_control_without_the_hook_the_model_gets_a_megabyte(truncator: Truncator) -> None:
    seen: list[str] = []

    def respond(action: str | None, observation: str | None) -> str:
        if action is None:
            return 'Thought: build it\nAction: build\nAction Input: {"target": "all"}'
        seen.append(observation or "")
        return "Thought: done\nFinal Answer: done"

    _kickoff(truncator, respond)
    assert BIG_OUTPUT.strip() in seen[0]


def test_artifact_tools_take_optional_arguments_as_left_out_or_null(
        truncator: Truncator) -> None:
    grep = {t.name: t for t in artifact_tools(truncator)}["artifact_grep"]
    schema = grep.args_schema.model_json_schema()
    assert set(schema["required"]) == {"artifact_id", "pattern"}
    artifact_id = truncator.process(BIG_OUTPUT, tool="build").metadata.artifact_id
    assert "8501:" in grep.run(artifact_id=artifact_id, pattern="undefined", regex=None)
    assert "Fix the arguments" in grep.run(artifact_id=artifact_id, pattern="(", regex=True)


def test_the_example_runs() -> None:
    from test_examples import check_example

    check_example("crewai_crew")
