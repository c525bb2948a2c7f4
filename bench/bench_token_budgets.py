"""The cost of a token budget: a 10 MB log cut to ``max_tokens``, against the same cut by
``inline_limit``, measured in the same run.

    .venv/bin/python bench/bench_token_budgets.py            # a few minutes
    .venv/bin/python bench/bench_token_budgets.py --quick    # fewer samples, for a smoke run

Needs the truncation-core-tiktoken plugin for the ``o200k_base`` and ``cl100k_base`` rows.

| subject | baseline | target |
| --- | --- | --- |
| ``process()``, 10 MB log, ``max_tokens: 2000``, spill off | ``inline_limit: 8000`` | <= 1.5x |
| the same with ``tokenizer: o200k_base`` | the same baseline | <= 2x |

The baseline is the cut by characters alone, with the default ``inline_limit`` (8,000: four
characters for each of the 2,000 tokens).

The log is the real build and test logs of tests/corpus, repeated to 10 MB. ``estimate``
caches the counts of the lines it has seen: every sample first empties that cache, so that
each cut is counted as if its lines were new (its cache of word pieces stays, as in a
long-lived process; tiktoken's encoding is loaded before the first sample).

Samples alternate between the subject and the baseline; times are the fastest sample, ratios
the median of adjacent samples' ratios, so that a busy shared machine disturbs both alike.
Rows with spill on (the memory store) are information, without a target: storing the artifact
costs more than counting. Nothing here is asserted by the test suite; bench/results records
a run.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from truncation_core import Truncator
from truncation_core.tokens import estimate as estimate_module

ROOT = Path(__file__).resolve().parent.parent
SIZE = 10_000_000
MAX_TOKENS = 2000


def corpus_log(size: int = SIZE) -> str:
    parts = [p.read_text(encoding="utf-8", errors="replace")
             for p in sorted((ROOT / "tests" / "corpus").glob("*.txt"))]
    log = "".join(parts)
    return (log * (size // len(log) + 1))[:size]


def plugins() -> list[Any]:
    try:
        import truncation_core_tiktoken
    except ImportError:
        print("(truncation-core-tiktoken is not installed: rows for named tokenizers are "
              "skipped)")
        return []
    return [truncation_core_tiktoken]


def measure(subject: Callable[[], object], baseline: Callable[[], object], samples: int,
            before: Callable[[], object] = lambda: None) -> tuple[float, float, float]:
    """Fastest seconds of *subject* and *baseline*, and the median ratio of adjacent
    samples. *before* runs (untimed) before each subject sample."""
    times: list[list[float]] = [[], []]
    for _ in range(samples):
        for k, fn in enumerate((subject, baseline)):
            if k == 0:
                before()
            t0 = time.perf_counter()
            fn()
            times[k].append(time.perf_counter() - t0)
    ratios = [a / b for a, b in zip(*times, strict=True)]
    return min(times[0]), min(times[1]), statistics.median(ratios)


def forget_lines() -> None:
    estimate_module._segment_counts.clear()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    samples = 5 if args.quick else 15
    log = corpus_log()
    extra = plugins()
    print(f"10 MB log ({len(log):,} characters, {log.count(chr(10)):,} lines), max_tokens "
          f"{MAX_TOKENS:,}; {samples} samples each\n")
    print("| subject | spill | tokenizer | subject ms | baseline ms | ratio | target |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for spill in (False, True):
        config: dict[str, Any] = {"spill": spill, "store": {"backend": "memory"}}
        baseline_truncator = Truncator({**config, "inline_limit": 4 * MAX_TOKENS},
                                       load_entrypoints=False)

        def baseline(t: Truncator = baseline_truncator) -> object:
            return t.process(log, tool="build")

        for name, target in (("estimate", 1.5), ("o200k_base", 2.0), ("cl100k_base", 2.0)):
            if name != "estimate" and not extra:
                continue
            settings = {**config, "max_tokens": MAX_TOKENS, "tokenizer": name}
            truncator = Truncator(settings, load_entrypoints=False, plugins=extra)
            result = truncator.process(log, tool="build")  # loads the tokenizer
            assert result.metadata.estimated_tokens <= MAX_TOKENS

            def subject(t: Truncator = truncator) -> object:
                return t.process(log, tool="build")

            a, b, ratio = measure(subject, baseline, samples, forget_lines)
            goal = "-" if spill else f"<= {target}x " + ("ok" if ratio <= target else "MISSED")
            print(f"| 10 MB log, max_tokens {MAX_TOKENS:,} | {'on' if spill else 'off'} "
                  f"| {name} | {a * 1e3:.1f} | {b * 1e3:.1f} | {ratio:.2f}x | {goal} |",
                  flush=True)


if __name__ == "__main__":
    main()
