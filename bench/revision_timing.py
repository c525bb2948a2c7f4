"""Time the package as of an earlier git revision against this tree, in one run.

The baseline is the package as of a git revision (``git archive``, into a temporary
directory), so that the same run times both on the same machine under the same load. Each
side runs in its own subprocess (a package imports once per process), a worker that lives
for the whole run and times one case when asked. The run goes in rounds; a round asks both
sides for one sample of every case, the two samples of a case one right after the other
(which side goes first alternates), so that load on a shared machine, which drifts over
seconds, hits both samples of a pair alike. A sample is the fastest of a few calls; a ratio
is the median over rounds of the two sides' samples of the same round.

``entry`` names a function of a module in bench/ (``"bench_revisions:samplers"``) that takes
string arguments and returns ``{case name: sampler}``, where a sampler takes no argument
and returns seconds; it runs in the worker, after the side's package was put first on
``sys.path``, so the module must import ``truncation_core`` only inside its functions.
Setup a case needs once (a truncator, a stored artifact) belongs in the sampler's first
call, untimed.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from io import BytesIO
from pathlib import Path
from typing import IO, Any

import attrs

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: glibc raises its threshold for serving a large allocation from fresh mmap'd (so
#: page-faulting) memory each time a process frees such a block, so the same 10 MB read
#: costs 2 ms in one worker and 9 ms in the other depending on what each allocated before.
#: A fixed threshold (glibc's default) turns that off: both sides pay the same page faults.
MALLOC = {"MALLOC_MMAP_THRESHOLD_": "131072", "MALLOC_TRIM_THRESHOLD_": "131072"}

#: The worker: puts the package to time, then bench/, first on sys.path, builds the
#: samplers, says which package it imported and which cases it has, then answers each case
#: name read from stdin with one sample.
_WORKER = textwrap.dedent('''
    import importlib, json, sys
    sys.path.insert(0, sys.argv[1])
    sys.path.insert(1, sys.argv[2])
    import truncation_core
    module, function = sys.argv[3].split(":")
    samplers = getattr(importlib.import_module(module), function)(*sys.argv[4:])
    print(json.dumps({"package": truncation_core.__file__, "cases": list(samplers)}),
          flush=True)
    for line in sys.stdin:
        print(json.dumps(samplers[json.loads(line)]()), flush=True)
''')


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def extract_package(revision: str, into: Path) -> Path:
    """The package as of *revision* (``truncation_core/`` only), under *into*; ValueError
    when git has no such revision."""
    done = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "truncation_core"],
                          capture_output=True)
    if done.returncode != 0:
        raise ValueError(f"baseline: expected a git revision that has truncation_core/, got "
                         f"{revision!r} (git: {done.stderr.decode(errors='replace').strip()})")
    with tarfile.open(fileobj=BytesIO(done.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def default_baseline() -> str:
    """Where HEAD left main: the commit a branch's change is measured against."""
    return git("merge-base", "HEAD", "main")[:10]


def subject_name() -> str:
    """This tree's commit, with ``+ changes`` when the package has uncommitted changes."""
    head = git("rev-parse", "--short", "HEAD")
    dirty = git("status", "--porcelain", "truncation_core")
    return f"{head}{' + changes' if dirty else ''}"


class Worker:
    """One side: a subprocess with the package under *package_root* first on ``sys.path``,
    timing the cases of *entry* when asked."""

    def __init__(self, package_root: Path, entry: str, args: Sequence[str], stderr: IO[str]
                 ) -> None:
        self.package_root = package_root
        self._stderr = stderr
        self._process = subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(package_root), str(HERE), entry, *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, text=True,
            env={**os.environ, **MALLOC})
        hello = self._answer()
        if not isinstance(hello, dict):
            raise RuntimeError(f"the worker timing {package_root} said {hello!r} first")
        package = str(hello["package"])
        if not package.startswith(str(package_root)):
            self.close()
            raise RuntimeError(f"timed the wrong package: {package}, not one under "
                               f"{package_root}")
        self.cases: list[str] = list(hello["cases"])

    def _answer(self) -> Any:
        """The worker's next line, decoded: its greeting, then one sample per request."""
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            self._process.wait()
            self._stderr.seek(0)
            raise RuntimeError(f"the worker timing {self.package_root} failed:\n"
                               f"{self._stderr.read()}")
        return json.loads(line)

    def sample(self, case: str) -> float:
        """Seconds: one sample of *case*."""
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(case) + "\n")
        self._process.stdin.flush()
        return float(self._answer())

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait()


