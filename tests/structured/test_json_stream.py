"""Streaming element truncation: the same output rules, fed in chunks, memory bounded."""

from __future__ import annotations

import json
import logging
import random
import subprocess
import sys
import textwrap
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import check, strict_loads
from strategies import json_documents

from truncation_core import Budget, Truncator
from truncation_core.pipeline.facts import content_facts
from truncation_core.structured.json_stream import JsonStreamTruncator
from truncation_core.text.measure import measure
from truncation_core.types.markers import MarkerRenderer


def stream(config: dict | None = None, chars: int = 400, **kwargs):
    truncator = Truncator({"spill": False, **(config or {})})
    policy = truncator.policy("t")
    markers = MarkerRenderer(format=truncator.plugins.format_marker, policy=policy,
                             strategy="element", tool="t", facts=content_facts(""))
    return JsonStreamTruncator(budget=Budget(chars=chars), policy=policy, markers=markers,
                               **kwargs)


def feed_in_pieces(truncator: JsonStreamTruncator, data: bytes, cuts: list[int]) -> None:
    edges = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    for a, b in pairwise(edges):
        truncator.feed(data[a:b])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=json_documents, chars=st.integers(80, 2000), cuts=st.lists(st.integers(0, 10**6),
                                                                      max_size=8))
def test_streamed_output_is_valid_with_exact_counts(doc, chars, cuts):
    data = doc.encode("utf-8", "surrogatepass")
    s = stream(chars=chars)
    feed_in_pieces(s, data, cuts)
    cut = s.finish()
    assert Budget(chars=chars).admits(measure(cut.text))
    if cut.strategy is not None:  # raw lone surrogates are not UTF-8: yajl refuses them
        assert "\\ud" not in json.dumps(doc) or cut.details["reason"].startswith("not valid")
        return
    counts = check(strict_loads(doc), strict_loads(cut.text))
    assert counts["items"] == cut.details["omitted"]["items"]
    assert counts["keys"] == cut.details["omitted"]["keys"]
    assert counts["chars"] == cut.details["omitted"]["chars"]


def test_large_array_keeps_first_and_last_items_with_exact_count():
    items = [{"id": i, "name": f"item {i}"} for i in range(200_000)]
    data = json.dumps({"results": items, "total": len(items)}).encode()
    s = stream(chars=2000)
    for start in range(0, len(data), 1 << 20):
        s.feed(data[start:start + (1 << 20)])
    cut = s.finish()
    out = json.loads(cut.text)
    kept = [r for r in out["results"] if isinstance(r, dict)]
    assert kept[0] == items[0] and kept[-1] == items[-1]
    # The tail is contiguous: the last kept items are exactly the last items.
    tail = kept[next(i for i, r in enumerate(out["results"]) if isinstance(r, str)):]
    assert tail == items[len(items) - len(tail):]
    assert f"... {len(items) - len(kept):,} items omitted ..." in out["results"]
    assert out["total"] == 200_000


@pytest.mark.parametrize("events_per_member", [3, 150, 2000])
def test_bulk_counting_is_exact_for_members_short_and_longer_than_its_window(
        events_per_member: int) -> None:
    """Members are counted in bulk from a member boundary before the chunk's last events;
    a member longer than that window (here 116 events) is found by looking further back."""
    members = [list(range(i, i + events_per_member - 2)) for i in range(3000)]
    data = json.dumps(members).encode()
    s = stream(chars=200)
    for start in range(0, len(data), 1 << 16):
        s.feed(data[start:start + (1 << 16)])
    cut = s.finish()
    out = json.loads(cut.text)
    note = next(v for v in out if isinstance(v, str))
    kept = [v for v in out if not isinstance(v, str)]
    assert note == f"... {len(members) - len(kept):,} items omitted ..."
    assert kept[0][:3] == members[0][:3] and kept[-1][:3] == members[-1][:3]


def _array_shapes(rng: random.Random, depth: int = 0) -> Any:
    """Documents whose arrays show only their last members: arrays of one repeated shape
    (some of lengths at the blocks' edges), of empty containers, nested, in objects."""
    roll = rng.random()
    if depth > 4 or roll < 0.3:
        return rng.choice([0, 1, "", "ab", None, True, "x" * rng.randint(0, 30)])
    if roll < 0.45:
        return {f"k{i}": _array_shapes(rng, depth + 1) for i in range(rng.randint(0, 4))}
    if roll < 0.55:
        return [[] if rng.random() < 0.5 else {} for _ in range(rng.randint(0, 2000))]
    if roll < 0.65:
        return [_array_shapes(rng, depth + 1) for _ in range(rng.randint(0, 5))]
    count = rng.choice([rng.randint(0, 50), rng.randint(100, 1500), 127, 128, 255, 256, 767])
    shape = _array_shapes(rng, 5)
    return [shape if rng.random() < 0.7 else _array_shapes(rng, 5) for _ in range(count)]


