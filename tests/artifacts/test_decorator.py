"""@truncator.tool: structured returns as JSON, an honest signature (str), async functions and
generators; and a real MCP server's @tool() over a decorated function."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import inspect
import json
import re
import typing
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import attrs
import pydantic
import pytest

from truncation_core import Truncator


@pytest.fixture
def t(root_path: Path) -> Truncator:
    return Truncator({"inline_limit": 2000, "store": {"root": str(root_path)}},
                     load_entrypoints=False)


class Hit(pydantic.BaseModel):
    path: str
    line: int


class Hits(pydantic.BaseModel):
    query: str
    hits: list[Hit]


@dataclasses.dataclass
class Row:
    id: int
    name: str


@attrs.frozen
class Entry:
    id: int
    tags: tuple[str, ...]


def _stored_json(t: Truncator) -> Any:
    return json.loads(t.artifacts.text(t.store.list()[-1].id))


def test_pydantic_models_are_dumped_as_json_and_cut_at_elements(t: Truncator) -> None:
    hits = Hits(query="TODO", hits=[Hit(path=f"src/m{i}.py", line=i) for i in range(500)])

    @t.tool("search")
    def search(query: str) -> Hits:
        return hits

    out = search("TODO")
    assert isinstance(out, str) and len(out) <= 2000
    shown = json.loads(out)  # the element strategy kept it valid JSON
    assert shown["query"] == "TODO" and shown["hits"][0] == {"path": "src/m0.py", "line": 0}
    assert _stored_json(t) == json.loads(hits.model_dump_json())  # model_dump_json, not str()
    assert t.store.list()[-1].content_type == "application/json"


def test_lists_dataclasses_attrs_and_nested_models_are_json(t: Truncator) -> None:
    @t.tool
    def numbers() -> list[int]:
        return list(range(2000))

    assert json.loads(numbers())[:3] == [0, 1, 2]
    assert _stored_json(t) == list(range(2000))

    @t.tool
    def rows() -> list[Row]:
        return [Row(i, f"n{i}") for i in range(400)]

    json.loads(rows())
    assert _stored_json(t)[7] == {"id": 7, "name": "n7"}

    @t.tool
    def entries() -> dict[str, Any]:
        return {"entries": [Entry(id=i, tags=("a", "b")) for i in range(400)],
                "best": Hit(path="x", line=1)}

    json.loads(entries())
    stored = _stored_json(t)
    assert stored["entries"][3] == {"id": 3, "tags": ["a", "b"]}
    assert stored["best"] == {"path": "x", "line": 1}

    @t.tool
    def one() -> Row:
        return Row(1, "small")

    assert json.loads(one()) == {"id": 1, "name": "small"}  # within the limit: unchanged


def test_the_signature_says_str(t: Truncator) -> None:
    @t.tool("read_file")
    def read_file(path: str, limit: int = 0) -> list[int]:
        """Read a file."""
        return [1]

    signature = inspect.signature(read_file)
    assert list(signature.parameters) == ["path", "limit"]
    assert signature.return_annotation is str
    assert typing.get_type_hints(read_file) == {"path": str, "limit": int, "return": str}
    assert read_file.__doc__ == "Read a file." and read_file.__name__ == "read_file"
    assert read_file("x") == "[1]"


def test_async_functions_and_generators(t: Truncator) -> None:
    lines = [f"out {i}" for i in range(3000)]

    @t.tool("execute_command")
    async def run(command: str) -> str:
        await asyncio.sleep(0)
        return "\n".join(lines) + "\n"

    @t.tool("execute_command")
    def run_lines(command: str) -> Iterator[str]:
        for line in lines:
            yield line + "\n"

    @t.tool("execute_command")
    async def run_async_lines(command: str) -> AsyncIterator[bytes]:
        for line in lines:
            await asyncio.sleep(0) if line.endswith("00") else None
            yield (line + "\n").encode()

    @t.tool
    def records() -> Iterator[Row]:
        for i in range(500):
            yield Row(i, "r")

    assert inspect.iscoroutinefunction(run) and inspect.iscoroutinefunction(run_async_lines)
    assert not inspect.isgeneratorfunction(run_lines)
    whole = asyncio.run(run("make"))
    assert whole.startswith("out 0\n") and " chars omitted of 3,000 lines" in whole
    assert whole.endswith("out 2999\n")
    def same(out: str) -> str:  # but for the artifact id
        return re.sub(r"art_\d+_[0-9a-f]{32}", "ID", out)

    assert same(run_lines("make")) == same(whole)  # a stream gives what process gives
    assert same(asyncio.run(run_async_lines("make"))) == same(whole)
    assert inspect.signature(run_lines).return_annotation is str
    out = records()
    assert [json.loads(line) for line in out.splitlines()[:2]] == [{"id": 0, "name": "r"},
                                                                     {"id": 1, "name": "r"}]
    assert t.artifacts.text(t.store.list()[-1].id).splitlines()[499] == '{"id": 499, "name": "r"}'


def test_a_real_mcp_server_runs_decorated_tools(t: Truncator) -> None:
    """MCPServer's @tool() builds its output schema from the annotations: a decorated tool
    returning list[int] or a pydantic model works on every call."""
    from mcp import Client
    from mcp.server import MCPServer

    server = MCPServer("decorated")

    @server.tool()
    @t.tool("numbers")
    def numbers(n: int) -> list[int]:
        """Numbers up to n."""
        return list(range(n))

    @server.tool()
    @t.tool("search")
    async def search(query: str) -> Hits:
        """Search."""
        return Hits(query=query, hits=[Hit(path=f"f{i}", line=i) for i in range(300)])

    def naive(fn: Any) -> Any:  # the control: the function's annotation, a str returned
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            return t.process(json.dumps(fn(*args, **kwargs)), tool="numbers").content
        return wrapper

    def numbers_naive(n: int) -> list[int]:
        return list(range(n))

    server.tool(name="numbers_naive")(naive(numbers_naive))

    async def main() -> list[Any]:
        async with Client(server) as client:
            return [await client.call_tool("numbers", {"n": 50_000}),
                    await client.call_tool("search", {"query": "q"}),
                    await client.call_tool("numbers_naive", {"n": 50_000})]

    big, found, naive_result = asyncio.run(main())
    shown = json.loads(big.content[0].text)  # valid alone: the reference is its last item
    assert not big.is_error and isinstance(shown, list) and "[Artifact: art_" in shown[-1]
    assert not found.is_error and json.loads(found.content[0].text)["query"] == "q"
    assert naive_result.is_error  # the lie about the return type fails every call
