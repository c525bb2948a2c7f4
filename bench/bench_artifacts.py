"""Artifact store benchmarks: ratios against baselines measured in the same run.

    python bench/bench_artifacts.py            # all three
    python bench/bench_artifacts.py --quick    # smaller sizes, for a smoke run

1. process + store of 10 MB, against plain ``open(path, "wb").write(data)`` of the same bytes
   (target: storing costs within 1.3x of that write), with the sha256 of the same bytes for
   scale (storing hashes what it writes) and the store without its helper thread, and
   against the peers' save paths where they are installed (praisonaiagents'
   ToolOutputStore.store; gemini-cli-core's saveTruncatedToolOutput through node).
2. ``tail(100)`` on a 200 MB artifact against ``tail(100)`` on a 1 MB one (target: within 2x).
3. literal ``grep`` over 100 MB against a plain chunked ``bytes.find`` loop over the same file
   (target: within 2x), and against the same loop numbering the matching lines as grep does
   (counting line ends, which a bare find loop does not), with peak memory (tracemalloc) to
   show it is bounded.

Timings are medians of several runs on fresh files; the scratch directory ($BENCH_ROOT or a
temporary directory) is removed at the end. Nothing here asserts: it prints numbers.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from truncation_core import Truncator
from truncation_core.builtins import filesystem_store
from truncation_core.storage.filesystem import FilesystemStore
from truncation_core.types.artifacts import ArtifactInfo

MB = 1_000_000


def log_text(size: int) -> str:
    line_no, parts, total = 0, [], 0
    while total < size:
        line = f"[{line_no:08d}] compiling module_{line_no % 997:03d}.c ... ok, 12 warnings\n"
        parts.append(line)
        total += len(line)
        line_no += 1
    return "".join(parts)[:size]


def median_time(fn: Callable[[], object], runs: int, setup: Callable[[], None] | None = None
                ) -> float:
    samples = []
    for _ in range(runs):
        if setup is not None:
            setup()
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def interleaved(fns: dict[str, Callable[[], object]], runs: int,
                setup: Callable[[], None] | None = None) -> dict[str, float]:
    """Median time of each function, run in turns (a, b, c, a, b, c, ...) so that a shared
    machine's load drifts over all of them alike."""
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            if setup is not None:
                setup()
            start = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(times) for name, times in samples.items()}


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.2f} ms"


def bench_store(scratch: Path, size: int, runs: int) -> None:
    print(f"\n1. process + store of {size / MB:g} MB (ASCII build log)")
    text = log_text(size)
    data = text.encode()
    plain = scratch / "plain.bin"

    def plain_write() -> None:
        with open(plain, "wb") as f:
            f.write(data)

    store = FilesystemStore(str(scratch / "store"), "bench")
    info = ArtifactInfo(tool="bench", chars=len(text), lines=text.count("\n"))

    def store_only() -> None:
        with store.writer(info) as w:
            w.write(data)
            w.commit()

    def store_one_thread() -> None:  # the same, writing and hashing one after the other
        filesystem_store.BACKGROUND_WRITE_MIN = 1 << 62
        try:
            store_only()
        finally:
            filesystem_store.BACKGROUND_WRITE_MIN = threshold

    def spill_from_str() -> None:  # what process() does to keep a str: encode, then store
        with store.writer(info) as w:
            w.write(text.encode("utf-8", "surrogatepass"))
            w.commit()

    threshold = filesystem_store.BACKGROUND_WRITE_MIN
    spill = Truncator({"store": {"root": str(scratch / "t"), "session": "bench"}},
                      load_entrypoints=False)
    no_spill = Truncator({"spill": False, "store": {"backend": "memory"}},
                         load_entrypoints=False)

    def clean() -> None:  # delete the artifacts, keep the session: a live session's state
        plain.unlink(missing_ok=True)
        for s in (store, spill.store):
            for ref in s.list():
                s.delete(ref.id)

    # read_file has no highlights; execute_command scans the omitted part for salient lines.
    t = interleaved({"plain": plain_write, "sha256": lambda: hashlib.sha256(data).hexdigest(),
                     "store": store_only, "one thread": store_one_thread,
                     "spill": spill_from_str,
                     "cut": lambda: no_spill.process(text, tool="read_file"),
                     "process": lambda: spill.process(text, tool="read_file"),
                     "cut+hl": lambda: no_spill.process(text, tool="execute_command"),
                     "process+hl": lambda: spill.process(text, tool="execute_command")},
                    runs, clean)
    store.delete_session()
    spill.store.delete_session()
    base = t["plain"]

    def row(label: str, seconds: float, note: str = "") -> None:
        print(f"   {label:44} {ms(seconds)}   {seconds / base:5.2f}x baseline{note}")

    print(f"   {'plain open().write()':44} {ms(base)}   (baseline)")
    row("sha256 of the same bytes", t["sha256"])
    row("store.writer: write + commit (with sha256)", t["store"], "   (target <= 1.3x)")
    row("  the same, hash then write on one thread", t["one thread"])
    row("encode + write + commit (the spill)", t["spill"])
    for tool, cut, processed in (("read_file", "cut", "process"),
                                 ("execute_command", "cut+hl", "process+hl")):
        print(f"   process(tool={tool}): spill off {ms(t[cut])}, with store "
              f"{ms(t[processed])}; storing adds {(t[processed] - t[cut]) / base:5.2f}x baseline")
    peer_praison(scratch, text, runs, t["spill"])
    peer_gemini(scratch, text, runs, t["spill"])


