"""The default view of a large output: a reference above the full cut, without terminal control.

* A property test: for any text over ``artifact_threshold``, the default view fits every
  limit, names the artifact, gives ``get_artifact`` calls that read back exactly the lines
  they name, and shows the last line whenever the tool's strategy keeps the tail.
* Regression cases on real outputs of ``tests/corpus/`` (the manifest says where each comes
  from): a failure at the end of a large build, colour codes, ``\\r`` progress redraws and a
  status line redrawn by erasing it; each against what the short-preview form, or naive
  cleaning, would show.
* Streams give what ``process()`` gives on the same real outputs, however they are chunked.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference import REFERENCE_FIRST_LINE, line_count, utf8_bytes

from truncation_core import Budget, Truncator
from truncation_core.plugin import Cut, Provides, Strategy, hookimpl
from truncation_core.storage.memory import MemoryStore
from truncation_core.text.terminal import strip_ansi, terminal_view
from truncation_core.tokens.estimate import EstimateTokenizer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import bench_recall  # noqa: E402

THRESHOLD = 50_000  # the default artifact_threshold
HINT = re.compile(r'get_artifact\(artifact_id="(art_[0-9]+_[0-9a-f]{32})", '
                  r"start_line=([0-9]+), end_line=([0-9]+)\)")
#: Strategies that keep the end of the content.
KEEPS_TAIL = {"tail", "head_tail"}


def make(config: dict[str, Any] | None = None) -> Truncator:
    return Truncator(config, load_entrypoints=False, store=MemoryStore())


def fits(text: str, budget: Budget) -> bool:
    return (len(text) <= budget.chars
            and (budget.bytes is None or utf8_bytes(text) <= budget.bytes)
            and (budget.lines is None or line_count(text) <= budget.lines))


def lines_of(text: str) -> list[str]:
    """Lines as truncation-core numbers them, without terminators."""
    return bench_recall.corpus_lines(text)


def numbered(content: str) -> list[tuple[int, str]]:
    """The numbered lines of a get_artifact page."""
    return [(int(m.group(1)), m.group(2))
            for m in re.finditer(r"^ *(\d+)\t(.*)$", content, flags=re.M)]


def assert_hints_read_back(truncator: Truncator, text: str, content: str,
                           artifact_id: str) -> int:
    """Every get_artifact call in *content* names the artifact and reads back exactly the
    lines of *text* it names (as far as its first page goes); returns how many there are."""
    lines = lines_of(text)
    hints = HINT.findall(content)
    for hint_id, start, end in hints:
        assert hint_id == artifact_id
        first, last = int(start), int(end)
        assert 1 <= first <= last <= len(lines)
        page = truncator.call_tool("get_artifact", {"artifact_id": hint_id,
                                                    "start_line": first, "end_line": last})
        got = numbered(page.content)
        assert got, page.content[:200]
        assert got[0][0] == first
        for number, line in got:
            assert first <= number <= last
            # A line longer than a page is cut at the page's end.
            assert lines[number - 1].startswith(line) if number == got[-1][0] \
                else lines[number - 1] == line
    return len(hints)


# -- the property ----------------------------------------------------------------------------

#: Pieces of command output: text, colour codes and links, progress frames, line endings.
line_text = st.text(st.characters(codec="utf-8", exclude_characters="\r\n\x1b"), max_size=50)
terminal_piece = st.sampled_from([
    "\x1b[31m", "\x1b[0m", "\x1b[1;32m", "\x1b[K", "\x1b]8;;https://ci.example/1\x1b\\",
    " 42%\r", " 7/9\r", "\r", "error: ", "FAILED ", "Traceback (most recent call last):",
])
output_line = st.lists(st.one_of(line_text, terminal_piece), max_size=5).map("".join)


@attrs.frozen
class LargeOutput:
    """Text over the default artifact_threshold: a block of lines repeated, then a few lines
    of its own, the last one marked so that it can be looked for (its repr is its parts)."""

    block_lines: list[str]
    ending: str
    extra: list[str]
    last: str
    end: str

    @property
    def text(self) -> str:
        block = "".join(line + self.ending for line in self.block_lines)
        if not block.strip():
            block = "step ok" + self.ending
        body = block * (THRESHOLD // len(block) + 1)
        return body + "".join(line + self.ending for line in self.extra) + self.last + self.end


large_outputs = st.builds(
    LargeOutput, block_lines=st.lists(output_line, min_size=1, max_size=30),
    ending=st.sampled_from(["\n", "\r\n"]), extra=st.lists(output_line, max_size=3),
    last=st.tuples(output_line, line_text).map(lambda p: p[0] + " LAST-LINE " + p[1]),
    end=st.sampled_from(["", "\n"]))


limits = st.fixed_dictionaries({}, optional={
    "max_bytes": st.integers(8_000, 20_000),
    "max_lines": st.integers(12, 300),
    "inline_limit": st.integers(2_000, 8_000),
})
tools = st.sampled_from([None, "execute_command", "read_file", "git_diff", "search_files"])


@given(output=large_outputs, config=limits, tool=tools)
def test_the_default_view_of_any_large_output(output: LargeOutput, config: dict[str, Any],
                                              tool: str | None) -> None:
    text = output.text
    assert len(text) > THRESHOLD
    truncator = make(config)
    result = truncator.process(text, tool=tool)
    content, meta, ref = result.content, result.metadata, result.artifact
    policy = truncator.policy(tool)
    budget = policy.budget

    # Within every limit.
    assert fits(content, budget), (len(content), utf8_bytes(content), line_count(content))
    # A reference the model can use: the artifact's id, and calls that read back what they say.
    assert ref is not None and meta.artifact_id == ref.id
    first = REFERENCE_FIRST_LINE.match(content)
    assert first is not None, content[:300]
    assert first.group(1) == ref.id
    hints = assert_hints_read_back(truncator, text, content, ref.id)
    if meta.omissions:
        assert hints >= 1
    else:  # nothing left out: all of it fits once terminal control is removed
        assert content[first.end():] == terminal_view(text)
        assert meta.terminal_chars_removed == len(text) - len(content) + first.end()
    assert truncator.artifacts.read(ref.id) == text.encode("utf-8", "surrogatepass")
    # No terminal control reaches the model, and what was removed is counted.
    assert "\x1b" not in content
    # The last line, whenever the strategy keeps the tail.
    if meta.strategy_used in KEEPS_TAIL:
        last = lines_of(text)[-1]
        assert terminal_view(last) in content
    # The reference takes one line; the cut under it is the one inline content gets in the
    # rest of the budget.
    assert content.count("[Artifact: ") == 1
    assert meta.omitted_chars == sum(region.chars for region in meta.omissions)


# -- the reference tier, on real output --------------------------------------------------------


def corpus_case(name: str) -> tuple[dict[str, Any], str]:
    case = next(c for c in bench_recall.load_manifest()["cases"] if c["name"] == name)
    return case, bench_recall.read_case(case)


def seen(case: dict[str, Any], text: str, view: str) -> list[int]:
    """The key lines of *case* visible in *view* (as bench/bench_recall.py counts them)."""
    lines = bench_recall.corpus_lines(text)
    visible = strip_ansi(view)
    return [k["line"] for k in case["key_lines"]
            if bench_recall.key_probe(k, lines) in visible]


@pytest.mark.parametrize("name", [
    # Maven + surefire: the failing test, its assertion and frame, the summary, BUILD FAILURE.
    "maven-surefire-failure",
    # xcodebuild (xcpretty's fixture): the failing test case and the final count.
    "xcodebuild-specta-fail",
])
def test_a_failure_at_the_end_of_a_large_build_is_in_the_default_view(name: str) -> None:
    case, text = corpus_case(name)
    assert len(text) > THRESHOLD
    keys = [k["line"] for k in case["key_lines"]]
    default = make().process(text, tool="execute_command")
    assert 8000 - 300 < len(default.content) <= 8000  # the cut fills the budget
    assert seen(case, text, default.content) == keys
    # Negative control: the short-preview form (2,000 characters) without highlights misses
    # some of them (with highlights, which may take most of a short preview, it shows them).
    short = make({"reference_preview": "short", "highlights": 0}).process(
        text, tool="execute_command")
    assert "Preview:\n" in short.content and len(short.content) < 2500
    assert len(seen(case, text, short.content)) < len(keys)


def test_the_reference_summary_spends_one_line() -> None:
    _case, text = corpus_case("maven-surefire-failure")
    result = make().process(text, tool="execute_command", command="mvn -o -B test")
    reference, _, body = result.content.partition("\n")
    ref = result.artifact
    assert ref is not None
    assert reference == (f"[Artifact: {ref.id}] execute_command: mvn -o -B test ({ref.size}), "
                         f"{line_count(text):,} lines: search it with artifact_grep, read "
                         "lines with get_artifact or artifact_tail")
    # The marker under it gives the get_artifact call; the reference does not repeat it.
    assert "get_artifact(" not in reference and body.startswith("... [Beginning omitted: ")


# -- terminal control, on real output ----------------------------------------------------------


def test_colour_codes_are_dropped_and_the_room_they_took_is_filled() -> None:
    # pytest --color=yes, 600 tests, one failure in the middle; 60 kB: under a reference.
    case, text = corpus_case("pytest-color-failure-middle")
    truncator = make()
    result = truncator.process(text, tool="execute_command")
    content, meta, ref = result.content, result.metadata, result.artifact
    assert ref is not None and "\x1b" not in content
    assert 8000 - 200 < len(content) <= 8000
    assert meta.terminal_chars_removed > 1000
    # The view shows more of the original than its own size: the cut was made wider.
    assert len(text) - meta.omitted_chars > len(content)
    # The summary lines at the end, as text.
    assert {623, 624} <= set(seen(case, text, content))
    # Coordinates address the artifact as stored: its bytes, escape codes included.
    region = meta.omissions[0]
    stored = truncator.artifacts.read(ref.id)
    assert stored == text.encode()
    assert region.start_byte is not None and region.end_byte is not None
    assert stored[region.start_byte:region.end_byte] == text[region.start:region.end].encode()
    assert assert_hints_read_back(truncator, text, content, ref.id) == 1
    page = truncator.call_tool("get_artifact", {"artifact_id": ref.id, "start_line": 319,
                                                "end_line": 319}).content
    assert "\x1b[31mFAILED" in page  # the artifact keeps the colours


def test_an_inline_cut_of_colour_output_shows_every_error() -> None:
    # tsc --pretty: 38 errors in colour, 9,583 characters; without the colours it all fits.
    case, text = corpus_case("tsc-pretty-many-errors")
    result = make().process(text, tool="execute_command")
    assert result.metadata.was_truncated and len(result.content) <= 8000
    assert result.content == strip_ansi(text)
    assert result.metadata.terminal_chars_removed == len(text) - len(result.content)
    assert result.metadata.omitted_chars == 0 and not result.metadata.omissions
    assert seen(case, text, result.content) == [k["line"] for k in case["key_lines"]]
    assert "the whole output fits once terminal control is removed" in result.metadata.notes
    # Negative control: cut as it comes, the codes take the room of the first errors.
    assert len(seen(case, text, text[-8000:])) < len(case["key_lines"])


def test_progress_redraws_show_their_last_frame() -> None:
    # cargo build with CARGO_TERM_PROGRESS_WHEN=always: the progress bar is drawn, erased
    # (\r ESC[K) and overwritten by each diagnostic.
    _case, text = corpus_case("cargo-ansi-progress-error")
    assert text.count("\r") - text.count("\r\n") > 30
    result = make().process(text, tool="execute_command")
    content = result.content
    assert "\r" not in content and "\x1b" not in content
    # (An outline entry quotes a line of the omitted part after its line number.)
    warnings = [re.sub(r"^\d+: ", "", line) for line in content.split("\n")
                if "unused variable" in line]
    assert warnings and all(line.startswith("warning: unused variable") for line in warnings)
    assert not any("Building [" in line for line in warnings)
    assert len(content) > 8000 - 200


def test_a_status_line_redrawn_by_erasing_it_is_shown_once() -> None:
    # karma: after each console.log line, the status line is erased (ESC[1A ESC[2K) and
    # printed again: 1,000 of them, which a terminal never shows at once.
    # (The tail alone: a status line that the omitted part erases later is still shown at
    # the end of a kept head, as the terminal showed it then.)
    case, text = corpus_case("karma-chrome-jasmine-fail")
    result = make({"tools": {"execute_command": {"strategy": "tail"}}}).process(
        text, tool="execute_command")
    content, meta = result.content, result.metadata
    assert len(content) <= 8000
    assert content.count("Executed ") == 1
    assert "Executed 500 of 500 (1 FAILED)" in content
    assert 1512 in seen(case, text, content)  # TOTAL: 1 FAILED, 499 SUCCESS
    # The view reaches far further back than its size: it holds 60 kB of the original.
    assert len(text) - meta.omitted_chars > 6 * 8000
    assert content.count("LOG: ") > 6 * strip_ansi(text[-8000:]).count("LOG: ")


# -- terminal control: what must not happen ----------------------------------------------------


def test_an_erase_in_the_kept_tail_never_takes_the_marker_with_it() -> None:
    # Each status line erases the one above it (ESC[1A ESC[2K): the kept tail starts with
    # such an erase, and on a terminal it would erase the line above it: in the view, the
    # marker.
    body = "".join(f"\x1b[1A\x1b[2Kstatus {i} of 9000\n" for i in range(9000))
    result = make({"inline_limit": 2000}).process(body, tool="execute_command")
    content = result.content
    reference, _, view = content.partition("\n")
    assert reference.startswith("[Artifact: ")
    marker = next(line for line in view.split("\n") if " omitted of 9,000 lines " in line)
    assert marker.startswith("... [") and marker.endswith("] ...")
    # What the terminal shows at the end, under the marker and the outline entries after it.
    assert view.endswith(" (shown below)\nstatus 8999 of 9000\n")
    # Negative control: cleaning the marker and the kept tail as one text erases the marker.
    tail = body[result.metadata.omissions[0].end:]
    assert tail.startswith("\x1b[1A\x1b[2K")
    assert marker not in terminal_view(marker + "\n" + tail)


def test_text_mixing_line_endings_loses_no_line() -> None:
    # A lone "\r" with no terminal around it is a line break (an old Mac file, a CSV field):
    # nothing is collapsed.
    text = "".join(f"record {i}\rcontinued {i}\n" for i in range(3000))
    result = make({"inline_limit": 2000}).process(text, tool="execute_command")
    assert result.metadata.terminal_chars_removed == 0
    tail = text[result.metadata.omissions[0].end:]
    assert result.content.endswith(tail)
    assert "\r" in tail


class Rewriter:
    """A strategy that returns its own text (with colour codes), not the content's parts."""

    __name__ = "rewriter"

    @hookimpl
    def provides(self) -> Any:
        return Provides(strategies=[Strategy(name="rewrite", description="colours every line",
                                             cut=self.cut)])

    @staticmethod
    def cut(text: str, *, budget: Budget, **_: Any) -> Any:
        out = "\x1b[31m" + "red\n" * (budget.chars // 8) + "\x1b[0m\rdone\n"
        return Cut(text=out[:budget.chars], omitted_chars=len(text), omitted_lines=1)


def test_a_strategy_that_rewrites_the_content_loses_only_escape_codes() -> None:
    truncator = Truncator({"default_strategy": "rewrite", "inline_limit": 500},
                          plugins=[Rewriter()], load_entrypoints=False, store=MemoryStore())
    result = truncator.process("x\n" * 1000)
    assert result.metadata.strategy_used == "rewrite"
    assert "\x1b" not in result.content
    # Its parts are unknown: a "\r" there is left alone.
    assert "\rdone" in result.content
    assert len(result.content) <= 500


# -- streams ---------------------------------------------------------------------------------


def normalized(result: Any) -> dict[str, Any]:
    meta = result.metadata.to_dict()
    content = result.content
    if result.artifact is not None:
        content = content.replace(result.artifact.id, "<id>")
        meta["artifact_id"] = "<id>"
        for region in meta["omissions"]:
            if region["retrieve"] is not None:
                region["retrieve"]["artifact_id"] = "<id>"
        # The tokens of the content depend on the digits of its (random) artifact id.
        meta["estimated_tokens"] = EstimateTokenizer().count(content)
    return {"content": content, "metadata": meta}


@pytest.mark.parametrize("name", ["karma-chrome-jasmine-fail", "cargo-ansi-progress-error",
                                  "pytest-color-failure-middle", "maven-surefire-failure",
                                  "wpt-runner-subtest-fail"])
@pytest.mark.parametrize("chunk", [4096, 777])
@pytest.mark.parametrize("config", [{}, {"max_lines": 40}, {"reference_preview": "short"}])
def test_a_stream_of_real_output_gives_what_process_gives(name: str, chunk: int,
                                                          config: dict[str, Any]) -> None:
    _case, text = corpus_case(name)
    truncator = make(config)
    data = text.encode()
    expected = truncator.process(data, tool="execute_command")
    with truncator.stream(tool="execute_command") as stream:
        for i in range(0, len(data), chunk):
            stream.write(data[i:i + chunk])
    got = stream.result()
    assert normalized(got) == normalized(expected)
