"""The benchmarks' operations now and before the architecture redesign, in one run.

    .venv/bin/python bench/bench_revisions.py                 # about four minutes
    .venv/bin/python bench/bench_revisions.py --quick         # about a minute
    .venv/bin/python bench/bench_revisions.py --baseline REV --write

Times, in this tree and in the package as of ``--baseline`` (default 0a263ae, the last
commit before the layout redesign), the operations the benchmarks of that revision measured
(bench_foundation, bench_structured, bench_stream, bench_artifacts, bench_salient), through
public API that both revisions have: ``Truncator(config, load_entrypoints=False)``,
``process()``, ``stream()``, ``store.delete()``, ``artifacts.text/lines/tail/grep`` and
``call_tool()`` with ``get_artifact``, ``artifact_tail`` and ``artifact_grep``. Every case
checks that both sides cut with the strategy the row names.

How the two are timed is in :mod:`revision_timing`: each side in its own worker subprocess;
in each round both sides time every case one right after the other, a time being the
fastest of a few calls; the ratio is the median over rounds of after/before in the same
round. Two control rows run the same code on both sides, so their ratios show how far noise
alone moves one. "No slower" holds when the ratio is at most 1.10. Where a feature added
since the baseline changed what a row does, its note says so, and an "after only" row times
this tree with the feature off against the baseline's default, to separate what the
redesign costs from what the feature costs; a new default the baseline lacks (``adaptive``
for ``execute_command``) gets such a row too, against the row that configures the old one. The
lines under the table give each "after only" row against its row in this tree, in the same
rounds. Results go to stdout and, with ``--write``, to ``bench/results/revisions.md``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
from revision_timing import (
    ROOT,
    Round,
    alternate,
    best_call,
    best_per_call,
    extract_package,
    fastest,
    ratios,
    subject_name,
)

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "revisions.md"
BASELINE = "0a263ae"
MB = 1_000_000
CHUNK = 1024 * 1024
#: The largest ratio read as "no slower": the spread of one ratio between runs here.
NO_SLOWER = 1.10
NEEDLE = "NEEDLE-IN-HAYSTACK"
#: Memory store (nothing touches the disk) unless a case says otherwise.
MEMORY = {"store": {"backend": "memory"}}

# -- inputs: written once by the parent, read by both sides ----------------------------------


def log_text(size: int, needles: int = 0) -> str:
    """Log-like ASCII lines (bench_foundation's), about *size* characters; with *needles*,
    that many lines holding :data:`NEEDLE` spread through it."""
    lines, total, i = [], 0, 0
    while total < size:
        line = (f"[{i:07d}] INFO worker-{i % 16:02d} processed batch {i * 7919 % 100_003}"
                f" in {i % 997} ms\n")
        lines.append(line)
        total += len(line)
        i += 1
    for k in range(1, needles + 1):
        lines[len(lines) * k // (needles + 1)] = f"[marker] {NEEDLE} number {k}\n"
    return "".join(lines)


_RECORD = ('{{"id": {i}, "name": "user{i}", "tags": ["alpha", "beta", "gamma"], '
           '"score": {score}, "active": true, "meta": {{"x": 1, "y": null}}, '
           '"path": "/srv/data/user{i}/profile.json"}}')


def json_array(size: int) -> str:
    """A JSON array of bench_structured's ~160-byte records, about *size* characters."""
    records, total, i = [], 2, 0
    while total < size:
        record = _RECORD.format(i=i, score=i / 7)
        records.append(record)
        total += len(record) + 2
        i += 1
    return "[" + ", ".join(records) + "]"


INPUTS: dict[str, Callable[[], str]] = {
    "log-100k.txt": lambda: log_text(100_000),
    "log-1m.txt": lambda: log_text(MB),
    "log-10m.txt": lambda: log_text(10 * MB),
    "log-10m-needles.txt": lambda: log_text(10 * MB, needles=5),
    "array-1m.json": lambda: json_array(MB),
    "array-10m.json": lambda: json_array(10 * MB),
}


def write_inputs(into: Path) -> None:
    for name, make in INPUTS.items():
        (into / name).write_text(make(), encoding="utf-8")


# -- the cases, run in each side's subprocess ------------------------------------------------


#: Builds a case once per worker (untimed) and returns its sampler: calls -> seconds.
Maker = Callable[["Inputs"], Callable[[int], float]]


@attrs.frozen(kw_only=True)
class Case:
    """One row: *make* builds it, once per worker, and returns its sampler."""

    name: str
    make: Maker
    #: Whose time the row's ratio divides by: a case of the baseline (default: this one).
    against: str | None = None
    #: Only this tree runs it: a feature the baseline lacks, turned off, or a default the
    #: baseline did not have (its ratio then divides by the baseline's default, *against*).
    after_only: bool = False
    #: What changed since the baseline in what the row does, when it is not the layout.
    note: str = ""


@attrs.define
class Inputs:
    """The texts, read once per worker, a scratch directory for the filesystem store, and
    the artifact the read cases share."""

    folder: Path
    scratch: Path
    _texts: dict[str, str] = attrs.field(factory=dict)
    _artifact: tuple[Any, str, int] | None = None

    def text(self, name: str) -> str:
        if name not in self._texts:
            self._texts[name] = (self.folder / name).read_text(encoding="utf-8")
        return self._texts[name]

    def artifact(self) -> tuple[Any, str, int]:
        """A truncator on the filesystem store, the id of the 10 MB log with needles stored
        there, and the number of a line in its middle."""
        if self._artifact is None:
            truncator = _filesystem(self)
            text = self.text("log-10m-needles.txt")
            artifact = truncator.process(text, tool="read_file").artifact
            if artifact is None or artifact.bytes != len(text):
                raise AssertionError("the 10 MB log was not stored whole")
            self._artifact = (truncator, artifact.id, text.count("\n") // 2)
        return self._artifact


def _truncator(config: dict[str, Any]) -> Any:
    from truncation_core import Truncator

    return Truncator(config, load_entrypoints=False)


def _filesystem(inputs: Inputs) -> Any:
    return _truncator({"store": {"root": str(inputs.scratch), "session": "bench"}})


def _check(result: Any, what: str, strategy: str | tuple[str, ...]) -> None:
    """Both sides must cut as the row says (*strategy*: one of them, where a feature added
    since changed the default)."""
    used = result.metadata.strategy_used
    if used not in ((strategy,) if isinstance(strategy, str) else strategy):
        raise AssertionError(f"{what}: cut by {used}, not {strategy}")


def _kept(truncator: Any, call: Callable[[], Any], calls: int) -> float:
    """The fastest of *calls* calls of *call*, deleting (untimed) the artifact each call
    stored, so that a store does not grow over the run."""
    made: list[str] = []

    def delete() -> None:
        while made:
            truncator.store.delete(made.pop())

    def timed() -> None:
        artifact = call().artifact
        if artifact is not None:
            made.append(artifact.id)

    try:
        return best_call(timed, calls, setup=delete)
    finally:
        delete()


def _process(text_name: str, tool: str | None, config: dict[str, Any],
             strategy: str | tuple[str, ...]) -> Maker:
    def make(inputs: Inputs) -> Callable[[int], float]:
        truncator = _truncator(config)
        text = inputs.text(text_name)
        # The first call imports what the cut needs and builds the tool's slot.
        _check(truncator.process(text, tool=tool), text_name, strategy)
        return lambda calls: _kept(truncator, lambda: truncator.process(text, tool=tool), calls)

    return make


def _under_limit(inputs: Inputs) -> Callable[[int], float]:
    truncator = _truncator(MEMORY)
    content = "x" * 2000
    if truncator.process(content, tool="read_file").metadata.was_truncated:
        raise AssertionError("2 kB was cut")
    return lambda calls: best_per_call(lambda: truncator.process(content, tool="read_file"),
                                       calls)


def _stream(text_name: str, repeat: int, tool: str | None, config: dict[str, Any],
            strategy: str | tuple[str, ...]) -> Maker:
    def make(inputs: Inputs) -> Callable[[int], float]:
        truncator = _truncator(config)
        data = inputs.text(text_name).encode() * repeat

        def stream() -> Any:
            with truncator.stream(tool=tool) as s:
                for i in range(0, len(data), CHUNK):
                    s.write(data[i:i + CHUNK])
            return s.result()

        _check(stream(), f"stream of {text_name}", strategy)
        return lambda calls: _kept(truncator, stream, max(2, calls // 2))

    return make


def _store(inputs: Inputs) -> Callable[[int], float]:
    truncator = _filesystem(inputs)
    text = inputs.text("log-10m.txt")
    _kept(truncator, lambda: truncator.process(text, tool="read_file"), 1)
    return lambda calls: _kept(truncator, lambda: truncator.process(text, tool="read_file"),
                               calls)


def _read(read: Callable[[Any, str, int], object]) -> Maker:
    def make(inputs: Inputs) -> Callable[[int], float]:
        truncator, artifact_id, middle = inputs.artifact()
        read(truncator, artifact_id, middle)
        return lambda calls: best_call(lambda: read(truncator, artifact_id, middle), calls)

    return make


def _pluggy_hook(_inputs: Inputs) -> Callable[[int], float]:
    """One pluggy hook call with one implementation: the same code on both sides."""
    import pluggy

    spec, impl = pluggy.HookspecMarker("bench"), pluggy.HookimplMarker("bench")

    class Spec:
        @spec
        def on_result(self, content: str) -> Any: ...

    class Plugin:
        @impl
        def on_result(self, content: str) -> Any:
            return content

    manager = pluggy.PluginManager("bench")
    manager.add_hookspecs(Spec)
    manager.register(Plugin())
    hook, content = manager.hook.on_result, "x" * 2000
    return lambda calls: best_per_call(lambda: hook(content=content), calls)


def _count_newlines(inputs: Inputs) -> Callable[[int], float]:
    """``str.count("\\n")`` over 10 MB: the same code on both sides."""
    text = inputs.text("log-10m.txt")
    return lambda calls: best_call(lambda: text.count("\n"), calls)


def _called(result: Any) -> Any:
    if result.is_error:
        raise AssertionError(f"{result.tool}: {result.content[:200]}")
    return result


def _grep(truncator: Any, artifact_id: str, _middle: int) -> object:
    found = truncator.artifacts.grep(artifact_id, NEEDLE)
    if len(found.matches) != 5:
        raise AssertionError(f"grep found {len(found.matches)} lines, not 5")
    return found


RANKED = ("Since the baseline, JSON results that carry a score are cut by `ranked` unless "
          "the tool's strategy is configured (the baseline cut them by `element`); the "
          "row below configures `element`.")
PER_CUT = ("Since the baseline, a cut result also carries token figures (`tokens`, "
           "`tokenizer`, `max_tokens`) and records the shown size in `stats()` (no setting "
           "turns these off), its marker names the original size, and the cut passes through "
           "more layers (the pipeline, the checked hook host): a fixed cost per cut, visible "
           "where the cut itself is cheap.")
VIEW = ("Since the baseline, content over `artifact_threshold` shows the whole cut under "
        "a one-line reference (`reference_preview: full`, the default) where the baseline "
        "showed a 2,000-character preview, and the view drops terminal control (one scan "
        "for escape sequences and carriage returns); the row below sets "
        "`reference_preview: short`.")
WINDOWS = ("Since the baseline, a stream keeps ends eight times the inline limit (the view "
           "may cut that wide), not one; no setting turns that off.")
ADAPTIVE = ("Since issue 28, `execute_command` is cut by `adaptive` (the rows above "
            "configure the baseline's `tail`): it reads both ends of the output for failure "
            "lines (the tool's salient patterns) to split the budget between head and tail "
            "(this log has none: head_ratio's 60/40), keeps a floor of 10 whole lines for "
            "the tail, and outlines the omitted part as `outline` does: it reads the omitted "
            "part for where its sections start (sections of at most 100 lines, or the index "
            "of record-like output) and cuts again in the budget the outline leaves. A "
            "stream gets no outline (there is no whole text), only the split. The row "
            "`outline` configured is that cut without the split; each row against the "
            "`tail` row in this tree is in the lines under the table.")
SHORT = {**MEMORY, "reference_preview": "short"}
LOG_1M = "process(), 1 MB log, no tool (head_tail)"
COMMAND_1M = "process(), 1 MB log, execute_command (tail, highlights)"
COMMAND_STREAM = "stream, 50 MB log, execute_command (tail), spill off"
#: The baseline's strategy for execute_command, configured (issue 28 made it adaptive).
TAIL = {"tools": {"execute_command": {"strategy": "tail"}}}
CONTROL = "control (same code both sides): "
HEAD_TAIL_OFF = {"spill": False, **MEMORY}
ELEMENT = {**MEMORY, "tools": {"search_files": {"strategy": "element"}}}
#: What cuts scored JSON results by default: element before, ranked after.
SCORED = ("element", "ranked")
JSON_1M = "process(), 1 MB JSON array, search_files (default)"
JSON_10M = "stream, 10 MB JSON array, search_files (default), spill off"

CASES: tuple[Case, ...] = (
    # Controls: the same code on both sides, so their ratio shows how far noise moves one.
    Case(name=f"{CONTROL}one pluggy hook call, one implementation", make=_pluggy_hook),
    Case(name=f"{CONTROL}str.count('\\n') over 10 MB", make=_count_newlines),
    Case(name="process(), 2 kB under the limit (read_file)", make=_under_limit,
         note="Since the baseline, a call under the limit also counts its size in the "
         "tool's utilization histogram (`stats()`) and checks `log_utilization_above`; no "
         "setting turns that off."),
    Case(name="process(), 100 kB log, head_tail, spill off",
         make=_process("log-100k.txt", None, HEAD_TAIL_OFF, "head_tail"), note=PER_CUT),
    Case(name="process(), 10 MB log, head_tail, spill off",
         make=_process("log-10m.txt", None, HEAD_TAIL_OFF, "head_tail")),
    Case(name=LOG_1M, make=_process("log-1m.txt", None, MEMORY, "head_tail"), note=VIEW),
    Case(name="process(), 1 MB log, no tool (head_tail), reference_preview: short",
         make=_process("log-1m.txt", None, SHORT, "head_tail"), against=LOG_1M,
         after_only=True),
    Case(name=COMMAND_1M,
         make=_process("log-1m.txt", "execute_command", {**MEMORY, **TAIL}, "tail"),
         note=VIEW),
    Case(name="process(), 1 MB log, execute_command (tail), reference_preview: short",
         make=_process("log-1m.txt", "execute_command", {**SHORT, **TAIL}, "tail"),
         against=COMMAND_1M, after_only=True),
    Case(name="process(), 1 MB log, execute_command (default: adaptive)",
         make=_process("log-1m.txt", "execute_command", MEMORY, "adaptive"),
         against=COMMAND_1M, after_only=True, note=ADAPTIVE),
    Case(name="process(), 1 MB log, execute_command, outline configured (adaptive without "
         "its split)",
         make=_process("log-1m.txt", "execute_command",
                      {**MEMORY, "tools": {"execute_command": {"strategy": "outline"}}},
                      "outline"), against=COMMAND_1M, after_only=True, note=ADAPTIVE),
    Case(name="process(), 1 MB log, lines",
         make=_process("log-1m.txt", "bench_lines",
                      {**MEMORY, "tools": {"bench_lines": {"strategy": "lines"}}}, "lines")),
    # Records carry a "score": since the baseline, element hands scored results to ranked
    # unless the tool's strategy is configured.
    Case(name=JSON_1M, make=_process("array-1m.json", "search_files", MEMORY, SCORED),
         note=RANKED),
    Case(name="process(), 1 MB JSON array, search_files, element configured (not ranked)",
         make=_process("array-1m.json", "search_files", ELEMENT, "element"),
         against=JSON_1M, after_only=True),
    Case(name="stream, 50 MB log, tail, spill off",
         make=_stream("log-1m.txt", 50, None, {"default_strategy": "tail", **HEAD_TAIL_OFF},
                     "tail"), note=WINDOWS),
    Case(name=COMMAND_STREAM,
         make=_stream("log-1m.txt", 50, "execute_command", {**HEAD_TAIL_OFF, **TAIL},
                      "tail"), note=WINDOWS),
    Case(name="stream, 50 MB log, execute_command (default: adaptive), spill off",
         make=_stream("log-1m.txt", 50, "execute_command", HEAD_TAIL_OFF, "adaptive"),
         against=COMMAND_STREAM, after_only=True, note=ADAPTIVE),
    Case(name="stream, 50 MB log, tail, spill on (memory store)",
         make=_stream("log-1m.txt", 50, None,
                     {"default_strategy": "tail", "max_artifact_size": 64 * MB, **MEMORY},
                     "tail"), note=WINDOWS),
    Case(name=JSON_10M, make=_stream("array-10m.json", 1, "search_files", HEAD_TAIL_OFF,
                                    SCORED), note=RANKED),
    Case(name="stream, 10 MB JSON array, search_files, element configured (not ranked)",
         make=_stream("array-10m.json", 1, "search_files",
                     {**HEAD_TAIL_OFF, **ELEMENT}, "element"),
         against=JSON_10M, after_only=True),
    Case(name="process() + filesystem store, 10 MB log (read_file)", make=_store),
    Case(name="artifacts.text(), 10 MB artifact",
         make=_read(lambda t, a, m: t.artifacts.text(a))),
    Case(name="artifacts.lines(), 100 lines from the middle",
         make=_read(lambda t, a, m: t.artifacts.lines(a, m, m + 99))),
    Case(name="artifacts.tail(100)", make=_read(lambda t, a, m: t.artifacts.tail(a, 100))),
    Case(name="artifacts.grep(), literal, 10 MB, 5 matches", make=_read(_grep)),
    Case(name="call_tool('get_artifact'), a page from the middle",
         make=_read(lambda t, a, m: _called(t.call_tool(
             "get_artifact", {"artifact_id": a, "start_line": m})))),
    Case(name="call_tool('artifact_tail'), 100 lines",
         make=_read(lambda t, a, m: _called(t.call_tool(
             "artifact_tail", {"artifact_id": a, "lines": 100})))),
    Case(name="call_tool('artifact_grep'), 10 MB, 5 matches",
         make=_read(lambda t, a, m: _called(t.call_tool(
             "artifact_grep", {"artifact_id": a, "pattern": NEEDLE})))),
)


def samplers(side: str, folder: str, calls: str, only: str = ""
             ) -> dict[str, Callable[[], float]]:
    """Runs in a side's worker: a sampler for every case that side runs (*side*: ``before``
    or ``after``) and whose name holds *only*, each building its case on its first call."""
    inputs = Inputs(Path(folder), Path(tempfile.mkdtemp(prefix=f"store-{side}-", dir=folder)))
    built: dict[str, Callable[[int], float]] = {}

    def sampler(case: Case) -> Callable[[], float]:
        def sample() -> float:
            if case.name not in built:
                built[case.name] = case.make(inputs)
            return built[case.name](int(calls))

        return sample

    return {case.name: sampler(case) for case in _chosen(only)
            if side == "after" or not case.after_only}


def _chosen(only: str) -> list[Case]:
    """The cases whose name holds *only*, and those their ratios divide by."""
    chosen = {case.name for case in CASES if only.lower() in case.name.lower()}
    chosen |= {case.against for case in CASES if case.name in chosen and case.against}
    return [case for case in CASES if case.name in chosen]


# -- the table -------------------------------------------------------------------------------


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.4f}" if seconds < 1e-3 else f"{seconds * 1e3:.2f}"


def in_this_tree(rounds: list[Round], cases: list[Case]) -> list[str]:
    """Each "after only" row against the row its ratio divides by, both timed in this tree
    in the same rounds: what the feature (or the new default) costs, apart from the
    redesign."""
    lines = []
    for case in cases:
        if case.after_only and case.against:
            per_round = [r.subject[case.name] / r.subject[case.against] for r in rounds]
            low, ratio, high = statistics.quantiles(per_round, n=4, method="inclusive")
            lines.append(f"- {case.name}: {ratio:.2f} x {case.against} (middle half "
                         f"{low:.2f} to {high:.2f})")
    if lines:
        lines.insert(0, "In this tree alone (after/after, the same rounds), each \"after "
                     "only\" row against the row it is compared with:")
    return lines


def table(rounds: list[Round], cases: list[Case]) -> tuple[list[str], list[str], list[str]]:
    """The table's lines, its notes, and the names of the rows (controls aside) that are
    slower."""
    lines = ["| case | before (ms) | after (ms) | after/before | middle half of rounds | "
             "no slower |",
             "| --- | ---: | ---: | ---: | ---: | --- |"]
    notes: list[str] = []
    slower = []
    for k, case in enumerate(cases):
        against = case.against or case.name
        low, ratio, high = statistics.quantiles(ratios(rounds, case.name, against), n=4,
                                                method="inclusive")
        ok = ratio <= NO_SLOWER
        if not ok and not case.name.startswith(CONTROL):
            slower.append(case.name)
        name = case.name
        if case.after_only:
            name += (" (after only; before: the row above)" if cases[k - 1].name == against
                     else f" (after only; before: {against})")
        if case.note:
            if case.note not in notes:
                notes.append(case.note)
            name += f" [{notes.index(case.note) + 1}]"
        lines.append(f"| {name} | {_ms(fastest(rounds, against, side='baseline'))} | "
                     f"{_ms(fastest(rounds, case.name, side='subject'))} | {ratio:.2f} | "
                     f"{low:.2f} to {high:.2f} | {'yes' if ok else 'NO'} |")
    return lines, [f"[{i}] {note}" for i, note in enumerate(notes, 1)], slower


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE,
                        help=f"git revision to compare with (default: {BASELINE}, before the "
                        "architecture redesign)")
    parser.add_argument("--quick", action="store_true", help="fewer rounds and calls")
    parser.add_argument("--rounds", type=int, help="rounds (default 21, quick 5)")
    parser.add_argument("--cases", default="", metavar="TEXT",
                        help="only the cases whose name holds TEXT (any case)")
    parser.add_argument("--write", action="store_true", help=f"write {RESULTS.relative_to(ROOT)}")
    args = parser.parse_args()
    if not _chosen(args.cases):
        parser.error(f"cases: no case name holds {args.cases!r}")
    rounds = args.rounds or (5 if args.quick else 21)
    calls = 3 if args.quick else 5
    with tempfile.TemporaryDirectory(prefix="bench-revisions-") as tmp:
        folder = Path(tmp) / "inputs"
        folder.mkdir()
        write_inputs(folder)
        try:
            baseline_root = extract_package(args.baseline, Path(tmp) / "baseline")
        except ValueError as exc:
            parser.error(str(exc))
        timed = alternate(baseline_root, "bench_revisions:samplers", rounds,
                          subject_args=("after", str(folder), str(calls), args.cases),
                          baseline_args=("before", str(folder), str(calls), args.cases),
                          progress=lambda line: print(line, file=sys.stderr, flush=True))
    cases = _chosen(args.cases)
    lines, notes, slower = table(timed, cases)
    header = (f"Python {sys.version.split()[0]}; before: {args.baseline}, after: "
              f"{subject_name()}; {rounds} rounds; in each, both sides time every case one "
              f"right after the other, a time being the fastest of {calls} calls (streams: "
              "of half as many, at least 2). Times: the fastest over rounds; ratio: the "
              "median over rounds of after/before in the same round; its middle half: the "
              "25th to the 75th percentile of those.")
    rows = sum(not case.name.startswith(CONTROL) for case in cases)
    verdict = (f"No slower (ratio <= {NO_SLOWER:.2f}) in every row." if not slower else
               f"Slower (ratio > {NO_SLOWER:.2f}) in {len(slower)} of {rows} rows (controls "
               "aside): " + "; ".join(slower) + ".")
    own = in_this_tree(timed, cases)
    text = "\n".join([header, "", *lines, "", *notes, *(["", *own] if own else []), "",
                      verdict])
    print(text)
    if args.write:
        RESULTS.write_text(
            "# The benchmarks' operations before and after the architecture redesign\n\n"
            "Output of `python bench/bench_revisions.py --write` on the shared 2-core "
            "development VM (see the script for what each row measures).\n\n"
            + text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
