"""The index of record-like output (``truncation_core.outline.records``) and the outline's
share of a budget limited in lines.

A line's key is read from its shape alone; the tests give lines as the tools print them
(``rg -n``, ``grep -rn`` on Windows, ``find``, ``git status --short``, ``git diff``,
``git log``, ``ls -R``) and lines that look close but are no records (markup, URLs, log
timestamps, a process table).
"""

from __future__ import annotations

import itertools
import math
import re

import pytest

from truncation_core import Truncator
from truncation_core.outline.records import record_key, records
from truncation_core.outline.toc import SPAN
from truncation_core.storage.memory import MemoryStore

ENTRY = re.compile(r"^(\d[\d,]*): ")


@pytest.mark.parametrize(("line", "key"), [
    ("src/app/page.tsx:12:import { x } from './x'", ("src/app/page.tsx", "hit")),
    ("src/app/page.tsx-13-  const y = 1;", ("src/app/page.tsx", "hit")),  # rg -C context
    ("README.md:18:- **Database**: Cloudflare D1", ("README.md", "hit")),
    ("g:/MythologIQ/Hearthlink/src/types.ts:439:  category: x", (
        "g:/MythologIQ/Hearthlink/src/types.ts", "hit")),
    ("src\\lib\\tauri-client.ts:213:// --- App Status Client ---", (
        "src\\lib\\tauri-client.ts", "hit")),
    ("x.c:3:5: error: bad", ("x.c", "hit")),
    ("./django/db/models/sql/query.py", ("./django/db/models/sql/", "path")),
    ("?? database/src/jobs/", ("database/src/", "path")),
    (" M .claude/debug/67952d31.txt", (".claude/debug/", "path")),
    ("./docs/usage:", ("./docs/usage", "header")),
    ("diff --git a/src/main.rs b/src/main.rs", ("src/main.rs", "header")),
    ("commit 0123456789abcdef0123456789abcdef01234567", (
        "0123456789abcdef0123456789abcdef01234567", "header")),
])
def test_records_are_keyed_by_their_shape(line: str, key: tuple[str, str]) -> None:
    assert record_key(line) == key


@pytest.mark.parametrize("line", [
    "    <action>Jump to Step 40 for status update service</action>",  # markup, not a path
    "{{/if}}",
    "https://example.com/a/b: moved",
    "INFO: server started",
    "2024-05-01T10:00:00.123 worker-3 processed batch 7",
    "tjm  24579  0.0  0.2 421761632 120752 ?? S 9:29AM 0:01.04 node /usr/local/bin/vercel",
    "    indented/path/file.py:12: not a hit (a traceback's or a diff's body)",
    "",
])
def test_lines_that_are_no_records_have_no_key(line: str) -> None:
    assert record_key(line) is None


def test_prose_that_mentions_paths_is_not_record_like() -> None:
    prose = [f"Step {i}: read the notes, then update the plan." for i in range(100)]
    prose[10] = "See docs/architecture.md for the layout."
    assert records(prose) == []


def test_search_hits_nest_by_directory_then_file() -> None:
    lines = [f"pkg/{d}/file_{f}.py:{n}:x = {n}" for d in ("api", "core")
             for f in range(3) for n in range(4)]
    sections = records(lines)
    assert [(i, depth) for i, depth, _ in sections] == [
        (0, 1), (4, 2), (8, 2), (12, 1), (16, 2), (20, 2)]
    assert sections[0][2] == "pkg/api/file_0.py" and sections[4][2] == "pkg/core/file_1.py"


def test_a_listing_nests_only_its_top_level_directories() -> None:
    lines = [f"./{d}/sub_{s}/f_{i}.py" for d in ("a", "b") for s in range(3) for i in range(5)]
    sections = records(lines)
    # The top-level directories; the deeper ones would repeat the listed paths.
    assert sections == [(0, 1, "./a/sub_0/f_0.py"), (15, 1, "./b/sub_0/f_0.py")]


