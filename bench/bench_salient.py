"""Salient lines: how many of the key lines of real failing output the model sees.

Part 1 (``--generate``) runs real tools on this machine and keeps their output in
``bench/corpus/``: pytest with failures, a Python service logging a traceback in the middle
of a long log, pip failing to resolve conflicting requirements (local wheels, no network),
gcc errors under ``make -k``, an npm script that throws, and ``cargo test`` with a failing
test. Tools that are not installed are skipped. Nothing in the corpus is hand-written: the
outputs are the tools' own. For each output, the **key lines** are picked by a rule written
per tool (the lines a person would look for: ``FAILED`` summaries and our injected assertion
messages for pytest, ``: error:`` and ``make: ***`` for gcc ...), independent of the
library's patterns.

Part 2 (the default) measures, for each output, the share of key lines visible in:

* what truncation-core shows with its defaults for ``execute_command`` (tail + highlights);
* plain head, tail, 50/50 and 20/80 cuts of the same budget (8,000 characters: the default
  inline limit), without any marker.

A key line counts as seen when its text (up to 150 characters) appears in the output.

Part 3 measures what highlights cost: ``process()`` of about 9 MB of each output (repeated),
and of a generated log without a single salient line, for ``execute_command`` with
highlights on and off. Samples alternate between the two; each time is the fastest of its
samples (the least disturbed on a shared machine).

Results go to ``bench/results/salient.md`` and to stdout.

    python bench/bench_salient.py --generate   # rebuild the corpus (needs the tools)
    python bench/bench_salient.py              # measure
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"
RESULTS = HERE / "results" / "salient.md"
BUDGET = 8000
SEEN_CHARS = 150
COST_SIZE = 9_000_000
COST_SAMPLES = 7


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> bytes:
    """The command's output, stdout and stderr merged, as trunc run sees it."""
    done = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env={**os.environ, **(env or {})}, timeout=600, check=False)
    print(f"  {' '.join(argv[:4])}... exit {done.returncode}, {len(done.stdout):,} bytes",
          file=sys.stderr)
    return done.stdout


def numbered(text: str, keep: Callable[[str], bool]) -> list[int]:
    return [i + 1 for i, line in enumerate(text.splitlines()) if keep(line)]


# -- the cases -------------------------------------------------------------------------------


def case_pytest(work: Path) -> tuple[bytes, Callable[[str], bool]]:
    (work / "test_service.py").write_text(textwrap.dedent("""
        import pytest

        CURSED = {23, 131, 277}

        @pytest.mark.parametrize("n", range(320))
        def test_request(n):
            for step in range(80):
                print(f"request {n} step {step}: handler ok, 200, 12ms")
            assert n not in CURSED, f"status for request {n} was 500 (cursed-{n})"

        def test_config():
            raise KeyError("database_url (cursed-config)")
        """))
    out = run([sys.executable, "-m", "pytest", "-v", "-rfE", "-p", "no:cacheprovider",
               "test_service.py"], work)
    return out, lambda line: (line.startswith("FAILED ") or ("cursed-" in line
                              and line.startswith("E ")) or bool(
                              re.search(r"\d+ failed, \d+ passed", line)))


def case_pytest_many(work: Path) -> tuple[bytes, Callable[[str], bool]]:
    (work / "test_batch.py").write_text(textwrap.dedent("""
        import pytest

        @pytest.mark.parametrize("n", range(400))
        def test_row(n):
            print(f"row {n}: parsed, validated, stored")
            assert n % 13 != 5, f"row {n} failed validation (cursed-{n})"
        """))
    out = run([sys.executable, "-m", "pytest", "-rf", "-p", "no:cacheprovider",
               "test_batch.py"], work)
    return out, lambda line: (line.startswith("FAILED ") or ("cursed-" in line
                              and line.startswith("E ")) or bool(
                              re.search(r"\d+ failed, \d+ passed", line)))


