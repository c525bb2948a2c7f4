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
RECORDS = re.compile(r"\.\.\. the ([\d,]+ items?) omitted, by .* \.\.\.\Z", re.DOTALL)
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
        # Records: a stub of every omitted item follows the header, each a part of its item.
        assert _count(RECORDS.match(tail[0]).group(1)) == omitted
        stubs, tail = tail[1:1 + omitted], tail[1 + omitted:]
        assert len(stubs) == omitted
        for item, stub in zip(original[len(head):len(head) + omitted], stubs, strict=True):
            assert isinstance(item, Pairs) and isinstance(stub, Pairs), (item, stub)
            whole = {norm(k): v for k, v in item}
            assert stub and all(whole.get(k, object()) == v for k, v in stub), (item, stub)
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