def test_a_diff_nests_hunks_under_files() -> None:
    lines = ["diff --git a/x.py b/x.py", "--- a/x.py", "+++ b/x.py", "@@ -1,3 +1,4 @@ def f():",
             " a", "+b", "diff --git a/y.py b/y.py", "--- a/y.py", "+++ b/y.py",
             "@@ -9,2 +9,2 @@", "-c", "+d"]
    assert records(lines) == [(0, 1, "diff x.py"), (3, 2, "def f():"), (6, 1, "diff y.py"),
                              (9, 2, "@@ -9,2 +9,2 @@")]


def test_a_lone_diff_is_no_index() -> None:
    lines = ["diff --git a/x.py b/x.py", "--- a/x.py", "+++ b/x.py", "@@ -1 +1 @@", "-a", "+b"]
    assert records(lines) == []


def make(**config: object) -> Truncator:
    return Truncator(dict(config), load_entrypoints=False, store=MemoryStore())


def entries_of(view: str) -> list[int]:
    lines = view.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("... [outline of"))
    found = []
    for line in lines[start + 1:]:
        match = ENTRY.match(line)
        if match is None:
            break
        found.append(int(match.group(1).replace(",", "")))
    return found


def test_a_long_region_is_split_in_even_parts() -> None:
    # 2,600 omitted lines need 26 sections of at most 100: halving would make 32 and more.
    text = "".join(f"worker {i % 7} processed batch {i}\n" for i in range(2800))
    view = make(inline_limit=16_000).process(text, tool="read_file").content
    entries = entries_of(view)
    region = entries[-1] - entries[0]
    assert all(b - a <= SPAN for a, b in itertools.pairwise(entries))
    assert len(entries) - 1 <= math.ceil(region / SPAN) + 2


def test_under_a_line_limit_an_entry_costs_a_line() -> None:
    # Lines of a few characters: a fifth of the characters would be most of the lines.
    text = "".join(f"{i:04d}\n" for i in range(3000))
    result = make(inline_limit=8000, max_lines=40).process(text, tool="read_file")
    view = result.content
    assert view.count("\n") + (not view.endswith("\n")) <= 40
    assert len(entries_of(view)) + 1 <= 40 // 5  # the header and the entries: a fifth
    assert "get_artifact(" in view and "lines / " in view  # the marker is whole


def test_long_lines_of_path_characters_cost_a_bounded_search() -> None:
    """A key is looked for in a line's first 512 characters: the path patterns backtrack in
    time quadratic in a run of path characters, and two 40,000-character lines of
    ``src/a.b/`` held ``process()`` for 13 s (read_file and execute_command alike). Here two
    of 120,000, in a child under a deadline of 30 s (the bounded search takes a fraction of a
    second; unbounded, over a minute); the control: the same pattern unbounded, under a
    deadline of a second, does not finish one such line."""
    from bounded import run_bounded

    outcome = run_bounded("""
        import regex
        from truncation_core import Truncator
        from truncation_core.outline import records
        short = "".join(f"line {i} of the log\\n" for i in range(150))
        text = short + ("src/a.b/" * 15000 + "\\n") * 2 + short
        truncator = Truncator(load_entrypoints=False)
        sizes = [len(truncator.process(text, tool=tool).content)
                 for tool in ("read_file", "execute_command")]
        unbounded = regex.compile(records._HIT.pattern)
        try:
            unbounded.match("src/a.b/" * 15000, timeout=1.0)
            control = "finished"
        except TimeoutError:
            control = "stopped"
        report(sizes=sizes, control=control)
    """, timeout=30)
    assert outcome.result["control"] == "stopped"
    assert all(0 < size <= 8000 for size in outcome.result["sizes"])
    # The keys of ordinary lines are still found.
    assert record_key("src/pkg/mod.py:12: found") == ("src/pkg/mod.py", "hit")
    assert record_key("src/a-1-b.py-12-text") == ("src/a-1-b.py", "hit")
    assert record_key("./dir/sub:") == ("./dir/sub", "header")
