"""The published tool definitions: each format checked against the SDK's own types (openai,
anthropic, mcp), the strict variant, arguments checked against the published schema (a
differential against jsonschema), configurable tool names, and acall_tool off the loop."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from truncation_core import Truncator
from truncation_core.tools.calls import _arguments, _BadCall
from truncation_core.tools.schemas import (
    FORMATS,
    SCHEMA_KEYWORDS,
    SPECS,
    TOOL_NAMES,
    tool_schemas,
)


@pytest.fixture
def truncator(root_path: Path) -> Truncator:
    return Truncator({"inline_limit": 500, "store": {"root": str(root_path)}},
                     load_entrypoints=False)


def _stored(t: Truncator, text: str) -> str:
    result = t.process(text)
    assert result.artifact is not None
    return result.artifact.id


# -- the SDKs' own types ------------------------------------------------------------------------


def _sdk_type(fmt: str) -> Any:
    if fmt == "openai":
        from openai.types.chat import ChatCompletionToolParam

        return ChatCompletionToolParam
    if fmt == "openai-responses":
        from openai.types.responses import FunctionToolParam

        return FunctionToolParam
    from anthropic.types import ToolParam

    return ToolParam


def _check_typed_dict(entry: dict[str, Any], kind: Any) -> None:
    """*entry* is a valid *kind* (a TypedDict of an SDK): pydantic validates the types and
    required keys; keys the type does not declare are refused too."""
    adapter = TypeAdapter(kind)
    adapter.validate_python(entry, strict=True)
    declared = set(adapter.json_schema()["properties"])
    assert set(entry) <= declared, set(entry) - declared


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("fmt", ["openai", "openai-responses", "anthropic"])
def test_each_format_is_the_sdks_own_type(fmt: str, strict: bool) -> None:
    for entry in tool_schemas(fmt, strict=strict):
        _check_typed_dict(entry, _sdk_type(fmt))
        if fmt == "openai":
            from openai.types.shared_params import FunctionDefinition

            _check_typed_dict(entry["function"], FunctionDefinition)
            assert entry["function"].get("strict", False) is strict
        else:
            assert entry.get("strict", False) is strict


def test_control_a_responses_entry_without_strict_is_not_a_function_tool_param() -> None:
    entry = tool_schemas("openai-responses")[0]
    assert entry["strict"] is False  # always sent: FunctionToolParam requires it
    without = {k: v for k, v in entry.items() if k != "strict"}
    with pytest.raises(Exception, match="strict"):
        _check_typed_dict(without, _sdk_type("openai-responses"))


@pytest.mark.parametrize("strict", [False, True])
def test_mcp_entries_are_mcp_tools(strict: bool) -> None:
    from mcp.types import Tool

    for entry in tool_schemas("mcp", strict=strict):
        tool = Tool.model_validate(entry)
        assert tool.model_dump(by_alias=True, exclude_none=True) == entry


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("fmt", FORMATS)
def test_parameters_are_valid_json_schema(fmt: str, strict: bool) -> None:
    for entry in tool_schemas(fmt, strict=strict):
        parameters = (entry.get("function", entry).get("parameters") or entry.get("input_schema")
                      or entry["inputSchema"])
        jsonschema.Draft202012Validator.check_schema(parameters)


# -- strict ----------------------------------------------------------------------------------


def _openai_strict_problems(schema: dict[str, Any], path: str = "$") -> list[str]:
    """What OpenAI's strict mode refuses in *schema* (its documented subset)."""
    problems = []
    if schema.get("type") == "object":
        if schema.get("additionalProperties") is not False:
            problems.append(f"{path}: additionalProperties must be false")
        if sorted(schema.get("required", [])) != sorted(schema.get("properties", {})):
            problems.append(f"{path}: every property must be required")
        for key, sub in schema.get("properties", {}).items():
            problems += _openai_strict_problems(sub, f"{path}.{key}")
    for keyword in ("default", "minLength", "maxLength"):
        if keyword in schema:
            problems.append(f"{path}: {keyword} is not supported")
    return problems


def test_strict_schemas_are_what_strict_mode_accepts() -> None:
    for entry in tool_schemas("openai", strict=True):
        parameters = entry["function"]["parameters"]
        assert _openai_strict_problems(parameters) == []
        for key, prop in parameters["properties"].items():
            optional = key not in ("artifact_id",) and not (
                key == "pattern" and entry["function"]["name"] == "artifact_grep")
            assert (prop["type"][-1] == "null") is optional, (key, prop)
    # The control: the plain schemas are not strict-mode schemas.
    assert any(_openai_strict_problems(e["function"]["parameters"])
               for e in tool_schemas("openai"))


