"""The ``adaptive`` strategy: the split where a command's information is (issue 28).

``execute_command`` output is cut by ``adaptive``: a failure log (failure lines at its end)
keeps its tail; anything else (search hits, listings, files, a failure section printed
first) keeps its head and its tail, ``head_ratio`` to the head; the tail keeps a floor of
whole lines whatever their length; the omitted part is outlined. Each behaviour is checked on
a small output shaped as real tools print it, with a negative control where the behaviour
could be missing; the invariants of any cut (within every limit, an exact prefix and
suffix, the documented marker) are checked by ``tests/test_strategies_properties.py``, for
drawn text and here for drawn logs with failures placed anywhere.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_strategies_properties import check_result, make_truncator

from truncation_core import Budget, Truncator
from truncation_core.adaptive.cut import tail_floor
from truncation_core.adaptive.ends import salient_ends
from truncation_core.builtins.salient import DETECTOR
from truncation_core.highlights.patterns import Matcher
from truncation_core.outline.toc import SPAN
from truncation_core.pipeline.ends import KeptEnds
from truncation_core.plugin import SalientDetector, SalientPattern, hookimpl
from truncation_core.storage.memory import MemoryStore

ENTRY = re.compile(r"^(\d[\d,]*): (.*)$")


def make(config: dict[str, Any] | None = None, **kwargs: Any) -> Truncator:
    return Truncator(config, load_entrypoints=False, store=MemoryStore(), **kwargs)


def build_log(lines: int = 800) -> str:
    """A C build that compiles a module a line, as ``make`` prints it (under the artifact
    reference's threshold at 800 lines)."""
    return "".join(f"gcc -O2 -c src/module_{i:04d}.c -o build/module_{i:04d}.o\n"
                   for i in range(lines))


def split_of(result: Any) -> float:
    return float(result.metadata.details["split"]["head_share"])


def outline(view: str) -> list[tuple[int, str]]:
    """(line, title) of each entry of the outline in *view*."""
    lines = view.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("... [outline of"))
    entries = []
    for line in lines[start + 1:]:
        found = ENTRY.match(line)
        if found is None:
            break
        entries.append((int(found.group(1).replace(",", "")), found.group(2)))
    return entries


# -- the split --------------------------------------------------------------------------------


def test_a_failure_log_keeps_its_tail() -> None:
    log = build_log() + (
        "src/net.c:88:13: error: 'sock' undeclared (first use in this function)\n"
        "src/net.c:90:5: error: too few arguments to function 'connect'\n"
        "make: *** [Makefile:12: build/net.o] Error 1\n")
    result = make().process(log, tool="execute_command")
    assert result.metadata.strategy_used == "adaptive"
    assert split_of(result) == 0.0
    assert result.metadata.details["split"]["failure_lines"] == {"start": 0, "end": 2}
    assert result.content.startswith("... [Beginning omitted: ")
    assert result.content.endswith(log[-5000:])
    # Negative control: the same build without its failure keeps its beginning too.
    passing = make().process(build_log() + "make: Nothing to be done.\n", tool="execute_command")
    assert split_of(passing) == 0.6
    assert passing.content.startswith(log[:4000])


def test_a_failure_section_printed_first_keeps_the_head() -> None:
    # stderr before stdout: the failures first, then a long and dull setup log.
    failures = "".join(f"ERROR: could not resolve dependency pkg-{i} (no matching version)\n"
                       for i in range(5))
    output = failures + build_log()
    result = make().process(output, tool="execute_command")
    assert split_of(result) == 0.6
    assert result.content.startswith(failures)
    # Negative control: a tail (highlights off) shows none of them.
    tail = make({"tools": {"execute_command": {"strategy": "tail", "highlights": 0}}})
    assert "could not resolve" not in tail.process(output, tool="execute_command").content


