"""The default view's cost: a 1 MB log cut now and by an earlier version, in one run.

    .venv/bin/python bench/bench_view.py --baseline 3c1665e      # about a minute
    .venv/bin/python bench/bench_view.py --quick    # baseline: where HEAD left main

The baseline is the package as of a git revision (``git archive``, into a temporary
directory), so that the same run times both on the same machine under the same load.
Each side runs in its own subprocess (a package imports once per process), several rounds
alternating between the two; each round times ``process()`` a number of times and keeps its
fastest call; the ratio is the median over rounds of the two sides' times in that round.

* ``process()`` of a 1 MB log under the default configuration, for ``execute_command``
  (tail, highlights) and for no tool (head_tail), on plain text and on real terminal output
  (colours, redraws), against the same call in the baseline revision: ratio under 2;
* a 50 MB log streamed in 1 MiB chunks (spill off), against the same stream in the baseline
  revision: ratio under 2 (a stream keeps wider ends now);
* ``process()`` of 2 kB under the limit against one pluggy hook call with one
  implementation, in this revision: ratio under 1.

Both sides use the default configuration with the memory store, so the artifact is stored
(and hashed) as by default. Results go to stdout and, with ``--write``,
``bench/results/view.md``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tarfile
import tempfile
import textwrap
from io import BytesIO
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "view.md"
MB = 1_000_000

#: Runs in a subprocess with the package to time first on sys.path: times each case.
_TIMER = textwrap.dedent('''
    import json, sys, time
    sys.path.insert(0, sys.argv[1])
    sys.path.insert(1, sys.argv[2])  # bench/, for the texts
    import truncation_core
    from truncation_core import Truncator
    from bench_view import stream_texts, texts
    calls = int(sys.argv[3])
    out = {"package": truncation_core.__file__}
    for name, (text, tool) in texts().items():
        truncator = Truncator({"store": {"backend": "memory"}}, load_entrypoints=False)
        truncator.process(text, tool=tool)  # lazy imports, the tool's slot, the matcher
        best = float("inf")
        for _ in range(calls):
            t0 = time.perf_counter()
            truncator.process(text, tool=tool)
            best = min(best, time.perf_counter() - t0)
        out[name] = best
    chunk = 1024 * 1024
    for name, (text, tool) in stream_texts().items():
        truncator = Truncator({"store": {"backend": "memory"}, "spill": False},
                              load_entrypoints=False)
        data = text.encode()
        best = float("inf")
        for _ in range(max(1, calls // 3)):
            t0 = time.perf_counter()
            with truncator.stream(tool=tool) as stream:
                for i in range(0, len(data), chunk):
                    stream.write(data[i:i + chunk])
            stream.result()
            best = min(best, time.perf_counter() - t0)
        out[name] = best
    print(json.dumps(out))
''')


def _corpus(name: str) -> str:
    with open(ROOT / "tests" / "corpus" / name, encoding="utf-8", newline="") as handle:
        return handle.read()


def _log(size: int) -> str:
    lines, total, i = [], 0, 0
    while total < size:
        line = (f"[{i:07d}] INFO worker-{i % 16:02d} processed batch {i * 7919 % 100_003}"
                f" in {i % 997} ms\n")
        lines.append(line)
        total += len(line)
        i += 1
    return "".join(lines)


def _repeated(text: str, size: int) -> str:
    return text * (size // len(text) + 1)


def texts() -> dict[str, tuple[str, str | None]]:
    """The cases: name -> (text of about 1 MB, tool)."""
    plain = _log(MB)
    colour = _repeated(_corpus("pytest-color-failure-middle.txt"), MB)
    redrawn = _repeated(_corpus("karma-chrome-jasmine-fail.txt"), MB)
    return {
        "1 MB log, execute_command": (plain, "execute_command"),
        "1 MB log, no tool (head_tail)": (plain, None),
        "1 MB pytest --color log, execute_command": (colour, "execute_command"),
        "1 MB karma log (redraws), execute_command": (redrawn, "execute_command"),
    }


def stream_texts() -> dict[str, tuple[str, str | None]]:
    """Streams: name -> (text of about 50 MB, tool), written in 1 MiB chunks, spill off (a
    stream keeps ends eight times the inline limit since the view may cut that wide)."""
    plain = _log(50 * MB)
    return {"50 MB log streamed, tail (no tool: head_tail)": (plain, None),
            "50 MB log streamed, execute_command": (plain, "execute_command")}


def _extract(revision: str, into: Path) -> Path:
    """The package as of *revision*, under *into*."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "truncation_core"],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def _time(package_root: Path, calls: int) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", _TIMER, str(package_root), str(HERE),
                           str(calls)], check=True, capture_output=True, text=True)
    result: dict[str, float] = json.loads(done.stdout)
    package = str(result.pop("package"))
    if not package.startswith(str(package_root)):
        raise RuntimeError(f"timed the wrong package: {package}")
    return result


