"""Fitting a parsed JSON value to a budget, keeping it valid JSON.

What is kept is decided by four knobs, applied to the whole document at once:

* ``items`` — an array with more items keeps its first and last ones (``head_ratio`` of them
  first) and, in place of the middle, one string item: ``"... 45 items omitted ..."``;
* ``chars`` — a longer string keeps its beginning and end with ``" ... [N chars omitted]
  ... "`` between them;
* ``keys`` — an object with more members keeps its first and last ones and one more
  member, ``"...": "N keys omitted"``;
* ``depth`` — an array or object nested deeper than this keeps only a note
  (``["... 12 items omitted (nested too deep) ..."]``).

The output must fit the budget in every unit, notes included. The losses are tried cheapest
first, each time keeping as much as fits (a binary search on one knob, the others fixed):

1. drop middle array items, down to the first and last item;
2. shorten long strings, down to :data:`MIN_STRING` characters;
3. drop object members, down to the first and last member;
4. or, if step 3 at its limit is not enough, keep every member but collapse deep
   subtrees instead, down to the children of the top-level value;
5. then the last resorts, in order: (2, 2, 16 chars, depth 1), (1, 1, 0 chars, depth 1),
   and a top-level value that is only a note; each also tried without indentation.

If nothing fits, :func:`fit` returns None and the caller falls back to a text strategy.

Values are the ones :func:`truncation_core.structured.sniff.parse` builds (lists, tuples of
pairs, str, :class:`~truncation_core.structured.sniff.RawNumber` ...) plus the partial nodes
that the streaming parser keeps (:class:`Window`, :class:`LongString`), whose middle was never
held in memory.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from itertools import islice
from json.encoder import encode_basestring
from typing import Any, NamedTuple

import attrs

from truncation_core.hooks.models import Budget, ElementKind, ElementOmission
from truncation_core.structured.sniff import RawNumber
from truncation_core.structured.writer import BudgetWriter, CutList, Overflow
from truncation_core.text.measure import utf8_size

__all__ = [
    "MIN_STRING",
    "Fitted",
    "Knobs",
    "LongString",
    "Note",
    "Style",
    "Window",
    "detect_style",
    "dump_string",
    "fit",
]

INF = sys.maxsize
#: Step 2 shortens strings down to this many kept characters.
MIN_STRING = 16

_SURROGATE = re.compile("[\ud800-\udfff]")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class Knobs(NamedTuple):
    """How much of each kind of content is kept (:data:`INF`: no limit)."""

    items: int
    keys: int
    chars: int
    depth: int


class Note(str):
    """A note placed in a value by a strategy (ranked): written as a string, never shortened."""

    __slots__ = ()


@attrs.frozen
class Window:
    """An array (or object, ``pairs=True``) of which only the first and last members are held.

    ``total`` counts every member of the original; ``head`` and ``tail`` never overlap.
    """

    head: Sequence[Any] = attrs.field(repr=False)  # content: never in a repr
    tail: Sequence[Any] = attrs.field(repr=False)
    total: int
    pairs: bool = False


@attrs.frozen
class LongString:
    """A string of which only the beginning and end are held; ``total`` is its length."""

    head: str = attrs.field(repr=False)  # content: never in a repr
    tail: str = attrs.field(repr=False)
    total: int


@attrs.frozen(kw_only=True)
class Style:
    """How the output is laid out: ``indent`` None for one line, else the indent unit."""

    indent: str | None = None
    item_sep: str = ", "
    key_sep: str = ": "

    @property
    def compact(self) -> Style:
        return Style(indent=None, item_sep=",", key_sep=":")


def detect_style(text: str, sniff: int = 2048) -> Style:
    """Lay the output out like the input: indented with the same unit, or on one line."""
    head = text[:sniff]
    start = len(head) - len(head.lstrip("\ufeff \t\r\n"))
    key_sep = ": " if '": ' in head else ":"
    if start < len(head) and head[start] in "[{":
        rest = head[start + 1:]
        stripped = rest.lstrip(" \t")
        if stripped[:1] in ("\n", "\r"):
            after = stripped.lstrip("\r\n")
            unit = after[: len(after) - len(after.lstrip(" \t"))]
            if unit:
                return Style(indent=unit[:8], item_sep=",", key_sep=key_sep)
    item_sep = ", " if (", " in head and key_sep == ": ") else ","
    return Style(indent=None, item_sep=item_sep, key_sep=key_sep)


def dump_string(value: str) -> str:
    """*value* as a JSON string literal; lone surrogates become ``\\udxxx`` escapes.

    Non-ASCII text stays as it is (escaping it would cost up to 6x the budget), but a lone
    surrogate cannot be encoded as UTF-8, so it is escaped and the output always encodes.
    """
    out = encode_basestring(value)
    if not value.isascii() and _SURROGATE.search(out):
        out = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", out)
    return out


def _split(kept: int, head_ratio: float) -> tuple[int, int]:
    """How many of *kept* members come from the beginning, and how many from the end."""
    if kept <= 0:
        return 0, 0
    if head_ratio >= 1:
        return kept, 0
    if head_ratio <= 0:
        return 0, kept
    head = min(kept - 1, max(1, round(kept * head_ratio))) if kept >= 2 else 1
    return head, kept - head


def _path_segment(key: Any) -> str:
    if isinstance(key, int):
        return f"[{key}]"
    if _IDENTIFIER.match(key):
        return "." + key
    return "[" + dump_string(key) + "]"


@attrs.frozen(kw_only=True)
class Fitted:
    """The output of :func:`fit`, and what it left out."""

    text: str = attrs.field(repr=False)  # content: never in a repr
    knobs: Knobs
    #: Totals by unit: ``items``, ``keys``, ``chars`` (of strings), ``containers`` (collapsed).
    omitted: dict[str, int]
    #: The first cuts (see :class:`~truncation_core.structured.writer.CutList`).
    cuts: list[dict[str, Any]]
    #: How many cuts there are in all.
    cut_count: int
    #: Whether the output is indented like the input (False when it had to be made compact).
    indented: bool


class _Renderer(BudgetWriter):
    """Writes one value under one set of knobs, stopping as soon as the budget is exceeded.

    Containers rendered without any cut are cached (keyed by identity and depth) with the
    largest array, object and string inside them and their height: a later trial whose knobs
    still cover those reuses the text instead of walking the subtree again.
    """

    def __init__(self, *, budget: Budget, style: Style, note: Callable[[ElementOmission], str],
                 head_ratio: float, knobs: Knobs, record: bool,
                 cache: dict[tuple[int, int], _Cached]) -> None:
        super().__init__(budget, count_lines=False)
        self.style = style
        self.note = note
        self.head_ratio = head_ratio
        self.knobs = knobs
        self.record = record
        self.cache = cache
        self.path: list[str] = ["$"]
        self.omitted = {"items": 0, "keys": 0, "chars": 0, "containers": 0}
        self.cuts = CutList()
        self.notes = 0
        #: Largest array, object and string, and height, of the container being written.
        self.stats = [0, 0, 0, 0]

    # -- output -------------------------------------------------------------------------------

    def newline(self, depth: int) -> None:
        if self.lines_left is not None:
            self.lines_left -= 1
            if self.lines_left < 0:
                raise Overflow
        self.put("\n" + self.style.indent * depth)  # type: ignore[operator]

    def omission(self, kind: ElementKind, count: int, total: int, unit: str) -> ElementOmission:
        element = ElementOmission(kind=kind, count=count, total=total, unit=unit,
                                  path="".join(self.path))
        self.notes += 1
        if self.record and kind != "json_key":
            self.cuts.add(element)
        return element

    # -- values -------------------------------------------------------------------------------

    def value(self, value: Any, depth: int) -> None:
        kind = type(value)
        if kind is str:
            if len(value) > self.stats[2]:
                self.stats[2] = len(value)
            if len(value) > self.knobs.chars:
                self.string(value, "", len(value))
            else:
                self.put(dump_string(value))
        elif kind is list or kind is tuple:
            self.container(value, kind is tuple, depth)
        elif kind is RawNumber:
            self.put(str.__str__(value))
        elif kind is Note:
            self.put(dump_string(str.__str__(value)))
        elif value is None:
            self.put("null")
        elif value is True:
            self.put("true")
        elif value is False:
            self.put("false")
        elif kind is int:
            self.put(int.__repr__(value))
        elif kind is Window:
            self.stats[0] = INF  # never cached: its middle is not held
            self.windowed(value.head, value.tail, value.total, depth, pairs=value.pairs)
        elif kind is LongString:
            self.stats[2] = INF
            self.string(value.head, value.tail, value.total)
        elif kind is float:  # only from values built in code: keep it JSON
            self.put(repr(value) if value == value and abs(value) != float("inf") else "null")
        else:  # Decimal from ijson, which stands for a token with a fraction or exponent
            text = str(value)
            # ijson normalises 1.5e+16 to Decimal('15000000000000000'): keep it a non-integer
            # token, so the kept value reads back with the type it had.
            self.put(text if any(c in text for c in ".eE") else text + ".0")

    def container(self, value: list[Any] | tuple[Any, ...], pairs: bool, depth: int) -> None:
        knobs = self.knobs
        parent = self.stats
        key = (id(value), depth)
        cached = self.cache.get(key)
        if cached is not None and cached.covered_by(knobs, depth):
            self.parts.append(cached.text)
            self.chars_left -= len(cached.text)
            if self.bytes_left is not None:
                self.bytes_left -= cached.bytes
            if self.lines_left is not None:
                self.lines_left -= cached.lines
            if self.chars_left < 0 or (self.bytes_left or 0) < 0 or (self.lines_left or 0) < 0:
                raise Overflow
            stats = cached.stats
        else:
            mark, notes = len(self.parts), self.notes
            self.stats = [0, 0, 0, 0]
            self.windowed(value, (), len(value), depth, pairs=pairs)
            stats = self.stats
            self.stats = parent
            stats[0 if not pairs else 1] = max(stats[0 if not pairs else 1], len(value))
            stats[3] += 1
            if self.notes == notes:
                text = "".join(self.parts[mark:])
                self.cache[key] = _Cached(text=text, bytes=utf8_size(text),
                                          lines=text.count("\n"), stats=tuple(stats))
        for i in range(3):
            if stats[i] > parent[i]:
                parent[i] = stats[i]
        if stats[3] > parent[3]:
            parent[3] = stats[3]

    def string(self, head: str, tail: str, total: int) -> None:
        """A string of *total* characters, of which *head* and *tail* are held.

        A complete string is held whole in *head* (and *tail* is empty).
        """
        complete = len(head) == total
        keep = min(self.knobs.chars, total if complete else len(head) + len(tail))
        if complete and keep >= total:
            self.put(dump_string(head))
            return
        first, last = _split(keep, self.head_ratio)
        if complete:
            front, back = head[:first], head[total - last:] if last else ""
        else:
            first, last = min(first, len(head)), min(last, len(tail))
            front, back = head[:first], tail[len(tail) - last:] if last else ""
        front, back = _no_split_pair(front, back)
        omitted = total - len(front) - len(back)
        self.omitted["chars"] += omitted
        note = self.note(self.omission("json_string", omitted, total, "chars"))
        self.put(dump_string(front + note + back))

    def collapsed(self, total: int, pairs: bool) -> None:
        self.omitted["containers"] += 1
        self.omitted["keys" if pairs else "items"] += total
        note = self.omission("json_depth", total, total, "keys" if pairs else "items")
        if pairs:
            self.put("{")
            self.note_member(note, pairs=True)
            self.put("}")
        else:
            self.put("[" + dump_string(self.note(note)) + "]")

    def windowed(self, head: Sequence[Any], tail: Sequence[Any], total: int, depth: int, *,
                 pairs: bool) -> None:
        """An array (or object: *pairs*) of *total* members, of which *head* and *tail* are
        held: as many as the knobs allow, with a note for the others."""
        if total == 0:
            self.put("{}" if pairs else "[]")
            return
        if depth >= self.knobs.depth:
            self.collapsed(total, pairs=pairs)
            return
        kind, unit = ("json_keys", "keys") if pairs else ("json_items", "items")
        limit = self.knobs.keys if pairs else self.knobs.items
        first, last = self.window(len(head), len(tail), total, limit)
        omitted = total - first - last
        note = None
        if omitted:
            self.omitted[unit] += omitted
            note = self.omission(kind, omitted, total, unit)
        self.members(head, tail, total, first, last, note, depth, pairs=pairs)

    def window(self, held_head: int, held_tail: int, total: int, limit: int) -> tuple[int, int]:
        """How many members to show from the beginning and from the end."""
        if not held_tail and held_head >= total:  # everything is held
            if total <= limit:
                return total, 0
            return _split(limit, self.head_ratio)
        first, last = _split(min(limit, held_head + held_tail), self.head_ratio)
        return min(first, held_head), min(last, held_tail)

    def members(self, head: Sequence[Any], tail: Sequence[Any], total: int, first: int,
                last: int, note: ElementOmission | None, depth: int, *, pairs: bool) -> None:
        """Write the first *first* and last *last* members, and *note* between them."""
        style = self.style
        indent = style.indent is not None
        path = self.path
        self.put("{" if pairs else "[")
        # (index in the original, member) for the members shown, in order.
        # Lazy: a write that overflows the budget stops early, and *first* may be large.
        shown = enumerate(islice(head, first) if first < total else head)
        ending: Any = ()
        if last:
            source, offset = (tail, len(tail) - last) if tail else (head, total - last)
            ending = ((total - last + j, source[offset + j]) for j in range(last))
        position = 0
        for part in (shown, None, ending):
            if part is None:
                if note is None:
                    continue
                if position:
                    self.put(style.item_sep)
                if indent:
                    self.newline(depth + 1)
                self.note_member(note, pairs)
                position += 1
                continue
            for index, member in part:
                if position:
                    self.put(style.item_sep)
                if indent:
                    self.newline(depth + 1)
                position += 1
                if pairs:
                    key, member = member
                    path.append(_path_segment(key))
                    self.put(dump_string(key) + style.key_sep)
                else:
                    path.append(f"[{index}]")
                self.value(member, depth + 1)
                path.pop()
        if indent:
            self.newline(depth)
        self.put("}" if pairs else "]")

    def note_member(self, note: ElementOmission, pairs: bool) -> None:
        text = dump_string(self.note(note))
        if pairs:
            key = self.note(attrs.evolve(note, kind="json_key"))
            self.put(dump_string(key) + self.style.key_sep + text)
        else:
            self.put(text)


@attrs.frozen
class _Cached:
    """A container written without cuts, and what it takes for that to hold again."""

    text: str = attrs.field(repr=False)  # content: never in a repr
    bytes: int
    lines: int
    #: Largest array, object and string inside it, and its height.
    stats: tuple[int, int, int, int]

    def covered_by(self, knobs: Knobs, depth: int) -> bool:
        items, keys, chars, height = self.stats
        return (items <= knobs.items and keys <= knobs.keys and chars <= knobs.chars
                and depth + height <= knobs.depth)


def _no_split_pair(front: str, back: str) -> tuple[str, str]:
    """Do not end *front* with half a surrogate pair, nor start *back* with the other half."""
    if front and "\ud800" <= front[-1] <= "\udbff":
        front = front[:-1]
    if back and "\udc00" <= back[0] <= "\udfff":
        back = back[1:]
    return front, back


def _render(value: Any, knobs: Knobs, *, budget: Budget, style: Style,
            note: Callable[[ElementOmission], str], head_ratio: float,
            cache: dict[tuple[int, int], _Cached], record: bool = False) -> _Renderer | None:
    renderer = _Renderer(budget=budget, style=style, note=note, head_ratio=head_ratio,
                         knobs=knobs, record=record, cache=cache)
    try:
        renderer.value(value, 0)
    except Overflow:
        return None
    return renderer


def _largest(lo: int, hi: int, fits: Callable[[int], bool]) -> int:
    """The largest x in [lo, hi] for which fits(x), given fits(lo)."""
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _ladder(budget: Budget, max_depth: int) -> list[tuple[Knobs, str | None, int, int]]:
    """The rungs: (fixed knobs, the knob searched on this rung, its lowest, its highest)."""
    chars = max(budget.chars, 1)
    depth = max(max_depth, 1)
    return [
        (Knobs(INF, INF, INF, depth), "items", 2, chars // 2 + 1),
        (Knobs(2, INF, INF, depth), "chars", MIN_STRING, chars),
        (Knobs(2, INF, MIN_STRING, depth), "keys", 2, chars // 4 + 1),
        (Knobs(2, INF, MIN_STRING, depth), "depth", 1, depth),
        (Knobs(2, 2, MIN_STRING, 1), None, 0, 0),
        (Knobs(1, 1, 0, 1), None, 0, 0),
        (Knobs(0, 0, 0, 0), None, 0, 0),
    ]


def fit(value: Any, *, budget: Budget, style: Style, note: Callable[[ElementOmission], str],
        head_ratio: float, max_depth: int) -> Fitted | None:
    """Fit *value* to *budget* as JSON, losing as little as the ladder above allows.

    *note* renders the text of one note (through ``format_marker``); it is called again for
    the same omission while fitting, so it should be cheap or cached. Returns None when even
    the top-level note does not fit.
    """
    depth = max(max_depth, 1)
    styles = [style] if style.indent is None else [style, style.compact]
    for layout in styles:
        cache: dict[tuple[int, int], _Cached] = {}

        def fits(knobs: Knobs, _layout: Style = layout,
                 _cache: dict[tuple[int, int], _Cached] = cache) -> bool:
            return _render(value, knobs, budget=budget, style=_layout, note=note,
                           head_ratio=head_ratio, cache=_cache) is not None

        full = Knobs(INF, INF, INF, depth)
        chosen: Knobs | None = full if fits(full) else None
        if chosen is None:
            for fixed, knob, lo, hi in _ladder(budget, depth):
                if knob is None:
                    if fits(fixed):
                        chosen = fixed
                        break
                    continue
                at_lowest = fixed._replace(**{knob: lo})
                if not fits(at_lowest):
                    continue
                best = _largest(lo, hi, lambda x, f=fixed, k=knob: fits(f._replace(**{k: x})))
                chosen = fixed._replace(**{knob: best})
                break
        if chosen is not None:
            final = _render(value, chosen, budget=budget, style=layout, note=note,
                            head_ratio=head_ratio, cache=cache, record=True)
            if final is not None:  # always: rendering is deterministic
                return Fitted(text="".join(final.parts), knobs=chosen, omitted=final.omitted,
                              cuts=final.cuts.listed, cut_count=final.cuts.count,
                              indented=layout.indent is not None)
    return None
