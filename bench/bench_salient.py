"""Salient lines: how many of the key lines of real failing output the model sees.

The outputs are the first seven cases of the corpus in ``tests/corpus/`` (real tool output:
pytest with failures, a Python service logging a traceback in the middle of a long log, pip
failing to resolve conflicting requirements, gcc errors under ``make -k``, an npm script that
throws, ``cargo test`` with a failing test), with the key lines marked by hand in
``tests/corpus/manifest.json``. ``bench/corpus_generate.py`` re-creates them;
``bench/bench_recall.py`` scores every case of the corpus under more views.

Part 1 measures, for each output, the share of key lines visible in:

* what truncation-core shows with its defaults for ``execute_command`` (tail + highlights);
* plain head, tail, 50/50 and 20/80 cuts of the same budget (8,000 characters: the default
  inline limit), without any marker.

A key line counts as seen when its text (up to 150 characters) appears in the output.

Part 2 measures what highlights cost: ``process()`` of about 9 MB of each output (repeated),
and of a generated log without a single salient line, for ``execute_command`` with
highlights on and off. Samples alternate between the two; each time is the fastest of its
samples (the least disturbed on a shared machine).

Results go to ``bench/results/salient.md`` and to stdout.

    python bench/bench_salient.py
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "tests" / "corpus"
#: The cases this benchmark has measured since it was written (bench_recall.py scores all).
CASES = ("pytest-failures", "pytest-many-failures", "python-traceback-in-log",
         "pip-resolution-error", "gcc-make-errors", "npm-script-error", "cargo-test-failure")
RESULTS = HERE / "results" / "salient.md"
BUDGET = 8000
COST_SIZE = 9_000_000
COST_SAMPLES = 7


# -- measuring --------------------------------------------------------------------------------


def plain(text: str, head_share: float) -> str:
    head = int(BUDGET * head_share)
    tail = BUDGET - head
    return text[:head] + (text[-tail:] if tail else "")


def measure() -> str:
    sys.path.insert(0, str(HERE.parent))
    from truncation_core import Truncator
    from truncation_core.storage.memory import MemoryStore

    truncator = Truncator(load_entrypoints=False, store=MemoryStore())
    from bench_recall import corpus_lines, key_probe, load_manifest, read_case

    keys = {c["name"]: c for c in load_manifest()["cases"] if c["name"] in CASES}
    methods: dict[str, Callable[[str], str]] = {
        "truncation-core (tail + highlights)":
            lambda t: truncator.process(t, tool="execute_command").content,
        "truncation-core, highlights off":
            lambda t: Truncator({"tools": {"execute_command": {"highlights": 0}}},
                                load_entrypoints=False, store=MemoryStore()
                                ).process(t, tool="execute_command").content,
        "head": lambda t: plain(t, 1.0),
        "tail": lambda t: plain(t, 0.0),
        "50/50": lambda t: plain(t, 0.5),
        "20/80": lambda t: plain(t, 0.2),
    }
    rows = []
    totals = {m: 0 for m in methods}
    shares: dict[str, list[float]] = {m: [] for m in methods}
    all_keys = 0
    for name, info in keys.items():
        text = read_case(info)
        lines = corpus_lines(text)
        wanted = [key_probe(k, lines) for k in info["key_lines"]]
        all_keys += len(wanted)
        cells = []
        for method, cut in methods.items():
            shown = cut(text)
            seen = sum(1 for w in wanted if w and w in shown)
            totals[method] += seen
            shares[method].append(seen / len(wanted))
            cells.append(f"{seen}/{len(wanted)}")
        rows.append((name, f"{len(text):,}", f"{len(lines):,}", *cells))
    header = ("output", "chars", "lines", *methods)
    total_row = ("**all key lines**", "", "", *(
        f"**{totals[m]}/{all_keys} ({totals[m] / all_keys:.0%})**" for m in methods))
    mean_row = ("**mean share per output**", "", "", *(
        f"**{sum(shares[m]) / len(shares[m]):.0%}**" for m in methods))
    table = [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(row) + " |" for row in (*rows, total_row, mean_row)),
    ]
    return "\n".join(table)


def cost() -> str:
    sys.path.insert(0, str(HERE.parent))
    from truncation_core import Truncator
    from truncation_core.storage.memory import MemoryStore

    def truncator(highlights: int) -> Truncator:
        return Truncator({"tools": {"execute_command": {"highlights": highlights}}},
                         load_entrypoints=False, store=MemoryStore())

    from bench_stream import service_log

    on, off = truncator(8), truncator(0)
    log = service_log(100_000)
    inputs = {"service log, no salient line": (log * (COST_SIZE // len(log) + 1))[:COST_SIZE]}
    for name in CASES:
        text = (CORPUS / f"{name}.txt").read_text()
        inputs[f"{name}, repeated"] = (text * (COST_SIZE // len(text) + 1))[:COST_SIZE]
    rows = ["| input (9 MB) | highlights off | highlights on | added, per MB | on / off |",
            "|---|---|---|---|---|"]
    for name, text in inputs.items():
        times: dict[Truncator, list[float]] = {on: [], off: []}
        for _ in range(COST_SAMPLES):
            for subject in (off, on):
                start = time.perf_counter()
                subject.process(text, tool="execute_command")
                times[subject].append(time.perf_counter() - start)
        best_off, best_on = min(times[off]), min(times[on])
        added = (best_on - best_off) / (len(text) / 1e6)
        rows.append(f"| {name} | {best_off * 1e3:.1f} ms | {best_on * 1e3:.1f} ms | "
                    f"{added * 1e3:.1f} ms | {best_on / best_off:.2f}x |")
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    table = measure()
    print(table)
    costs = cost()
    print(costs)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        "# Salient lines: key lines of real failing output that the model sees\n\n"
        "Generated by `python bench/bench_salient.py` from the corpus in `tests/corpus/` "
        "(real tool output, `tests/corpus/`, key lines marked by hand). Budget: 8,000 "
        "characters for every method; "
        "truncation-core uses the defaults for `execute_command` (outputs over 50,000 "
        "characters are shown as an artifact reference with a 2,000-character preview, so it "
        "often shows fewer characters than the plain cuts). Each cell: key lines seen / key "
        "lines.\n\n" + table + "\n\n"
        "Key lines are marked by hand in `tests/corpus/manifest.json` (the error, its "
        "location, the failing test, the final status), not by the library's patterns; "
        "`bench/bench_recall.py` scores the whole corpus. Plain cuts have no marker, "
        "so they show all 8,000 characters. Where highlights still miss lines, there are more "
        "matches than the block shows (30 failed tests; at most 8 lines, and a quarter of the "
        "budget); where nothing is cut (pip), every method sees everything.\n\n"
        "## What it costs\n\n"
        "`process()` of about 9 MB for `execute_command`, highlights on (the default) and off, "
        "fastest of 7 alternating samples each:\n\n" + costs + "\n")


if __name__ == "__main__":
    main()
