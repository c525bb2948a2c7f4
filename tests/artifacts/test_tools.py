"""The tool-call surface: schemas, call_tool (paging, errors, never raising), the decorator,
and aprocess not blocking the event loop."""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from truncation_core import StoreError, Truncator
from truncation_core.tools.calls import ToolResult
from truncation_core.tools.schemas import TOOL_NAMES, tool_schemas
from truncation_core.types.ids import new_artifact_id


@pytest.fixture
def small(root_path: Path) -> Truncator:
    """A Truncator with small pages, to exercise paging."""
    return Truncator({"inline_limit": 400, "store": {"root": str(root_path)},
                      "tools": {name: {"inline_limit": 900} for name in TOOL_NAMES}},
                     load_entrypoints=False)


def stored(t: Truncator, text: str | bytes) -> str:
    result = t.process(text)
    assert result.artifact is not None
    return result.artifact.id


@pytest.mark.parametrize("fmt", ["openai", "openai-responses", "anthropic", "mcp"])
def test_schemas_in_every_format(fmt: str) -> None:
    schemas = tool_schemas(fmt)
    json.dumps(schemas)
    assert len(schemas) == 4
    for schema in schemas:
        if fmt == "openai":
            assert schema["type"] == "function"
            body = schema["function"]
            params = body["parameters"]
        elif fmt == "openai-responses":
            assert schema["type"] == "function"
            body, params = schema, schema["parameters"]
        elif fmt == "anthropic":
            body, params = schema, schema["input_schema"]
        else:
            body, params = schema, schema["inputSchema"]
        assert body["name"] in TOOL_NAMES and body["description"]
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert "artifact_id" in params["required"]
        pattern = params["properties"]["artifact_id"]["pattern"]
        assert re.search(pattern, new_artifact_id())
        assert not re.search(pattern, "art_1_" + "0" * 32 + "x")
    grep = next(s for s in schemas if "artifact_grep" in json.dumps(s))
    assert "pattern" in json.dumps(grep)


def test_schemas_from_the_truncator_and_bad_format(small: Truncator) -> None:
    assert small.tool_schemas("anthropic") == tool_schemas("anthropic")
    with pytest.raises(ValueError, match=r"format: expected one of .*did you mean 'anthropic'"):
        small.tool_schemas("antropic")


def _pages(t: Truncator, artifact_id: str, tool: str = "get_artifact",
           first: dict[str, Any] | None = None) -> list[ToolResult]:
    out, args = [], first or {"artifact_id": artifact_id}
    for _ in range(10_000):
        result = t.call_tool(tool, args)
        assert result.error is None, result.content
        out.append(result)
        if result.next_arguments is None:
            return out
        args = dict(result.next_arguments)
        tool = "get_artifact"
    raise AssertionError("paging did not end")


def _numbered_rows(content: str) -> list[tuple[int, str]]:
    rows = []
    for line in content.split("\n"):
        m = re.fullmatch(r"\s*(\d+)\t(.*)", line, flags=re.S)
        if m:
            rows.append((int(m.group(1)), m.group(2)))
    return rows


def test_paging_with_get_artifact_reads_everything_back(small: Truncator) -> None:
    lines = [f"{i:05d} " + ("é" * (i % 7)) + ("x" * (3000 if i == 40 else i % 50))
             for i in range(1, 301)]
    text = "\r\n".join(lines[:150]) + "\n" + "\n".join(lines[150:]) + "\n"
    artifact_id = stored(small, text)
    pages = _pages(small, artifact_id)
    assert len(pages) > 5
    rebuilt: dict[int, str] = {}
    for page in pages:
        assert len(page.content) <= 900  # the tool's own limit, header and footer included
        assert page.content.splitlines()[-1].startswith(("[Next page", "[Line", "[End"))
        for number, body in _numbered_rows(page.content):
            rebuilt[number] = rebuilt.get(number, "") + body
    assert [rebuilt[n] for n in sorted(rebuilt)] == lines
    assert "[End of artifact: line 300 is the last.]" in pages[-1].content
    assert any("continues: get_artifact" in p.content and '"offset"' not in p.content
               for p in pages)  # the 3000-char line is read by offset


