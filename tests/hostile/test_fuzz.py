"""Hypothesis fuzzing of config documents and of tool arguments.

A config document of any shape (YAML or TOML, in a file or in environment variables) either
loads or raises ConfigError naming the problem: never another exception. A grep pattern made
of regular-expression syntax, sent by the model, gets a page or a 400: never a 500, and never
more memory than the cap of the child process the run happens in.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import yaml
from bounded import run_bounded
from hypothesis import given, settings
from hypothesis import strategies as st
from messy import messy_text

from truncation_core.config.sources import load_config
from truncation_core.errors import ConfigError

KEYS = ["inline_limit", "max_bytes", "max_lines", "default_strategy", "spill", "highlights",
        "marker", "middle", "hint", "tools", "read_file", "strategy", "store", "root", "quota",
        "session", "plugins", "modules", "enable", "disable", "strict", "stream_threshold",
        "max_depth", "head_ratio", "x"]
TEMPLATES = ["{lines}", "{lines:,}", "{lines:>999999999}", "{lines.real}", "{hint[0]}", "{",
             "}", "{}", "{chars:.3f}", "{nope}", "{lines!r:^20}", "{lines:{chars}}"]
scalars = (st.none() | st.booleans() | st.integers(-(10 ** 6), 10 ** 6)
           | st.integers().map(lambda n: n * 10 ** 4400) | st.floats() | st.text(max_size=20)
           | st.sampled_from(TEMPLATES) | messy_text)
values = st.recursive(scalars, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
    st.sampled_from(KEYS) | st.text(max_size=8), kids, max_size=5), max_leaves=25)
documents = st.dictionaries(st.sampled_from(KEYS), values, max_size=6)


def dump_yaml(doc: Any) -> str:
    try:
        return yaml.safe_dump(doc, allow_unicode=False)
    except (yaml.YAMLError, ValueError, RecursionError):
        return "inline_limit: 5\n"


raw_yaml = st.one_of(
    documents.map(dump_yaml),
    st.lists(st.sampled_from(["a: ", "&x ", "*x ", "[", "]", "{", "}", "- ", "\n", "  ",
                              "marker:\n  middle: ", "'{lines:>99999}'", "9" * 5000, "!!binary ",
                              "<<: *x\n", "? ", ": ", "tools:\n  t:\n    strategy: ", "#"]),
             max_size=30).map("".join),
    messy_text)


def outcome_of(load: Any) -> str:
    try:
        load()
        return "loaded"
    except ConfigError as exc:
        assert exc.problems and all(isinstance(p, str) and p for p in exc.problems)
        assert all(len(p) < 10_000 for p in exc.problems)
        return "refused"


@settings(deadline=None)
@given(text=raw_yaml)
def test_any_yaml_config_file_loads_or_is_a_config_error(text: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / ".truncation.yaml"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        outcome_of(lambda: load_config(start=d, environ={}))


@settings(deadline=None)
@given(doc=documents)
def test_any_toml_config_loads_or_is_a_config_error(doc: dict[str, Any]) -> None:
    def toml_value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v) if abs(v) < 10 ** 4000 else "9" * 4400  # str() refuses more
        if isinstance(v, float):
            return repr(v) if v == v and abs(v) != float("inf") else "nan"
        if isinstance(v, list):
            return "[" + ", ".join(toml_value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f'"{k}" = {toml_value(x)}' for k, x in v.items()) + "}"
        return '"' + str(v).encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'

    body = "".join(f'"{k}" = {toml_value(v)}\n' for k, v in doc.items()
                   if v is not None)
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "pyproject.toml"
        path.write_text("[tool.truncation_core]\n" + body)
        outcome_of(lambda: load_config(start=d, environ={}))


@settings(deadline=None)
@given(env=st.dictionaries(
    st.sampled_from(["TRUNCATION_CORE_INLINE_LIMIT", "TRUNCATION_CORE_MARKER__MIDDLE",
                     "TRUNCATION_CORE_TOOLS__READ_FILE__STRATEGY", "TRUNCATION_CORE_MARKER",
                     "TRUNCATION_CORE_STORE__QUOTA", "TRUNCATION_CORE_PLUGINS",
                     "TRUNCATION_CORE___", "TRUNCATION_CORE_X__Y__Z"]),
    raw_yaml.filter(lambda t: "\x00" not in t), max_size=4))
def test_any_environment_loads_or_is_a_config_error(env: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as d:
        outcome_of(lambda: load_config(start=d, environ=env))


def test_patterns_from_the_model_fuzzed_through_the_tool_under_a_memory_cap() -> None:
    """The model sends regular-expression syntax of any shape: each call answers with a page
    or a 400, never a 500, in a child whose address space is capped at 1 GiB."""
    outcome = run_bounded("""
        from hypothesis import HealthCheck, given, settings, strategies as st
        from truncation_core import Truncator
        from truncation_core.storage.memory import MemoryStore
        t = Truncator({"inline_limit": 1000}, load_entrypoints=False, store=MemoryStore())
        aid = t.process("".join(f"{i} abcd ERROR é\\r\\n" for i in range(3000)) + "a" * 5000
                        + "b\\n", tool="read_file").artifact.id
        pieces = st.sampled_from(["(", ")", "(?:", "(?x)", "(?i)", "(?#", "\\\\)", "#", "\\n",
                                  " ", "{999}", "{ 999 }", "{1000000}", "ab|cd", "|", "[",
                                  "]", "\\\\", "*", "+", "?", "(?=", "(?<=", "\\\\1", "(?R)",
                                  "(?1)", "a", "$", "^", ".", "\\\\d", "\\\\w", "(?V1)", "é"])
        counts = {"page": 0, "400": 0}
        @settings(max_examples=300, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(st.lists(pieces, min_size=1, max_size=25).map("".join), st.booleans())
        def grep_answers(pattern, ignore_case):
            result = t.call_tool("artifact_grep", {"artifact_id": aid, "pattern": pattern,
                                                   "regex": True, "ignore_case": ignore_case,
                                                   "context": 1})
            assert result.error is None or result.error.code == 400, result.content
            assert len(result.content) <= 1000
            counts["page" if result.error is None else "400"] += 1
        grep_answers()
        report(**counts)
    """, limit=1 << 30, timeout=600)
    result = outcome.result
    assert result["page"] > 20 and result["400"] > 20, result
