"""Key-line recall: how much of what a developer needs from real tool output the model sees.

The corpus is ``tests/corpus/``: real outputs of real tools (made by running them,
``bench/corpus_generate.py``, or taken from public repositories' fixture files), each with
key lines marked by hand in ``tests/corpus/manifest.json`` (the error, its location, the
failing test, expected/actual, the innermost frame, the final status).

For each case, **recall** is the share of its key lines visible in what a view shows. A key
line counts as seen when its text (ANSI escapes removed, whitespace trimmed, the first
:data:`SEEN_CHARS` characters) appears in the view, ANSI escapes removed too; a key line
whose first characters are shared with other lines (a message after a long build path)
gives in the manifest the ``match`` that must appear instead. Highlights
show lines as ``line N: text`` clipped to 160 characters, which containment handles.

Views, all computed in the same run:

* ``default`` / ``default (tool=None)``: ``Truncator(load_entrypoints=False)`` with its
  default configuration, for ``execute_command`` (tail + highlights; over 50,000
  characters an artifact reference with a 2,000-character preview) and for no tool;
* ``matched 8000``: the library at an 8,000-character inline limit with the artifact
  reference tier out of the way (``artifact_threshold`` larger than any case), highlights
  on as by default for ``execute_command``;
* ``head``, ``tail``, ``50/50``, ``20/80``, ``60/40``: fixed cuts of 8,000 characters with
  no marker;
* ``tail @ default size``: the plain tail at the visible size of the default view (the
  view issue asks for "at least what the plain tail rule keeps at the same visible size").

**Highlight precision**: of the lines in the highlights block of a library view, the share
that are key lines or lie in a key unit (a block such as a whole traceback or compiler
diagnostic, ``key_units`` in the manifest).

Results go to ``bench/results/recall.md`` and stdout; :func:`score` returns the numbers,
for ``tests/test_corpus_recall.py``.

    python bench/bench_recall.py
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import attrs

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPUS = ROOT / "tests" / "corpus"
MANIFEST = CORPUS / "manifest.json"
RESULTS = HERE / "results" / "recall.md"
BUDGET = 8000
SEEN_CHARS = 150

#: CSI sequences (colours, cursor moves) and OSC sequences (titles, links).
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
#: Line terminators as truncation-core defines them: CRLF, LF, a lone CR.
_TERMINATOR = re.compile(r"\r\n|\n|\r")

#: Fixed cuts: the share of the budget given to the head.
FIXED_RULES = {"head": 1.0, "tail": 0.0, "50/50": 0.5, "20/80": 0.2, "60/40": 0.6}
LIBRARY_VIEWS = ("default", "default (tool=None)", "matched 8000")
VIEWS = (*LIBRARY_VIEWS, *FIXED_RULES, "tail @ default size")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def corpus_lines(text: str) -> list[str]:
    """The lines of *text* as truncation-core numbers them (``"\\r\\n"``, ``"\\n"``, lone
    ``"\\r"``), without terminators: ``corpus_lines(text)[n - 1]`` is line *n*."""
    lines = _TERMINATOR.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def probe(line: str) -> str:
    """What of a key line must appear in a view for it to count as seen."""
    return strip_ansi(line).strip()[:SEEN_CHARS]


def key_probe(key: dict[str, Any], lines: list[str]) -> str:
    """What must appear for *key* to count as seen: its ``match`` if the manifest gives one
    (for a line whose first characters are not its own, such as a message after a long
    path shared by other lines), else :func:`probe` of the line."""
    return str(key["match"]) if "match" in key else probe(lines[key["line"] - 1])


def load_manifest(path: Path = MANIFEST) -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return manifest


def read_case(case: dict[str, Any], corpus: Path = CORPUS) -> str:
    # newline="" keeps "\r" and "\r\n" as the tool wrote them.
    with open(corpus / case["file"], encoding="utf-8", errors="surrogateescape",
              newline="") as handle:
        return handle.read()


def plain(text: str, head_share: float, budget: int = BUDGET) -> str:
    """A fixed cut without marker: the first ``budget * head_share`` characters and the last
    rest of the budget (the whole text when it fits)."""
    if len(text) <= budget:
        return text
    head = int(budget * head_share)
    tail = budget - head
    return text[:head] + (text[-tail:] if tail else "")


@attrs.frozen(kw_only=True)
class CaseScore:
    name: str
    tool: str
    family: str
    chars: int
    lines: int
    position: str
    failure: bool
    keys: int
    #: View name -> share of key lines seen.
    recall: dict[str, float]
    #: View name -> (highlight lines that are key lines or in a key unit, highlight lines).
    precision: dict[str, tuple[int, int]]
    #: Key lines (1-based) the default view misses.
    missed_by_default: tuple[int, ...]
    #: Characters the default view shows.
    default_chars: int


@attrs.frozen(kw_only=True)
class Score:
    cases: tuple[CaseScore, ...]

    def mean(self, view: str) -> float:
        return sum(c.recall[view] for c in self.cases) / len(self.cases)

    def mean_of_failures(self, view: str) -> float:
        """The mean over the cases whose output reports a failure."""
        failures = [c for c in self.cases if c.failure]
        return sum(c.recall[view] for c in failures) / len(failures)

    def precision(self, view: str) -> tuple[int, int]:
        hits = sum(c.precision[view][0] for c in self.cases)
        shown = sum(c.precision[view][1] for c in self.cases)
        return hits, shown

    def mean_precision(self, view: str) -> float | None:
        """Mean over the cases whose block shows at least one line."""
        shares = [h / n for h, n in (c.precision[view] for c in self.cases) if n]
        return sum(shares) / len(shares) if shares else None


def _truncators() -> dict[str, Callable[[str], Any]]:
    from truncation_core import Truncator
    from truncation_core.builtins.memory_store import MemoryStore

    default = Truncator(load_entrypoints=False, store=MemoryStore())
    matched = Truncator({"inline_limit": BUDGET, "artifact_threshold": 10**12},
                        load_entrypoints=False, store=MemoryStore())
    return {
        "default": lambda t: default.process(t, tool="execute_command"),
        "default (tool=None)": lambda t: default.process(t),
        "matched 8000": lambda t: matched.process(t, tool="execute_command"),
    }


def _highlight_lines(result: Any) -> list[tuple[int | None, str]]:
    """(line number in the output, text) of each line of the highlights block."""
    shown = (result.metadata.details or {}).get("highlights") or []
    return [(h.get("original_line"), h.get("text") or "") for h in shown]


def score_case(case: dict[str, Any], text: str,
               views: dict[str, Callable[[str], Any]] | None = None) -> CaseScore:
    views = views or _truncators()
    lines = corpus_lines(text)
    key_numbers = [k["line"] for k in case["key_lines"]]
    wanted = [key_probe(k, lines) for k in case["key_lines"]]
    relevant = set(key_numbers)
    for first, last in case.get("key_units", []):
        relevant.update(range(first, last + 1))
    relevant_texts = {probe(lines[n - 1]) for n in relevant if 0 < n <= len(lines)}

    def share(shown: str) -> tuple[float, list[int]]:
        visible = strip_ansi(shown)
        missed = [n for n, w in zip(key_numbers, wanted, strict=True) if w not in visible]
        return 1 - len(missed) / len(wanted), missed

    recall: dict[str, float] = {}
    precision: dict[str, tuple[int, int]] = {}
    missed_by_default: list[int] = []
    default_chars = 0
    for view, process in views.items():
        result = process(text)
        recall[view], missed = share(result.content)
        block = _highlight_lines(result)
        hits = sum(1 for number, line_text in block
                   if (number in relevant if number is not None
                       else probe(line_text) in relevant_texts))
        precision[view] = (hits, len(block))
        if view == "default":
            missed_by_default = missed
            default_chars = len(result.content)
    for rule, head_share in FIXED_RULES.items():
        recall[rule], _ = share(plain(text, head_share))
    same_size = text[-default_chars:] if default_chars < len(text) else text
    recall["tail @ default size"], _ = share(same_size)
    return CaseScore(
        name=case["name"], tool=case["tool"], family=case["family"], chars=len(text),
        lines=len(lines), position=case["position"], failure=case["failure"],
        keys=len(wanted), recall=recall, precision=precision,
        missed_by_default=tuple(missed_by_default), default_chars=default_chars)


def score(manifest: dict[str, Any] | None = None, corpus: Path = CORPUS,
          views: dict[str, Callable[[str], Any]] | None = None) -> Score:
    """Score every case of the corpus under every view (*views* replaces the library's)."""
    manifest = manifest or load_manifest()
    views = views or _truncators()
    return Score(cases=tuple(score_case(case, read_case(case, corpus), views)
                             for case in manifest["cases"]))


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def _ratio(hits: int, shown: int) -> str:
    return f"{hits}/{shown} ({hits / shown:.0%})" if shown else "-"


def _table(header: Iterable[str], rows: Iterable[Iterable[str]]) -> list[str]:
    header = list(header)
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(row) + " |" for row in rows)]


