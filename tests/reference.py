"""Naive reference implementations the tests check the library against.

Everything here is written the slow, obvious way, without importing the code under test, so
that a test comparing the two can fail. The definitions are those of docs/strategies.md and
``truncation_core.text.cut``: a line ends with ``"\\r\\n"``, ``"\\n"`` or a lone ``"\\r"``; other
Unicode separators are ordinary characters; a lone surrogate is one character of three bytes.
"""

from __future__ import annotations

import re

TERMINATOR_CHARS = "\r\n"

#: The default markers of seed 000 (FR-043 and the head/tail variants, with the original's
#: size, FR-041), numbers like 12,340.
DEFAULT_MARKERS = {
    "middle": "\n... [{lines} / {chars} omitted of {total_lines} / {total_chars}{hint}] ...\n",
    "beginning": "... [Beginning omitted: {lines} / {chars} of {total_lines} / {total_chars}"
                 "{hint}] ...\n",
    "end": "\n... [Remainder omitted: {lines} / {chars} of {total_lines} / {total_chars}"
           "{hint}] ...",
}


def counted(n: int, noun: str) -> str:
    """``12,340 lines``, ``1 line``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
DEFAULT_HINT = ('; get_artifact(artifact_id="{id}", start_line={first}, end_line={last})'
                '; bytes {start_byte}:{end_byte}')
#: FR-059: ``[Artifact: {id}] {summary} ({size})`` on the first line of the reference (what
#: follows on the line, ``rest``, names the tools that read it).
REFERENCE_FIRST_LINE = re.compile(
    r"\[Artifact: (art_[1-9][0-9]*_[0-9a-f]{32})\] (?P<summary>[^\n]*) "
    r"\((?P<size>[0-9]+ B|[0-9]+\.[0-9] [kMGT]B)\)(?P<rest>[^\n]*)\n"
)


def line_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every line, terminator included, scanning one character at a time."""
    spans = []
    begin = i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\n" or c == "\r":
            end = i + 2 if c == "\r" and i + 1 < n and text[i + 1] == "\n" else i + 1
            spans.append((begin, end))
            begin = i = end
        else:
            i += 1
    if begin < n:
        spans.append((begin, n))
    return spans


def line_count(text: str) -> int:
    return len(line_spans(text))


def line_starts(text: str) -> set[int]:
    """Every position where a line may be cut without splitting it (0 and len included)."""
    return {s for s, _ in line_spans(text)} | {0, len(text)}


def utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def region_lines(text: str, start: int, end: int) -> tuple[int, int, int]:
    """For the region ``text[start:end]``: (whole lines inside it, first line, last line).

    Lines are 1-based; first and last are the lines the region touches (0, 0 when empty).
    """
    if end <= start:
        return 0, 0, 0
    spans = line_spans(text)
    touched = [i for i, (s, e) in enumerate(spans) if s < end and e > start]
    whole = sum(1 for s, e in spans if start <= s and e <= end)
    return whole, touched[0] + 1, touched[-1] + 1


def kept_lines(text: str, start: int, end: int) -> int:
    """Lines of *text* at least partly outside the omitted region ``[start, end)``."""
    return sum(1 for s, e in line_spans(text) if s < start or e > end)


def splits_pair(text: str, pos: int) -> bool:
    """True when *pos* falls inside a ``"\\r\\n"`` pair or a surrogate pair."""
    if not 0 < pos < len(text):
        return False
    before, after = text[pos - 1], text[pos]
    return (before == "\r" and after == "\n") or (
        "\ud800" <= before <= "\udbff" and "\udc00" <= after <= "\udfff"
    )


def expected_marker(position: str, *, chars: int, lines: int, total_chars: int,
                    total_lines: int, first: int = 0, last: int = 0,
                    artifact_id: str | None = None, unavailable: str | None = None,
                    start_byte: int = 0, end_byte: int = 0) -> str:
    """The default marker for an omission from an original of *total_chars* characters and
    *total_lines* lines, rendered from seed 000's format by hand.

    With an artifact, the hint names the omitted lines and the omitted byte range of the
    artifact (*start_byte*..*end_byte*, computed by the caller from the original)."""
    if artifact_id is not None:
        hint = DEFAULT_HINT.format(id=artifact_id, first=first, last=last,
                                   start_byte=start_byte, end_byte=end_byte)
    elif unavailable is not None:
        hint = f"; the full output could not be kept: {unavailable}"
    else:
        hint = ""
    return DEFAULT_MARKERS[position].format(
        lines=counted(lines, "line"), chars=counted(chars, "char"), hint=hint,
        total_chars=counted(total_chars, "char"), total_lines=counted(total_lines, "line"))