_PRAISON = """
import os, statistics, sys, time
from pathlib import Path
from praisonaiagents.runtime.tool_output_store import ToolOutputStore
text = Path(sys.argv[1]).read_text()
store = ToolOutputStore(run_id="bench")
store.store_dir = Path(sys.argv[2])
store.store_dir.mkdir(parents=True, exist_ok=True)
times = []
for i in range(int(sys.argv[3])):
    start = time.perf_counter()
    info = store.store("bench", text, call_id=f"call_{i}")
    times.append(time.perf_counter() - start)
    os.unlink(info["path"])
print(statistics.median(times))
"""


def peer_praison(scratch: Path, text: str, runs: int, ours: float) -> None:
    python = os.environ.get("PRAISON_PYTHON", sys.executable)
    source = scratch / "praison-input.txt"
    source.write_text(text)
    try:
        out = subprocess.run([python, "-c", _PRAISON, str(source), str(scratch / "praison"),
                              str(runs)], capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"   praisonaiagents: could not run ({type(exc).__name__})")
        return
    if out.returncode != 0:
        print("   praisonaiagents: not installed (pip install praisonaiagents, or set "
              "PRAISON_PYTHON to a Python that has it, to compare)")
        return
    peer = float(out.stdout.strip().splitlines()[-1])
    print(f"   praisonaiagents ToolOutputStore.store {ms(peer)}   ours (spill) is "
          f"{peer / ours:5.2f}x faster")


_GEMINI = """
const {saveTruncatedToolOutput} = await import(process.argv[1]);
const fs = await import('node:fs');
const content = fs.readFileSync(process.argv[2], 'utf8');
const times = [];
for (let i = 0; i < Number(process.argv[4]); i++) {
  const t = performance.now();
  const saved = await saveTruncatedToolOutput(content, 'bench', 'id' + i, process.argv[3], 's');
  times.push(performance.now() - t);
  fs.unlinkSync(saved.outputFile);
}
times.sort((a, b) => a - b);
console.log(times[Math.floor(times.length / 2)]);
"""


def peer_gemini(scratch: Path, text: str, runs: int, ours: float) -> None:
    root = os.environ.get("GEMINI_CLI_CORE")  # path to node_modules/@google/gemini-cli-core
    if not root or shutil.which("node") is None:
        print("   gemini-cli-core: not found (npm install @google/gemini-cli-core and set "
              "GEMINI_CLI_CORE to its directory to compare)")
        return
    module = Path(root) / "dist" / "src" / "utils" / "fileUtils.js"
    source = scratch / "gemini-input.txt"
    source.write_text(text)
    try:
        out = subprocess.run(["node", "--input-type=module", "-e", _GEMINI, str(module),
                              str(source), str(scratch / "gemini"), str(runs)],
                             capture_output=True, text=True, check=True, timeout=300)
        peer = float(out.stdout.strip()) / 1000
    except (subprocess.SubprocessError, ValueError) as exc:
        print(f"   gemini-cli-core saveTruncatedToolOutput: failed ({type(exc).__name__})")
        return
    print(f"   gemini saveTruncatedToolOutput        {ms(peer)}   ours (spill) is "
          f"{peer / ours:5.2f}x faster")