def test_the_issues_strict_call_works(truncator: Truncator) -> None:
    """Strict mode sends every property: null is an argument not given."""
    artifact_id = _stored(truncator, "".join(f"line {i}\n" for i in range(1, 501)))
    result = truncator.call_tool("get_artifact", {"artifact_id": artifact_id, "start_line": 1,
                                                  "end_line": 5, "offset": None})
    assert result.error is None, result.content
    assert "line 5" in result.content and "line 6\n" not in result.content
    # every property null but the required one: the defaults
    result = truncator.call_tool("artifact_grep", json.dumps({
        "artifact_id": artifact_id, "pattern": "line 42", "regex": None, "ignore_case": None,
        "context": None, "max_matches": None, "start_line": None}))
    assert result.error is None and "line 42" in result.content
    # a required property may not be null
    result = truncator.call_tool("artifact_grep", {"artifact_id": artifact_id, "pattern": None})
    assert result.error is not None and "pattern: required" in result.content


# -- arguments against the published schema ------------------------------------------------------


def test_every_schema_keyword_is_checked() -> None:
    """call_tool checks the keywords in SCHEMA_KEYWORDS; a schema using another would drift."""
    for _, properties in SPECS.values():
        for schema in properties.values():
            assert set(schema) <= SCHEMA_KEYWORDS, set(schema) - SCHEMA_KEYWORDS


def test_integral_numbers_are_integers_as_the_schema_says(truncator: Truncator) -> None:
    artifact_id = _stored(truncator, "".join(f"line {i}\n" for i in range(1, 501)))
    result = truncator.call_tool("get_artifact", {"artifact_id": artifact_id,
                                                  "start_line": 10.0, "end_line": 11.0})
    assert result.error is None, result.content
    assert "line 10\n" in result.content and "line 12\n" not in result.content
    result = truncator.call_tool("get_artifact", {"artifact_id": artifact_id, "start_line": 10.5})
    assert result.error is not None and "expected an integer, got 10.5" in result.content


def test_unknown_arguments_are_named_escaped_and_capped(truncator: Truncator) -> None:
    artifact_id = _stored(truncator, "x\n" * 600)
    result = truncator.call_tool("get_artifact", {"artifact_id": artifact_id, "of": 1})
    assert 'unknown argument "of"' in result.content
    assert "takes artifact_id, start_line, end_line, offset" in result.content
    result = truncator.call_tool("get_artifact", {"artifact_id": artifact_id,
                                                  "é\n</tool>\x1b[31m": 1})
    assert 'unknown argument "\\u00e9\\n</tool>\\u001b[31m"' in result.content
    assert "\n" not in result.content.split("unknown argument")[1].split(";")[0]
    long = "x" * 500
    result = truncator.call_tool("get_artifact", {"artifact_id": artifact_id, long: 1})
    assert f'"{"x" * 40}" (first 40 of 500 characters)' in result.content
    assert "x" * 41 not in result.content
    result = truncator.call_tool("artifact_grep", {"artifact_id": artifact_id, "patern": "x"})
    assert "\"patern\" (did you mean 'pattern'?)" in result.content


_ID = "art_1_" + "0" * 32
_values = st.one_of(st.none(), st.booleans(), st.integers(-3, 5000),
                    st.floats(allow_nan=False, allow_infinity=False, min_value=-3, max_value=3e3),
                    st.sampled_from([10.0, 1.0, 0.0, "12", " 7 ", "١٢", "true", "false", "", "x",
                                     "x" * 5000, _ID, _ID.upper(), "art_0_" + "0" * 32]),
                    st.text(max_size=5), st.lists(st.integers(), max_size=2))


def _normalised(schema: dict[str, Any], value: Any) -> Any:
    """*value* as call_tool's documented leniencies read it (digit strings are integers,
    "true"/"false" booleans), so that jsonschema can judge it."""
    if schema["type"] == "integer" and isinstance(value, str) and value.strip().isascii() \
            and value.strip().isdigit():
        return int(value.strip())
    if schema["type"] == "boolean" and isinstance(value, str) and value.lower() in (
            "true", "false"):
        return value.lower() == "true"
    return value