def test_a_line_range_longer_than_a_page_is_paged_to_its_end_line_exactly(
        small: Truncator) -> None:
    """Every page of a range says how to go on within it (end_line kept), long lines
    continue by offset within it too, and following the pages returns exactly the lines
    asked for, and no more."""
    lines = [f"{i:05d} " + ("é" * (i % 5)) + ("x" * (2500 if i == 120 else i % 60))
             for i in range(1, 401)]
    artifact_id = stored(small, "\n".join(lines) + "\n")
    first = {"artifact_id": artifact_id, "start_line": 7, "end_line": 150}
    pages = _pages(small, artifact_id, first=first)
    assert len(pages) > 5
    rebuilt: dict[int, str] = {}
    for page in pages:
        assert len(page.content) <= 900
        for number, body in _numbered_rows(page.content):
            rebuilt[number] = rebuilt.get(number, "") + body
    assert sorted(rebuilt) == list(range(7, 151))
    assert [rebuilt[n] for n in range(7, 151)] == lines[6:150]
    for page in pages[:-1]:
        assert page.next_arguments is not None and page.next_arguments["end_line"] == 150
        assert page.content.splitlines()[-1].endswith(", end_line=150)]")
    assert any("offset" in (p.next_arguments or {}) for p in pages)  # line 120, by offset
    assert pages[-1].next_arguments is None
    assert pages[-1].content.endswith(
        f'[Lines 151 and on: get_artifact(artifact_id="{artifact_id}", start_line=151)]')
    # artifact_head asks for lines up to its count: its pages go on to there, no further.
    head = _pages(small, artifact_id, "artifact_head", {"artifact_id": artifact_id,
                                                        "lines": 60})
    assert len(head) > 1
    assert [n for p in head for n, _ in _numbered_rows(p.content)] == list(range(1, 61))


def test_line_ranges_head_tail_and_grep(small: Truncator) -> None:
    text = "".join(f"row {i}{' ERROR disk' if i % 97 == 0 else ''}\n" for i in range(1, 1001))
    artifact_id = stored(small, text)
    result = small.call_tool("get_artifact", {"artifact_id": artifact_id, "start_line": 10,
                                              "end_line": 12})
    assert _numbered_rows(result.content) == [(10, "row 10"), (11, "row 11"), (12, "row 12")]
    # The lines asked for are all here: nothing more to follow, but the model is told how
    # to read on.
    assert result.next_arguments is None
    assert result.content.endswith(
        f'[Lines 13 and on: get_artifact(artifact_id="{artifact_id}", start_line=13)]')
    head = small.call_tool("artifact_head", {"artifact_id": artifact_id, "lines": "3"})
    assert _numbered_rows(head.content) == [(1, "row 1"), (2, "row 2"), (3, "row 3")]
    tail = small.call_tool("artifact_tail", {"artifact_id": artifact_id, "lines": 2})
    assert _numbered_rows(tail.content) == [(999, "row 999"), (1000, "row 1000")]
    assert "[Earlier lines: get_artifact(" in tail.content
    grep = small.call_tool("artifact_grep", {"artifact_id": artifact_id, "pattern": "error",
                                             "ignore_case": True, "max_matches": 4})
    found = re.findall(r"^\s*(\d+):\t", grep.content, flags=re.M)
    assert [int(n) for n in found] == [97, 194, 291, 388]
    assert grep.next_arguments is not None and grep.next_arguments["start_line"] == 389
    rest = small.call_tool("artifact_grep", dict(grep.next_arguments))
    assert re.findall(r"^\s*(\d+):\t", rest.content, flags=re.M)[0] == "485"
    ctx = small.call_tool("artifact_grep", {"artifact_id": artifact_id, "pattern": r"^row 9[89]$",
                                            "regex": "true", "context": 1})
    assert re.findall(r"^\s*(\d+)([:-])\t", ctx.content, flags=re.M) == [
        ("97", "-"), ("98", ":"), ("99", ":"), ("100", "-")]


