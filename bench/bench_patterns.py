"""Regular expressions from a model: RE2 (``google-re2``) against the guarded ``regex`` engine.

Does ``google-re2`` earn its place as a dependency? Both engines run the same ``grep`` calls
(truncation-core's own, with ``engines=`` choosing one) in the same run:

* **ordinary searches** over a 32 MB log: the kinds of pattern models send (a word, an
  alternation, an anchor, digits, ignoring case, a pattern that matches nothing). Times are the
  fastest of alternating samples; the ratio is RE2's time over regex's (below 1: RE2 faster).
* **hostile searches**, one line of 50,000 characters: nested quantifiers ``(a+)+$`` and
  friends. ``regex`` backtracks until the 2 s deadline stops it (an error, no answer); RE2
  answers in linear time.
* **hostile compiles**, each in a fresh process under a 2 GiB address-space cap, with its
  peak RSS: counted repetition that ``regex`` unrolls when it compiles (the text guard
  refuses those before they reach it: the column "guard" says so; the last is the verbose-mode
  pattern that the guard used to let through) against RE2, whose compile is capped by
  ``max_mem`` and repetition counts of 1,000.

Results go to ``bench/results/patterns.md`` and to stdout.

    python bench/bench_patterns.py [--quick]
"""

from __future__ import annotations

import argparse
import io
import json
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from truncation_core.errors import PatternError  # noqa: E402
from truncation_core.retrieval.searching import grep  # noqa: E402
from truncation_core.text.bounded_regex import check_cost, re2_available  # noqa: E402

RESULTS = HERE / "results" / "patterns.md"

