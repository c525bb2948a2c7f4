"""An independent reading of element output: what it kept, what its notes say was omitted.

Written from the documented output format only (docs/structured.md), not from the code under
test: it parses both documents strictly and walks them side by side.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

# "1 item", "2 items": the noun agrees with the count (checked by _count).
ITEMS = re.compile(r"\.\.\. ([\d,]+ items?) omitted \.\.\.\Z")
DEPTH = re.compile(r"\.\.\. ([\d,]+ (item|key)s?) omitted \(nested too deep\) \.\.\.\Z")
KEYS = re.compile(r"([\d,]+ keys?) omitted\Z")
#: The header of the stubs of omitted records (truncation_core/structured/records.py).
RECORDS = re.compile(r"\.\.\. the ([\d,]+ items?) omitted, (by|in runs:) .* \.\.\.\Z", re.DOTALL)
#: The member that ends a stub when the output names its item's lines.
STUB_LINES = re.compile(r"lines (\d+)-(\d+)\Z")
CHARS = re.compile(r"(.*) \.\.\. \[([\d,]+ chars?) omitted\] \.\.\. (.*)\Z", re.DOTALL)


class Pairs(list):
    """An object, as its (key, value) pairs (duplicates and order kept)."""


def _reject(name: str) -> Any:
    raise ValueError(f"not strict JSON: {name}")


def strict_loads(text: str) -> Any:
    """Parse strict JSON (RFC 8259): NaN and Infinity are errors."""
    return json.loads(text, object_pairs_hook=Pairs, parse_float=Decimal,
                      parse_constant=_reject)


def norm(text: str) -> str:
    """*text* with adjacent lone surrogates joined into the character they pair into.

    A string holding "\ud800" then "\udc00" can only be written in JSON as the escapes
    ``\ud800\udc00``, which JSON defines as the one character U+10000.
    """
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _count(text: str) -> int:
    """The number of ``12,340 items`` or ``1 item``, whose noun must agree with it."""
    number, noun = text.split(" ")
    count = int(number.replace(",", ""))
    assert noun.endswith("s") == (count != 1), text
    return count


def check(original: Any, output: Any, counts: dict[str, int] | None = None) -> dict[str, int]:
    """Assert that *output* is *original* with documented cuts; return the omitted totals."""
    counts = counts if counts is not None else {"items": 0, "keys": 0, "chars": 0}
    if isinstance(original, Pairs):
        assert isinstance(output, Pairs), (original, output)
        _check_object(original, output, counts)
    elif isinstance(original, list):
        assert isinstance(output, list) and not isinstance(output, Pairs), (original, output)
        _check_array(original, output, counts)
    elif isinstance(original, str):
        assert isinstance(output, str)
        if output != norm(original):
            m = CHARS.match(output)
            assert m, (original, output)
            head, omitted, tail = m.group(1), _count(m.group(2)), m.group(3)
            pairs = len(original) - len(norm(original))  # each joined pair reads one shorter
            assert len(original) - pairs <= len(head) + omitted + len(tail) <= len(original)
            assert norm(original).startswith(head) and norm(original).endswith(tail)
            counts["chars"] += omitted
    else:
        assert type(output) is type(original) and output == original, (original, output)
    return counts


def _check_array(original: list[Any], output: list[Any], counts: dict[str, int]) -> None:
    if len(output) == 1 and isinstance(output[0], str) and DEPTH.match(output[0]) and original:
        m = DEPTH.match(output[0])
        assert m.group(2) == "item" and _count(m.group(1)) == len(original)
        counts["items"] += len(original)
        return
    notes = [i for i, v in enumerate(output) if isinstance(v, str) and ITEMS.match(v)]
    if not notes:
        assert len(output) == len(original)
        for a, b in zip(original, output, strict=True):
            check(a, b, counts)
        return
    assert len(notes) == 1, output
    at = notes[0]
    omitted = _count(ITEMS.match(output[at]).group(1))
    head, tail = output[:at], output[at + 1:]
    if tail and isinstance(tail[0], str) and RECORDS.match(tail[0]):
        # Records: stubs of the omitted items follow the header, each a part of its item
        # and maybe the lines it spans (a "..." member last): one for every item, or, "in
        # runs", one for each run's first item (the runs in order, the first one first).
        header = RECORDS.match(tail[0])
        assert _count(header.group(1)) == omitted
        in_runs = header.group(2) == "in runs:"
        stubs = []
        for value in tail[1:]:
            if not isinstance(value, Pairs) or len(stubs) == omitted or (
                    in_runs and not _names_lines(value)):
                break  # a run's stub always names its lines; a kept item never does
            stubs.append(value)
        if not in_runs:
            assert len(stubs) == omitted
        middle = original[len(head):len(head) + omitted]
        firsts = iter(middle)
        for stub in stubs:
            assert isinstance(stub, Pairs), stub
            fields = list(stub)[:-1] if _names_lines(stub) else list(stub)
            item = next(firsts) if not in_runs else next(
                i for i in firsts if isinstance(i, Pairs)
                and all({norm(k): v for k, v in i}.get(k, object()) == v for k, v in fields))
            assert isinstance(item, Pairs), (item, stub)
            whole = {norm(k): v for k, v in item}
            assert all(whole.get(k, object()) == v for k, v in fields), (item, stub)
            assert fields or len(stub) == 1, (item, stub)  # its fields, or its lines alone
        tail = tail[1 + len(stubs):]
    assert len(head) + len(tail) + omitted == len(original)
    for a, b in zip(original[:len(head)], head, strict=True):
        check(a, b, counts)
    for a, b in zip(original[len(original) - len(tail):], tail, strict=True):
        check(a, b, counts)
    counts["items"] += omitted


def _check_object(original: Pairs, output: Pairs, counts: dict[str, int]) -> None:
    if (len(output) == 1 and output[0][0] == "..." and isinstance(output[0][1], str)
            and DEPTH.match(output[0][1]) and original):
        m = DEPTH.match(output[0][1])
        assert m.group(2) == "key" and _count(m.group(1)) == len(original)
        counts["keys"] += len(original)
        return
    notes = [i for i, (k, v) in enumerate(output)
             if k == "..." and isinstance(v, str) and KEYS.match(v)]
    if not notes:
        assert [k for k, _ in output] == [norm(k) for k, _ in original]
        for (_, a), (_, b) in zip(original, output, strict=True):
            check(a, b, counts)
        return
    assert len(notes) == 1
    at = notes[0]
    omitted = _count(KEYS.match(output[at][1]).group(1))
    head, tail = output[:at], output[at + 1:]
    assert len(head) + len(tail) + omitted == len(original)
    for (ka, a), (kb, b) in zip(original[:len(head)], head, strict=True):
        assert norm(ka) == kb
        check(a, b, counts)
    for (ka, a), (kb, b) in zip(original[len(original) - len(tail):], tail, strict=True):
        assert norm(ka) == kb
        check(a, b, counts)
    counts["keys"] += omitted


def _names_lines(stub: Pairs) -> bool:
    """Whether *stub* ends with the member naming its item's lines (``"...": "lines N-M"``)."""
    return bool(stub) and stub[-1][0] == "..." and isinstance(stub[-1][1], str) and bool(
        STUB_LINES.match(stub[-1][1]))
