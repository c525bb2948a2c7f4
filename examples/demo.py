"""What the model sees of two large tool results, and proof that nothing is lost.

Run it with ``make demo``. It truncates a generated build log (as ``execute_command``) and a
generated search result in JSON (as ``search_files``) with the default configuration, prints
what the model would see and the metadata, reads the full content back from the artifact
store (the filesystem store, in a temporary workspace that is removed at the end) and checks
it byte for byte, then does what an agent would: reads omitted lines back with the
``get_artifact`` and ``artifact_grep`` tools.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import tempfile
import textwrap

from truncation_core import TruncationResult, Truncator


def build_log(lines: int = 60_000) -> str:
    rng = random.Random(7)  # noqa: S311 - deterministic demo data, not a secret
    out = [f"[{i:06d}] compiling module_{rng.randrange(900):03d}.c ... ok\n" for i in range(lines)]
    out[lines // 2] = "[030000] warning: deprecated call in module_417.c:88\n"
    out += ["FAILED tests/test_io.py::test_roundtrip - AssertionError: 3 != 4\n",
            "=========== 1 failed, 2411 passed in 81.02s ===========\n"]
    return "".join(out)


def search_results(count: int = 3_000) -> str:
    results = [
        {"path": f"src/pkg/module_{i:04d}.py", "line": 10 + i % 300,
         "score": round(1 - i / count, 4),
         "snippet": f"def handler_{i}(request):  # matched 'handler'"}
        for i in range(count)
    ]
    return json.dumps({"query": "handler", "total_count": count, "results": results}, indent=1)


def show(title: str, result: TruncationResult, original: str, truncator: Truncator) -> None:
    bar = "=" * 78
    print(f"\n{bar}\n{title}\n{bar}")
    print("--- what the model sees " + "-" * 54)
    print(result.content)
    print("--- metadata " + "-" * 65)
    meta = result.metadata.to_dict()
    keys = ["tool", "strategy_used", "original_size", "truncated_size", "original_lines",
            "omitted_lines", "omitted_chars", "estimated_tokens", "artifact_id", "notes"]
    if meta["details"]:
        keys.append("details")  # structured strategies: what was cut, by path
    print(textwrap.indent(json.dumps({k: meta[k] for k in keys}, indent=2), "  "))
    if result.metadata.strategy_used in ("element", "ranked"):
        print("--- still valid JSON " + "-" * 57)
        # The artifact reference is a member of the document ("[truncated]"), so what the
        # model sees parses as it is.
        shown = json.loads(result.content)  # raises if the strategy broke the JSON
        kept = [r for r in shown["results"] if isinstance(r, dict)]
        which = ("the best-scored" if result.metadata.strategy_used == "ranked"
                 else "first and last included")
        print(f"  json.loads() of what the model sees works, the artifact reference inside: "
              f"{len(kept)} of {shown['total_count']:,} results, {which}")
    print("--- nothing is lost " + "-" * 58)
    assert result.artifact is not None, "spill is on by default: the artifact must exist"
    kept = truncator.artifacts.read(result.artifact.id)
    same = hashlib.sha256(kept).hexdigest() == hashlib.sha256(original.encode()).hexdigest()
    print(f"  artifact {result.artifact.id} ({result.artifact.backend} store): "
          f"{len(kept):,} bytes, sha256 {'matches' if same else 'DIFFERS FROM'} the original")
    if not same:
        raise SystemExit("the artifact does not match the original")


def read_back(truncator: Truncator, result: TruncationResult) -> None:
    """What an agent does next: call the artifact tools, as a model would."""
    bar = "=" * 78
    print(f"\n{bar}\nthe agent reads omitted lines back through call_tool\n{bar}")
    assert result.artifact is not None
    artifact_id = result.artifact.id
    calls = [
        ("artifact_grep", {"artifact_id": artifact_id, "pattern": "warning"}),
        ("get_artifact", {"artifact_id": artifact_id, "start_line": 29_999, "end_line": 30_003}),
    ]
    print("tools offered to the model: "
          + ", ".join(t["function"]["name"] for t in truncator.tool_schemas("openai")))
    for name, arguments in calls:
        print(f"\n>>> call_tool({name!r}, {json.dumps(arguments)})")
        answer = truncator.call_tool(name, arguments)
        print(answer.content)
        if answer.is_error:
            raise SystemExit(f"{name} failed: {answer.content}")
    page = truncator.call_tool(*calls[1]).content
    if not re.search(r"^ 30001\t\[030000\] warning", page, flags=re.M):
        raise SystemExit("get_artifact did not return the omitted warning line")


def main() -> None:
    # A throwaway workspace: the filesystem store keeps artifacts under
    # <workspace>/.truncation/artifacts, and the demo must not leave files behind.
    with tempfile.TemporaryDirectory(prefix="truncation-demo-") as workspace:
        cwd = os.getcwd()
        os.chdir(workspace)
        try:
            run()
        finally:
            os.chdir(cwd)


def run() -> None:
    truncator = Truncator.from_config()
    log = build_log()
    log_result = truncator.process(log, tool="execute_command", command="make all test")
    show("execute_command: a 60,000-line build log that fails at its end (adaptive: mostly "
         "the tail)", log_result, log, truncator)
    found = search_results()
    show("search_files: 3,000 scored search results as JSON (ranked: the best scores)",
         truncator.process(found, tool="search_files", query="handler"), found, truncator)
    read_back(truncator, log_result)
    stats = truncator.stats().total
    print(f"\n{stats.calls} calls, {stats.truncations} truncated, {stats.artifacts} artifacts, "
          f"{stats.chars_saved:,} characters kept out of the model's context.")


if __name__ == "__main__":
    main()