def test_failures_all_through_are_no_failure_log() -> None:
    # A source file that mentions errors everywhere (cat of a server's routes).
    # (Not `res.status(404).json({ error: '…' })`: a dict's member is data, never a failure.)
    routes = "".join(f"  if (!row{i}) throw new Error(`row {i}: error: not found`);\n"
                     f"  const total{i} = rows.reduce((a, r) => a + r.value, 0);\n"
                     for i in range(1500))
    result = make().process(routes, tool="execute_command")
    ends = result.metadata.details["split"]["failure_lines"]
    assert ends["start"] > 0 and ends["end"] > 0
    assert split_of(result) == 0.6
    # A failure log has more than twice as many at its end: one more error there is not it.
    assert split_of(make().process(routes + "error: one more\n", tool="execute_command")) == 0.6


class Deploys:
    """A plugin's own failure line, for its own tool."""

    @hookimpl
    def salient_detector(self, tool: str | None) -> SalientDetector | None:
        if tool != "deploy":
            return None
        return SalientDetector(patterns=[SalientPattern(name="rollout-halted", rank=1,
                                                        keywords=("ROLLOUT HALTED",))])


def test_a_plugins_patterns_decide_the_split() -> None:
    log = "".join(f"replica {i} healthy\n" for i in range(3000)) + "ROLLOUT HALTED at 42%\n"
    config = {"tools": {"deploy": {"strategy": "adaptive"}}}
    assert split_of(make(config, plugins=[Deploys()]).process(log, tool="deploy")) == 0.0
    # Negative control: without the plugin, the line is no failure to the built-in patterns.
    assert split_of(make(config).process(log, tool="deploy")) == 0.6


def test_the_tail_keeps_a_floor_of_lines_whatever_their_length() -> None:
    # A search whose last hits are long (minified code): 40% of the budget holds 7 of them.
    long_hits = "".join(f"dist/app.min.js:{i}:{'x' * 440}\n" for i in range(10))
    output = "".join(f"src/module_{i}.ts:{i}:import {{ x }} from './x'\n"
                     for i in range(800)) + long_hits
    budget = Budget(chars=8000)
    result = make({"highlights": 0}).process(output, tool="execute_command")
    assert split_of(result) == 0.6
    assert result.content.endswith(long_hits)  # all ten, whole
    # Negative control: the same split without the floor keeps fewer of them.
    plain = make({"highlights": 0, "tools": {"execute_command": {"strategy": "head_tail"}}})
    kept = plain.process(output, tool="execute_command").content
    assert not kept.endswith(long_hits) and kept.count("dist/app.min.js") < 10
    assert len(result.content) <= budget.chars


def test_the_floor_gives_way_when_the_lines_would_take_the_budget() -> None:
    # Ten lines of 1,000 characters do not fit 80% of 8,000: the split stays as it is.
    output = build_log() + "".join(f"{i}:{'y' * 1000}\n" for i in range(10))
    assert tail_floor(output) > 0.8 * 8000
    result = make({"highlights": 0}).process(output, tool="execute_command")
    same = make({"highlights": 0, "tools": {"execute_command": {"strategy": "outline"}}})
    assert result.metadata.omissions == same.process(output, tool="execute_command"
                                                     ).metadata.omissions


def test_tail_floor_counts_whole_lines() -> None:
    assert tail_floor("a\nbb\nccc\n", 2) == len("bb\nccc\n")
    assert tail_floor("a\r\nbb\r\nccc", 2) == len("bb\r\nccc")
    assert tail_floor("a\rbb\rccc\r", 1) == len("ccc\r")
    assert tail_floor("one line", 3) == len("one line")
    # Looked for within the last characters only: beyond them, "longer than that".
    assert tail_floor("x" * 100 + "\nshort\n", 2, within=10) == 11


# -- the sniff reads the ends only -------------------------------------------------------------


