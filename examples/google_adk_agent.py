"""Google ADK with truncation-core: an after_tool_callback, and the artifact tools.

Runs offline: a scripted model (ADK's BaseLlm interface) does what a model would do with a
1 MB build log: reads the cut result, then greps the artifact for the error. To use a real
model, give LlmAgent a model name (``model="gemini-2.5-flash"``, with GOOGLE_API_KEY set).

    pip install "truncation-core-adapters[google-adk]"
    python examples/google_adk_agent.py
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import AsyncGenerator
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models import BaseLlm, LlmRequest, LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types
from truncation_core_adapters.google_adk import artifact_tools, truncating_callback

from truncation_core import Truncator


def build(target: str) -> str:
    """Build a target and return the log."""
    lines = [f"[{i:06d}] compiling module_{i % 900:03d}.c ... ok" for i in range(15_000)]
    lines[9_000] = "[009000] error: undefined reference to `frobnicate'"
    return "\n".join(lines) + "\n"


class StandIn(BaseLlm):
    """Builds, greps the artifact the cut names, and answers with what it found."""

    model: str = "stand-in"

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse]:
        answers: dict[str, Any] = {
            part.function_response.name: part.function_response.response
            for content in llm_request.contents for part in content.parts or ()
            if part.function_response is not None}
        if "build" not in answers:
            parts = [types.Part.from_function_call(name="build", args={"target": "all"})]
        elif "artifact_grep" not in answers:
            cut = answers["build"]["result"]
            print("--- what the model sees of 1 MB ---\n" + cut[:600] + " ...\n")
            artifact_id = re.search(r"art_\d+_[0-9a-f]{32}", cut).group()  # type: ignore[union-attr]
            parts = [types.Part.from_function_call(name="artifact_grep", args={
                "artifact_id": artifact_id, "pattern": "error:", "context": 1})]
        else:
            parts = [types.Part.from_text(
                text="The build fails here:\n" + answers["artifact_grep"]["result"])]
        yield LlmResponse(content=types.Content(role="model", parts=parts))


def main() -> None:
    with tempfile.TemporaryDirectory() as workspace:
        truncator = Truncator({"store": {"root": workspace}})
        agent = LlmAgent(name="builder", model=StandIn(),
                         tools=[build, *artifact_tools(truncator)],
                         after_tool_callback=truncating_callback(truncator))
        runner = InMemoryRunner(agent=agent, app_name="builder")
        session = runner.session_service.create_session_sync(app_name="builder", user_id="me")
        message = types.Content(role="user", parts=[types.Part(
            text="Build everything and tell me what broke.")])
        for event in runner.run(user_id="me", session_id=session.id, new_message=message):
            if event.is_final_response() and event.content:
                print("".join(part.text or "" for part in event.content.parts or ()))


if __name__ == "__main__":
    main()
