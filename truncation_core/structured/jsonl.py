"""JSON Lines (NDJSON): whole records, first and last, and the count of those in between.

Records are never cut: the output is the first and last records that fit (``head_ratio`` of
them first), each on its own line exactly as it came, and between them one line that is a JSON
string, ``"... 4,000 records omitted ..."``, so that the output is still JSON Lines. Blank
lines are not records. When not even the first record fits with the note, that record alone
is element-truncated to the room left (reason ``single_record_too_large``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import accumulate
from typing import Any

import attrs

from truncation_core.structured.json_element import _split, detect_style, dump_string, fit
from truncation_core.structured.sniff import parse
from truncation_core.text.measure import measure, utf8_size
from truncation_core.types.cuts import ElementOmission
from truncation_core.types.models import Budget, Size
from truncation_core.types.policy import Policy

__all__ = ["Records", "fit_records"]


@attrs.frozen(kw_only=True)
class Records:
    """What :func:`fit_records` returns."""

    text: str = attrs.field(repr=False)  # content: never in a repr
    details: dict[str, Any]


def fit_records(head: Sequence[str], *, budget: Budget, policy: Policy,
                note: Callable[[ElementOmission], str], tail: Sequence[str] = (),
                total: int | None = None) -> Records | None:
    """Fit records (each one line of JSON) to *budget*; None if not even one record fits.

    *head* holds the records in order; for a stream, *head* holds the first ones, *tail* the
    last ones, and *total* counts them all.
    """
    count = len(head) + len(tail) if total is None else total
    complete = not tail and len(head) == count
    if complete:
        tail, head = head, head  # any record can come from either end
    chars = [0, *accumulate(len(r) for r in head)]
    sizes_b = [0, *accumulate(utf8_size(r) for r in head)]
    tail_chars = [0, *accumulate(len(r) for r in reversed(tail))]
    tail_bytes = [0, *accumulate(utf8_size(r) for r in reversed(tail))]

    def layout(shown: int) -> tuple[int, int]:
        first, last = _split(shown, policy.head_ratio)
        if not complete:
            first, last = min(first, len(head)), min(last, len(tail))
        return first, last

    def note_line(first: int, last: int) -> str:
        omitted = count - first - last
        if not omitted:
            return ""
        return dump_string(note(ElementOmission(kind="jsonl_records", count=omitted,
                                                total=count, unit="records", path="$")))

    def size(shown: int) -> Size:
        first, last = layout(shown)
        line = note_line(first, last)
        rows = first + last + (1 if line else 0)
        return Size(chars=chars[first] + tail_chars[last] + len(line) + max(rows - 1, 0),
                    bytes=sizes_b[first] + tail_bytes[last] + utf8_size(line) + max(rows - 1, 0),
                    lines=rows)

    def fits(shown: int) -> bool:
        return budget.admits(size(shown))

    most = min(count, len(head) + len(tail))
    if not fits(1):
        return _single(head[0] if head else tail[0], budget=budget, policy=policy, note=note,
                       count=count)
    lo, hi = 1, most
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    first, last = layout(lo)
    line = note_line(first, last)
    rows = [*head[:first], *([line] if line else []), *tail[len(tail) - last:]]
    omitted = count - first - last
    return Records(text="\n".join(rows), details={
        "format": "jsonl", "records": count, "kept_first": first, "kept_last": last,
        "omitted": {"records": omitted},
        "cuts": [{"path": "$", "kind": "jsonl_records", "omitted": omitted,
                  "total": count}] if omitted else [],
    })


def _single(record: str, *, budget: Budget, policy: Policy,
            note: Callable[[ElementOmission], str], count: int) -> Records | None:
    """The first record element-truncated, and the note for the others."""
    line = dump_string(note(ElementOmission(kind="jsonl_records", count=count - 1, total=count,
                                            unit="records", path="$"))) if count > 1 else ""
    room = budget.minus(measure(line + "\n")) if line else budget
    parsed = parse(record)
    if room is None or parsed.format != "json":
        return None
    fitted = fit(parsed.value, budget=room, style=detect_style(record).compact, note=note,
                 head_ratio=policy.head_ratio, max_depth=policy.max_depth)
    if fitted is None:
        return None
    return Records(text=fitted.text + ("\n" + line if line else ""), details={
        "format": "jsonl", "records": count, "kept_first": 1, "kept_last": 0,
        "reason": "single_record_too_large",
        "omitted": {"records": count - 1, **fitted.omitted},
        "cuts": [*fitted.cuts, *([{"path": "$", "kind": "jsonl_records", "omitted": count - 1,
                                   "total": count}] if count > 1 else [])],
    })
