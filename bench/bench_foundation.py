"""Benchmarks of the foundation (issue 2), each against a baseline measured in the same run.

    .venv/bin/python bench/bench_foundation.py            # about a minute
    .venv/bin/python bench/bench_foundation.py --quick    # fewer samples, for a smoke run

Prints one row per measurement: the time (or memory), the baseline it is compared with, the
ratio, the target, and whether the target is met. Samples alternate between the subject and
its baseline; times are the fastest sample, ratios the median of adjacent samples' ratios, so
that a noisy shared machine disturbs both alike. Nothing here is asserted by the test suite.

| what | baseline | target |
| --- | --- | --- |
| ``process()``, content under the limit | one pluggy hook call, one impl | ratio < 1 |
| head_tail via ``process()``, spill off, 100 KB | 0.1 ms; ``text.count("\\n")`` | < 0.1 ms |
| head_tail via ``process()``, spill off, 10 MB | ``text.count("\\n")``, same text | <= 1.2x |
| peak memory of ``process()`` on 10 MB | the input's size | < 2x |

Peak memory is measured in a fresh subprocess per case, the input itself excluded, two ways:
*allocated* is the ``tracemalloc`` peak of what processing allocates; *resident* is the growth
of ``VmHWM`` over ``VmRSS`` after resetting the high-water mark (``/proc/self/clear_refs``,
Linux >= 4.0; skipped where that is not allowed). They differ when an allocation is larger
than what is written into it: ``str.encode("utf-8")`` reserves 3 (UCS-2) or 4 (UCS-4) bytes
per character and shrinks the buffer afterwards, so untouched pages count as allocated but
never become resident.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import timeit
from collections.abc import Callable
from typing import Any

import pluggy

from truncation_core import Truncator

MB = 1_000_000

#: Flavours of log-like text (about 87 UTF-8 bytes a line), as in docs/research perf.md:
#: ascii (1-byte str), mb2 (every 5th line accented/CJK: 2-byte str), mb4 (adds emoji:
#: 4-byte str).
FLAVOURS = {
    "ascii": ("", ""),
    "mb2": ("café naïve 日本語", ""),
    "mb4": ("café naïve 日本語", " 😀"),
}


def make_text(size: int, flavour: str, newline: str = "\n") -> str:
    """Deterministic log-like text of about *size* UTF-8 bytes."""
    words, emoji = FLAVOURS[flavour]
    lines = []
    total = i = 0
    while total < size:
        extra = f" {words}{emoji}" if flavour != "ascii" and i % 5 == 0 else ""
        line = f"[{i:07d}] INFO worker-{i % 16:02d} processed batch {i * 7919 % 100_003}" \
               f" in {i % 997} ms{extra}{newline}"
        lines.append(line)
        total += len(line.encode())
        i += 1
    return "".join(lines)


class Timing:
    def __init__(self, samples: int) -> None:
        self.samples = samples

    def pair(self, subject: str, baseline: str,
             env: dict[str, Any]) -> tuple[float, float, float]:
        """Seconds per call of *subject* and of *baseline*, and their ratio.

        Samples alternate between the two. Times are the fastest sample (the one least
        disturbed by other processes, as timeit recommends); the ratio is the median of the
        ratios of adjacent samples, which load on a shared machine affects alike.
        """
        timers = [timeit.Timer(subject, globals=env), timeit.Timer(baseline, globals=env)]
        loops = [max(1, t.autorange()[0] // 2) for t in timers]  # about 0.1 s a sample
        results: list[list[float]] = [[], []]
        for _ in range(self.samples):
            for k in (0, 1):
                results[k].append(timers[k].timeit(loops[k]) / loops[k])
        ratios = [a / b for a, b in zip(*results, strict=True)]
        return min(results[0]), min(results[1]), statistics.median(ratios)


def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.2f} µs"
    return f"{seconds * 1e3:8.3f} ms"


ROWS: list[dict[str, Any]] = []


def row(what: str, value: str, baseline_name: str, baseline: str, ratio: float,
        target: float | None, ok: bool | None) -> None:
    verdict = "-" if ok is None else ("ok" if ok else "MISSED")
    goal = "-" if target is None else f"{target:g}"
    ROWS.append({"what": what, "value": value, "baseline": baseline_name,
                 "baseline_value": baseline, "ratio": round(ratio, 3), "target": goal,
                 "verdict": verdict})
    print(f"{what:<44} {value:>12}  vs {baseline_name:<28} {baseline:>12}  "
          f"ratio {ratio:6.2f}  target {goal:>5}  {verdict}", flush=True)


# -- 1. the pass-through path ---------------------------------------------------------------


def one_impl_hook() -> Callable[..., Any]:
    spec = pluggy.HookspecMarker("bench")
    impl = pluggy.HookimplMarker("bench")

    class Spec:
        @spec
        def on_result(self, content: str) -> Any: ...

    class Plugin:
        @impl
        def on_result(self, content: str) -> Any:
            return content

    pm = pluggy.PluginManager("bench")
    pm.add_hookspecs(Spec)
    pm.register(Plugin())
    return pm.hook.on_result


def bench_pass_through(timing: Timing) -> None:
    truncator = Truncator({"store": {"backend": "memory"}}, load_entrypoints=False)
    env = {"truncator": truncator, "hook": one_impl_hook(), "content": "x" * 2000}
    truncator.process(env["content"], tool="read_file")  # the tool's slot is built once
    subject, base, ratio = timing.pair("truncator.process(content, tool='read_file')",
                                       "hook(content=content)", env)
    row("process(), 2 kB under the limit", fmt_time(subject), "pluggy hook, 1 impl",
        fmt_time(base), ratio, 1, ratio < 1)
    # Bytes are decoded, and checked for binary content (a NUL, a magic number) first.
    for flavour in ("ascii", "mb2"):
        env["data"] = make_text(2000, flavour).encode()
        truncator.process(env["data"], tool="read_file")
        subject, base, ratio = timing.pair("truncator.process(data, tool='read_file')",
                                           "data.decode('utf-8', 'replace')", env)
        row(f"process(bytes), 2 kB {flavour} under the limit", fmt_time(subject),
            "bytes.decode, same bytes", fmt_time(base), ratio, None, None)


# -- 2. head_tail on 100 KB and 10 MB -------------------------------------------------------


def bench_head_tail(timing: Timing, size: int, flavours: list[str]) -> None:
    truncator = Truncator({"spill": False}, load_entrypoints=False)
    for flavour in flavours:
        text = make_text(size, flavour)
        env = {"truncator": truncator, "text": text}
        result = truncator.process(text)
        assert result.metadata.strategy_used == "head_tail" and len(result.content) <= 8000
        subject, count, ratio = timing.pair("truncator.process(text)", "text.count('\\n')",
                                            env)
        label = f"head_tail, process(), {size // 1000:,} kB {flavour}" if size < MB else \
            f"head_tail, process(), {size // MB} MB {flavour}"
        if size < MB:
            row(label, fmt_time(subject), "0.1 ms", fmt_time(1e-4), subject / 1e-4, 1,
                subject < 1e-4)
            row(label, fmt_time(subject), "text.count('\\n')", fmt_time(count), ratio, None,
                None)
        else:
            row(label, fmt_time(subject), "text.count('\\n')", fmt_time(count), ratio, 1.2,
                ratio <= 1.2)
            # The floor under our line definition also looks for a lone "\r" (one more
            # scan, memchr-fast on 1-byte strings, slower on 4-byte ones): information.
            subject, floor, ratio = timing.pair(
                "truncator.process(text)", "text.count('\\n'); text.find('\\r')", env)
            row(label, fmt_time(subject), "count('\\n') + find('\\r')", fmt_time(floor), ratio,
                None, None)


def bench_info(timing: Timing) -> None:
    """Not targets: what CRLF text and keeping the artifact (memory store) cost."""
    text = make_text(10 * MB, "ascii", newline="\r\n")
    truncator = Truncator({"spill": False}, load_entrypoints=False)
    subject, count, ratio = timing.pair("truncator.process(text)", "text.count('\\n')",
                                        {"truncator": truncator, "text": text})
    row("head_tail, process(), 10 MB ascii CRLF", fmt_time(subject), "text.count('\\n')",
        fmt_time(count), ratio, None, None)
    spilling = Truncator({"store": {"backend": "memory"}}, load_entrypoints=False)
    for flavour in ("ascii", "mb2"):
        text = make_text(10 * MB, flavour)
        env = {"truncator": spilling, "text": text}
        subject, count, ratio = timing.pair(
            "truncator.store.delete(truncator.process(text).artifact.id)",
            "text.count('\\n')", env)
        row(f"process() + memory artifact, 10 MB {flavour}", fmt_time(subject),
            "text.count('\\n')", fmt_time(count), ratio, None, None)


# -- 3. peak memory --------------------------------------------------------------------------

_MEMORY_PROBE = r"""
import json, sys, tracemalloc
sys.path.insert(0, {bench_dir!r})
from bench_foundation import make_text
from truncation_core import Truncator