@pytest.mark.parametrize(("name", "arguments", "code", "says"), [
    ("get_artifact", {"artifact_id": "art_1_" + "0" * 32}, 404, "not found"),
    ("get_artifact", {"artifact_id": "../../etc/passwd"}, 400, "artifact_id: expected"),
    ("get_artifact", {}, 400, "artifact_id: required"),
    ("get_artifact", {"artifact_id": "ID", "start_lin": 2}, 400, "did you mean 'start_line'"),
    ("get_artfact", {"artifact_id": "ID"}, 400, 'unknown tool "get_artfact" (did you mean'),
    ("get_artifact", {"artifact_id": "ID", "start_line": 0}, 400,
     "start_line: expected an integer 1"),
    ("get_artifact", {"artifact_id": "ID", "start_line": True}, 400, "expected an integer"),
    ("get_artifact", {"artifact_id": "ID", "start_line": 2.5}, 400, "expected an integer, got 2.5"),
    ("get_artifact", {"artifact_id": "ID", "start_line": "١٢"}, 400, "expected an integer"),
    ("get_artifact", {"artifact_id": "ID", "start_line": 9999}, 400, "past the end"),
    ("get_artifact", {"artifact_id": "ID", "start_line": 5, "end_line": 2}, 400, "end_line"),
    ("get_artifact", {"artifact_id": "ID", "offset": 3, "start_line": 2}, 400, "either offset"),
    ("get_artifact", {"artifact_id": "ID", "offset": 100, "end_line": 3}, 400,
     "lies after end_line (3)"),
    ("get_artifact", "{not json", 400, "arguments: expected a JSON object"),
    ("get_artifact", [1, 2], 400, "arguments: expected an object"),
    ("artifact_grep", {"artifact_id": "ID"}, 400, "pattern: required"),
    ("artifact_grep", {"artifact_id": "ID", "pattern": ""}, 400,
     "pattern: expected a non-empty string, got an empty one"),
    ("artifact_grep", {"artifact_id": "ID", "pattern": "(", "regex": True}, 400,
     "not a valid regular expression"),
    ("artifact_grep", {"artifact_id": "ID", "pattern": "x", "context": 99}, 400, "from 0 to 20"),
    ("artifact_head", {"artifact_id": "ID", "lines": -1}, 400, "lines: expected"),
])
def test_bad_calls_get_structured_errors(small: Truncator, name: str, arguments: Any,
                                         code: int, says: str) -> None:
    artifact_id = stored(small, "line\n" * 500)
    if isinstance(arguments, dict):
        arguments = {k: (artifact_id if v == "ID" else v) for k, v in arguments.items()}
    result = small.call_tool(name, arguments)
    assert result.is_error and result.error is not None
    assert result.error.code == code
    assert says in result.content, result.content
    assert result.content.startswith(f"Error {code}")


@pytest.mark.slow
def test_catastrophic_backtracking_is_answered_or_stopped(small: Truncator) -> None:
    """RE2 answers (a+)+$ in linear time; a pattern RE2 does not take (a look-ahead) runs on
    the regex module, whose deadline stops it."""
    artifact_id = stored(small, "a" * 50_000 + "b\n" + "tail\n" * 100)
    result = small.call_tool("artifact_grep", {"artifact_id": artifact_id, "pattern": "(a+)+$",
                                               "regex": True})
    assert result.error is None and "no line matches" in result.content
    start = time.monotonic()
    result = small.call_tool("artifact_grep", {"artifact_id": artifact_id,
                                               "pattern": "(?=a)(a+)+$", "regex": True})
    elapsed = time.monotonic() - start
    assert result.error is not None and result.error.code == 400
    assert "took too long" in result.content
    assert elapsed < 30  # bounded by the grep deadline (2 s), not by the pattern


