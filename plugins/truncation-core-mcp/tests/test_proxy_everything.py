"""Everything but tool results passes through the proxy unchanged: prompts, resources and
templates, completions, logging, progress, the server's sampling requests, structured output,
images and embedded resources; checked against the official server-everything, directly and
through the proxy, with the official mcp client."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp_testing import host, proxy_argv

pytestmark = [pytest.mark.anyio,
              pytest.mark.filterwarnings("ignore:The logging capability is deprecated")]


def _dump(model: Any) -> Any:
    # Dynamic resources say when they were made: that is the only difference allowed.
    text = re.sub(r"\d{1,2}:\d\d:\d\d [AP]M", "<time>",
                  model.model_dump_json(by_alias=True, exclude_none=True))
    return json.loads(text)


async def _everything(client: Any) -> dict[str, Any]:
    """What the server offers besides its tools, as plain data."""
    prompts = await client.list_prompts()
    resources = await client.list_resources()
    first = resources.resources[0]
    return {
        "prompts": _dump(prompts),
        "prompt": _dump(await client.get_prompt("args-prompt", {"city": "Paris",
                                                                "state": "TX"})),
        "resources": _dump(resources),
        "templates": _dump(await client.list_resource_templates()),
        "read": _dump(await client.read_resource(first.uri)),
        "template_read": _dump(await client.read_resource(
            "demo://resource/dynamic/text/7")),
        "completion": _dump(await client.complete(
            types.PromptReference(type="ref/prompt", name="completable-prompt"),
            {"name": "department", "value": "Eng"})),
        "sum": _dump(await client.call_tool("get-sum", {"a": 2, "b": 3})),
        "structured": _dump(await client.call_tool("get-structured-content",
                                                   {"location": "Chicago"})),
        "image": _dump(await client.call_tool("get-tiny-image", {})),
        "embedded": _dump(await client.call_tool("get-resource-reference",
                                                 {"resourceType": "Text", "resourceId": 3})),
        "links": _dump(await client.call_tool("get-resource-links", {"count": 2})),
    }


async def test_prompts_resources_completions_and_content_pass_through_unchanged(
        trunc_exe: str, everything_server: str, workspace: Path) -> None:
    async with host([everything_server, "stdio"]) as client:
        direct = await _everything(client)
    argv = proxy_argv(trunc_exe, workspace / ".truncation.yaml", [everything_server, "stdio"])
    async with host(argv) as client:
        proxied = await _everything(client)
    assert proxied == direct
    assert direct["completion"]["completion"]["values"] == ["Engineering"]
    assert direct["structured"]["structuredContent"] == {
        "temperature": 36, "conditions": "Light rain / drizzle", "humidity": 82}
    assert [c["type"] for c in direct["image"]["content"]] == ["text", "image", "text"]
    assert direct["embedded"]["content"][1]["type"] == "resource"


async def test_progress_logging_and_sampling_pass_through(
        trunc_exe: str, everything_server: str, workspace: Path) -> None:
    progress: list[tuple[float, float | None]] = []
    logs: list[Any] = []
    sampled: list[Any] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total))

    async def on_log(params: Any) -> None:
        logs.append(params)

    async def on_sampling(context: Any, params: Any) -> Any:
        sampled.append(params)
        return types.CreateMessageResult(role="assistant", model="test-model",
                                         content=types.TextContent(type="text", text="42"))

    argv = proxy_argv(trunc_exe, workspace / ".truncation.yaml", [everything_server, "stdio"])
    async with host(argv, sampling_callback=on_sampling, logging_callback=on_log) as client:
        await client.set_logging_level("debug")
        result = await client.call_tool("trigger-long-running-operation",
                                        {"duration": 1, "steps": 4},
                                        progress_callback=on_progress)
        assert "Long running operation completed" in result.content[0].text
        assert progress == [(1, 4), (2, 4), (3, 4), (4, 4)]

        names = [t.name for t in (await client.list_tools()).tools]
        assert "trigger-sampling-request" in names  # offered to a host that can sample
        answer = await client.call_tool("trigger-sampling-request",
                                        {"prompt": "the answer?", "maxTokens": 7})
        assert '"text": "42"' in answer.content[0].text
        assert len(sampled) == 1 and sampled[0].max_tokens == 7
        assert "the answer?" in sampled[0].messages[0].content.text

        await client.call_tool("toggle-simulated-logging", {})
        with anyio.fail_after(15):
            while not logs:
                await anyio.sleep(0.1)
        assert logs[0].level in ("debug", "info", "notice", "warning", "error", "critical",
                                 "alert", "emergency")
        assert "message" in str(logs[0].data)
