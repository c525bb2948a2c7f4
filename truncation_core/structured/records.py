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

When the document was printed one item a line apart (indented: ``json.dumps(indent=2)``,
``python -m json.tool``, most APIs' pretty output), each stub also names the lines of the
output its item spans, in one more member (:data:`LINES_KEY`, worded by the
``json_record_lines`` template)::

    {"name": "players", "rows": 4, "...": "lines 245-402"}

so that any field of an omitted item is one ``get_artifact`` call away, not only the fields
shown. When a stub for every item does not fit (hundreds of items), one stands for each run
of items within :data:`RUN_LINES` lines, by its first item (``json_record_runs`` words the
note before them): every omitted item is still within a named range of at most 100 lines.
The lines are found from the layout (:func:`item_lines`), checked against the parse: an item
count that differs, or a document on one line, names none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

__all__ = ["LINES_KEY", "MAX_VALUE_CHARS", "RUN_LINES", "identifying_fields", "item_lines", "runs",
           "with_records"]

#: A value longer than this is a description, not an identifier.
MAX_VALUE_CHARS = 80
#: The shares of the budget tried as room for the stubs, in order.
_ROOMS = (0.25, 0.4, 0.55)
#: Items at least; a field must be held by at least this share of them.
_MIN_ITEMS = 3
_COVERAGE = 0.5
#: The key of the stub's member that names the lines of its item (as ``json_key`` names the
#: members an object left out: the rest of the item is there).
LINES_KEY = "..."
#: When a stub for every item left out does not fit, one stands for each run of items
#: within this many lines (the widest range an outline names: a read of one call).
RUN_LINES = 100
_TERMINATORS = re.compile(r"\r\n|\r|\n")


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
        texts = [json.dumps(v) for v in found]
        distinct = len(set(texts))
        if distinct < 2:
            continue  # the same in every item: identifies nothing
        mean = sum(map(len, texts)) / len(texts)
        ranked.append((-distinct, mean, key))
    return [key for _, _, key in sorted(ranked)]


def item_lines(text: str, indent: str | None, count: int) -> list[tuple[int, int]] | None:
    """The first and last line (1-based, lines as the artifact counts them) of each of the
    *count* items of the top-level array that *text* prints indented by *indent*: an item
    starts on a line indented by one unit by its ``{``, and ends before the next one starts
    (the last, before the closing bracket), on a line ending with its ``}``. None when
    *text* is on one line, or its layout does not give exactly *count* items so (a mixed
    layout: then no line is named rather than a wrong one)."""
    if not indent or count <= 0 or ("\n" not in text and "\r" not in text):
        return None
    lines = _TERMINATORS.split(text)
    width = len(indent)
    # Each item is an object: it starts with its "{" and ends with its "}" (a value of an
    # item at the unit's indent and a "}, {" further on would give the count with every
    # range after them wrong).
    starts = [number for number, line in enumerate(lines, 1)
              if line.startswith(indent) and line[width:width + 1] == "{"]
    if len(starts) != count:
        return None
    last = len(lines)
    while last > 0 and not lines[last - 1].strip():
        last -= 1
    if last <= starts[-1] or not lines[last - 1].strip().startswith("]"):
        return None
    ends = [start - 1 for start in starts[1:]] + [last - 1]
    if not all(lines[end - 1].rstrip(" \t,").endswith("}") for end in ends):
        return None
    return list(zip(starts, ends, strict=True))


def _stub(item: Any, fields: list[str], key_sep: str, item_sep: str,
          lines: str | None = None) -> str:
    members = dict(item)
    shown = [f"{json.dumps(k, ensure_ascii=False)}{key_sep}"
             f"{json.dumps(members[k], ensure_ascii=False)}" for k in fields if k in members]
    if lines is not None:
        shown.append(f"{json.dumps(LINES_KEY)}{key_sep}{json.dumps(lines, ensure_ascii=False)}")
    return "{" + item_sep.join(shown) + "}"


#: An item, and what its stub says of where it is (None: nothing).
_Stubbed = Iterator[tuple[Any, str | None]]


def runs(spans: Sequence[tuple[int, int]], first: int, end: int,
         span: int = RUN_LINES) -> list[tuple[int, int]]:
    """Items *first* to *end* (exclusive) of an array whose items span the lines *spans*,
    grouped in runs of consecutive items spanning at most *span* lines together (an item
    longer than that alone): (first item, end) of each run."""
    out: list[tuple[int, int]] = []
    begin = first
    for index in range(first + 1, end + 1):
        if index == end or spans[index][1] - spans[begin][0] + 1 > span:
            out.append((begin, index))
            begin = index
    return out


def with_records(value: Any, fit: Callable[[int], str | None], budget_chars: int,
                 header: Callable[[int, list[str], bool], str], key_sep: str = ": ",
                 item_sep: str = ", ", indent: str | None = None,
                 spans: Sequence[tuple[int, int]] | None = None,
                 place: Callable[[int, int], str] | None = None) -> str | None:
    """The JSON text of *value* (a parsed top-level array) fitted by *fit* (given the
    characters it may take) with a stub for every item it leaves out, within
    *budget_chars*; None when *value* is no array of records, keeps every item, or the
    stubs do not fit (the caller keeps its plain fit).

    *spans*, the first and last line of each item of *value* in the output (see
    :func:`item_lines`), worded by *place*, say where the items are, in this order of
    preference: every stub names its item's lines; else (too many items) every stub names
    none; else a stub for each run of items within :data:`RUN_LINES` lines, by its first
    item, names the run's lines (*header* is told which, by its third argument)."""
    if not isinstance(value, list) or len(value) < _MIN_ITEMS or not all(
            _is_record(item) for item in value):
        return None
    # Each item, kept or stubbed, takes three characters at least ("{}" and a separator),
    # and each run of items, when they are stubbed in runs, that and the member naming its
    # lines: an array with more never gets its stubs, and finding its fields and building
    # its stubs to throw them away cost a 1 MB array of 6,500 records 0.5 s (a 10 MB
    # stream 5 s), 30x the plain cut (bench/bench_revisions.py, "element configured").
    if place is None or (spans is not None and len(spans) != len(value)):
        spans = None  # no wording for lines, or a layout that is not the parse's: none named
    fewest = 3 * len(value) - 1
    if spans is not None and place is not None:
        grouped_runs = runs(spans, 0, len(value))
        first, end = grouped_runs[0]
        member = (len(json.dumps(LINES_KEY)) + len(key_sep)
                  + len(json.dumps(place(spans[first][0], spans[end - 1][1]))))
        fewest = min(fewest, len(grouped_runs) * (3 + member + len(item_sep)) - 1)
    if fewest > budget_chars:
        return None
    fields = identifying_fields(value)
    if not fields:
        return None

    def bare(first: int, end: int) -> _Stubbed:
        return ((value[i], None) for i in range(first, end))

    ways: list[tuple[Callable[[int, int], _Stubbed], bool]] = [(bare, False)]
    if spans is not None and place is not None and LINES_KEY not in fields:
        lines = spans

        # Lazily: a try at the stubs stops where the budget ends (_insert).
        def each(first: int, end: int) -> _Stubbed:
            return ((value[i], place(*lines[i])) for i in range(first, end))

        def grouped(first: int, end: int) -> _Stubbed:
            return ((value[a], place(lines[a][0], lines[b - 1][1]))
                    for a, b in runs(lines, first, end))

        ways = [(each, False), (bare, False), (grouped, True)]
    seps = (key_sep, item_sep, indent)
    # The first way of stubbing that fits in any room tried.
    for stubbed, in_runs in ways:
        for share in _ROOMS:
            room = int(budget_chars * share)
            text = fit(budget_chars - room)
            if text is None:
                break
            out = _insert(text, value, fields, budget_chars, header, seps, stubbed, in_runs)
            if out is not None:
                # Use the whole budget: fitted again in what the stubs leave, fewer items
                # are left out (and need stubs); kept when it still fits.
                again = fit(budget_chars - (len(out) - len(text)))
                fuller = (_insert(again, value, fields, budget_chars, header, seps, stubbed,
                                  in_runs) if again is not None else None)
                return fuller if fuller is not None and len(fuller) >= len(out) else out
    return None


def _insert(text: str, value: list[Any], fields: list[str], budget_chars: int,
            header: Callable[[int, list[str], bool], str],
            seps: tuple[str, str, str | None],
            stubbed: Callable[[int, int], _Stubbed], in_runs: bool) -> str | None:
    """*text* with the stubs of the items it left out after its top-level note (made by
    *stubbed*, given the first omitted item and the end), the most fields that fit; None
    when it left none out or not even one field fits."""
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
    omitted = len(value) - after - at
    if omitted <= 0 or at + after == 0:
        # No item kept: the note is the array collapsed (nested too deep, or the last
        # resort), not the one before the middle: stubs after it would read as its items.
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
        lead = between + json.dumps(header(omitted, shown, in_runs), ensure_ascii=False)
        # Stubs are written only as far as they fit: a try that fails stops at the budget,
        # not after the last item (an array of 6,500 records wrote 200,000 stubs to drop).
        room = budget_chars - len(text) - len(lead)
        stubs: list[str] = []
        for item, lines in stubbed(at, len(value) - after):
            stub = _stub(item, shown, key_sep, item_sep, lines)
            room -= len(between) + len(stub)
            if room < 0:
                break
            stubs.append(stub)
        else:
            return text[:end] + lead + between + between.join(stubs) + text[end:]
    return None