def test_control_stdlib_re_cannot_be_stopped() -> None:
    """Negative control: stdlib re on the same kind of pattern has no deadline; at 32
    characters it runs for minutes (about 4x per 2 characters), so a child doing it is
    still running when killed after 2 s."""
    code = "import re; re.search(r'(a+)+$', 'a' * 32 + 'b')"
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run([sys.executable, "-c", code], timeout=2)


@pytest.mark.parametrize("pattern", [
    "(?:ab|cd){1000000}", "a{20000}", "(?:a{200}){200}", "[ab]{10001,}", r"\d{5000}\d{5001}",
    "(?P<n>ab){5001}", "(?:(?R)|a)", "(a(?1)?b)", "(?<x>a)(?&x)", "(?P<x>a)(?P>x)"])
def test_patterns_the_deadline_cannot_stop_are_refused(small: Truncator, pattern: str) -> None:
    """Counted repetition is unrolled when the pattern compiles, before the deadline applies,
    and group calls take memory that grows with the line: both are refused up front."""
    artifact_id = stored(small, "ab\n" * 2000)
    result = small.call_tool("artifact_grep", {"artifact_id": artifact_id, "pattern": pattern,
                                               "regex": True})
    assert result.error is not None and result.error.code == 400
    assert "unrolls" in result.content or "group calls" in result.content


@pytest.mark.parametrize("pattern", [
    r"\d{4}-\d{2}", "[0-9a-f]{64}", ".{0,100000}", "x{1,1000000}", "a{10000}", "(?:ab){5000}",
    r"\{100000\}", "[{100000}]", "[]{100000}]", "(?#{100000})b", "(?i:ab){5000}",
    "(?P<n>a)(?P=n)", r"\p{L}{3}"])
def test_bounded_repetition_is_accepted(small: Truncator, pattern: str) -> None:
    artifact_id = stored(small, "ab\n" * 2000)
    result = small.call_tool("artifact_grep", {"artifact_id": artifact_id, "pattern": pattern,
                                               "regex": True})
    assert result.error is None, result.content


@pytest.mark.parametrize(("pattern", "text"), [("a{2000000}", None),
                                             ("(?:(?R)|a)", "'a' * 1_000_000")])
def test_control_the_regex_module_exhausts_memory_on_them(pattern: str, text: str | None) -> None:
    """Negative control: the regex module alone needs more than 256 MiB to compile a{2000000}
    (before any search deadline could apply), and to run a group call over a 1 MB line."""
    search = f".search({text}, timeout=60)" if text else ""
    code = ("import resource, regex; limit = 256 << 20;"
            "resource.setrlimit(resource.RLIMIT_AS, (limit, limit));"
            f"regex.compile({pattern!r}){search}")
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert child.returncode != 0
    assert child.returncode < 0 or b"MemoryError" in child.stderr, child.stderr[-300:]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=12), kids,
                                                              max_size=4),
    max_leaves=12)


_FUZZ = Truncator({"inline_limit": 200, "store": {"backend": "memory"}}, load_entrypoints=False)
_FUZZ_ID = _FUZZ.process("".join(f"line {i} é ERROR\r\n" for i in range(400)) + "\ud800 end"
                         ).artifact.id  # type: ignore[union-attr]
_ARGUMENT_NAMES = ("artifact_id", "start_line", "end_line", "offset", "lines", "pattern",
                   "regex", "ignore_case", "context", "max_matches")
argument_values = st.one_of(
    json_values, st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([_FUZZ_ID, "0", "12", " 3 ", "true", "", "١٢", "(a+)+$", "a{99999}"]))
argument_objects = st.one_of(
    st.dictionaries(st.sampled_from(_ARGUMENT_NAMES) | st.text(max_size=12), argument_values,
                    max_size=6),
    st.fixed_dictionaries({"artifact_id": st.just(_FUZZ_ID)},
                          optional=dict.fromkeys(_ARGUMENT_NAMES[1:], argument_values)))
