"""Google ADK: truncating_callback on a real LlmAgent run by ADK's InMemoryRunner, with a
scripted model (ADK's BaseLlm interface, as its own MockModel in
google.adk.cli.agent_test_runner, whose replies are fixed in advance)."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import pytest
from adapter_conversation import BIG_OUTPUT, Grepper

from truncation_core import Truncator

pytest.importorskip("google.adk", reason="google-adk is installed by `make test` (the "
                    "adapters' google-adk extra); without it this adapter cannot be tested")

from google.adk.agents import LlmAgent
from google.adk.models import BaseLlm, LlmRequest, LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types
from truncation_core_adapters.google_adk import artifact_tools, truncating_callback


def build(target: str) -> str:
    """Build a target; returns the log."""
    return BIG_OUTPUT


def numbers(n: int) -> dict[str, Any]:
    """Numbers up to n."""
    return {"numbers": list(range(n))}


class ScriptedLlm(BaseLlm):
    """Replies with what ``respond(function responses so far)`` gives."""

    model: str = "scripted"
    respond: Any = None
    requests: list[LlmRequest] = []

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse]:
        self.requests.append(llm_request)
        responses = {part.function_response.id: part.function_response
                     for content in llm_request.contents for part in content.parts or ()
                     if part.function_response is not None}
        reply = self.respond(responses)
        if isinstance(reply, str):
            parts = [types.Part.from_text(text=reply)]
        else:
            parts = [types.Part(function_call=types.FunctionCall(id=call_id, name=name,
                                                                 args=args))
                     for call_id, name, args in reply]
        yield LlmResponse(content=types.Content(role="model", parts=parts))


def _run(agent: LlmAgent) -> str:
    runner = InMemoryRunner(agent=agent, app_name="builder")
    session = runner.session_service.create_session_sync(app_name="builder", user_id="me")
    events = list(runner.run(user_id="me", session_id=session.id,
                             new_message=types.Content(role="user",
                                                       parts=[types.Part(text="build")])))
    return "".join(part.text or "" for event in events if event.content
                   for part in event.content.parts or ())


def test_the_conversation(truncator: Truncator) -> None:
    grepper = Grepper()
    seen: dict[str, Any] = {}

    def respond(responses: dict[str, Any]) -> Any:
        if not responses:
            return [("call_build_1", "build", {"target": "all"}),
                    ("call_numbers_1", "numbers", {"n": 3})]
        if "call_grep_1" not in responses:
            seen["cut"] = responses["call_build_1"].response
            seen["numbers"] = responses["call_numbers_1"].response
            return [("call_grep_1", "artifact_grep",
                     grepper.after_cut(seen["cut"]["result"]))]
        grepper.after_grep(responses["call_grep_1"].response["result"])
        return "found it"

    model = ScriptedLlm(respond=respond, requests=[])
    agent = LlmAgent(name="builder", model=model,
                     tools=[build, numbers, *artifact_tools(truncator)],
                     after_tool_callback=truncating_callback(truncator))
    assert _run(agent).endswith("found it")
    grepper.check()
    assert list(seen["cut"]) == ["result"]  # the wrapping, redone
    assert seen["numbers"] == {"numbers": [0, 1, 2]}  # within its limit: unchanged
    declared = {d.name for t in model.requests[0].config.tools
                for d in t.function_declarations or ()}
    assert {"build", "get_artifact", "artifact_grep"} <= declared
    # the function call's id is the tool call id: the artifact is found by it
    page = truncator.call_tool("artifact_tail", {"artifact_id": "call_build_1", "lines": 1})
    assert page.error is None and "017000 compiling" in page.content


def test_control_without_the_callback_the_model_gets_a_megabyte(truncator: Truncator) -> None:
    seen: dict[str, Any] = {}

    def respond(responses: dict[str, Any]) -> Any:
        if not responses:
            return [("call_1", "build", {"target": "all"})]
        seen["response"] = responses["call_1"].response
        return "done"

    _run(LlmAgent(name="builder", model=ScriptedLlm(respond=respond, requests=[]),
                  tools=[build]))
    assert seen["response"] == {"result": BIG_OUTPUT}


def test_a_bad_artifact_call_answers_an_error(truncator: Truncator) -> None:
    seen: dict[str, Any] = {}

    def respond(responses: dict[str, Any]) -> Any:
        if not responses:
            return [("call_1", "get_artifact", {"artifact_id": "../etc/passwd"})]
        seen["response"] = responses["call_1"].response
        return "done"

    _run(LlmAgent(name="reader", model=ScriptedLlm(respond=respond, requests=[]),
                  tools=artifact_tools(truncator),
                  after_tool_callback=truncating_callback(truncator)))
    assert "artifact_id" in seen["response"]["error"]