@contextmanager
def worker(package_root: Path, entry: str, args: Sequence[str] = ()) -> Iterator[Worker]:
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as stderr:
        side = Worker(package_root, entry, args, stderr)
        try:
            yield side
        finally:
            side.close()


@attrs.frozen(kw_only=True)
class Round:
    """One round's samples of both sides, ``{case: seconds}`` (the baseline has no sample
    of a case it does not have)."""

    subject: dict[str, float]
    baseline: dict[str, float]


def alternate(baseline_root: Path, entry: str, rounds: int, *,
              subject_args: Sequence[str] = (), baseline_args: Sequence[str] = (),
              progress: Callable[[str], None] | None = None) -> list[Round]:
    """*rounds* rounds of every case of *entry*, on this tree and on the baseline package;
    a case the baseline's samplers lack is sampled in this tree only."""
    done: list[Round] = []
    started = time.perf_counter()
    with ExitStack() as stack:
        baseline = stack.enter_context(worker(baseline_root, entry, baseline_args))
        subject = stack.enter_context(worker(ROOT, entry, subject_args))
        for i in range(rounds):
            times = Round(subject={}, baseline={})
            for k, case in enumerate(subject.cases):
                if case not in baseline.cases:
                    times.subject[case] = subject.sample(case)
                elif (i + k) % 2 == 0:
                    times.baseline[case] = baseline.sample(case)
                    times.subject[case] = subject.sample(case)
                else:
                    times.subject[case] = subject.sample(case)
                    times.baseline[case] = baseline.sample(case)
            done.append(times)
            if progress is not None:
                progress(f"round {i + 1}/{rounds} done after "
                         f"{time.perf_counter() - started:.0f} s")
    return done


def ratios(rounds: Sequence[Round], case: str, baseline_case: str | None = None
           ) -> list[float]:
    """Per round: *case*'s time in this tree over *baseline_case*'s (default: the same
    case) in the baseline."""
    against = case if baseline_case is None else baseline_case
    return [r.subject[case] / r.baseline[against] for r in rounds]


def median_ratio(rounds: Sequence[Round], case: str, baseline_case: str | None = None
                 ) -> float:
    return statistics.median(ratios(rounds, case, baseline_case))


def fastest(rounds: Sequence[Round], case: str, *, side: str) -> float:
    """The fastest time of *case* over all rounds, on *side* (``subject`` or
    ``baseline``)."""
    return min((r.subject if side == "subject" else r.baseline)[case] for r in rounds)


def best_call(call: Callable[[], object], calls: int, *,
              setup: Callable[[], object] | None = None) -> float:
    """Seconds of the fastest of *calls* calls (each after *setup*, untimed)."""
    best = float("inf")
    for _ in range(calls):
        if setup is not None:
            setup()
        t0 = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - t0)
    return best


def best_per_call(call: Callable[[], object], batches: int, *, batch_seconds: float = 0.02
                  ) -> float:
    """Seconds per call of a call too quick to time alone: the fastest of *batches*
    batches of as many calls as take about *batch_seconds*."""
    loops = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(loops):
            call()
        if time.perf_counter() - t0 >= batch_seconds / 4:
            break
        loops *= 4
    loops *= 4
    best = float("inf")
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(loops):
            call()
        best = min(best, (time.perf_counter() - t0) / loops)
    return best