# Well-typed calls, mostly valid, to reach past argument checking into retrieval.
_line = st.integers(-1, 450) | st.integers(-(2**70), 2**70)
_TYPED = {
    "get_artifact": {"start_line": _line, "end_line": _line, "offset": st.integers(-1, 12_000)},
    "artifact_head": {"lines": st.integers(-1, 10**9)},
    "artifact_tail": {"lines": st.integers(-1, 10**9)},
    "artifact_grep": {"pattern": st.sampled_from(["ERROR", "é", "\ud800", "^line 1", "$", "(a+)+$",
                                                  "x{99999}", "(?R)", "[", "line 3"])
                      | st.text(max_size=8),
                      "regex": st.booleans(), "ignore_case": st.booleans(),
                      "context": st.integers(-1, 21), "max_matches": st.integers(0, 1001),
                      "start_line": _line},
}
typed_calls = st.sampled_from(TOOL_NAMES).flatmap(lambda tool: st.tuples(
    st.just(tool), st.fixed_dictionaries({"artifact_id": st.just(_FUZZ_ID)},
                                         optional=_TYPED[tool])))


@settings(max_examples=400, deadline=None)
@given(call=st.one_of(
    st.tuples(st.one_of(st.sampled_from(TOOL_NAMES), st.text(max_size=30), st.none(),
                        st.integers()),
              st.one_of(json_values, st.text(max_size=40), argument_objects,
                        argument_objects.map(lambda a: json.dumps(a, ensure_ascii=False)))),
    typed_calls))
def test_call_tool_never_raises(call: tuple[Any, Any]) -> None:
    """Any JSON-shaped call, on an existing artifact too, gets an answer: never an exception,
    never an internal error (500), never more than the tool's page."""
    name, arguments = call
    result = _FUZZ.call_tool(name, arguments)
    assert isinstance(result, ToolResult)
    if result.error is not None:
        assert result.error.code in (400, 404), result.content
    else:
        assert len(result.content) <= 1000  # the page: inline_limit raised to MIN_PAGE_CHARS


def test_decorator_processes_results(small: Truncator) -> None:
    @small.tool("read_file")
    def read_file(path: str, limit: int = 0) -> str:
        """Read a file."""
        return "".join(f"{path} line {i}\n" for i in range(2000))

    assert read_file.__name__ == "read_file" and read_file.__doc__ == "Read a file."
    assert list(inspect.signature(read_file).parameters) == ["path", "limit"]
    out = read_file("src/app.py")
    assert isinstance(out, str) and len(out) <= 400
    assert "omitted" in out and "get_artifact" in out
    ref = small.store.list()[-1]
    assert ref.tool == "read_file" and ref.summary == "read_file: src/app.py"

    @small.tool
    def listing() -> dict[str, Any]:
        return {"files": [f"f{i}" for i in range(500)]}

    out = listing()
    assert small.store.list()[-1].tool == "listing"
    assert small.store.list()[-1].content_type == "application/json"
    assert out.startswith("{") or out.startswith("[Artifact")

    @small.tool()
    def short() -> bytes:
        return b"ok"

    assert short() == "ok"


def test_decorated_async_tool_stays_async(small: Truncator) -> None:
    @small.tool("execute_command")
    async def run(command: str) -> str:
        await asyncio.sleep(0)
        return "".join(f"out {i}\n" for i in range(3000))

    assert inspect.iscoroutinefunction(run)
    out = asyncio.run(run("make"))
    assert out.startswith("out 0\n") and " chars omitted of 3,000 lines" in out
    assert out.endswith("out 2999\n")