def report(result: Score) -> str:
    shown_views = ("default", "matched 8000", *FIXED_RULES, "tail @ default size")
    rows = []
    for c in result.cases:
        hits, n = c.precision["default"]
        rows.append((c.name, c.tool, f"{c.chars:,}", c.position, str(c.keys),
                     *(_pct(c.recall[v]) for v in shown_views),
                     f"{hits}/{n}" if n else "-"))
    header = ("case", "tool", "chars", "failure at", "keys",
              *shown_views, "highlight precision (default)")
    lines = _table(header, rows)
    means = ["## Means over the cases", ""]
    means += _table(("view", "mean key-line recall", "highlight precision (pooled)",
                     "highlight precision (mean per case)"), (
        (v, f"{result.mean(v):.3f}",
         _ratio(*result.precision(v)) if v in LIBRARY_VIEWS else "-",
         _pct(result.mean_precision(v)) if v in LIBRARY_VIEWS else "-")
        for v in VIEWS))
    worst = sorted(result.cases, key=lambda c: (c.recall["default"], c.name))[:10]
    worst_rows = [(c.name, _pct(c.recall["default"]), f"{c.default_chars:,}",
                   ", ".join(map(str, c.missed_by_default[:12]))
                   + (" ..." if len(c.missed_by_default) > 12 else ""))
                  for c in worst]
    tail_beats = [c.name for c in result.cases
                  if c.recall["tail @ default size"] > c.recall["default"]]
    return "\n".join([
        f"{len(result.cases)} cases, {len({c.tool for c in result.cases})} tools, "
        f"{sum(c.keys for c in result.cases)} key lines.", "",
        *lines, "", *means, "",
        f"Over the {sum(c.failure for c in result.cases)} failure cases: "
        + ", ".join(f"{v} {result.mean_of_failures(v):.3f}" for v in VIEWS) + ".", "",
        "## Worst cases under the default configuration", "",
        *_table(("case", "recall", "chars shown", "key lines missed"), worst_rows), "",
        "Cases where the plain tail at the default view's size sees more key lines than the "
        f"default view: {', '.join(tail_beats) or 'none'}.",
    ])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    text = report(score())
    print(text)
    if not args.no_write:
        RESULTS.parent.mkdir(exist_ok=True)
        RESULTS.write_text(
            "# Key-line recall over the real-output corpus\n\n"
            "Generated by `python bench/bench_recall.py` from `tests/corpus/` (see "
            "`tests/corpus/manifest.json` for where each output comes from and why its key "
            "lines were chosen). Recall: share of a case's hand-marked key lines visible in "
            "the view. `default`: `Truncator(load_entrypoints=False).process(text, "
            "tool=\"execute_command\")`; `matched 8000`: inline limit 8,000 with the artifact "
            "reference tier off; fixed rules: 8,000 characters, no marker; `tail @ default "
            "size`: the plain tail with as many characters as the default view shows. "
            "Highlight precision: highlight lines that are key lines or in a key unit / "
            "highlight lines shown.\n\n" + text + "\n")


if __name__ == "__main__":
    main()
