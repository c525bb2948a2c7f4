"""The cost of a token budget: a 10 MB log cut to ``max_tokens``, against the same cut by
``inline_limit``, measured in the same run.

    .venv/bin/python bench/bench_token_budgets.py            # a few minutes
    .venv/bin/python bench/bench_token_budgets.py --quick    # fewer samples, for a smoke run

Needs the truncation-core-tiktoken plugin for the ``o200k_base`` and ``cl100k_base`` rows.

| subject | baseline | target |
| --- | --- | --- |
| 10 MB log, only ``max_tokens: 2000`` binding, spill off | ``inline_limit: 8000`` | <= 1.5x |
| the same with ``tokenizer: o200k_base`` | the same baseline | <= 2x |
| ``max_tokens: 2000`` with the default ``inline_limit`` (both bind) | the same | <= 1.5x, 2x |

"Only ``max_tokens``": ``inline_limit`` is raised over the log's size, so that the log is
within it and the token limit alone cuts (the case that counted the whole input before).
The baseline is the cut by characters alone, with the default ``inline_limit`` (8,000: four
characters for each of the 2,000 tokens). Highlights are off in the rows with a target, in
subject and baseline alike: scanning 10 MB for salient lines costs both the same, far more
than the cut, and would hide what counting costs. Rows with highlights on (the default, 8)
and with spill on (the memory store) are information, without a target.

The log is the real build and test logs of tests/corpus, repeated to 10 MB. ``estimate``
caches the counts of the lines it has seen: every sample first empties that cache, so that
each cut is counted as if its lines were new (its cache of word pieces stays, as in a
long-lived process; tiktoken's encoding is loaded before the first sample).

Samples alternate between the subject and the baseline; times are the process's CPU time
(``time.process_time``: on a shared machine, wall time measures the neighbours too), the
fastest sample, and ratios the median of adjacent samples' ratios, so that a busy machine
disturbs both alike.
Each row also says how many characters the tokenizer was given per character shown (a
counting wrapper, in a run of its own): the work in proportion to what is shown. Nothing
here is asserted by the test suite; bench/results records a run.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from truncation_core import Provides, Truncator, hookimpl
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
            t0 = time.process_time()
            fn()
            times[k].append(time.process_time() - t0)
    ratios = [a / b for a, b in zip(*times, strict=True)]
    return min(times[0]), min(times[1]), statistics.median(ratios)


def forget_lines() -> None:
    estimate_module._segment_counts.clear()


class CountingPlugin:
    """Provides the named tokenizer wrapped so that it adds up the characters it counts."""

    __name__ = "counting"

    def __init__(self, name: str, extra: list[Any]) -> None:
        self.name = name
        self.extra = extra
        self.chars = 0

    @hookimpl
    def provides(self) -> Provides:
        inner: Any = Truncator({"tokenizer": self.name}, load_entrypoints=False,
                          plugins=self.extra).policy().counter
        plugin = self

        class Counting:
            name = "counting"
            byte_level = inner.byte_level

            def count(self, text: str) -> int:
                plugin.chars += len(text)
                return inner.count(text)

            def fit_prefix(self, text: str, max_tokens: int) -> int:
                return inner.fit_prefix(text, max_tokens)

            def fit_suffix(self, text: str, max_tokens: int) -> int:
                return inner.fit_suffix(text, max_tokens)

        return Provides(tokenizers={"counting": Counting})


def chars_counted(log: str, settings: dict[str, Any], name: str, extra: list[Any]
                  ) -> tuple[int, int]:
    """(characters given to the tokenizer, characters shown) for one cut of *log*."""
    plugin = CountingPlugin(name, extra)
    truncator = Truncator({**settings, "tokenizer": "counting"}, load_entrypoints=False,
                          plugins=[*extra, plugin])
    result = truncator.process(log, tool="build")
    return plugin.chars, len(result.content)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    samples = 5 if args.quick else 15
    log = corpus_log()
    extra = plugins()
    print(f"10 MB log ({len(log):,} characters, {log.count(chr(10)):,} lines), max_tokens "
          f"{MAX_TOKENS:,}; {samples} samples each\n")
    print("| subject | highlights | spill | tokenizer | subject ms | baseline ms | ratio "
          "| target | counted / shown |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    rows = [  # (inline_limit of the subject, highlights, spill, with a target)
        (4 * SIZE, 0, False, True),
        (None, 0, False, True),
        (4 * SIZE, 8, False, False),
        (4 * SIZE, 0, True, False),
    ]
    for inline_limit, highlights, spill, targeted in rows:
        config: dict[str, Any] = {"spill": spill, "store": {"backend": "memory"},
                                  "highlights": highlights}
        baseline_truncator = Truncator({**config, "inline_limit": 4 * MAX_TOKENS},
                                       load_entrypoints=False)

        def baseline(t: Truncator = baseline_truncator) -> object:
            return t.process(log, tool="build")

        subject_name = ("only max_tokens" if inline_limit else "max_tokens and inline_limit "
                        f"{4 * MAX_TOKENS:,}")
        for name, target in (("estimate", 1.5), ("o200k_base", 2.0), ("cl100k_base", 2.0)):
            if name != "estimate" and not extra:
                continue
            settings = {**config, "max_tokens": MAX_TOKENS,
                        **({"inline_limit": inline_limit} if inline_limit else {})}
            truncator = Truncator({**settings, "tokenizer": name}, load_entrypoints=False,
                                  plugins=extra)
            result = truncator.process(log, tool="build")  # loads the tokenizer
            assert result.metadata.estimated_tokens <= MAX_TOKENS

            def subject(t: Truncator = truncator) -> object:
                return t.process(log, tool="build")

            forget_lines()
            counted, shown = chars_counted(log, settings, name, extra)
            a, b, ratio = measure(subject, baseline, samples, forget_lines)
            goal = (f"<= {target}x " + ("ok" if ratio <= target else "MISSED")) if targeted \
                else "-"
            print(f"| 10 MB log, {subject_name} | {highlights} | {'on' if spill else 'off'} "
                  f"| {name} | {a * 1e3:.1f} | {b * 1e3:.1f} | {ratio:.2f}x | {goal} "
                  f"| {counted / shown:.1f} |", flush=True)


if __name__ == "__main__":
    main()