def write_artifact(store: FilesystemStore, size: int) -> str:
    block = log_text(4 * MB).encode()
    info = ArtifactInfo(tool="bench", lines=0)
    lines = 0
    with store.writer(info) as w:
        written = 0
        while written < size:
            piece = block[: size - written]
            w.write(piece)
            written += len(piece)
            lines += piece.count(b"\n")
        return w.commit(ArtifactInfo(tool="bench", chars=size, lines=lines)).id


def bench_tail(scratch: Path, big: int, runs: int) -> None:
    print(f"\n2. tail(100) on a {big / MB:g} MB artifact vs a 1 MB one")
    store = FilesystemStore(str(scratch / "tail"), "bench")
    small_id, big_id = write_artifact(store, MB), write_artifact(store, big)
    t = interleaved({"small": lambda: store.tail(small_id, 100),
                     "large": lambda: store.tail(big_id, 100)}, runs * 5)
    small, large = t["small"], t["large"]
    assert store.tail(big_id, 100).last_line == store.stat(big_id).lines
    print(f"   tail(100), 1 MB                        {ms(small)}   (baseline)")
    print(f"   tail(100), {big / MB:g} MB                      {ms(large)}   "
          f"{large / small:5.2f}x baseline   (target <= 2x)")
    store.delete_session()


def bench_grep(scratch: Path, size: int, runs: int) -> None:
    print(f"\n3. literal grep over {size / MB:g} MB vs a chunked bytes.find loop")
    store = FilesystemStore(str(scratch / "grep"), "bench")
    artifact_id = write_artifact(store, size)
    path = Path(store.path) / f"{artifact_id}.txt"
    # Plant a few matches through the file, the last one near the end.
    with open(path, "r+b") as f:
        for k in range(1, 6):
            f.seek(size * k // 6)
            f.write(b"NEEDLE-IN-HAYSTACK")

    def find_loop(needle: bytes) -> int:
        found, carry = 0, b""
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                buf = carry + chunk
                i = buf.find(needle)
                while i != -1:
                    found += 1
                    i = buf.find(needle, i + 1)
                carry = buf[-(len(needle) - 1):]
        return found

    def numbering_loop(needle: bytes) -> list[int]:
        """The same loop, numbering matching lines as grep -n does: it counts line ends."""
        found, lines, carry, keep = [], 0, b"", len(needle) - 1
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                buf = carry + chunk
                counted, i = 0, buf.find(needle)
                while i != -1:
                    lines += buf.count(b"\n", counted, i)
                    counted = i
                    found.append(lines + 1)
                    i = buf.find(needle, i + 1)
                lines += buf.count(b"\n", counted, len(buf) - keep)
                carry = buf[len(buf) - keep:]
        return found

    for label, needle in (("5 matches", "NEEDLE-IN-HAYSTACK"), ("no match", "NOT-THERE-AT-ALL")):
        t = interleaved({"find": lambda n=needle: find_loop(n.encode()),
                         "numbering": lambda n=needle: numbering_loop(n.encode()),
                         "grep": lambda n=needle: store.grep(artifact_id, n)}, runs)
        base, ours = t["find"], t["grep"]
        tracemalloc.start()
        result = store.grep(artifact_id, needle)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert [m.line.number for m in result.matches] == numbering_loop(needle.encode())
        print(f"   {label:9}  bytes.find loop {ms(base)}   grep {ms(ours)}   "
              f"{ours / base:5.2f}x   (target <= 2x)   peak {peak / 2**20:5.1f} MiB, "
              f"{len(result.matches)} lines")
        print(f"   {'':9}  the loop numbering lines (grep -n) {ms(t['numbering'])}: grep is "
              f"{ours / t['numbering']:5.2f}x that")
    store.delete_session()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, few runs")
    args = parser.parse_args()
    scale, runs = (10, 3) if args.quick else (1, 9)
    base = os.environ.get("BENCH_ROOT")
    scratch = Path(tempfile.mkdtemp(prefix="bench-artifacts-", dir=base))
    print(f"python {sys.version.split()[0]}, scratch {scratch}")
    try:
        bench_store(scratch, 10 * MB // scale, runs)
        bench_tail(scratch, 200 * MB // scale, runs)
        bench_grep(scratch, 100 * MB // scale, runs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