def status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return None

flavour, spill = {flavour!r}, {spill!r}
truncator = Truncator({{"spill": spill, "store": {{"backend": "memory"}}}},
                      load_entrypoints=False)
truncator.process(make_text(100_000, flavour))  # warm up: imports, slots, code paths
text = make_text(10_000_000, flavour)
utf8 = len(text.encode("utf-8"))
in_memory = sys.getsizeof(text)

# RSS: reset the high-water mark (Linux >= 4.0), then process.
rss_growth = None
try:
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = status("VmRSS")
    result = truncator.process(text)
    rss_growth = status("VmHWM") - before
    del result
except OSError:
    pass

tracemalloc.start()
tracemalloc.reset_peak()
base = tracemalloc.get_traced_memory()[0]
result = truncator.process(text)
peak = tracemalloc.get_traced_memory()[1] - base
tracemalloc.stop()
print(json.dumps({{"utf8": utf8, "in_memory": in_memory, "peak": peak,
                   "rss_growth": rss_growth}}))
"""


def bench_memory() -> None:
    import os

    bench_dir = os.path.dirname(os.path.abspath(__file__))
    for spill in (False, True):
        for flavour in ("ascii", "mb2", "mb4"):
            code = _MEMORY_PROBE.format(bench_dir=bench_dir, flavour=flavour, spill=spill)
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                  check=True, timeout=300)
            m = json.loads(done.stdout)
            label = f"peak, 10 MB {flavour}, spill {'on' if spill else 'off'}"
            allocated = f"{m['peak'] / MB:8.2f} MB"
            for basis, size in (("input, UTF-8 bytes", m["utf8"]),
                                ("input, str in memory", m["in_memory"])):
                ratio = m["peak"] / size
                row(label + ", allocated", allocated, basis, f"{size / MB:8.2f} MB", ratio, 2,
                    ratio < 2)
            if m["rss_growth"] is not None:
                ratio = m["rss_growth"] / m["utf8"]
                row(label + ", resident", f"{m['rss_growth'] / MB:8.2f} MB",
                    "input, UTF-8 bytes", f"{m['utf8'] / MB:8.2f} MB", ratio, 2, ratio < 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples")
    parser.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = parser.parse_args()
    timing = Timing(samples=5 if args.quick else 11)
    print(f"Python {sys.version.split()[0]}, pluggy {pluggy.__version__}; {timing.samples} "
          "alternating samples: fastest time, median ratio\n")
    bench_pass_through(timing)
    bench_head_tail(timing, 100_000, ["ascii", "mb2", "mb4"])
    bench_head_tail(timing, 10 * MB, ["ascii", "mb2", "mb4"])
    bench_info(timing)
    bench_memory()
    missed = [r for r in ROWS if r["verdict"] == "MISSED"]
    print(f"\n{len(missed)} target(s) missed" if missed else "\nall targets met")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(ROWS, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