@pytest.mark.slow
def test_aprocess_does_not_block_the_event_loop(truncator: Truncator) -> None:
    big = "".join(f"{i:08d} a long build log line that goes on\n" for i in range(600_000))

    async def ticker(stop: asyncio.Event, ticks: list[int]) -> None:
        while not stop.is_set():
            ticks[0] += 1
            await asyncio.sleep(0)

    async def measure(blocking: bool) -> tuple[int, Any]:
        stop, ticks = asyncio.Event(), [0]
        task = asyncio.create_task(ticker(stop, ticks))
        await asyncio.sleep(0)
        before = ticks[0]
        if blocking:  # control: the plain call inside a coroutine
            result = truncator.process(big, tool="execute_command")
        else:
            result = await truncator.aprocess(big, tool="execute_command")
        during = ticks[0] - before
        stop.set()
        await task
        return during, result

    during, result = asyncio.run(measure(blocking=False))
    assert result.artifact is not None and during > 0
    blocked, _ = asyncio.run(measure(blocking=True))
    assert blocked == 0
    small = asyncio.run(truncator.aprocess("short", tool="x"))
    assert small.content == "short" and not small.was_truncated


def test_reading_back_round_trips_lone_surrogates_and_raw_bytes(truncator: Truncator) -> None:
    text = ("bad \ud800 surrogate\r\n" + "é" * 10 + "\rlast") * 2000
    ref = truncator.process(text).artifact
    assert ref is not None
    assert truncator.artifacts.text(ref.id) == text
    raw = b"\xff\xfe not utf-8 \xe2\x82\n" * 3000
    ref2 = truncator.process(raw).artifact
    assert ref2 is not None and truncator.artifacts.read(ref2.id) == raw
    page = truncator.artifacts.lines(ref2.id, 2, 3)
    assert page.text == ("\ufffd\ufffd not utf-8 \ufffd\n" * 2)


def test_a_store_failure_is_reported_without_the_stores_message(
        small: Truncator, tmp_path: Path) -> None:
    # A store error's message may name files or carry whatever a backend put in it; the
    # answer the model sees says the store failed and how, never what its message said.
    secret = str(tmp_path / "CANARY-store-path")
    ref = small.process("x\n" * 20_000, tool="read_file").artifact
    assert ref is not None

    class Broken:
        name = "broken"

        def open(self, artifact_id: str) -> Any:
            raise StoreError(f"cannot open {secret}")

        def stat(self, artifact_id: str) -> Any:
            raise StoreError(f"cannot stat {secret}")

    broken = Truncator({"inline_limit": 1000}, store=Broken(), load_entrypoints=False)
    answer = broken.call_tool("artifact_head", {"artifact_id": ref.id})
    assert answer.is_error and answer.error is not None and answer.error.code == 500
    assert "the artifact store failed (StoreError)" in answer.content
    assert "CANARY" not in answer.content


def test_calls_a_result_suggests_use_the_names_the_model_knows(small: Truncator) -> None:
    """With ``names``, every call a result suggests uses the shown name; a line of the
    artifact that mentions a tool name is left as it is."""
    text = "".join(f"line {i} get_artifact artifact_grep\n" for i in range(400))
    art = stored(small, text)
    names = {name: f"trunc_{name}" for name in TOOL_NAMES}
    page = small.call_tool("get_artifact", {"artifact_id": art}, names=names)
    footer = page.content.splitlines()[-1]
    assert footer.startswith("[Next page: trunc_get_artifact(artifact_id=")
    assert "line 0 get_artifact artifact_grep" in page.content  # content untouched
    tail = small.call_tool("artifact_tail", {"artifact_id": art, "lines": 5}, names=names)
    assert tail.content.splitlines()[-1].startswith("[Earlier lines: trunc_get_artifact(")
    grep = small.call_tool("artifact_grep", {"artifact_id": art, "pattern": "line",
                                             "max_matches": 3}, names=names)
    assert grep.content.splitlines()[-1].startswith("[More matches from line 4: "
                                                    "trunc_artifact_grep(")
    # Control: without names, the tools' own names; and the mapping does not outlive a call.
    again = small.call_tool("get_artifact", {"artifact_id": art})
    assert again.content.splitlines()[-1].startswith("[Next page: get_artifact(")
