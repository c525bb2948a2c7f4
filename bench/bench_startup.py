"""Start-up: what ``trunc run``, ``trunc apply`` and ``import truncation_core`` cost a new process.

    python bench/bench_startup.py            # 21 rounds
    python bench/bench_startup.py --quick    # 7 rounds

An agent that wraps each command in ``trunc run``, or a host hook that pipes each result
through ``trunc apply``, pays start-up on every tool call. Each subject is run as a fresh
process, in an empty temporary directory (no configuration file to find), with the same
interpreter as the baseline, ``python -c pass``:

* ``trunc run -- true`` and ``echo hi | trunc apply`` (the console script next to the
  interpreter): target within 10x the baseline;
* ``python -c "import truncation_core"``: target within 3x;
* ``Truncator()`` (import, configuration and plugin discovery, no CLI), for reference;
* the libraries ``trunc apply`` cannot start without (click, attrs, pluggy, pathlib, json),
  imported alone, for reference: the floor under the two commands;
* finding the installed plugins' entry points (with each one's version) by
  :mod:`importlib.metadata`, and by :mod:`truncation_core.hooks.entrypoints`, which reads the
  same files: the figure that keeps that reader.

Each round runs every subject right after a run of the baseline, and takes the ratio of their
CPU times (user + system, of the process and the processes it waited for: on a shared machine
wall time also counts the time other processes hold the CPU); the ratio printed is the median
over the rounds, so that load on the machine hits both sides of each ratio alike. Times
printed are the fastest of the rounds, with wall times for reference.
A first, unmeasured round writes the bytecode caches (``PYTHONDONTWRITEBYTECODE`` is removed
from the environment of the subjects), as an installed package has them.

Then, for each subject, the five most expensive imports by self time (``python -X
importtime``, the fastest of 5 runs for each module), grouped by package (``click``,
``truncation_core.config`` ...), and the number of modules imported.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

RUN_TARGET = 10.0
IMPORT_TARGET = 3.0


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("TRUNCATION_CORE_")}
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _subjects(python: str) -> list[tuple[str, list[str], bytes, float | None]]:
    trunc = str(Path(python).with_name("trunc"))
    if not Path(trunc).exists():
        sys.exit(f"no trunc script next to {python}: install the package (make .venv/.installed)")
    return [
        ("python -c pass", [python, "-c", "pass"], b"", None),
        ("trunc run -- true", [trunc, "run", "--", "true"], b"", RUN_TARGET),
        ("echo hi | trunc apply", [trunc, "apply"], b"hi\n", RUN_TARGET),
        ("import truncation_core", [python, "-c", "import truncation_core"], b"",
         IMPORT_TARGET),
        ("Truncator()", [python, "-c", "import truncation_core as t; t.Truncator()"], b"",
         None),
        ("libraries alone", [python, "-c", "import attrs, click, pluggy, pathlib, json"], b"",
         None),
        # The figure behind truncation_core.hooks.entrypoints: installed plugins found by
        # importlib.metadata, against the reader (the same answer: tests/test_entrypoints.py).
        ("entry points: importlib.metadata",
         [python, "-c", "from importlib.metadata import entry_points as e; "
                        "[p.dist.metadata['Version'] for p in e(group='truncation_core')]"],
         b"", None),
        ("entry points: the reader",
         [python, "-c", "from truncation_core.hooks.entrypoints import entry_points as e; "
                        "e('truncation_core')"], b"", None),
    ]


def _run(argv: list[str], stdin: bytes, cwd: str, env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, cwd=cwd, env=env, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


_IMPORTTIME = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \| (\s*)(\S+)")


def _group(module: str) -> str:
    parts = module.split(".")
    if parts[0] in ("truncation_core", "importlib") and len(parts) > 1:
        return ".".join(parts[:2])
    return {"attr": "attrs", "_asyncio": "asyncio", "_ssl": "ssl"}.get(parts[0], parts[0])


def import_profile(python: str, argv: list[str], stdin: bytes, cwd: str,
                   env: dict[str, str], runs: int = 5) -> tuple[list[tuple[str, float]], int]:
    """The five most expensive packages by self import time (ms), and the module count."""
    best: dict[str, int] = {}
    count = 0
    for _ in range(runs):
        # argv[0] is the console script (a Python file) or the interpreter itself.
        command = ([python, "-X", "importtime", *argv[1:]] if argv[0] == python
                   else [python, "-X", "importtime", *argv])
        done = subprocess.run(command, input=stdin, capture_output=True, cwd=cwd, env=env,
                              check=False)
        seen = 0
        for match in _IMPORTTIME.finditer(done.stderr.decode()):
            seen += 1
            module = match.group(4)
            self_us = int(match.group(1))
            best[module] = min(best.get(module, self_us), self_us)
        count = max(count, seen)
    groups: dict[str, float] = defaultdict(float)
    for module, self_us in best.items():
        groups[_group(module)] += self_us / 1000
    top = sorted(groups.items(), key=lambda item: -item[1])[:5]
    return top, count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--python", default=sys.executable,
                        help="the interpreter whose environment has truncation-core installed")
    args = parser.parse_args()
    rounds = 7 if args.quick else 21
    subjects = _subjects(args.python)
    env = _env()
    cpu: dict[str, float] = {}
    wall: dict[str, float] = {}
    ratios: dict[str, list[float]] = defaultdict(list)
    baseline = subjects[0]
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as cwd:
        for _name, argv, stdin, _ in subjects:  # bytecode caches, first-use work
            _run(argv, stdin, cwd, env)
        for _ in range(rounds):
            for name, argv, stdin, _ in subjects[1:]:
                # Each subject right after a baseline run: the pair sees the same load.
                base_cpu, base_wall = _run(baseline[1], baseline[2], cwd, env)
                c, w = _run(argv, stdin, cwd, env)
                ratios[name].append(c / base_cpu)
                for key, (c_, w_) in ((baseline[0], (base_cpu, base_wall)), (name, (c, w))):
                    cpu[key] = min(cpu.get(key, c_), c_)
                    wall[key] = min(wall.get(key, w_), w_)
        print(f"{rounds} rounds; times: the fastest, in CPU time (wall time in brackets); "
              "ratio: the median of the ratios to the baseline run just before")
        print(f"{baseline[0]:32s} {cpu[baseline[0]] * 1000:7.1f} ms  "
              f"[{wall[baseline[0]] * 1000:6.1f} ms]")
        for name, _, _, target in subjects[1:]:
            ratio = statistics.median(ratios[name])
            verdict = ("" if target is None else
                       f" (target <= {target:.0f}) {'OK' if ratio <= target else 'MISSED'}")
            print(f"{name:32s} {cpu[name] * 1000:7.1f} ms  [{wall[name] * 1000:6.1f} ms]  "
                  f"ratio {ratio:5.1f}{verdict}")
        print()
        for name, argv, stdin, target in subjects:
            if target is None:
                continue
            top, count = import_profile(args.python, argv, stdin, cwd, env)
            listed = ", ".join(f"{group} {ms:.1f}" for group, ms in top)
            print(f"{name}: {count} modules imported; most expensive (self ms): {listed}")


if __name__ == "__main__":
    main()