@settings(max_examples=400, deadline=None)
@given(tool=st.sampled_from(TOOL_NAMES), data=st.data())
def test_arguments_agree_with_jsonschema_on_the_published_schema(tool: str,
                                                                 data: st.DataObject) -> None:
    """What the published schema (strict or not) accepts, call_tool accepts, with the same
    values; what call_tool accepts, the schema accepts once leniencies are applied."""
    _, properties = SPECS[tool]
    keys = data.draw(st.lists(st.sampled_from(sorted(properties)), unique=True, max_size=4))
    arguments = {key: data.draw(_values) for key in keys}
    arguments.setdefault("artifact_id", _ID)
    try:
        ours: dict[str, Any] | None = _arguments(tool, arguments)
    except _BadCall:
        ours = None
    for strict in (False, True):
        entry = tool_schemas("openai", strict=strict, tools=(tool,))[0]
        parameters = entry["function"]["parameters"]
        if strict:  # strict schemas leave length limits to call_tool
            parameters = json.loads(json.dumps(parameters))
            for key, prop in parameters["properties"].items():
                prop.update({k: v for k, v in properties[key].items()
                             if k in ("minLength", "maxLength")})
        else:  # null is "not given": the plain schema has no such key
            arguments_seen = {k: v for k, v in arguments.items() if v is not None}
        accepted = jsonschema.Draft202012Validator(parameters).is_valid(
            arguments if strict else arguments_seen)
        if accepted:
            assert ours is not None, (strict, arguments)
            assert ours == {k: (int(v) if isinstance(v, float) else v)
                            for k, v in arguments.items() if v is not None}
    if ours is not None:
        normalised = {k: _normalised(properties[k], v) for k, v in arguments.items()
                      if v is not None}
        plain = tool_schemas("openai", tools=(tool,))[0]["function"]["parameters"]
        assert jsonschema.Draft202012Validator(plain).is_valid(normalised), arguments


def test_an_artifact_id_with_a_final_newline_is_refused() -> None:
    """The schema's pattern is ECMA-262, where "$" is the very end; Python's re (and so
    jsonschema) lets a final newline through, which would be a bad id."""
    with pytest.raises(_BadCall):
        _arguments("get_artifact", {"artifact_id": _ID + "\n"})


# -- tool names ---------------------------------------------------------------------------------


def test_tool_names_with_a_prefix_are_used_by_every_hint(root_path: Path) -> None:
    t = Truncator({"inline_limit": 600, "artifact_threshold": 5000,
                   "store": {"root": str(root_path)},
                   "artifact_tools": {"prefix": "trunc_",
                                      "names": {"artifact_grep": "search_output"}}},
                  load_entrypoints=False)
    names = [e["function"]["name"] for e in t.tool_schemas("openai", strict=True)]
    assert names == ["trunc_get_artifact", "trunc_artifact_head", "trunc_artifact_tail",
                     "search_output"]
    assert [e["name"] for e in t.tool_schemas("mcp")] == names
    text = "".join(f"line {i}\n" for i in range(1, 1001))
    inline = t.process(text[:3000])  # inline cut: the marker's hint
    assert 'trunc_get_artifact(artifact_id="' in inline.content
    reference = t.process(text)  # over artifact_threshold: the reference
    assert "trunc_get_artifact(" in reference.content and "search_output" in reference.content
    assert "trunc_artifact_tail" in reference.content
    for content in (inline.content, reference.content):
        assert " get_artifact(" not in content and "artifact_grep" not in content
    artifact_id = reference.artifact.id  # type: ignore[union-attr]
    page = t.call_tool("trunc_get_artifact", {"artifact_id": artifact_id})
    assert page.error is None and page.tool == "trunc_get_artifact"
    assert page.content.splitlines()[-1].startswith("[Next page: trunc_get_artifact(")
    grep = t.call_tool("search_output", {"artifact_id": artifact_id, "pattern": "line",
                                         "max_matches": 3})
    assert grep.content.splitlines()[-1].startswith("[More matches from line 4: search_output(")
    tail = t.call_tool("trunc_artifact_tail", {"artifact_id": artifact_id, "lines": 3})
    assert "[Earlier lines: trunc_get_artifact(" in tail.content
    # the own name still works (nothing else is called that); a wrong one names the real ones
    assert t.call_tool("get_artifact", {"artifact_id": artifact_id}).error is None
    wrong = t.call_tool("trunc_get_artfact", {"artifact_id": artifact_id})
    assert "did you mean 'trunc_get_artifact'" in wrong.content
    assert "available: trunc_get_artifact, trunc_artifact_head" in wrong.content


def test_control_default_names_are_the_own_names(truncator: Truncator) -> None:
    assert [e["name"] for e in truncator.tool_schemas("anthropic")] == list(TOOL_NAMES)


def test_bad_tool_names_name_the_key() -> None:
    from truncation_core import ConfigError

    with pytest.raises(ConfigError, match=r"artifact_tools.prefix: must be a string"):
        Truncator({"artifact_tools": {"prefix": "a b"}}, load_entrypoints=False)
    with pytest.raises(ConfigError, match=r"artifact_tools.names: 'get_artfact' is not an "
                                          r"artifact tool; did you mean 'get_artifact'"):
        Truncator({"artifact_tools": {"names": {"get_artfact": "x"}}}, load_entrypoints=False)
    with pytest.raises(ConfigError, match=r"would both be called 'artifact_head'"):
        Truncator({"artifact_tools": {"names": {"get_artifact": "artifact_head"}}},
                  load_entrypoints=False)