def case_traceback_log(work: Path) -> tuple[bytes, Callable[[str], bool]]:
    (work / "service.py").write_text(textwrap.dedent("""
        import logging, sys
        logging.basicConfig(stream=sys.stdout, level=logging.INFO,
                            format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        log = logging.getLogger("billing")

        def charge(order, amount, items):
            return amount / items

        for i in range(5000):
            if i == 2100:
                try:
                    charge(i, 120, 0)
                except ZeroDivisionError:
                    log.exception("charging order %d failed", i)
                continue
            log.info("order %d charged, %d items, queue depth %d", i, i % 7 + 1, i % 31)
        log.info("worker done")
        """))
    out = run([sys.executable, "service.py"], work)
    return out, lambda line: ("charging order 2100 failed" in line
                              or line.startswith("Traceback (most recent call last)")
                              or line.startswith("ZeroDivisionError"))


def _wheel(directory: Path, name: str, version: str, requires: list[str]) -> None:
    dist = f"{name}-{version}"
    meta = [f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"]
    meta += [f"Requires-Dist: {r}\n" for r in requires]
    files = {
        f"{name}/__init__.py": "",
        f"{dist}.dist-info/METADATA": "".join(meta),
        f"{dist}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: "
                                   "true\nTag: py3-none-any\n",
    }
    files[f"{dist}.dist-info/RECORD"] = "".join(f"{p},,\n" for p in files) + \
        f"{dist}.dist-info/RECORD,,\n"
    with zipfile.ZipFile(directory / f"{dist}-py3-none-any.whl", "w") as zf:
        for path, content in files.items():
            zf.writestr(path, content)


def case_pip(work: Path) -> tuple[bytes, Callable[[str], bool]]:
    wheels = work / "wheels"
    wheels.mkdir()
    names = [f"bench-lib{i}" for i in range(150)]
    for name in names:
        _wheel(wheels, name.replace("-", "_"), "1.0", [])
    _wheel(wheels, "shared_core", "1.0", [])
    _wheel(wheels, "shared_core", "2.0", [])
    _wheel(wheels, "bench_app", "1.0", ["shared-core==1.0", *names[:75]])
    _wheel(wheels, "bench_plugin", "1.0", ["shared-core==2.0", *names[75:]])
    out = run([sys.executable, "-m", "pip", "install", "-v", "--dry-run", "--no-index",
               "--find-links", str(wheels), "--no-cache-dir", "bench-app", "bench-plugin"],
              work, env={"PIP_FIND_LINKS": "", "PIP_DISABLE_PIP_VERSION_CHECK": "1"})
    return out, lambda line: line.startswith("ERROR:")


def case_gcc(work: Path) -> tuple[bytes, Callable[[str], bool]]:
    if not shutil.which("gcc") or not shutil.which("make"):
        raise FileNotFoundError("gcc or make")
    broken = {9: "return undeclared_total;", 24: "int x = ;", 33: "struct missing m; (void)m;"}
    for i in range(45):
        body = broken.get(i, f"return a + {i};")
        (work / f"unit{i:02d}.c").write_text(textwrap.dedent(f"""
            #include <stdio.h>
            static int helper{i}(int a, int b) {{ int unused{i}; int spare{i} = b; {body} }}
            int entry{i}(int a) {{
                char buf[4]; sprintf(buf, "%d", a * 1000); return helper{i}(a, 2); }}
            """))
    objects = " ".join(f"unit{i:02d}.o" for i in range(45))
    (work / "Makefile").write_text(f"all: {objects}\n%.o: %.c\n\tgcc -Wall -Wextra -c $< -o $@\n")
    out = run(["make", "-k"], work, env={"LC_ALL": "C"})
    return out, lambda line: ": error:" in line or line.startswith("make: ***")


def case_npm(work: Path) -> tuple[bytes, Callable[[str], bool]]:
    if not shutil.which("npm"):
        raise FileNotFoundError("npm")
    (work / "package.json").write_text(json.dumps(
        {"name": "bench-site", "version": "1.0.0", "private": True,
         "scripts": {"build": "node build.js"}}))
    (work / "build.js").write_text(textwrap.dedent("""
        for (let i = 0; i < 2500; i++) {
          console.log(`[build] bundling chunk ${i} (${(i * 37) % 997} kB) ok`);
        }
        throw new Error("asset pipeline failed: missing src/logo.svg");
        """))
    out = run(["npm", "run", "build", "--no-update-notifier", "--no-fund", "--no-audit"], work,
              env={"npm_config_loglevel": "error"})
    return out, lambda line: ("asset pipeline failed" in line and "Error" in line) or (
        line.startswith(("npm error", "npm ERR!")) and ("failed" in line or "code" in line))


def case_cargo(work: Path) -> tuple[bytes, Callable[[str], bool]]:
    if not shutil.which("cargo"):
        raise FileNotFoundError("cargo")
    subprocess.run(["cargo", "new", "--lib", "--vcs", "none", "ledger"], cwd=work, check=True,
                   capture_output=True)
    tests = "\n".join(
        f"#[test]\nfn entry_{i}() {{ for s in 0..20 {{ println!(\"entry {i} step {{s}} ok\"); }}"
        f" assert_eq!({i} % 97, {i if i not in (42, 210) else i + 1} % 97, \"ledger-{i}\"); }}"
        for i in range(260))
    (work / "ledger" / "src" / "lib.rs").write_text(f"#[cfg(test)]\nmod tests {{\n{tests}\n}}\n")
    out = run(["cargo", "test", "--offline", "--", "--test-threads=1"], work / "ledger",
              env={"CARGO_TERM_COLOR": "never"})
    return out, lambda line: ("panicked at" in line or "failed: ledger-" in line
                              or line.endswith("... FAILED")
                              or line.startswith("test result:")
                              or bool(re.match(r"\s+tests::entry_\d+$", line)))


CASES = {
    "pytest-failures": case_pytest,
    "pytest-many-failures": case_pytest_many,
    "python-traceback-in-log": case_traceback_log,
    "pip-resolution-error": case_pip,
    "gcc-make-errors": case_gcc,
    "npm-script-error": case_npm,
    "cargo-test-failure": case_cargo,
}


def generate() -> None:
    CORPUS.mkdir(exist_ok=True)
    keys: dict[str, dict[str, object]] = {}
    for name, make in CASES.items():
        print(f"{name}:", file=sys.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            try:
                output, is_key = make(Path(tmp))
            except FileNotFoundError as exc:
                print(f"  skipped: {exc} not installed", file=sys.stderr)
                continue
            text = output.decode("utf-8", "replace").replace(tmp, "/tmp/work")
        (CORPUS / f"{name}.txt").write_text(text)
        keys[name] = {"key_lines": numbered(text, is_key), "generator": make.__doc__ or name}
    (CORPUS / "keys.json").write_text(json.dumps(keys, indent=1) + "\n")


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
    keys = json.loads((CORPUS / "keys.json").read_text())
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
        text = (CORPUS / f"{name}.txt").read_text()
        lines = text.splitlines()
        wanted = [lines[n - 1].strip()[:SEEN_CHARS] for n in info["key_lines"]]
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
    for name in json.loads((CORPUS / "keys.json").read_text()):
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
    parser.add_argument("--generate", action="store_true", help="rebuild the corpus first")
    args = parser.parse_args()
    if args.generate or not (CORPUS / "keys.json").exists():
        generate()
    table = measure()
    print(table)
    costs = cost()
    print(costs)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        "# Salient lines: key lines of real failing output that the model sees\n\n"
        "Generated by `python bench/bench_salient.py` from the corpus in `bench/corpus/` "
        "(real tool output, made by `--generate`). Budget: 8,000 characters for every method; "
        "truncation-core uses the defaults for `execute_command` (outputs over 50,000 "
        "characters are shown as an artifact reference with a 2,000-character preview, so it "
        "often shows fewer characters than the plain cuts). Each cell: key lines seen / key "
        "lines.\n\n" + table + "\n\n"
        "Key lines are picked per tool by the rule in each case of the script (e.g. `FAILED` "
        "lines, our injected assertion messages and the final summary for pytest; `: error:` "
        "and `make: ***` for gcc), not by the library's patterns. Plain cuts have no marker, "
        "so they show all 8,000 characters. Where highlights still miss lines, there are more "
        "matches than the block shows (30 failed tests; at most 8 lines, and a quarter of the "
        "budget); where nothing is cut (pip), every method sees everything.\n\n"
        "## What it costs\n\n"
        "`process()` of about 9 MB for `execute_command`, highlights on (the default) and off, "
        "fastest of 7 alternating samples each:\n\n" + costs + "\n")


if __name__ == "__main__":
    main()
