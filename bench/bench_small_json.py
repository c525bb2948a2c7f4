"""Small JSON documents through ``element``: the cut against ``json.loads`` of the same text.

    python bench/bench_small_json.py            # 10 KB and 40 KB, two shapes each
    python bench/bench_small_json.py --quick    # fewer samples

JSON tool results of 10 to 50 KB are the most common large results an agent sees (API
responses, search results). Each case cuts one document to the default budget (8,000
characters) in a warm process:

* ``element``: :func:`~truncation_core.structured.dispatch.element_cut` with fresh content
  facts, so the parse is included (``json.loads`` with the pairs hook, then the fit);
* ``fit``: the fit alone, of the document already parsed (what the parse costs is the
  difference), for reference;
* ``process``: ``Truncator.process`` of the same text (spill off), for reference: the whole
  call, strategy selection and metadata included.

The baseline is ``json.loads`` of the same text, measured in the same run. Samples of the
baseline and of the cut alternate, and each time is the fastest of N samples, in CPU time of
the process (``time.process_time_ns``): on a shared machine, wall time also counts the time
other processes hold the CPU, which at these durations (0.05 to 2 ms) is most of the noise.
Compare ratios, not absolute times. Target: ``element`` within 5x ``json.loads``.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Callable
from typing import Any

TARGET = 5.0


def _words(rng: random.Random, n: int) -> str:
    return " ".join("".join(rng.choice("abcdefghijklmnopqrstuvwxyz")
                            for _ in range(rng.randint(1, 9))) for _ in range(n))


def search_response(size: int) -> str:
    """Search results with scores, pretty-printed (indent 2), of at least *size* characters."""
    rng = random.Random(1)  # noqa: S311 (test data, not a secret)
    results: list[dict[str, Any]] = []
    text = ""
    while len(text) < size:
        i = len(results)
        results.append({"id": i, "title": f"Result {i}: {_words(rng, 4)}",
                        "url": f"https://example.com/docs/{i}?q=needle",
                        "score": round(rng.random(), 4), "snippet": _words(rng, 24),
                        "tags": [_words(rng, 1) for _ in range(rng.randint(0, 4))]})
        text = json.dumps({"query": "needle", "total": len(results), "results": results},
                          indent=2)
    return text


def api_response(size: int) -> str:
    """A page of users from a REST API, compact, of at least *size* characters."""
    rng = random.Random(2)  # noqa: S311 (test data, not a secret)
    users: list[dict[str, Any]] = []
    text = ""
    while len(text) < size:
        i = len(users)
        users.append({"id": 1000 + i, "login": f"user{i}", "site_admin": i % 7 == 0,
                      "type": "User", "node_id": f"MDQ6VXNlcj{i}",
                      "followers": rng.randint(0, 10_000),
                      "bio": None if i % 3 else _words(rng, 6),
                      "repos": [{"name": f"repo-{j}", "stars": rng.randint(0, 500)}
                                for j in range(rng.randint(0, 4))]})
        text = json.dumps({"data": users, "page": 1, "per_page": len(users)})
    return text


def fastest(samples: int, *fns: Callable[[], Any]) -> list[float]:
    """The fastest time of each function over *samples* rounds, the functions alternating."""
    best = [float("inf")] * len(fns)
    for _ in range(samples):
        for i, fn in enumerate(fns):
            start = time.process_time_ns()
            fn()
            best[i] = min(best[i], (time.process_time_ns() - start) / 1e9)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer samples")
    args = parser.parse_args()
    samples = 100 if args.quick else 400

    from truncation_core import Truncator
    from truncation_core.pipeline.facts import content_facts
    from truncation_core.pipeline.markers import MarkerRenderer
    from truncation_core.structured.dispatch import element_cut
    from truncation_core.structured.json_element import detect_style, fit
    from truncation_core.structured.notes import NoteCache
    from truncation_core.structured.sniff import parse

    # element pinned: with its default strategy, a search tool's results with scores go to
    # ranked, and process() is timed here only as the whole call around the same cut.
    truncator = Truncator({"spill": False, "tools": {"search_files": {"strategy": "element"}}},
                          load_entrypoints=False)
    policy = truncator.policy("search_files")

    def cut(text: str) -> Any:
        facts = content_facts(text)
        markers = MarkerRenderer(format=truncator.plugins.format_marker, policy=policy,
                                 strategy="element", tool="search_files", facts=facts)
        return element_cut(text, budget=policy.budget, facts=facts, policy=policy,
                           markers=markers)

    def fit_parsed(text: str, value: Any) -> Any:
        markers = MarkerRenderer(format=truncator.plugins.format_marker, policy=policy,
                                 strategy="element", tool="search_files",
                                 facts=content_facts(text))
        return fit(value, budget=policy.budget, style=detect_style(text),
                   note=NoteCache(markers), head_ratio=policy.head_ratio,
                   max_depth=policy.max_depth)

    worst = 0.0
    for name, make in (("search results, indented", search_response),
                       ("API response, compact", api_response)):
        for size in (10_000, 40_000):
            text = make(size)
            result = cut(text)
            assert result.strategy is None and len(result.text) <= policy.inline_limit
            json.loads(result.text)
            processed = truncator.process(text, tool="search_files")
            assert processed.metadata.strategy_used == "element"
            value = parse(text).value
            loads, ours, fitted, whole = fastest(
                samples, lambda t=text: json.loads(t), lambda t=text: cut(t),
                lambda t=text, v=value: fit_parsed(t, v),
                lambda t=text: truncator.process(t, tool="search_files"))
            ratio = ours / loads
            worst = max(worst, ratio)
            print(f"{name}, {len(text) / 1000:.0f} KB: element {ours * 1000:.3f} ms vs json.loads "
                  f"{loads * 1000:.3f} ms -> ratio {ratio:.1f} (target <= {TARGET:.0f}) "
                  f"{'OK' if ratio <= TARGET else 'MISSED'}; fit alone {fitted / loads:.1f}, "
                  f"process() {whole / loads:.1f}")
    print(f"worst element ratio {worst:.1f}")


if __name__ == "__main__":
    main()
