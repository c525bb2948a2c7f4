"""JSON records: the items of an array left out are still named, by their identifying fields.

``element`` keeps the first and last items of a long array and puts a note for the rest. When
the array holds records (objects: tasks, tables, issues, files), the item an agent needs next
often fell into ``"... 9 items omitted ..."``. So, for a top-level array of objects, the cut
keeps room for a **stub** of every omitted item, right after the note::

    [{"name": "skill_levels", ...}, "... 9 items omitted ...",
     "... the 9 items omitted, by name, rows ...", {"name": "roster_entries", "rows": 1},
     {"name": "players", "rows": 4}, ..., {"name": "events", ...}]

The output stays valid JSON. The **identifying fields** are found from the data, not from a
list of names: the members that at least half the items have, whose values are short scalars
(strings of at most :data:`MAX_VALUE_CHARS` characters, numbers, booleans), ranked by how
many distinct values they take across the items (an id or a name first, a status after), then
by how short they are. As many fields are shown as fit for every omitted item, in the room
the rest of the cut leaves: the text is fitted again with that room taken off, until the
stubs use it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_VALUE_CHARS", "identifying_fields", "with_records"]

#: A value longer than this is a description, not an identifier.
MAX_VALUE_CHARS = 80
#: The shares of the budget tried as room for the stubs, in order.
_ROOMS = (0.25, 0.4, 0.55)
#: Items at least; a field must be held by at least this share of them.
_MIN_ITEMS = 3
_COVERAGE = 0.5


def _is_record(item: Any) -> bool:
    return isinstance(item, tuple)  # objects parse as tuples of (key, value) pairs


def identifying_fields(items: list[Any]) -> list[str]:
    """The identifying fields of *items* (objects as tuples of pairs), best first."""
    values: dict[str, list[Any]] = {}
    for item in items:
        for key, value in item:
            if isinstance(key, str) and (
                    (isinstance(value, str) and len(value) <= MAX_VALUE_CHARS)
                    or isinstance(value, int | float) or value is None):
                values.setdefault(key, []).append(value)
    ranked = []
    for key, found in values.items():
        if len(found) < _COVERAGE * len(items):
            continue
        distinct = len({json.dumps(v) for v in found})
        if distinct < 2:
            continue  # the same in every item: identifies nothing
        mean = sum(len(json.dumps(v)) for v in found) / len(found)
        ranked.append((-distinct, mean, key))
    return [key for _, _, key in sorted(ranked)]


def _stub(item: Any, fields: list[str], key_sep: str, item_sep: str) -> str:
    members = dict(item)
    return "{" + item_sep.join(f"{json.dumps(k, ensure_ascii=False)}{key_sep}"
                           f"{json.dumps(members[k], ensure_ascii=False)}"
                           for k in fields if k in members) + "}"


def with_records(value: Any, fit: Callable[[int], str | None], budget_chars: int,
                 header: Callable[[int, list[str]], str], key_sep: str = ": ",
                 item_sep: str = ", ", indent: str | None = None) -> str | None:
    """The JSON text of *value* (a parsed top-level array) fitted by *fit* (given the
    characters it may take) with a stub for every item it leaves out, within
    *budget_chars*; None when *value* is no array of records, keeps every item, or the
    stubs do not fit (the caller keeps its plain fit)."""
    if not isinstance(value, list) or len(value) < _MIN_ITEMS or not all(
            _is_record(item) for item in value):
        return None
    # Each item, kept or stubbed, takes three characters at least ("{}" and a separator):
    # a longer array never gets its stubs, and finding its fields and building its stubs to
    # throw them away cost a 1 MB array of 6,500 records 0.5 s (a 10 MB stream 5 s), 30x
    # the plain cut (bench/bench_revisions.py, "element configured").
    if 3 * len(value) - 1 > budget_chars:
        return None
    fields = identifying_fields(value)
    if not fields:
        return None
    best: str | None = None
    for share in _ROOMS:
        room = int(budget_chars * share)
        text = fit(budget_chars - room)
        if text is None:
            return best
        seps = (key_sep, item_sep, indent)
        out = _insert(text, value, fields, budget_chars, header, seps)
        if out is not None:
            # Use the whole budget: fitted again in what the stubs leave, fewer items are
            # left out (and need stubs); kept when it still fits.
            again = fit(budget_chars - (len(out) - len(text)))
            fuller = (_insert(again, value, fields, budget_chars, header, seps)
                      if again is not None else None)
            return fuller if fuller is not None and len(fuller) >= len(out) else out
    return best


def _insert(text: str, value: list[Any], fields: list[str], budget_chars: int,
            header: Callable[[int, list[str]], str],
            seps: tuple[str, str, str | None]) -> str | None:
    """*text* with the stubs of the items it left out after its top-level note, the most
    fields that fit; None when it left none out or not even one field fits."""
    try:
        kept = json.loads(text)
    except ValueError:
        return None
    if not isinstance(kept, list):
        return None
    notes = [i for i, item in enumerate(kept) if isinstance(item, str)]  # items are records
    if len(notes) != 1:
        return None
    at = notes[0]
    after = len(kept) - at - 1
    omitted = value[at:len(value) - after]
    if not omitted:
        return None
    note = json.dumps(kept[at], ensure_ascii=False)
    where = text.find(note)
    if where < 0 or text.find(note, where + 1) >= 0:
        return None
    end = where + len(note)
    key_sep, item_sep, indent = seps
    # Laid out as the array's items are: one a line under the note when indented.
    between = item_sep + ("\n" + indent if indent else "")
    for count in range(len(fields), 0, -1):
        shown = fields[:count]
        stubs = between.join(_stub(item, shown, key_sep, item_sep) for item in omitted)
        insert = (between + json.dumps(header(len(omitted), shown), ensure_ascii=False)
                  + between + stubs)
        if len(text) + len(insert) <= budget_chars:
            return text[:end] + insert + text[end:]
    return None