def test_the_sniff_reads_only_the_ends_a_stream_keeps() -> None:
    matcher = Matcher(DETECTOR.patterns)
    head = "Traceback (most recent call last):\n" + "ok\n" * 5000
    tail = "ok\n" * 5000 + "ValueError: bad\nFAILED tests/test_a.py::test_b - ValueError\n"
    middle = 10_000_000
    ends = KeptEnds(head, tail, length=len(head) + middle + len(tail),
                    newlines=head.count("\n") + tail.count("\n") + 1, returns=0, crlfs=0,
                    ascii=True)  # the middle was never kept: reading it raises
    found = salient_ends(ends, 8000, matcher)  # type: ignore[arg-type]
    assert (found.head, found.tail) == (0, 2) and found.failure_at_end
    # The same ends in a str: the same answer.
    whole = salient_ends(head + "x\n" * (middle // 2) + tail, 8000, matcher)
    assert whole == found


def test_a_stream_cuts_as_process_does() -> None:
    truncator = make()
    failing = build_log(1500) + "src/a.c:1:1: error: expected ';'\n"
    for text in (failing, build_log(1500)):  # held whole by the stream (and over 50 kB)
        processed = truncator.process(text, tool="execute_command")
        with truncator.stream(tool="execute_command") as stream:
            for start in range(0, len(text), 4096):
                stream.write(text[start:start + 4096])
        streamed = stream.result()

        def same(out: str) -> str:
            return re.sub(r"art_\d+_[0-9a-f]{32}", "ID", out)

        assert same(streamed.content) == same(processed.content)
        assert streamed.metadata.details == processed.metadata.details


def test_a_long_stream_decides_from_its_kept_ends() -> None:
    # Longer than the ends a stream keeps: the same split as process(); no outline (the
    # middle is not at hand), so the view differs only by it.
    truncator = make()
    text = build_log(40_000) + "src/a.c:1:1: error: expected ';'\n"
    processed = truncator.process(text, tool="execute_command")
    with truncator.stream(tool="execute_command") as stream:
        for start in range(0, len(text), 65536):
            stream.write(text[start:start + 65536])
    streamed = stream.result()
    assert streamed.metadata.details["split"] == processed.metadata.details["split"]
    assert split_of(streamed) == 0.0
    assert "outline" in processed.metadata.details
    assert "outline" not in streamed.metadata.details
    assert streamed.content.endswith(text[-4000:]) and processed.content.endswith(text[-4000:])


# -- the index of record-like output -----------------------------------------------------------


def rg_output(files: int = 40, hits: int = 25) -> str:
    return "".join(f"src/feature_{f:02d}/handler.ts:{10 + h}:  const value{h} = await "
                   f"fetchItem(id{h});\n" for f in range(files) for h in range(hits))


def test_search_hits_are_indexed_by_file() -> None:
    text = rg_output()
    lines = text.splitlines()
    result = make().process(text, tool="execute_command")
    assert result.metadata.details["outline"]["source"] == "records"
    entries = outline(result.content)
    region = result.metadata.omissions[0]
    assert entries[0][0] == region.first_line and entries[-1][0] == region.last_line + 1
    # Each entry between is the first hit of a file, named by the file.
    for line, title in entries[1:-1]:
        assert lines[line - 1].startswith(title + ":")
        assert not lines[line - 2].startswith(title + ":")
    # Every file whose hits start in the omitted part is in the index.
    starts = {line for line, _ in entries}
    for f in range(40):
        first = f * 25 + 1
        if region.first_line <= first <= region.last_line:
            assert first in starts
    assert all(b - a <= SPAN for a, b in itertools.pairwise(sorted(starts)))


def test_a_long_listing_is_indexed_by_directory_within_span() -> None:
    listing = "".join(f"./pkg_{d}/sub_{s}/file_{i}.py\n"
                      for d in range(6) for s in range(10) for i in range(40))
    result = make().process(listing, tool="execute_command")
    entries = outline(result.content)
    titles = [title.strip() for _, title in entries[:-1]]
    lines = listing.splitlines()
    for line, title in entries[:-1]:
        assert lines[line - 1] == title.strip()  # a listed path is its own title
    # The top-level directories each start a section.
    region = result.metadata.omissions[0]
    for d in range(6):
        first = d * 400 + 1
        if region.first_line < first <= region.last_line:
            assert f"./pkg_{d}/sub_0/file_0.py" in titles
    starts = [line for line, _ in entries]
    assert all(b - a <= SPAN for a, b in itertools.pairwise(starts))


def test_a_diff_is_indexed_by_file_and_hunk() -> None:
    diff = []
    for f in range(8):
        diff += [f"diff --git a/src/mod_{f}.py b/src/mod_{f}.py", "index 1a2b3c4..5d6e7f8 100644",
                 f"--- a/src/mod_{f}.py", f"+++ b/src/mod_{f}.py"]
        for h in range(4):
            diff += [f"@@ -{h * 40 + 1},30 +{h * 40 + 1},31 @@ def handler_{f}_{h}(request):"]
            diff += [f"     line {k}" for k in range(14)] + ["-    old()", "+    new()",
                                                           "+    newer()"]
            diff += [f"     line {k}" for k in range(14)]
    text = "\n".join(diff) + "\n"
    result = make().process(text, tool="execute_command")
    titles = [title for _, title in outline(result.content)]
    assert any(t.startswith("diff src/mod_") for t in titles)
    assert any(t.strip().startswith("def handler_") for t in titles)  # a hunk's context


def test_a_log_of_commits_is_indexed_by_commit() -> None:
    log = "".join(f"commit {i:040x}\nAuthor: Dev <dev@example.com>\nDate:   Mon Jan {i % 28 + 1}"
                  f" 10:00:00 2025 +0000\n\n    Fix issue {i}\n\n    Details of the change "
                  f"{i}.\n\n" for i in range(400))
    result = make().process(log, tool="execute_command")
    lines = log.splitlines()
    entries = outline(result.content)
    for line, title in entries[1:-1]:  # between the region's first line and the kept tail
        # A commit: its short hash and its subject.
        sha = lines[line - 1].split()[1]
        assert title == f"commit {sha[:10]} Fix issue {int(sha, 16)}"
    assert len(entries) > 10
    assert all(b[0] - a[0] <= SPAN for a, b in itertools.pairwise(entries))


# -- budgets -----------------------------------------------------------------------------------

log_line = st.sampled_from([
    "compiling module ok", "", "  at main (src/app.js:3:9)",
    "error: undefined reference to `main'", "FAILED tests/test_x.py::test_y - AssertionError",
    "Traceback (most recent call last):", "ValueError: bad value", "warning: unused variable",
    "src/a.ts:12:const x = 1;", "./pkg/sub/file.py", "diff --git a/x.py b/x.py",
    "@@ -1,3 +1,4 @@ def f():", "commit 0123456789abcdef0123456789abcdef01234567",
]) | st.text(st.characters(exclude_characters="\r\n"), max_size=60)


@given(lines=st.lists(log_line, min_size=1, max_size=400),
       ending=st.sampled_from(["\n", "\r\n"]),
       budget=st.builds(Budget, chars=st.integers(1, 3000),
                        bytes=st.none() | st.integers(1, 4000),
                        lines=st.none() | st.integers(1, 60)),
       head_ratio=st.sampled_from([0.6, 0.0, 1.0, 0.3]), spill=st.booleans())
def test_invariants_hold_on_drawn_logs(lines: list[str], ending: str, budget: Budget,
                                       head_ratio: float, spill: bool) -> None:
    text = ending.join(lines) + ending
    truncator = make_truncator("adaptive", budget, spill=spill, head_ratio=head_ratio)
    result = truncator.process(text)
    check_result(text, result, budget, name="adaptive", head_ratio=head_ratio)


@pytest.mark.parametrize("chars", [40, 200, 1000])
def test_a_small_budget_never_overflows(chars: int) -> None:
    text = build_log(500) + "error: at the end\n"
    for limits in ({}, {"max_lines": 3}, {"max_bytes": chars // 2}):
        result = make({"inline_limit": chars, **limits}).process(text, tool="execute_command")
        assert len(result.content) <= chars