ORDINARY = [
    ("a word", r"Traceback", False),
    ("alternation", r"ERROR|FATAL|panic", False),
    ("anchored", r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d ERROR", False),
    ("digits", r"took \d{4,} ms", False),
    ("ignoring case", r"connection (reset|refused)", True),
    ("class and repeat", r"[A-Z][a-z]+Error: .*timeout", False),
    ("matches nothing", r"no such line \d+ here", False),
]
HOSTILE = [r"(a+)+$", r"(a|aa)+$", r"(\w+\s?)+$", r"(.*a){12}$", r"^(a?){25}a{25}$"]
BOMBS = [r"(?:ab|cd){1000}", r".{0,1000}x", r"(?:ab|cd){1000000}", r"(?:(?:ab|cd){999}){999}",
         "(?x)(?:(?:ab|cd) {999}) {999}"]


def log_text(size: int) -> bytes:
    rng = random.Random(7)  # noqa: S311 (a reproducible text, not a secret)
    levels = ["INFO"] * 30 + ["DEBUG"] * 20 + ["WARNING"] * 3 + ["ERROR"]
    words = ("request handled user session cache miss hit upstream took ms retry "
             "connection reset refused ok timeout worker queue job done").split()
    lines: list[str] = []
    total = 0
    while total < size:
        t = f"2026-11-{rng.randint(1, 28):02d} {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}"
        msg = " ".join(rng.choice(words) for _ in range(rng.randint(4, 14)))
        if rng.random() < 0.01:
            msg += f" took {rng.randint(100, 99999)} ms"
        if rng.random() < 0.002:
            msg = "Traceback (most recent call last):"
        lines.append(f"{t}:{rng.randint(0, 59):02d} {rng.choice(levels)} {msg}\n")
        total += len(lines[-1])
    return "".join(lines).encode()


def timed(data: bytes, pattern: str, ignore_case: bool, engine: str) -> tuple[float, str]:
    start = time.perf_counter()
    try:
        result = grep(io.BytesIO(data), pattern, regex=True, ignore_case=ignore_case,
                      max_matches=100, engines=(engine,), timeout=2.0)
        outcome = f"{len(result.matches)} lines"
    except PatternError as exc:
        outcome = "stopped" if "too long" in str(exc) else "refused"
    return time.perf_counter() - start, outcome


def compile_in_child(pattern: str, engine: str) -> tuple[str, float, int]:
    code = f"""
import json, resource, time
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
start = time.perf_counter()
try:
    if {engine!r} == "re2":
        import re2
        o = re2.Options(); o.max_mem = 8 << 20; o.log_errors = False
        re2.compile({pattern!r}.encode(), o)
    else:
        import regex
        regex.compile({pattern!r})
    outcome = "compiled"
except MemoryError:
    outcome = "MemoryError"
except Exception as exc:
    outcome = "refused: " + type(exc).__name__
# VmHWM, not ru_maxrss: the latter carries the parent's peak over exec.
peak = next(int(line.split()[1]) for line in open("/proc/self/status")
            if line.startswith("VmHWM"))
print(json.dumps([outcome, time.perf_counter() - start, peak]))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    if done.returncode != 0:
        return f"crashed ({done.returncode})", 0.0, 0
    outcome, seconds, rss = json.loads(done.stdout)
    return outcome, seconds, rss


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    if not re2_available():
        sys.exit("google-re2 is not installed: pip install google-re2")
    samples = 3 if args.quick else 5
    data = log_text(8 << 20 if args.quick else 32 << 20)
    out = [f"# RE2 against the guarded regex engine ({len(data) / 1e6:.0f} MB log, "
           f"{samples} samples)", "", "## Ordinary searches (grep, first 100 matching lines)",
           "", "| search | pattern | regex | RE2 | RE2 / regex |",
           "| --- | --- | --- | --- | --- |"]
    report: dict[str, object] = {}
    ratios = []
    for name, pattern, ignore_case in ORDINARY:
        best = {"regex": float("inf"), "re2": float("inf")}
        outcome = {}
        for _ in range(samples):
            for engine in ("regex", "re2"):
                seconds, outcome[engine] = timed(data, pattern, ignore_case, engine)
                best[engine] = min(best[engine], seconds)
        assert outcome["regex"] == outcome["re2"], (pattern, outcome)
        ratio = best["re2"] / best["regex"]
        ratios.append(ratio)
        report[name] = {"regex": best["regex"], "re2": best["re2"], "ratio": ratio}
        out.append(f"| {name} | `{pattern}` | {best['regex'] * 1000:.1f} ms | "
                   f"{best['re2'] * 1000:.1f} ms | {ratio:.2f} |")
    geo = 1.0
    for r in ratios:
        geo *= r
    geo **= 1 / len(ratios)
    out += ["", f"Geometric mean of the ratios: **{geo:.2f}**.", "",
            "## Hostile searches (one line: 50,000 times `a`, then `b`; regex's 2 s deadline is "
            "CPU time)", "",
            "| pattern | regex | RE2 |", "| --- | --- | --- |"]
    line = b"a" * 50_000 + b"b\n" + b"tail\n" * 10
    for pattern in HOSTILE:
        cells = []
        for engine in ("regex", "re2"):
            seconds, outcome = timed(line, pattern, False, engine)
            cells.append(f"{outcome}, {seconds * 1000:.0f} ms")
        out.append(f"| `{pattern}` | {cells[0]} | {cells[1]} |")
    out += ["", "## Hostile compiles (fresh process each, under a 2 GiB address-space cap)", "",
            "| pattern | guard | regex.compile | RE2 compile |", "| --- | --- | --- | --- |"]
    for pattern in BOMBS:
        try:
            check_cost(pattern)
            guard = "lets it through"
        except PatternError:
            guard = "refuses it"
        cells = []
        for engine in ("regex", "re2"):
            outcome, seconds, rss = compile_in_child(pattern, engine)
            cells.append(f"{outcome}, {seconds * 1000:.0f} ms, {rss / 1024:.0f} MiB peak")
        out.append(f"| `{pattern}` | {guard} | {cells[0]} | {cells[1]} |")
    text = "\n".join(out) + "\n"
    print(text)
    RESULTS.write_text(text)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
