"""What the model sees of two large tool results, and proof that nothing is lost.

Run it with ``make demo``. It truncates a generated build log (as ``execute_command``) and a
generated search result in JSON (as ``search_files``) with the default configuration, prints
what the model would see and the metadata, then reads the full content back from the
artifact store and checks it byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import random
import textwrap

from truncation_core import TruncationResult, Truncator


def build_log(lines: int = 60_000) -> str:
    rng = random.Random(7)  # deterministic demo data, not a secret
    out = [f"[{i:06d}] compiling module_{rng.randrange(900):03d}.c ... ok\n" for i in range(lines)]
    out[lines // 2] = "[030000] warning: deprecated call in module_417.c:88\n"
    out += ["FAILED tests/test_io.py::test_roundtrip - AssertionError: 3 != 4\n",
            "=========== 1 failed, 2411 passed in 81.02s ===========\n"]
    return "".join(out)


def search_results(count: int = 3_000) -> str:
    results = [
        {"path": f"src/pkg/module_{i:04d}.py", "line": 10 + i % 300, "score": round(1 - i / count, 4),
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
    if result.metadata.strategy_used == "element":
        print("--- still valid JSON " + "-" * 57)
        content = result.content
        preview = content[content.index("\n{") + 1:] if "\n{" in content else content
        shown = json.loads(preview)  # raises if the element strategy broke the JSON
        kept = [r for r in shown["results"] if isinstance(r, dict)]
        print(f"  json.loads() of what the model sees (below the artifact reference) works: "
              f"{len(kept)} of {shown['total_count']:,} results, first and last included")
    print("--- nothing is lost " + "-" * 58)
    assert result.artifact is not None, "spill is on by default: the artifact must exist"
    with truncator.store.open(result.artifact.id) as f:
        kept = f.read()
    same = hashlib.sha256(kept).hexdigest() == hashlib.sha256(original.encode()).hexdigest()
    print(f"  artifact {result.artifact.id} ({result.artifact.backend} store): "
          f"{len(kept):,} bytes, sha256 {'matches' if same else 'DIFFERS FROM'} the original")
    if not same:
        raise SystemExit("the artifact does not match the original")


def main() -> None:
    truncator = Truncator.from_config()
    log = build_log()
    show("execute_command: a 60,000-line build log (tail strategy)",
         truncator.process(log, tool="execute_command", command="make all test"), log,
         truncator)
    found = search_results()
    show("search_files: 3,000 search results as JSON (element strategy)",
         truncator.process(found, tool="search_files", query="handler"), found, truncator)
    stats = truncator.stats().total
    print(f"\n{stats.calls} calls, {stats.truncations} truncated, {stats.artifacts} artifacts, "
          f"{stats.chars_saved:,} characters kept out of the model's context.")


if __name__ == "__main__":
    main()
