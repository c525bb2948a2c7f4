"""``Truncator.process``: pass-through, cutting, artifacts, degraded storage, opt-outs.

Hook calls are recorded with pluggy's own ``add_hookcall_monitoring`` (as pytester's
HookRecorder does). Stores are the real in-memory backend; a failing store is a fake used only
to inject faults.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from faults import FailingStore, Greedy
from hypothesis import given
from hypothesis import strategies as st
from messy import tool_output
from reference import REFERENCE_FIRST_LINE, expected_marker, line_count, utf8_bytes

from truncation_core import (
    ArtifactInfo,
    Budget,
    StoreFull,
    TruncationMetadata,
    Truncator,
    hookimpl,
)
from truncation_core.tokens.estimate import EstimateTokenizer


@contextmanager
def recorded_hooks(truncator: Truncator) -> Iterator[list[str]]:
    """The names of the hooks called while the block runs, in order."""
    calls: list[str] = []
    undo = truncator.plugins.pm.add_hookcall_monitoring(
        lambda name, impls, kwargs: calls.append(name),
        lambda outcome, name, impls, kwargs: None,
    )
    try:
        yield calls
    finally:
        undo()


def log_text(lines: int, width: int = 30) -> str:
    return "".join(f"{i:06d} {'x' * (width - 8)}\n" for i in range(lines))


# -- within the limits ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "content"),
    [
        ({}, "short output"),
        ({}, "x" * 8000),  # exactly the default limit
        ({}, b"bytes output \xff"),
        ({"max_bytes": 100, "max_lines": 3}, "a\nb\nc"),  # the measured path
        ({"inline_limit": 5}, ""),
    ],
    ids=["str", "at-limit", "bytes", "bytes-and-lines-limits", "empty"],
)
def test_content_within_every_limit_is_returned_unchanged_without_any_hook(
        config: dict[str, Any], content: str | bytes) -> None:
    truncator = Truncator(config, load_entrypoints=False)
    with recorded_hooks(truncator) as calls:
        result = truncator.process(content, tool="read_file")
    assert calls == []
    expected = content.decode("utf-8", "replace") if isinstance(content, bytes) else content
    assert result.content == expected
    assert result.artifact is None
    assert truncator.store.list() == []
    assert not result.metadata.was_truncated
    assert result.metadata.original_size == result.metadata.truncated_size == len(expected)
    assert result.metadata.original_lines == line_count(expected)
    assert result.metadata.strategy_used is None


def test_hook_recorder_sees_hooks_when_they_run() -> None:
    """Control for the test above: the recorder does record the pipeline."""
    truncator = Truncator({"inline_limit": 100}, load_entrypoints=False)
    with recorded_hooks(truncator) as calls:
        truncator.process(log_text(50), tool="execute_command")
    assert calls[:3] == ["select_strategy", "store_artifact", "truncate"]
    # Then markers, and (highlights are on for execute_command) the detectors, once per tool.
    assert set(calls[3:]) == {"format_marker", "salient_detector"}


def test_metadata_of_unchanged_content_is_computed_only_when_read(
        monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []
    original = TruncationMetadata.unchanged.__func__  # type: ignore[attr-defined]

    def spy(cls: type, content: str, *args: Any, **kwargs: Any) -> TruncationMetadata:
        built.append(content)
        return original(cls, content, *args, **kwargs)

    monkeypatch.setattr(TruncationMetadata, "unchanged", classmethod(spy))
    truncator = Truncator(load_entrypoints=False)
    result = truncator.process("a\nb\n", tool="x")
    assert built == []
    assert result.metadata.original_lines == 2
    assert result.metadata is result.metadata
    assert built == ["a\nb\n"]


# -- over the limit ------------------------------------------------------------------------


def test_over_the_limit_is_cut_by_the_selected_strategy_within_budget() -> None:
    truncator = Truncator({"inline_limit": 500, "default_strategy": "tail"},
                          load_entrypoints=False)
    text = log_text(400)
    result = truncator.process(text)
    meta = result.metadata
    assert meta.was_truncated and meta.strategy_used == "tail"
    assert len(result.content) <= 500
    assert text.endswith(result.content.split("] ...\n", 1)[1])
    assert result.artifact is not None
    assert truncator.store.list() == [result.artifact]
    assert meta.artifact_id == result.artifact.id
    assert meta.original_bytes == len(text)
    # Counted by the default tokenizer, estimate (the tiktoken plugin's tests/tokens/ check it
    # against real ones).
    assert meta.tokenizer == "estimate" and meta.max_tokens is None
    assert meta.estimated_tokens == EstimateTokenizer().count(result.content)
    # 12,000 characters is more than a stream keeps of it (two windows of 4,096 at most):
    # extrapolated from its ends, as a stream would, and said so.
    assert not meta.original_tokens_counted
    assert abs(meta.original_tokens - EstimateTokenizer().count(text)) < 0.05 * meta.original_tokens
    assert meta.limits == Budget(chars=500)
    small = truncator.process(log_text(25)).metadata  # within two windows: counted whole
    assert small.was_truncated and small.original_tokens_counted
    assert small.original_tokens == EstimateTokenizer().count(log_text(25))


def test_config_mapping_is_accepted_directly() -> None:
    truncator = Truncator(config={"inline_limit": 2000, "default_strategy": "tail"})
    text = log_text(1000)
    result = truncator.process(text)
    assert len(result.content) <= 2000
    assert result.metadata.strategy_used == "tail"
    assert result.content.endswith(text[-200:])
    assert "Beginning omitted" in result.content


@given(st.binary(max_size=3000), st.integers(1, 300))
def test_invalid_utf8_is_shown_replaced_and_kept_exactly(data: bytes, limit: int) -> None:
    """Bytes that are text are shown (invalid bytes replaced); binary ones are summarised
    (see tests/hostile/test_binary_input.py); either way the artifact keeps them exactly."""
    from truncation_core.text.binary import byte_order_mark, is_binary

    truncator = Truncator({"inline_limit": limit}, load_entrypoints=False)
    result = truncator.process(data)
    assert len(result.content) <= limit
    if byte_order_mark(data) is not None:
        assert result.metadata.decoded_from is not None
        return
    if is_binary(data):
        assert result.metadata.binary is not None
        assert result.metadata.binary.bytes == len(data)
        assert "\x00" not in result.content and "\ufffd" not in result.content
        assert result.artifact is not None
        with truncator.store.open(result.artifact.id) as f:
            assert f.read() == data
        return
    shown = data.decode("utf-8", "replace")
    if len(shown) <= limit:
        assert result.content == shown
        return
    assert result.metadata.original_size == len(shown)
    assert result.metadata.original_bytes == len(data)
    assert result.artifact is not None
    with truncator.store.open(result.artifact.id) as f:
        assert f.read() == data
    assert result.artifact.bytes == len(data)


def test_invalid_utf8_example() -> None:
    data = b"ok \xff\xfe line\n" * 2000
    truncator = Truncator({"inline_limit": 300}, load_entrypoints=False)
    result = truncator.process(data)
    assert "\ufffd" in result.content
    with truncator.store.open(result.artifact.id) as f:  # type: ignore[union-attr]
        assert f.read() == data


def test_lone_surrogates_round_trip_through_the_artifact() -> None:
    text = "".join(f"row {i} \ud800\udfff \udc80 😀\n" for i in range(2000))
    truncator = Truncator({"inline_limit": 400}, load_entrypoints=False)
    result = truncator.process(text)
    assert len(result.content) <= 400
    assert result.artifact is not None
    with truncator.store.open(result.artifact.id) as f:
        assert f.read().decode("utf-8", "surrogatepass") == text
    assert result.metadata.original_bytes == utf8_bytes(text)


def test_already_truncated_results_are_left_alone() -> None:
    truncator = Truncator({"inline_limit": 100}, load_entrypoints=False)
    text = log_text(100)
    with recorded_hooks(truncator) as calls:
        result = truncator.process(text, tool="execute_command", already_truncated=True)
        from_bytes = truncator.process(text.encode(), already_truncated=True)
    assert calls == []
    assert result.content == text == from_bytes.content
    assert result.artifact is None and truncator.store.list() == []
    meta = result.metadata
    assert meta.opted_out and not meta.was_truncated
    assert meta.original_size == meta.truncated_size == len(text)
    assert meta.original_lines == 100
    assert meta.tool == "execute_command"


def test_a_result_is_never_truncated_twice() -> None:
    truncator = Truncator({"inline_limit": 300}, load_entrypoints=False)
    first = truncator.process(log_text(100))
    with recorded_hooks(truncator) as calls:
        again = truncator.process(first)  # type: ignore[arg-type]
        shown_again = truncator.process(first.content)
    assert again is first
    assert shown_again.content == first.content  # what the model saw already fits
    assert calls == []
    assert len(truncator.store.list()) == 1


def test_non_text_content_is_a_type_error_naming_the_type() -> None:
    truncator = Truncator(load_entrypoints=False)
    with pytest.raises(TypeError, match="expected str or bytes, got int"):
        truncator.process(12345)  # type: ignore[arg-type]


def test_bytearray_memoryview_and_str_subclasses_are_content() -> None:
    class Text(str):
        pass

    truncator = Truncator({"inline_limit": 50}, load_entrypoints=False)
    raw = log_text(20).encode()
    for content in (bytearray(raw), memoryview(raw), Text(raw.decode())):
        result = truncator.process(content)  # type: ignore[arg-type]
        assert result.metadata.was_truncated
        assert len(result.content) <= 50
        with truncator.store.open(result.artifact.id) as f:  # type: ignore[union-attr]
            assert f.read() == raw


# -- artifact references -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("context", "summary"),
    [
        ({"path": "src/app.py"}, "read_file: src/app.py"),
        ({"summary": "s" * 300}, "s" * 99 + "…"),
        ({"summary": "two\nlines\tand   spaces"}, "two lines and spaces"),
        # terminal escapes, a bidi override, a NUL: never carried into the model's context
        ({"command": "ls \x1b[31mred\x1b[0m \u202eevil\u202c \x00ok"},
         "read_file: ls \ufffd[31mred\ufffd[0m \ufffdevil\ufffd \ufffdok"),
        ({}, "read_file output"),
    ],
)
def test_content_over_the_threshold_gets_a_reference_above_the_full_cut(
        context: dict[str, str], summary: str) -> None:
    # Defaults (8000 inline, 50000 threshold), but read_file cut by head_tail: this test is
    # about the reference above the cut (the outline read_file adds is tests/test_outline.py).
    truncator = Truncator({"tools": {"read_file": {"strategy": "head_tail"}}},
                          load_entrypoints=False)
    text = log_text(3000, width=40)  # 120,000 chars
    result = truncator.process(text, tool="read_file", **context)
    content = result.content
    assert len(content) <= 8000
    first = REFERENCE_FIRST_LINE.match(content)
    assert first is not None, content[:300]
    ref = result.artifact
    assert ref is not None and first.group(1) == ref.id
    assert first.group("summary") == summary
    assert len(first.group("summary")) <= 100
    assert first.group("size") == "120.0 kB"
    assert first.group("rest") == (", 3,000 lines: search it with artifact_grep, read lines "
                                   "with get_artifact or artifact_tail")
    # Under it, the very cut inline content gets (read_file: head_tail), in the rest of the
    # budget: the reference takes nothing else from it.
    body = content[first.end():]
    region = result.metadata.omissions[0]
    assert body == (text[:region.start]
                    + expected_marker("middle", chars=region.chars, lines=region.lines,
                                      total_chars=len(text), total_lines=line_count(text),
                                      artifact_id=ref.id, first=region.first_line,
                                      last=region.last_line, start_byte=region.start_byte,
                                      end_byte=region.end_byte)
                    + text[region.end:])
    assert len(content) > 8000 - 41  # full, to within one line
    inline = Truncator({"inline_limit": 8000 - first.end(), "artifact_threshold": 10**9,
                        "tools": {"read_file": {"strategy": "head_tail"}}},
                       load_entrypoints=False).process(text, tool="read_file")
    assert inline.metadata.omissions[0].start == region.start
    assert inline.metadata.omissions[0].end == region.end


def test_reference_preview_short_keeps_the_reference_above_a_short_preview() -> None:
    truncator = Truncator({"reference_preview": "short"}, load_entrypoints=False)
    text = log_text(3000, width=40)  # 120,000 chars
    result = truncator.process(text, tool="read_file", path="src/app.py")
    content = result.content
    first = REFERENCE_FIRST_LINE.match(content)
    assert first is not None and first.group("rest") == ""
    ref = result.artifact
    assert ref is not None
    # How to retrieve the rest, then a short preview (preview_limit, 2000 chars by default).
    assert content[first.end():].startswith(
        f"3,000 lines / 120,000 chars are stored in full. Read them with get_artifact("
        f'artifact_id="{ref.id}", start_line=1, end_line=100) and other line ranges, '
        "artifact_tail or artifact_grep. Preview:\n")
    preview = content.split("Preview:\n", 1)[1]
    assert 0 < len(preview) <= 2000
    assert preview.startswith(text[:100])
    assert preview.endswith(text[-40:])
    smaller = Truncator({"reference_preview": "short", "preview_limit": 500},
                        load_entrypoints=False).process(text, tool="read_file")
    assert 0 < len(smaller.content.split("Preview:\n", 1)[1]) <= 500


def test_a_reference_that_does_not_fit_gives_an_inline_cut_naming_the_artifact() -> None:
    truncator = Truncator({"inline_limit": 250, "artifact_threshold": 100},
                          load_entrypoints=False)
    text = log_text(100)
    result = truncator.process(text)
    assert len(result.content) <= 250
    assert not result.content.startswith("[Artifact:")
    assert "artifact reference does not fit the budget" in result.metadata.notes
    assert result.artifact is not None  # still kept
    assert result.artifact.id in result.content  # the marker's hint names it


def test_reference_uses_json_in_the_summary_for_json_content() -> None:
    truncator = Truncator(load_entrypoints=False)
    doc = json.dumps([{"id": i, "name": f"item {i}"} for i in range(5000)])
    result = truncator.process(doc, tool="search_files")
    reference = json.loads(result.content)[-1]  # the array's last item: it stays an array
    assert REFERENCE_FIRST_LINE.match(reference + "\n").group("summary") == "search_files JSON"  # type: ignore[union-attr]
    assert result.artifact.content_type == "application/json"  # type: ignore[union-attr]


def test_spill_off_keeps_nothing_and_the_marker_has_no_hint() -> None:
    truncator = Truncator({"inline_limit": 300, "spill": False}, load_entrypoints=False)
    text = log_text(200)
    result = truncator.process(text)
    assert result.artifact is None and result.metadata.artifact_id is None
    assert truncator.store.list() == []
    assert result.metadata.original_bytes is None
    region = result.metadata.omissions[0]
    assert expected_marker("middle", chars=region.chars, lines=region.lines,
                           total_chars=len(text), total_lines=line_count(text)) in result.content
    assert "get_artifact" not in result.content


def test_spill_off_per_tool() -> None:
    truncator = Truncator({"inline_limit": 300, "tools": {"noisy": {"spill": False}}},
                          load_entrypoints=False)
    assert truncator.process(log_text(200), tool="noisy").artifact is None
    assert truncator.process(log_text(200), tool="other").artifact is not None


def test_marker_tells_how_to_read_back_what_it_replaces() -> None:
    truncator = Truncator({"inline_limit": 1000}, load_entrypoints=False)
    text = log_text(300)
    result = truncator.process(text, tool="read_file")
    region = result.metadata.omissions[0]
    marker = expected_marker("middle", chars=region.chars, lines=region.lines,
                             total_chars=len(text), total_lines=line_count(text),
                             first=region.first_line, last=region.last_line,
                             artifact_id=result.artifact.id,  # type: ignore[union-attr]
                             start_byte=len(text[:region.start].encode()),
                             end_byte=len(text[:region.end].encode()))
    assert marker in result.content
    # The named lines of the artifact are exactly what the model did not see.
    with truncator.store.open(result.artifact.id) as f:  # type: ignore[union-attr]
        stored = f.read().decode().splitlines(keepends=True)
    shown = "".join(stored[region.first_line - 1:region.last_line])
    assert shown == text[region.start:region.end]


# -- a store that fails --------------------------------------------------------------------


@pytest.mark.parametrize("at", ["open", "write", "commit"])
@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (StoreFull("disk full"), "the artifact store is full"),
        (OSError(28, "No space left on device"), "the artifact store failed"),
        (PermissionError(13, "Permission denied"), "the artifact store failed"),
    ],
    ids=["StoreFull", "OSError", "PermissionError"],
)
def test_a_failing_store_degrades_to_an_inline_truncation_that_says_so(
        at: str, error: BaseException, reason: str) -> None:
    store = FailingStore(error, at)
    # Negative control: the fault really fires when the store is used directly.
    with pytest.raises(type(error)):
        with store.writer(ArtifactInfo()) as w:
            w.write(b"x")
            w.commit()
    truncator = Truncator({"inline_limit": 600}, store=store, load_entrypoints=False)
    text = log_text(100_000 // 30)  # over the 50,000 artifact threshold too
    result = truncator.process(text, tool="read_file")
    meta = result.metadata
    assert result.artifact is None and meta.artifact_id is None
    assert meta.artifact_error == reason
    assert meta.was_truncated and len(result.content) <= 600
    assert not result.content.startswith("[Artifact:")  # no reference to a missing artifact
    region = meta.omissions[0]
    assert expected_marker("middle", chars=region.chars, lines=region.lines,
                           total_chars=len(text), total_lines=line_count(text),
                           unavailable=reason) in result.content
    assert truncator.stats()["read_file"].artifacts == 0
    if at != "open":
        assert store.aborted >= 1


def test_no_backend_accepting_the_artifact_is_reported() -> None:
    class Refuses:
        @hookimpl(tryfirst=True)
        def store_artifact(self) -> None:
            return None

    class AlsoRefusesBuiltins:
        @hookimpl(hookwrapper=True)
        def store_artifact(self):  # type: ignore[no-untyped-def]
            outcome = yield
            outcome.force_result(None)

    truncator = Truncator({"inline_limit": 300}, plugins=[Refuses(), AlsoRefusesBuiltins()],
                          load_entrypoints=False)
    result = truncator.process(log_text(100))
    assert result.artifact is None
    assert result.metadata.artifact_error == "no storage backend accepted it"
    assert "could not be kept: no storage backend accepted it" in result.content


# -- FR-071..075 and seed 000's scenarios --------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "strategy", "reported"),
    [
        ("read_file", "outline", "outline"),
        ("execute_command", "adaptive", "adaptive"),
        ("list_directory", "element", "outline"),
        ("search_files", "element", "outline"),
        ("git_diff", "head_tail", "head_tail"),
        ("some_other_tool", "head_tail", "head_tail"),
    ],
)
def test_builtin_tool_policies(tool: str, strategy: str, reported: str) -> None:
    truncator = Truncator(load_entrypoints=False)
    assert truncator.policy(tool).strategy == strategy
    text = log_text(1000)
    result = truncator.process(text, tool=tool)
    assert result.metadata.strategy_used == reported
    assert len(result.content) <= 8000
    if strategy == "element":  # plain text: element says why it cut as text
        assert any(note.startswith("element: ") for note in result.metadata.notes)
    if strategy == "adaptive":  # a log that never fails: its beginning and its end
        assert result.metadata.details["split"]["head_share"] == 0.6
        assert result.content.startswith(text[:500]) and result.content.endswith(text[-300:])
    else:
        assert result.content.startswith(text[:500]) and result.content.endswith(text[-300:])


def test_seed_scenario_1_small_content_is_not_truncated() -> None:
    truncator = Truncator()
    small = log_text(200)  # 6,000 chars
    result = truncator.process(small, tool="read_file", path="small.txt")
    assert result.content == small
    assert "omitted" not in result.content
    assert result.artifact is None and truncator.store.list() == []
    assert not result.metadata.was_truncated


def test_seed_scenario_2_medium_content_keeps_head_and_tail_with_a_marker() -> None:
    truncator = Truncator()
    medium = log_text(1000)  # 30,000 chars: between 8,000 and 50,000
    result = truncator.process(medium, tool="read_file", path="medium.txt")
    content = result.content
    assert len(content) <= 8000
    assert result.metadata.was_truncated and result.metadata.strategy_used == "outline"
    # A file view keeps about 85% of the budget at its head (FILE_VIEW_HEAD_RATIO)
    assert content.startswith(medium[:6000])
    assert content.endswith(medium[-900:])   # the tail, after the outline of the middle
    region = result.metadata.omissions[0]
    assert f"\n... [{region.lines:,} lines / {region.chars:,} chars omitted" in content
    assert "... [outline of the omitted part" in content
    assert not content.startswith("[Artifact:")
    assert result.artifact is not None  # spill is on by default: nothing is lost


def test_seed_scenario_3_large_content_is_an_artifact_reference() -> None:
    truncator = Truncator()
    large = log_text(2000, width=40)  # 80,000 chars
    result = truncator.process(large, tool="read_file", path="large.txt")
    assert result.content.startswith(f"[Artifact: {result.artifact.id}] read_file: large.txt")  # type: ignore[union-attr]
    with truncator.store.open(result.artifact.id) as f:  # type: ignore[union-attr]
        assert f.read() == large.encode()


def test_seed_scenario_4_command_output_keeps_the_most_recent_lines() -> None:
    truncator = Truncator()
    output = log_text(1500) + "FAILED test_x - AssertionError\n"
    result = truncator.process(output, tool="execute_command", command="pytest")
    content = result.content
    assert len(content) <= 8000
    # The output fails at its end: adaptive keeps only its tail (FR-072).
    assert result.metadata.strategy_used == "adaptive"
    assert result.metadata.details["split"]["head_share"] == 0.0
    assert content.startswith("... [Beginning omitted: ")
    assert content.endswith(output[-7000:])
    # The beginning is gone (the outline of the omitted part names its first line: "1: ...").
    assert "\n000000 " not in content and "\n1: 000000 " in content
    assert content.rstrip().endswith("FAILED test_x - AssertionError")


# -- metadata ------------------------------------------------------------------------------


def test_metadata_converts_to_a_dict_and_to_json() -> None:
    truncator = Truncator({"inline_limit": 500, "max_lines": 10}, load_entrypoints=False)
    result = truncator.process(log_text(100), tool="git_diff")
    data = result.metadata.to_dict()
    assert json.loads(result.metadata.to_json()) == data
    for key in ("original_size", "truncated_size", "strategy_used", "artifact_id",
                "was_truncated", "omitted_chars", "omitted_lines", "original_lines",
                "estimated_tokens", "limits"):
        assert key in data
    assert data["limits"] == {"chars": 500, "bytes": None, "lines": 10}
    assert data["omissions"][0]["chars"] == result.metadata.omissions[0].chars
    assert data["artifact_id"] == result.artifact.id  # type: ignore[union-attr]
    assert isinstance(data["notes"], list)
    unchanged = truncator.process("small").metadata.to_dict()
    assert unchanged["was_truncated"] is False and unchanged["artifact_id"] is None
    assert json.loads(truncator.process("small").metadata.to_json(indent=2)) == unchanged


def test_result_repr_never_shows_content() -> None:
    truncator = Truncator({"inline_limit": 50}, load_entrypoints=False)
    result = truncator.process("secret-ish " * 100)
    assert "secret-ish" not in repr(result)
    assert "chars=" in repr(result)


# -- plugins that misbehave ------------------------------------------------------------------


def test_a_strategy_that_overshoots_the_budget_is_replaced_by_head_tail() -> None:
    truncator = Truncator({"inline_limit": 300, "default_strategy": "greedy"},
                          plugins=[Greedy()], load_entrypoints=False)
    result = truncator.process(log_text(100))
    assert len(result.content) <= 300
    assert result.metadata.strategy_used == "head_tail"
    assert "strategy 'greedy' returned output over the budget; cut with head_tail instead" in \
        result.metadata.notes


def test_select_strategy_naming_an_unknown_strategy_falls_back_to_the_policy() -> None:
    class Picky:
        @hookimpl
        def select_strategy(self) -> str:
            return "no-such-strategy"

    truncator = Truncator({"inline_limit": 300}, plugins=[Picky()], load_entrypoints=False)
    result = truncator.process(log_text(100), tool="execute_command")
    assert result.metadata.strategy_used == "adaptive"
    assert ("no plugin provides strategy 'no-such-strategy'; used 'adaptive'"
            in result.metadata.notes)


# -- never raises on content -----------------------------------------------------------------


HOSTILE = {
    "10MB-single-line": "x" * 10_000_000,
    "10MB-single-line-non-ascii": "é" * 5_000_000,
    "cr-only-lines": "line\r" * 100_000,
    "nul": "\x00" * 100_000,
    "malformed-json": '{"a": [1, 2, {"b": "' * 5_000,
    "deep-json": "[" * 50_000 + "]" * 50_000,
    "bom-json": "\ufeff" + json.dumps({"k": list(range(20_000))}),
    "lone-surrogates": "\udcff\ud800" * 50_000,
    "only-newlines": "\n" * 100_000,
    "crlf-split-everywhere": "\r\n\r" * 30_000,
}


@pytest.mark.parametrize("content", list(HOSTILE.values()), ids=list(HOSTILE))
@pytest.mark.parametrize("tool", [None, "read_file", "execute_command", "search_files"])
def test_never_raises_on_content(content: str, tool: str | None) -> None:
    truncator = Truncator({"max_bytes": 6000, "max_lines": 200}, load_entrypoints=False)
    result = truncator.process(content, tool=tool)
    assert len(result.content) <= 8000
    assert utf8_bytes(result.content) <= 6000
    assert line_count(result.content) <= 200
    assert result.metadata.was_truncated
    as_bytes = truncator.process(content.encode("utf-8", "surrogatepass"), tool=tool)
    assert len(as_bytes.content) <= 8000


@given(content=tool_output | st.binary(max_size=2000),
       tool=st.sampled_from([None, "read_file", "execute_command", "list_directory", "x"]),
       limit=st.integers(1, 200))
def test_never_raises_on_any_str_or_bytes(content: str | bytes, tool: str | None,
                                          limit: int) -> None:
    truncator = Truncator({"inline_limit": limit, "artifact_threshold": 100},
                          load_entrypoints=False)
    result = truncator.process(content, tool=tool)
    assert len(result.content) <= limit
    result.metadata.to_json()


@pytest.mark.parametrize(("spill", "as_bytes", "offsets"), [
    (True, False, True),    # kept: offsets address the artifact
    (False, True, True),    # the tool's own bytes: offsets address them, at no cost
    (False, False, False),  # text that is not kept: offsets would cost a full encode
])
def test_omissions_carry_byte_offsets_when_they_address_something(
        spill: bool, as_bytes: bool, offsets: bool) -> None:
    text = "é line\n" * 3000
    truncator = Truncator({"inline_limit": 500, "spill": spill, "store": {"backend": "memory"}},
                          load_entrypoints=False)
    result = truncator.process(text.encode() if as_bytes else text)
    region = result.metadata.omissions[0]
    if offsets:
        assert (region.start_byte, region.end_byte) == (
            len(text[:region.start].encode()), len(text[:region.end].encode()))
    else:
        assert (region.start_byte, region.end_byte) == (None, None)


def test_a_count_of_one_takes_the_singular_in_the_reference_markers_and_notes() -> None:
    """``1 line``, not ``1 lines``: in the artifact reference (a one-line JSON document is
    common) and the omission markers."""
    truncator = Truncator({"store": {"backend": "memory"}}, load_entrypoints=False)
    one_line = truncator.process("x" * 60_000 + "\n")
    assert one_line.content.startswith("[Artifact: ")
    assert "(60.0 kB), 1 line: search it" in one_line.content
    assert " of 1 line / 60,001 chars; " in one_line.content
    document = truncator.process(json.dumps([{"id": i} for i in range(10_000)]))
    assert json.loads(document.content)[-1].split("), ")[1].startswith("1 line: ")
    # (The structured notes: tests/structured/test_json_element.py, "... 1 item omitted ...")
    for content in (one_line.content, document.content):
        assert "1 lines" not in content and " 1 items" not in content