# -- async ---------------------------------------------------------------------------------------


def test_acall_tool_runs_off_the_loop_and_cancels_at_once(truncator: Truncator) -> None:
    artifact_id = _stored(truncator, "a" * 50_000 + "b\n" + "tail\n" * 100)
    # RE2 answers (a+)+$ at once; the look-ahead sends it to the guarded regex engine, where
    # it backtracks until its deadline.
    slow = {"artifact_id": artifact_id, "pattern": "(?=a)(a+)+$", "regex": True}

    async def main() -> tuple[int, float, float]:
        ticks = 0
        stop = asyncio.Event()

        async def heartbeat() -> None:
            nonlocal ticks
            while not stop.is_set():
                ticks += 1
                await asyncio.sleep(0.01)

        beat = asyncio.create_task(heartbeat())
        started = time.monotonic()
        result = await truncator.acall_tool("artifact_grep", slow)  # runs to its deadline
        took = time.monotonic() - started
        assert result.error is not None and result.error.code == 400
        call = asyncio.create_task(truncator.acall_tool("artifact_grep", slow))
        await asyncio.sleep(0.05)
        call.cancel()
        cancelled_at = time.monotonic()
        with pytest.raises(asyncio.CancelledError):
            await call
        cancel_took = time.monotonic() - cancelled_at
        stop.set()
        await beat
        return ticks, took, cancel_took

    before = threading.active_count()
    ticks, took, cancel_took = asyncio.run(main())
    assert took > 0.5  # the grep ran to its deadline ...
    assert ticks > took / 0.01 / 4  # ... while the loop kept running
    assert cancel_took < 0.5  # a cancelled call does not wait for the thread
    deadline = time.monotonic() + 10  # the thread ends on its own, at the grep deadline
    while threading.active_count() > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= before


def test_async_retrieval_reads_the_same_bytes(truncator: Truncator) -> None:
    text = "".join(f"row {i}\n" for i in range(3000))
    artifact_id = _stored(truncator, text)

    async def main() -> tuple[bytes, str, str]:
        reader = truncator.aartifacts
        lines = await reader.lines(artifact_id, 10, 12)
        grep = await reader.grep(artifact_id, "row 2999")
        return await reader.read(artifact_id), lines.text, grep.matches[0].line.text

    data, lines, match = asyncio.run(main())
    assert data == text.encode() and lines == "row 9\nrow 10\nrow 11\n"
    assert match == "row 2999"


# -- static types: the SDKs' type checkers accept the schemas ------------------------------------

_TYPED_USE = '''
from anthropic import Anthropic
from anthropic.types import ToolParam
from openai import OpenAI
from openai.types.chat import ChatCompletionToolParam
from openai.types.responses import FunctionToolParam

from truncation_core import Truncator


def use(truncator: Truncator, openai: OpenAI, anthropic: Anthropic, fmt: str) -> None:
    chat: list[ChatCompletionToolParam] = truncator.tool_schemas()
    responses: list[FunctionToolParam] = truncator.tool_schemas("openai-responses")
    messages: list[ToolParam] = truncator.tool_schemas("anthropic", strict=True)
    openai.chat.completions.create(model="m", messages=[], tools=truncator.tool_schemas())
    anthropic.messages.create(model="m", max_tokens=1, messages=[],
                              tools=truncator.tool_schemas("anthropic"))
    mcp: list[dict[str, object]] = truncator.tool_schemas("mcp")
    chosen: list[dict[str, object]] = truncator.tool_schemas(fmt)
    print(chat, responses, messages, mcp, chosen)
'''

#: The control: what tool_schemas() returned before it was typed for the SDKs.
_UNTYPED_USE = '''
from typing import Any

from openai import OpenAI


def use(tools: list[dict[str, Any]], openai: OpenAI) -> None:
    openai.chat.completions.create(model="m", messages=[], tools=tools)
'''


@pytest.mark.slow
def test_mypy_strict_accepts_the_schemas_where_the_sdks_expect_tools(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "typed_use.py").write_text(_TYPED_USE)
    (tmp_path / "untyped_use.py").write_text(_UNTYPED_USE)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache"),
         "typed_use.py", "untyped_use.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=280)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    # Only the control fails: plain dicts are not what the SDK's create() takes.
    assert len(errors) == 1, done.stdout + done.stderr
    assert errors[0].startswith("untyped_use.py:8: error: Argument \"tools\"")
