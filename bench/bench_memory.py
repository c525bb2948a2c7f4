"""Memory beside the input: ``process()`` of a 100 MB log with the store on.

    python bench/bench_memory.py            # 100 MB, three flavours, store on and off
    python bench/bench_memory.py --size 20  # MB

A server that truncates a few large results at once must not need several times their size.
Each case runs in a fresh process (the default filesystem store, in a temporary directory;
``max_artifact_size`` 10 MiB, the default), with a warm-up call first, and measures what
``process()`` needs beyond the input it is given, two ways:

* **allocated**: the ``tracemalloc`` peak during the call (the input exists before it starts);
* **resident**: the growth of ``VmHWM`` over ``VmRSS`` after resetting the high-water mark
  (``/proc/self/clear_refs``, Linux), for reference.

The baseline is the input itself (its UTF-8 size), measured in the same process: the ratio
is the peak over it. Target: at most 0.25x the input + 16 MiB, with the store on. The CPU time
of the call is printed for reference. Texts are those of ``bench_foundation.py`` (``ascii``,
``mb2``: every fifth line has accented and CJK words, ``mb4``: an emoji too).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

MB = 1_000_000
MIB = 1 << 20

_PROBE = r"""
import json, os, sys, time, tracemalloc
sys.path.insert(0, {bench_dir!r})
from bench_foundation import make_text
from truncation_core import Truncator

def status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return None

os.chdir({workdir!r})
truncator = Truncator({{"spill": {spill!r}}}, load_entrypoints=False)
truncator.process(make_text(200_000, {flavour!r}))  # warm-up: imports, caches, code paths
text = make_text({size!r}, {flavour!r})
utf8 = len(text.encode("utf-8"))

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
start = time.process_time()
result = truncator.process(text)
cpu = time.process_time() - start
peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
ref = result.artifact
print(json.dumps({{"utf8": utf8, "peak": peak, "rss_growth": rss_growth, "cpu": cpu,
                   "stored": ref.bytes if ref else None}}))
"""


def measure(size: int, flavour: str, spill: bool) -> dict[str, float]:
    bench_dir = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as workdir:
        code = _PROBE.format(bench_dir=bench_dir, workdir=workdir, size=size, flavour=flavour,
                             spill=spill)
        # Run from the temporary directory: ``-c`` puts the working directory first on
        # sys.path, which would shadow a package given on PYTHONPATH (an older checkout).
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=workdir, timeout=900, check=False)
    if done.returncode != 0:
        sys.exit(f"probe failed: {done.stderr[-2000:]}")
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100, help="input size in MB")
    args = parser.parse_args()
    size = args.size * MB
    missed = 0
    print("beyond the input, as a multiple of the input's UTF-8 size (measured in the same "
          "process); target with the store on: <= 0.25x + 16 MiB")
    for spill in (True, False):
        for flavour in ("ascii", "mb2", "mb4"):
            m = measure(size, flavour, spill)
            bound = 0.25 * m["utf8"] + 16 * MIB
            ok = m["peak"] <= bound
            verdict = (f" (target <= {bound / MIB:.1f} MiB) {'OK' if ok else 'MISSED'}"
                       if spill else "")
            missed += spill and not ok
            resident = ("" if m["rss_growth"] is None else
                        f"; resident {m['rss_growth'] / MIB:6.1f} MiB "
                        f"({m['rss_growth'] / m['utf8']:.2f}x)")
            print(f"store {'on ' if spill else 'off'} {flavour:5s} {m['utf8'] / MB:5.0f} MB: "
                  f"allocated {m['peak'] / MIB:6.1f} MiB ({m['peak'] / m['utf8']:.2f}x)"
                  f"{verdict}{resident}; process() {m['cpu'] * 1000:.0f} ms CPU")
    print(f"\n{missed} target(s) missed" if missed else "\nall targets met")


if __name__ == "__main__":
    main()
