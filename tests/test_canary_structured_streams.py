"""Content never reaches notes, reasons, logs, exception messages or reprs: structured content
(parser errors quote it), streams, highlights and wrapped commands (reliability.md §6).

A canary is planted where each parser or path would pick it up: an entity name, a tag, an
object key next to a syntax error, a broken JSON Lines record, a score key. It may appear only
where content belongs: the output, the artifact, the highlights shown, and the paths of cuts
(which name the keys and tags they cut) in the metadata's details.
"""

from __future__ import annotations

import json
import logging
import secrets
import sys
from collections.abc import Iterator
from typing import Any
from xml.etree.ElementTree import ParseError, XMLPullParser

import pytest
from test_logging import Leaks, reprs

from truncation_core import Truncator
from truncation_core.storage.memory import MemoryStore
from truncation_core.streaming.command import run_command


@pytest.fixture
def canary() -> str:
    return "CANARY" + secrets.token_hex(8)


@pytest.fixture
def leaks(caplog: pytest.LogCaptureFixture) -> Iterator[Leaks]:
    caplog.set_level(logging.DEBUG, logger="truncation_core")
    yield Leaks(caplog)


def make(config: Any = None) -> Truncator:
    return Truncator(config, load_entrypoints=False, store=MemoryStore())


def hostile(canary: str) -> dict[str, str]:
    """Content that each structured path rejects, with the canary where its parser looks,
    keyed by the reason ``element`` gives. The padding is inside, so that the sniffs still
    see structure at both ends."""
    pad = "x" * 2000
    return {
        "undefined entity": f'<!DOCTYPE a SYSTEM "a.dtd"><a>{pad}&{canary};</a>',
        "mismatched tag": f"<a>{pad}<{canary}>x</a>",
        "declares entities": f'<!DOCTYPE a [<!ENTITY {canary} "x">]><a>{pad}</a>',
        "Expecting property name": '{"pad": "' + pad + '", ' + canary + ": 2}",
        "NaN is not a JSON value": '{"pad": "' + pad + '", "' + canary + '": NaN}',
        "not JSON Lines: line 2": '{"pad": "' + pad + '"}\n{"' + canary + '": }\n{}',
        "Expecting value": '{"a": ["' + pad + '", "' + canary + '", ',
    }


def run_everywhere(canary: str, leaks: Leaks, content: str, config: dict[str, Any]) -> None:
    """process(), a stream of small chunks, and a stream over the event-driven parser."""
    truncator = make(config)
    results = [truncator.process(content), truncator.process(content.encode())]
    for chunk in (7, 100_000):
        with truncator.stream() as s:
            for i in range(0, len(content), chunk):
                s.write(content[i:i + chunk])
            leaks.add("stream repr", repr(s))
            leaks.add("cutters", repr(s._cutters))
        results.append(s.result())
    streamed = make({**config, "stream_threshold": 64})
    with streamed.stream() as s:
        s.write(content.encode())
    results.append(s.result())
    for result in results:
        meta = result.metadata
        assert meta.was_truncated
        # Not the metadata's repr: its details name the keys and tags cut (by design), and
        # its repr shows them (reported: results.py).
        reprs(leaks, result, *meta.notes, meta.details.get("reason"),
              meta.details.get("fallback"), meta.details.get("truncation_info"))


def test_parser_errors_never_quote_the_content(canary: str, leaks: Leaks) -> None:
    for reason, content in hostile(canary).items():
        element = make({"inline_limit": 300, "default_strategy": "element"})
        assert reason in element.process(content).metadata.details["reason"]  # its parser
        for strategy in ("element", "ranked"):
            run_everywhere(canary, leaks, content, {"inline_limit": 300,
                                                    "default_strategy": strategy})
    leaks.assert_clean(canary)


def test_negative_control_the_parsers_own_messages_quote_the_content(canary: str) -> None:
    parser = XMLPullParser()
    with pytest.raises(ParseError) as raised:
        parser.feed(f'<!DOCTYPE a SYSTEM "a.dtd"><a>&{canary};</a>')
        parser.close()
        list(parser.read_events())
    assert canary in str(raised.value)  # what was passed on before
    import ijson

    with pytest.raises(ijson.JSONError) as yajl:
        list(ijson.parse(('{"ok": 1, ' + canary + ": 2}").encode()))
    assert canary in str(yajl.value)


def test_ranked_notes_never_name_the_content(canary: str, leaks: Leaks) -> None:
    # Results without the score key, keys named like the canary: notes say why, not what.
    rows = [{canary: i, "text": canary * 3} for i in range(60)]
    for content in (json.dumps(rows), json.dumps({canary: rows}), json.dumps({"x": canary * 40})):
        run_everywhere(canary, leaks, content, {"inline_limit": 300,
                                                "default_strategy": "ranked",
                                                "score_key": "score"})
    leaks.assert_clean(canary)


def test_highlights_show_the_line_and_nothing_else_does(canary: str, leaks: Leaks) -> None:
    lines = [f"INFO step {i} ok\n" for i in range(3000)]
    lines[1500] = f"ValueError: bad token {canary}\n"
    content = "".join(lines)
    truncator = make({"inline_limit": 2000})
    result = truncator.process(content, tool="execute_command")
    with truncator.stream(tool="execute_command") as s:
        for i in range(0, len(content), 4096):
            s.write(content[i:i + 4096].encode())
    assert canary in s.result().content
    assert canary in result.content  # control: the highlight shows the line
    assert canary in result.metadata.details["highlights"][0]["text"]
    from truncation_core.highlights.bank import Highlight, UnitLine

    unit = UnitLine(line=2, start=1, end=2, unit="u", text=canary)
    highlight = Highlight(line=1, start=0, end=1, pattern="exception", rank=1, text=canary,
                          key=canary, below=(unit,))
    reprs(leaks, result, highlight, unit, s)
    leaks.assert_clean(canary)


def test_a_wrapped_commands_output_stays_out_of_reprs_and_logs(canary: str,
                                                              leaks: Leaks) -> None:
    code = (f"import sys\nfor i in range(3000): print('row', i, '{canary}')\n"
            "sys.exit(3)")
    done = run_command(make({"inline_limit": 500}), [sys.executable, "-c", code])
    assert canary in done.text  # control
    # argv is the caller's, not the command's output: the repr of the status may show it.
    reprs(leaks, done.result, done.result.metadata.notes)
    leaks.add("command result", repr(done).replace(repr(done.status), ""))
    leaks.assert_clean(canary)
