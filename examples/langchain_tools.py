"""LangChain (langchain-core) with truncation-core: wrap the tools, add the artifact tools.

Runs offline: GenericFakeChatModel stands in for the LLM and does what a model would do with
a 1 MB build log: reads the cut result (``ToolMessage.artifact`` carries the artifact id and
metadata), then greps the artifact for the error. With a real chat model, use
``model.bind_tools(tools, strict=True)`` in your agent loop or ``create_agent``.

    pip install "truncation-core-adapters[langchain]"
    python examples/langchain_tools.py
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from truncation_core_adapters.langchain import artifact_tools, truncating_tools

from truncation_core import Truncator


@tool
def build(target: str) -> str:
    """Build a target and return the log."""
    lines = [f"[{i:06d}] compiling module_{i % 900:03d}.c ... ok" for i in range(15_000)]
    lines[9_000] = "[009000] error: undefined reference to `frobnicate'"
    return "\n".join(lines) + "\n"


def main() -> None:
    with tempfile.TemporaryDirectory() as workspace:
        truncator = Truncator({"store": {"root": workspace}})
        tools = {t.name: t for t in [*truncating_tools([build], truncator),
                                     *artifact_tools(truncator)]}
        history: list[BaseMessage] = [HumanMessage("Build everything and tell me what broke.")]

        def stand_in() -> Iterator[AIMessage]:
            yield AIMessage(content="", tool_calls=[{"name": "build", "args": {"target": "all"},
                                                     "id": "b1", "type": "tool_call"}])
            cut = history[-1]
            assert isinstance(cut, ToolMessage)
            print("--- what the model sees of 1 MB ---\n" + str(cut.content)[:600] + " ...\n")
            yield AIMessage(content="", tool_calls=[{"name": "artifact_grep", "id": "g1",
                                                     "type": "tool_call", "args": {
                "artifact_id": cut.artifact["artifact_id"], "pattern": "error:", "regex": None,
                "ignore_case": None, "context": 1, "max_matches": None, "start_line": None}}])
            yield AIMessage(content="The build fails here:\n" + str(history[-1].content))

        model = GenericFakeChatModel(messages=stand_in())
        while True:  # the agent loop: model, tools, model ...
            reply = model.invoke(history)
            history.append(reply)
            if not reply.tool_calls:
                break
            history.extend(tools[call["name"]].invoke(call) for call in reply.tool_calls)
        print(reply.content)


if __name__ == "__main__":
    main()