def test_counting_in_bulk_gives_the_cut_that_building_every_member_gives(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Counting members in bulk is only a shortcut: the same documents, chunked alike, give
    the same cut when every member is built (the reference), and the shortcut is taken."""
    from truncation_core.structured import json_stream

    rng = random.Random(7)
    cases = []
    for _ in range(100):
        data = json.dumps(_array_shapes(rng), separators=rng.choice([(",", ":"), (", ", ": ")]))
        cuts = sorted({0, len(data), *(rng.randint(0, len(data)) for _ in range(8))})
        cases.append((data.encode(), cuts, rng.choice([16, 40, 80, 200, 600])))

    def cut_all() -> list[str]:
        out = []
        for data, cuts, chars in cases:
            s = stream(chars=chars)
            for a, b in pairwise(cuts):
                s.feed(data[a:b])
            out.append(s.finish().text)
        return out

    counted = 0
    count_members = json_stream._Skeleton._count_members

    def counting(self, events, i, n):  # type: ignore[no-untyped-def]
        nonlocal counted
        resume = count_members(self, events, i, n)
        counted += resume != i
        return resume

    monkeypatch.setattr(json_stream._Skeleton, "_count_members", counting)
    shortcut = cut_all()
    assert counted > 20
    monkeypatch.setattr(json_stream._Skeleton, "_count_members", lambda self, events, i, n: i)
    assert shortcut == cut_all()


def _depths_measured(monkeypatch: pytest.MonkeyPatch, data: bytes, chunk: int) -> int:
    """How many depths the stream measures (through ``accumulate``) to count in bulk."""
    from truncation_core.structured import json_stream

    measured = 0
    accumulate = json_stream.accumulate

    def counting(*args, **kwargs):
        nonlocal measured
        for value in accumulate(*args, **kwargs):
            measured += 1
            yield value

    monkeypatch.setattr(json_stream, "accumulate", counting)
    s = stream(chars=400)
    for start in range(0, len(data), chunk):
        s.feed(data[start:start + chunk])
    out = json.loads(s.finish().text)
    assert any(isinstance(v, list) and len(v) < 300 for v in out.values())  # arrays were cut
    return measured


def test_bulk_counting_costs_each_array_its_own_length_not_the_chunks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Many arrays that each show only their last members and end early in one chunk (an
    object of long arrays): the depths measured to count in bulk add up to a few times the
    document, not to the rest of the chunk for each array (3.7 MB of it cost 4,435x
    ``json.loads``). The negative controls measure to the chunk's end, and again after every
    member, as that did."""
    from truncation_core.structured import json_stream

    member = [{"k": j, "v": "x" * 20} for j in range(300)]
    data = json.dumps({f"key{i}": member for i in range(20)}).encode()
    events = 20 * (2 + 300 * 6) + 2
    assert _depths_measured(monkeypatch, data, 1 << 20) <= 3 * events

    def to_the_chunks_end(events, i, n):
        depth = list(json_stream.accumulate(map(json_stream._DELTA.__getitem__,
                                                map(json_stream._NAME, events[i:n]))))
        return depth[:depth.index(-1)] if -1 in depth else depth

    def after_every_member(self, frame, remaining):  # not once per array per chunk
        return (not frame.head_open and not frame.pairs and not frame.collapsed
                and not self.skipping and remaining > 2 * self.window)

    monkeypatch.setattr(json_stream, "_depths_in_array", to_the_chunks_end)
    assert _depths_measured(monkeypatch, data, 1 << 20) > 10 * events
    monkeypatch.setattr(json_stream._Skeleton, "_ring_only", after_every_member)
    assert _depths_measured(monkeypatch, data, 1 << 20) > 100 * events


def test_json_lines_stream_keeps_whole_records():
    data = "".join(json.dumps({"n": i}) + "\n" for i in range(5000)).encode()
    s = stream(chars=300)
    s.feed(data)
    cut = s.finish()
    lines = cut.text.split("\n")
    records = [json.loads(line) for line in lines]
    assert records[0] == {"n": 0} and records[-1] == {"n": 4999}
    note = [r for r in records if isinstance(r, str)]
    assert note == [f"... {5000 - len(records) + 1:,} records omitted ..."]


def test_malformed_stream_falls_back_to_text_from_its_ends():
    s = stream(chars=200)
    s.feed(b'{"a": [' + b"1, " * 10_000)
    s.feed(b"oops")
    cut = s.finish()
    assert cut.strategy == "head_tail"
    assert cut.details["reason"].startswith("not valid JSON")
    assert "oops" not in cut.details["reason"]  # parser excerpts of content stay out
    text = '{"a": [' + "1, " * 10_000 + "oops"
    region = cut.omissions[0]
    assert cut.text.startswith(text[:region.start]) and cut.text.endswith(text[region.end:])
    assert region.start > 0 and region.end < len(text)
    assert cut.omitted_chars == region.end - region.start
    assert len(cut.text) <= 200


def test_truncated_stream_is_not_json():
    s = stream(chars=200)
    s.feed(b'[1, 2, 3')
    assert s.finish().details["reason"] == "not valid JSON: parse error: premature EOF"


def test_process_streams_input_over_the_threshold():
    data = json.dumps(list(range(100_000)))
    result = Truncator({"stream_threshold": 10_000, "spill": False}).process(
        data, tool="search_files")
    assert result.metadata.details["streamed"] is True
    out = json.loads(result.content)
    assert out[0] == 0 and out[-1] == 99_999


BOUNDED = textwrap.dedent("""
    import json, sys
    from truncation_core import Budget, Truncator
    from truncation_core.types.markers import MarkerRenderer
    from truncation_core.structured.json_stream import JsonStreamTruncator
    from truncation_core.pipeline.facts import content_facts

    def hwm():
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM"):
                return int(line.split()[1]) * 1024

    truncator = Truncator({"spill": False})
    policy = truncator.policy("t")
    markers = MarkerRenderer(format=truncator.plugins.format_marker, policy=policy,
                             strategy="element", tool="t", facts=content_facts(""))
    block = json.dumps([{"id": i, "tags": ["a", "b"], "text": "x" * 80} for i in range(5000)])
    block = block[1:-1].encode()
    s = JsonStreamTruncator(budget=Budget(chars=8000), policy=policy, markers=markers)
    s.feed(b"[")
    s.feed(block)  # warm up: imports, first buffers
    base = hwm()
    for _ in range(int(sys.argv[1])):
        s.feed(b",")
        s.feed(block)
    s.feed(b"]")
    cut = s.finish()
    json.loads(cut.text)
    print(hwm() - base, s.bytes_fed)
""")


def test_memory_is_bounded_by_the_budget_not_the_input(tmp_path: Path):
    """About 80 MB of JSON through the streaming truncator in a fresh process: peak RSS grows
    by far less than the input (a full parse would take ~5x the input)."""
    script = tmp_path / "bounded.py"
    script.write_text(BOUNDED)
    out = subprocess.run([sys.executable, str(script), "160"], capture_output=True, text=True,
                         check=True, timeout=240).stdout.split()
    growth, fed = int(out[0]), int(out[1])
    assert fed > 80_000_000
    assert growth < 32 * 1024 * 1024, f"peak RSS grew by {growth / 2**20:.1f} MiB"


def test_streamed_number_with_an_exponent_keeps_its_type() -> None:
    # ijson hands 1.7485485437877034e+16 over as Decimal('17485485437877034'); written back
    # as-is it would read back as an integer.
    doc = json.dumps({"items": [1.7485485437877034e16] * 2000, "n": 1e2})
    s = stream(chars=300)
    s.feed(doc.encode())
    kept = json.loads(s.finish().text)
    assert kept["items"][0] == 1.7485485437877034e16
    assert type(kept["items"][0]) is float and type(kept["n"]) is float


@pytest.mark.parametrize("threshold", [60, 16 * 1024 * 1024])
def test_a_parse_error_never_quotes_the_content(threshold: int,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    # yajl's error message carries an excerpt of the content around the error; the reason in
    # the metadata (and in the debug log) must not. Both the whole-parse path (threshold
    # above the size) and the event-driven one (below) are checked.
    canary = "CANARY-7f3e9a"
    content = '{"ok": 1, ' + canary + ": 2}" + " " * 200
    caplog.set_level(logging.DEBUG, logger="truncation_core")
    result = Truncator({"spill": False, "inline_limit": 120, "stream_threshold": threshold,
                        "default_strategy": "element"}).process(content)
    reason = result.metadata.details["reason"]
    assert reason.startswith("not valid JSON")
    seen = [reason, *result.metadata.notes, *(r.getMessage() for r in caplog.records)]
    assert not [text for text in seen if canary in text]
    # Negative control: the raw parser message does quote it.
    import ijson

    with pytest.raises(Exception) as raised:
        list(ijson.basic_parse(content.encode()))
    assert canary in str(raised.value).replace("\\n", "\n")


# -- what the event parser cannot take ------------------------------------------------------

HUGE_INTEGER = "9" * 4301  # one digit over Python's default int conversion limit

CRASHERS = {
    "deep": "[" * 2000 + HUGE_INTEGER + "]" * 2000,  # too deep to parse whole: streamed
    "large": '{"a": ' + HUGE_INTEGER + ', "b": [' + ", ".join(map(str, range(3000))) + "]}",
}

RUN_PROCESS = textwrap.dedent("""
    import json, sys
    from truncation_core import Truncator
    content = sys.stdin.read()
    truncator = Truncator({"spill": False, "stream_threshold": 1000, "inline_limit": 2000})
    result = truncator.process(content, tool="search_files")
    with truncator.stream(tool="search_files") as s:
        for start in range(0, len(content), 777):
            s.write(content[start:start + 777].encode())
        streamed = s.result()
    print(json.dumps([result.metadata.strategy_used, result.metadata.notes,
                      streamed.content == result.content, len(result.content)]))
""")


@pytest.mark.parametrize("name", sorted(CRASHERS))
def test_an_integer_over_the_digit_limit_is_cut_as_text_not_a_crash(name: str) -> None:
    """yajl's C backend kills the interpreter (SIGSEGV) on an integer longer than Python's
    int conversion allows; the run is never given to it. Run in a child process, so that a
    regression shows as a crash, not as a dead test run."""
    done = subprocess.run([sys.executable, "-c", RUN_PROCESS], input=CRASHERS[name],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    strategy, notes, same, size = json.loads(done.stdout)
    assert strategy == "head_tail" and same and size <= 2000
    assert any("a run of more than 4,300 digits" in note for note in notes)


def test_negative_control_the_bare_parser_does_not_survive_a_huge_integer() -> None:
    probe = textwrap.dedent("""
        import ijson
        events = ijson.sendable_list()
        parser = ijson.basic_parse_coro(events, multiple_values=True)
        parser.send(b"[" * 2000 + b"9" * 4301 + b"]" * 2000)
        parser.close()
    """)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60)
    # A crash (negative return code: killed by a signal) or a SystemError from C code that
    # returned NULL: either way, not a parse the truncator could continue from.
    assert done.returncode != 0
    assert done.returncode < 0 or "SystemError" in done.stderr


@pytest.mark.parametrize("split", [0, 1, 2, 3, 4300, 4301, 5000])
def test_digit_runs_are_found_across_chunks_and_between_probes(split: int) -> None:
    from truncation_core.structured.json_stream import _DigitRuns

    for prefix in ("", "x" * 17, "x" * 4299):
        data = f'{prefix}[{HUGE_INTEGER}]'.encode()
        runs = _DigitRuns(4300)
        assert runs.too_long(data[:split]) or runs.too_long(data[split:])
        fine = f'{prefix}[{HUGE_INTEGER[:-1]}, {HUGE_INTEGER[:-1]}]'.encode()
        runs = _DigitRuns(4300)
        assert not (runs.too_long(fine[:split]) or runs.too_long(fine[split:]))
    assert not _DigitRuns(0).too_long(HUGE_INTEGER.encode() * 3)  # no limit set


@pytest.mark.parametrize("pieces", [[1, 1, 1], [2], [3], [1000]])
def test_a_bom_is_skipped_even_split_across_chunks(pieces: list[int]) -> None:
    data = "\ufeff".encode() + json.dumps(list(range(3000))).encode()
    s = stream(chars=300)
    start = 0
    for size in pieces:
        s.feed(data[start:start + size])
        start += size
    s.feed(data[start:])
    cut = s.finish()
    assert cut.strategy is None and "element: a BOM was removed" in cut.notes
    out = json.loads(cut.text)
    assert out[0] == 0 and out[-1] == 2999