def _pass_through(samples: int) -> tuple[float, float, float]:
    """process() under the limit against one pluggy hook call, this revision."""
    sys.path.insert(0, str(HERE))
    from bench_foundation import Timing, one_impl_hook

    from truncation_core import Truncator

    truncator = Truncator({"store": {"backend": "memory"}}, load_entrypoints=False)
    content = "x" * 2000
    env = {"truncator": truncator, "hook": one_impl_hook(), "content": content}
    truncator.process(content, tool="read_file")  # the tool's slot is built once
    return Timing(samples).pair("truncator.process(content, tool='read_file')",
                                "hook(content=content)", env)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:8.2f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="git revision to compare with, the commit "
                        "before the change (default: where HEAD left main)")
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--write", action="store_true", help="write bench/results/view.md")
    args = parser.parse_args()
    rounds, calls = (3, 5) if args.quick else (7, 9)
    if args.baseline is None:
        args.baseline = subprocess.run(["git", "-C", str(ROOT), "merge-base", "HEAD", "main"],
                                       check=True, capture_output=True,
                                       text=True).stdout.strip()[:10]
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                          check=True, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain",
                            "truncation_core"], check=True, capture_output=True,
                           text=True).stdout.strip()
    subject_name = f"{head}{' + changes' if dirty else ''}"
    lines = [f"Python {sys.version.split()[0]}; baseline {args.baseline}, subject "
             f"{subject_name}; {rounds} alternating rounds of {calls} calls: fastest call, "
             "median ratio", ""]
    with tempfile.TemporaryDirectory() as tmp:
        baseline_root = _extract(args.baseline, Path(tmp))
        times: dict[str, list[tuple[float, float]]] = {}
        for _ in range(rounds):
            base = _time(baseline_root, calls)
            subject = _time(ROOT, calls)
            for name in subject:
                times.setdefault(name, []).append((subject[name], base[name]))
    for name, pairs in times.items():
        ratio = statistics.median(s / b for s, b in pairs)
        verdict = "ok" if ratio < 2 else "MISSED"
        lines.append(f"{name:<44} {_ms(min(s for s, _ in pairs))}  vs baseline "
                     f"{_ms(min(b for _, b in pairs))}  ratio {ratio:5.2f}  target 2  "
                     f"{verdict}")
    subject_t, hook_t, ratio = _pass_through(5 if args.quick else 11)
    lines.append(f"{'process(), 2 kB under the limit':<44} {subject_t * 1e6:8.2f} µs  vs "
                 f"pluggy hook {hook_t * 1e6:8.2f} µs  ratio {ratio:5.2f}  target 1  "
                 f"{'ok' if ratio < 1 else 'MISSED'}")
    text = "\n".join(lines)
    print(text)
    if args.write:
        RESULTS.write_text(
            "# The default view: what a 1 MB log costs\n\n"
            "Output of `python bench/bench_view.py --baseline <revision>` on the shared "
            "2-core development VM (see the script for what each row measures).\n\n"
            "```text\n" + text + "\n```\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
