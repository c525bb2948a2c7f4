"""The default view's cost: a 1 MB log cut now and by an earlier version, in one run.

    .venv/bin/python bench/bench_view.py --baseline 3c1665e      # about a minute
    .venv/bin/python bench/bench_view.py --quick    # baseline: where HEAD left main
    .venv/bin/python bench/bench_view.py --baseline 3c1665e --only gcc   # some cases only

The baseline is the package as of a git revision, timed in the same run as this tree (see
:mod:`revision_timing`: one worker subprocess per side, both sides timing each case one right
after the other in every round, each time the fastest of several calls; the ratio is the
median over rounds).

* ``process()`` of a 1 MB log under the default configuration, for ``execute_command``
  (tail, highlights), for no tool (head_tail) and for ``read_file`` (head_tail; highlights
  on since issue 13), on plain text, on real terminal output (colours, redraws), on a real
  Jenkins log, and on failing output dense with matching lines (gcc warnings, pytest
  failures: the highlights' worst case), against the same call in the baseline revision:
  ratio under 2;
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
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from revision_timing import (
    ROOT,
    alternate,
    best_call,
    default_baseline,
    extract_package,
    fastest,
    median_ratio,
    subject_name,
)

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "view.md"
MB = 1_000_000
CHUNK = 1024 * 1024


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


def _numbered(text: str) -> str:
    return "".join(f"{n:>6}\u2192{line}\n" for n, line in enumerate(text.splitlines(), 1))


def _repeated(text: str, size: int) -> str:
    return text * (size // len(text) + 1)


def texts() -> dict[str, tuple[str, str | None]]:
    """The cases: name -> (text of about 1 MB, tool)."""
    plain = _log(MB)
    colour = _repeated(_corpus("pytest-color-failure-middle.txt"), MB)
    redrawn = _repeated(_corpus("karma-chrome-jasmine-fail.txt"), MB)
    jenkins = _corpus("jenkins-maven-unstable.txt")
    jenkins = jenkins[:jenkins.rindex("\n", 0, MB) + 1]
    # Failing output dense with matching lines, the highlights' worst case: a hundred gcc
    # warnings in 26 KB, thirty pytest failures in 20 KB.
    warnings = _repeated(_corpus("gcc-make-errors.txt"), MB)
    failures = _repeated(_corpus("pytest-many-failures.txt"), MB)
    # A source file and a document as Claude Code's Read shows them (numbered lines): the
    # outline's cost (tree-sitter parse, headings) over head_tail's, since issue 28.
    source = _numbered((ROOT / "truncation_core" / "structured" / "json_element.py")
                       .read_text(encoding="utf-8"))
    document = _numbered((ROOT / "docs" / "configuration.md").read_text(encoding="utf-8"))
    return {
        "57 kB Python source (numbered), read_file": (source, "read_file"),
        "31 kB Markdown document (numbered), read_file": (document, "read_file"),
        "1 MB log, execute_command": (plain, "execute_command"),
        "1 MB log, no tool (head_tail)": (plain, None),
        "1 MB log, read_file": (plain, "read_file"),
        "1 MB pytest --color log, execute_command": (colour, "execute_command"),
        "1 MB karma log (redraws), execute_command": (redrawn, "execute_command"),
        "1 MB Jenkins Maven log (real), execute_command": (jenkins, "execute_command"),
        "1 MB Jenkins Maven log (real), read_file": (jenkins, "read_file"),
        "1 MB gcc warnings, execute_command": (warnings, "execute_command"),
        "1 MB gcc warnings, read_file": (warnings, "read_file"),
        "1 MB pytest failures, execute_command": (failures, "execute_command"),
        "1 MB pytest failures, read_file": (failures, "read_file"),
    }


def stream_texts() -> dict[str, tuple[str, str | None]]:
    """Streams: name -> (text of about 50 MB, tool), written in 1 MiB chunks, spill off (a
    stream keeps ends eight times the inline limit since the view may cut that wide)."""
    plain = _log(50 * MB)
    return {"50 MB log streamed, tail (no tool: head_tail)": (plain, None),
            "50 MB log streamed, execute_command": (plain, "execute_command")}


def samplers(calls: str, only: str = "") -> dict[str, Callable[[], float]]:
    """Runs in each side's worker: a sampler per case (those whose name holds *only*), the
    fastest of *calls* calls (of a third as many for streams). Both sides use the default
    configuration with the memory store (spill off for streams); the artifact a call stores
    is deleted, untimed, before the next."""
    from truncation_core import Truncator

    n = int(calls)
    out: dict[str, Callable[[], float]] = {}
    for name, (text, tool) in texts().items():
        if only not in name:
            continue
        truncator = Truncator({"store": {"backend": "memory"}}, load_entrypoints=False)
        truncator.process(text, tool=tool)  # lazy imports, the tool's slot, the matcher
        out[name] = _processing(truncator, text, tool, n)
    for name, (text, tool) in stream_texts().items():
        if only not in name:
            continue
        truncator = Truncator({"store": {"backend": "memory"}, "spill": False},
                              load_entrypoints=False)
        out[name] = _streaming(truncator, text.encode(), tool, max(1, n // 3))
    return out


def _processing(truncator: Any, text: str, tool: str | None, calls: int
                ) -> Callable[[], float]:
    made: list[str] = []

    def delete() -> None:
        while made:
            truncator.store.delete(made.pop())

    def call() -> None:
        artifact = truncator.process(text, tool=tool).artifact
        if artifact is not None:
            made.append(artifact.id)

    return lambda: best_call(call, calls, setup=delete)


def _streaming(truncator: Any, data: bytes, tool: str | None, calls: int
               ) -> Callable[[], float]:
    def call() -> None:
        with truncator.stream(tool=tool) as stream:
            for i in range(0, len(data), CHUNK):
                stream.write(data[i:i + CHUNK])
        stream.result()

    return lambda: best_call(call, calls)


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
    parser.add_argument("--only", default="", help="only the cases whose name holds this "
                        "(not with --write)")
    args = parser.parse_args()
    rounds, calls = (3, 5) if args.quick else (7, 9)
    if args.baseline is None:
        args.baseline = default_baseline()
    if args.only and args.write:
        parser.error("--only: a partial run is not written to the results")
    lines = [f"Python {sys.version.split()[0]}; baseline {args.baseline}, subject "
             f"{subject_name()}; {rounds} rounds, both sides one after the other in each, "
             f"fastest of {calls} calls: fastest time, median ratio", ""]
    with tempfile.TemporaryDirectory() as tmp:
        try:
            baseline_root = extract_package(args.baseline, Path(tmp))
        except ValueError as exc:
            parser.error(str(exc))
        timed = alternate(baseline_root, "bench_view:samplers", rounds,
                          subject_args=(str(calls), args.only),
                          baseline_args=(str(calls), args.only))
    for name in timed[0].subject:
        ratio = median_ratio(timed, name)
        verdict = "ok" if ratio < 2 else "MISSED"
        lines.append(f"{name:<44} {_ms(fastest(timed, name, side='subject'))}  vs baseline "
                     f"{_ms(fastest(timed, name, side='baseline'))}  ratio {ratio:5.2f}  "
                     f"target 2  {verdict}")
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
