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

The trials are answered from sizes, not by writing the document again (about 15 trials a
cut). Each container is serialized once, bottom-up, with the statistics that say which knobs
would cut inside it (longest array, widest object, longest string, height); a trial sizes a
container from prefix sums over its members and only looks inside the members that its
knobs cut. Members are measured lazily, from each end of a container, as far as the trials
need them: a trial that is already over the budget stops. The output is then assembled once,
from the texts measured (see :class:`_Plan`).

Values are the ones :func:`truncation_core.structured.sniff.parse` builds (lists, tuples of
pairs, str, :class:`~truncation_core.structured.sniff.RawNumber` ...) plus the partial nodes
that the streaming parser keeps (:class:`Window`, :class:`LongString`), whose middle was never
held in memory.
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_right
from collections.abc import Callable, Sequence
from itertools import accumulate, islice
from json.encoder import encode_basestring
from typing import Any, NamedTuple

import attrs

from truncation_core.structured.sniff import RawNumber
from truncation_core.structured.writer import CutList
from truncation_core.text.measure import utf8_size
from truncation_core.types.cuts import ElementKind, ElementOmission
from truncation_core.types.models import Budget

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
        return "." + str(key)
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


# -- sizes ----------------------------------------------------------------------------------------
#
# A size is one int holding three counts: characters in the low bits, the UTF-8 bytes beyond one
# per character above them, newlines at the top. Sizes add up like the texts they measure, so
# one addition (and one prefix sum) counts every unit at once.

_FIELD = 40
_MASK = (1 << _FIELD) - 1
_NEWLINE = 1 << (2 * _FIELD)


class _Over(Exception):
    """The output being sized is already larger than the budget's characters."""


class _Unmeasured(Exception):
    """A value cannot be written whole, once for every trial: it holds a partial node (a
    :class:`Window`, a :class:`LongString`) or a container as deep as the depth limit, or it
    is larger than the budget. Trials size it from its members instead."""


#: Each statistic of a value that cannot be kept whole: larger than any knob.
_NEVER = INF + 1
#: The statistics of a container that is never measured whole.
_UNKNOWN = (_NEVER, _NEVER, _NEVER, _NEVER)
#: An array or object of at most this many members is measured whole from its beginning
#: (as far as the budget allows) when a trial first needs its end.
_SMALL = 64


def _escape_surrogates(text: str) -> str:
    """*text* with lone surrogates as ``\\udxxx`` escapes (they occur only inside strings)."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _scalar_text(value: Any) -> str:
    """The JSON text of a value that is neither a container, a ``str`` nor a partial node."""
    kind = type(value)
    if kind is RawNumber:
        return str.__str__(value)
    if kind is Note:
        return dump_string(str.__str__(value))
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float:  # only from values built in code: keep it JSON
        return repr(value) if value == value and abs(value) != float("inf") else "null"
    # Decimal from ijson, which stands for a token with a fraction or exponent. ijson
    # normalises 1.5e+16 to Decimal('15000000000000000'): keep it a non-integer token, so the
    # kept value reads back with the type it had.
    text = str(value)
    return text if any(c in text for c in ".eE") else text + ".0"


def _serializer(plan: _Plan) -> Callable[[Any, int], tuple[str, int, int, int, int, int]]:
    """The function that writes a whole container, as it is written when nothing in it is cut.

    ``serialize(value, depth)`` returns ``(text, items, keys, chars, height, depth)``: the
    text (lone surrogates not yet escaped), the longest array, the widest object and the
    longest string inside it (itself included), and its height (a non-empty container is one
    higher than its highest member; scalars and empty containers have height 0). It raises
    :class:`_Unmeasured` for a value that cannot be written whole. Every container is
    serialized at most once per plan: results, failures included, are kept in ``plan.memo``.
    """
    memo = plan.memo
    indent, item_sep, key_sep = plan.style.indent, plan.style.item_sep, plan.style.key_sep
    max_depth, limit = plan.max_depth, plan.limit
    frames: dict[int, tuple[str, str, str, dict[str, str]]] = {}
    encode = encode_basestring
    failed = (None, 0, 0, 0, 0)

    def frame(depth: int) -> tuple[str, str, str, dict[str, str]]:
        """Separator, opening and closing of a container at *depth*, and its key texts."""
        if indent is None:
            frames[depth] = (item_sep, "", "", {})
        else:
            inner = "\n" + indent * (depth + 1)
            frames[depth] = (item_sep + inner, inner, "\n" + indent * depth, {})
        return frames[depth]

    def serialize(value: Any, depth: int) -> tuple[str, int, int, int, int, int]:
        entry = memo.get(id(value))
        if entry is not None and entry[5] == depth:
            if entry[0] is None:
                raise _Unmeasured
            return entry
        pairs = type(value) is tuple
        if not value:
            return ("{}" if pairs else "[]"), 0, 0, 0, 0, depth
        plan.serialized += 1
        if depth >= max_depth:
            memo[id(value)] = (*failed, depth)
            raise _Unmeasured
        sep, first, last, key_texts = frames.get(depth) or frame(depth)
        items = keys = chars = height = used = 0
        parts: list[str] = []
        append = parts.append
        try:
            # The member loop is written out twice, for objects and for arrays, on purpose:
            # it runs once per member of the document, and a shared helper would cost a call
            # per member (bench/bench_small_json.py).
            if pairs:
                keys = len(value)
                for key, member in value:
                    key_text = key_texts.get(key)
                    if key_text is None:
                        key_text = key_texts[key] = sep + encode(key) + key_sep
                    append(key_text)
                    kind = type(member)
                    if kind is str:
                        if len(member) > chars:
                            chars = len(member)
                        append(encode(member))
                    elif kind is int:
                        append(int.__repr__(member))
                    elif kind is tuple or kind is list:
                        entry = serialize(member, depth + 1)
                        text = entry[0]
                        if entry[1] > items:
                            items = entry[1]
                        if entry[2] > keys:
                            keys = entry[2]
                        if entry[3] > chars:
                            chars = entry[3]
                        if entry[4] > height:
                            height = entry[4]
                        used += len(text)
                        if used > limit:
                            raise _Unmeasured
                        append(text)
                    elif kind is RawNumber:
                        append(str.__str__(member))
                    elif member is None:
                        append("null")
                    elif member is True:
                        append("true")
                    elif member is False:
                        append("false")
                    elif kind is Window or kind is LongString:
                        raise _Unmeasured
                    else:
                        append(_scalar_text(member))
                parts[0] = parts[0][len(sep):]
                text = "{" + first + "".join(parts) + last + "}"
            else:
                items = len(value)
                for member in value:
                    kind = type(member)
                    if kind is str:
                        if len(member) > chars:
                            chars = len(member)
                        append(encode(member))
                    elif kind is int:
                        append(int.__repr__(member))
                    elif kind is tuple or kind is list:
                        entry = serialize(member, depth + 1)
                        text = entry[0]
                        if entry[1] > items:
                            items = entry[1]
                        if entry[2] > keys:
                            keys = entry[2]
                        if entry[3] > chars:
                            chars = entry[3]
                        if entry[4] > height:
                            height = entry[4]
                        used += len(text)
                        if used > limit:
                            raise _Unmeasured
                        append(text)
                    elif kind is RawNumber:
                        append(str.__str__(member))
                    elif member is None:
                        append("null")
                    elif member is True:
                        append("true")
                    elif member is False:
                        append("false")
                    elif kind is Window or kind is LongString:
                        raise _Unmeasured
                    else:
                        append(_scalar_text(member))
                text = "[" + first + sep.join(parts) + last + "]"
        except _Unmeasured:
            memo[id(value)] = (*failed, depth)
            raise
        if len(text) > limit:
            memo[id(value)] = (*failed, depth)
            raise _Unmeasured
        entry = memo[id(value)] = (text, items, keys, chars, height + 1, depth)
        return entry

    return serialize


def _released(value: Any, depth: int) -> tuple[str, int, int, int, int, int]:
    raise RuntimeError("the plan was released")


class _Side:
    """The members of a container measured from one end, in order from that end: their
    texts (None for a member that cannot be kept whole), prefix sums of their sizes, and
    their statistics (see :func:`_serializer`): by member, the largest so far, and prefix
    maxima built when a trial needs them."""

    __slots__ = ("maxima", "stats", "sums", "texts", "top")

    def __init__(self) -> None:
        self.texts: list[str | None] = []
        self.sums = [0]
        #: Items, keys, chars and height of each member.
        self.stats: tuple[list[int], list[int], list[int], list[int]] = ([], [], [], [])
        #: The largest of each statistic.
        self.top = [0, 0, 0, 0]
        #: Prefix maxima of each statistic (``[0]`` is 0), up to date for as many members
        #: as they are long.
        self.maxima: list[list[int] | None] = [None, None, None, None]

    def add(self, texts: list[str | None], sizes: list[int],
            stats: tuple[list[int], list[int], list[int], list[int]]) -> None:
        self.texts += texts
        sums = self.sums
        total = sums[-1]
        for size in sizes:
            total += size
            sums.append(total)
        top = self.top
        for s in range(4):
            values = stats[s]
            self.stats[s].extend(values)
            if values:
                largest = max(values)
                if largest > top[s]:
                    top[s] = largest

    def covered_prefix(self, count: int, limits: tuple[int, int, int, int]) -> int:
        """How many of the first *count* measured members are kept whole under *limits*
        (items, keys, chars, height), in a row."""
        top = self.top
        if (top[0] <= limits[0] and top[1] <= limits[1] and top[2] <= limits[2]
                and top[3] <= limits[3]):
            return count
        end = count
        for s in range(4):
            limit = limits[s]
            if top[s] > limit:
                maxima = self.maxima[s]
                if maxima is None:
                    maxima = self.maxima[s] = [0]
                if len(maxima) <= end:
                    maxima += islice(accumulate(islice(self.stats[s], len(maxima) - 1, None),
                                                max, initial=maxima[-1]), 1, None)
                if maxima[end] > limit:
                    end = bisect_right(maxima, limit, 0, end + 1) - 1
        return end

    def covered(self, index: int, limits: tuple[int, int, int, int]) -> bool:
        items, keys, chars, height = self.stats
        return (items[index] <= limits[0] and keys[index] <= limits[1]
                and chars[index] <= limits[2] and height[index] <= limits[3])


class _Box:
    """An array or object (or a :class:`Window` of one) that some trial cuts inside.

    Its members are measured lazily, from the beginning (``front``) and from the end
    (``back``), as trials need them: a trial that keeps the first 20 members of an array of
    a million measures about 20, and stops as soon as what it keeps is larger than the budget.
    A member measured from one end is not measured again from the other.
    """

    __slots__ = ("back", "children", "depth", "front", "head", "over", "pairs", "path",
                 "pending", "plan", "sized", "stats", "tail", "total")

    def __init__(self, plan: _Plan, value: Any, depth: int, path: str,
                 stats: tuple[int, int, int, int] | None = None) -> None:
        self.plan = plan
        self.depth = depth
        self.path = path
        #: The container's statistics when it was measured whole (see :func:`_serializer`),
        #: its sizes by the knobs that matter to it (:meth:`size`), and the largest room
        #: a trial found it over.
        self.stats = stats
        self.sized: dict[tuple[int, int, int, int], int] = {}
        self.over: dict[tuple[int, int, int, int], int] = {}
        #: Once every member is measured: the measured members' statistics, and the indices
        #: of those that could not be measured whole (see :meth:`measured_stats`).
        self.pending: tuple[list[int], list[int]] | None = None
        self.head: Sequence[Any]
        self.tail: Sequence[Any]
        if type(value) is Window:
            self.head, self.tail, self.total = value.head, value.tail, value.total
            self.pairs = value.pairs
        else:
            self.head, self.tail, self.total = value, (), len(value)
            self.pairs = type(value) is tuple
        self.front = _Side()
        self.back = _Side()
        #: The members cut inside, by index in the original (see :meth:`_child`).
        self.children: dict[int, tuple[str, int, str, Any, _Box | None]] = {}

    # -- measuring ------------------------------------------------------------------------------

    def extend(self, front: bool, count: int, room: int) -> None:
        """Measure members from one end until *count* are measured, or until those newly
        measured are larger than *room* characters (the trial needs no more then); at least
        one more is measured."""
        side, other = (self.front, self.back) if front else (self.back, self.front)
        start = len(side.texts)
        if count <= start:
            return
        # From this end, the first member that the other end has measured already (the two
        # ends of an array held whole are the same sequence).
        shared = self.total - len(other.texts) if not self.tail else INF
        if start < shared:
            end = min(count, shared, start + max(room, 0) + 1)
            if front:
                values = self.head[start:end]
            elif self.tail:
                values = self.tail[len(self.tail) - end:len(self.tail) - start][::-1]
            else:
                values = self.head[self.total - end:self.total - start][::-1]
            side.add(*self.plan.measure(values, self.pairs, self.depth + 1, room))
        have = len(side.texts)
        if have >= shared and count > have:
            take = range(self.total - 1 - have, self.total - 1 - count, -1)
            side.add([other.texts[j] for j in take],
                     [other.sums[j + 1] - other.sums[j] for j in take],
                     tuple([stat[j] for j in take] for stat in other.stats))  # type: ignore[arg-type]

    def member(self, front: bool, i: int) -> tuple[int, Any]:
        """(index in the original, member) of the *i*-th member from one end."""
        if front:
            return i, self.head[i]
        if self.tail:
            return self.total - 1 - i, self.tail[len(self.tail) - 1 - i]
        return self.total - 1 - i, self.head[self.total - 1 - i]

    def window(self, limit: int) -> tuple[int, int]:
        """How many members to show from the beginning and from the end."""
        held_head, held_tail = len(self.head), len(self.tail)
        if not held_tail and held_head >= self.total:  # everything is held
            if self.total <= limit:
                return self.total, 0
            return _split(limit, self.plan.head_ratio)
        first, last = _split(min(limit, held_head + held_tail), self.plan.head_ratio)
        return min(first, held_head), min(last, held_tail)

    # -- sizing a trial -------------------------------------------------------------------------

    def size(self, knobs: Knobs, room: int) -> int:
        """The size of this container cut by *knobs*; raises :class:`_Over` as soon as it is
        larger than *room* characters."""
        plan = self.plan
        if not self.total:
            return 2
        if self.depth >= knobs.depth:
            return plan.size_of(plan.collapsed(self.total, self.pairs, self.path, False))
        stats = self.stats
        if stats is None:
            stats = self.measured_stats()
            if stats is None:
                return self.compute(knobs, room)
            self.stats = stats
        elif stats is _UNKNOWN:
            return self.compute(knobs, room)
        # Knobs beyond what the container holds cut the same: its size under the knobs
        # clipped to its statistics is its size under these. A trial that stopped because it
        # was over *room* leaves that as a lower bound.
        key = (min(knobs.items, stats[0]), min(knobs.keys, stats[1]),
               min(knobs.chars, stats[2]), min(knobs.depth - self.depth, stats[3]))
        size = self.sized.get(key)
        if size is None:
            if room <= self.over.get(key, -1):
                raise _Over
            try:
                size = self.sized[key] = self.compute(knobs, room)
            except _Over:
                self.over[key] = room
                raise
        if size & _MASK > room:
            raise _Over
        return size

    def measured_stats(self) -> tuple[int, int, int, int] | None:
        """The container's statistics from its members', once every member is measured (a
        member that could not be measured whole counts by its own box's, once known); None
        while they are not known yet."""
        if self.depth >= self.plan.max_depth:  # collapsed in every trial
            return (0, 0, 0, 1)
        front, back = self.front, self.back
        if self.tail or len(front.texts) + len(back.texts) < self.total:
            return None
        if self.pending is None:  # complete: the measured members' statistics, once
            tops = [max(a, b) for a, b in zip(front.top, back.top, strict=True)]
            pending: list[int] = []
            if tops[0] == _NEVER:
                for from_front, side in ((True, front), (False, back)):
                    pending += [i if from_front else self.total - 1 - i
                                for i, text in enumerate(side.texts) if text is None]
                tops = [max((v for v in front.stats[s] + back.stats[s] if v != _NEVER),
                            default=0) for s in range(4)]
            self.pending = (tops, sorted(set(pending)))
        tops, pending = self.pending
        for index in pending:
            entry = self.children.get(index)
            if entry is None:  # not sized yet
                return None
            box = entry[4]
            if box is None or box.stats is _UNKNOWN:  # a partial string; never known
                self.stats = _UNKNOWN
                return None
            if box.stats is None:
                return None
            tops = [max(a, b) for a, b in zip(tops, box.stats, strict=True)]
        return (max(tops[0], 0 if self.pairs else self.total),
                max(tops[1], self.total if self.pairs else 0), tops[2], tops[3] + 1)

    def compute(self, knobs: Knobs, room: int) -> int:
        """:meth:`size`, computed."""
        plan = self.plan
        first, last = self.window(knobs.keys if self.pairs else knobs.items)
        omitted = self.total - first - last
        size = plan.frame_size(self.depth, first + last + (1 if omitted else 0))
        if size & _MASK > room:
            raise _Over
        size += self.range(True, first, knobs, room - (size & _MASK))
        if last:
            size += self.range(False, last, knobs, room - (size & _MASK))
        if omitted:  # last: a trial already too large never asks for the note's text
            size += plan.size_of(plan.note_member(omitted, self.total, self.pairs, self.path,
                                                  False))
        return size

    def range(self, front: bool, count: int, knobs: Knobs, room: int) -> int:
        """The size of the first *count* members from one end, cut by *knobs* (separators
        are the caller's)."""
        if not count:
            return 0
        if not front and self.whole_front():
            return self.end(count, knobs, room)
        side = self.front if front else self.back
        limits = (knobs.items, knobs.keys, knobs.chars, knobs.depth - self.depth - 1)
        measured = len(side.texts)
        if measured >= count:
            covered = side.covered_prefix(count, limits)
        else:
            covered = side.covered_prefix(measured, limits)
            if side.sums[covered] & _MASK > room:  # too large already: measure no more
                raise _Over
            if covered < measured:
                self.extend(front, count, room)
            else:  # all measured are kept whole: they count against the room
                self.extend(front, count, room - (side.sums[measured] & _MASK))
                covered = side.covered_prefix(min(count, len(side.texts)), limits)
        size = side.sums[covered]
        if size & _MASK > room:
            raise _Over
        i = covered
        while i < count:
            if i >= len(side.texts):
                self.extend(front, i + 1, room - (size & _MASK))
            if side.covered(i, limits):
                size += side.sums[i + 1] - side.sums[i]
            else:
                size += self.child(front, i, knobs, room - (size & _MASK), None)
            if size & _MASK > room:
                raise _Over
            i += 1
        return size

    def whole_front(self) -> bool:
        """Whether every member is measured from the beginning: measure a small array or
        object whole (as far as the budget allows) when a trial first needs its end."""
        if self.tail or self.total > _SMALL:
            return False
        if len(self.front.texts) < self.total:
            self.extend(True, self.total, self.plan.limit)
        return len(self.front.texts) == self.total

    def end(self, count: int, knobs: Knobs, room: int) -> int:
        """The size of the last *count* members, from the measurements from the beginning."""
        limits_items, limits_keys, limits_chars = knobs.items, knobs.keys, knobs.chars
        limits_height = knobs.depth - self.depth - 1
        sums = self.front.sums
        top = self.front.top
        if (top[0] <= limits_items and top[1] <= limits_keys and top[2] <= limits_chars
                and top[3] <= limits_height):  # nothing is cut inside any member
            size = sums[self.total] - sums[self.total - count]
            if size & _MASK > room:
                raise _Over
            return size
        items, keys, chars, height = self.front.stats
        size = 0
        for j in range(self.total - count, self.total):
            if (items[j] <= limits_items and keys[j] <= limits_keys and chars[j] <= limits_chars
                    and height[j] <= limits_height):
                size += sums[j + 1] - sums[j]
            else:
                size += self.child(True, j, knobs, room - (size & _MASK), None)
            if size & _MASK > room:
                raise _Over
        return size

    def child(self, front: bool, i: int, knobs: Knobs, room: int, out: list[str] | None) -> int:
        """The *i*-th member from one end, cut inside by *knobs*: its size, and with *out*,
        its text written there."""
        index = i if front else self.total - 1 - i
        entry = self.children.get(index)
        if entry is None:
            entry = self.children[index] = self._child(front, i)
        key_text, key_size, path, value, box = entry
        if out is not None:
            if key_text:
                out.append(key_text)
            if box is not None:
                box.render(knobs, out)
            else:
                self.plan.leaf(value, knobs, path, out)
            return 0
        if box is not None:
            return key_size + box.size(knobs, room - (key_size & _MASK))
        return key_size + self.plan.leaf(value, knobs, path)

    def _child(self, front: bool, i: int) -> tuple[str, int, str, Any, _Box | None]:
        """(key text, its size, path, value, box if a container) of a member cut inside."""
        index, value = self.member(front, i)
        key_text, key_size = "", 0
        if self.pairs:
            key, value = value
            key_text = self.plan.key_text(key)
            key_size = self.plan.size_of(key_text)
            path = self.path + _path_segment(key)
        else:
            path = f"{self.path}[{index}]"
        kind = type(value)
        box = None
        if kind is list or kind is tuple or kind is Window:
            side = self.front if front else self.back
            stats = (side.stats[0][i], side.stats[1][i], side.stats[2][i], side.stats[3][i])
            box = _Box(self.plan, value, self.depth + 1, path,
                       stats if stats[0] != _NEVER else None)
        return key_text, key_size, path, value, box

    # -- the final rendering --------------------------------------------------------------------

    def render(self, knobs: Knobs, out: list[str]) -> None:
        """Write this container cut by *knobs* to *out*, recording its cuts."""
        plan = self.plan
        pairs = self.pairs
        if not self.total:
            out.append("{}" if pairs else "[]")
            return
        if self.depth >= knobs.depth:
            out.append(plan.collapsed(self.total, pairs, self.path, True))
            return
        first, last = self.window(knobs.keys if pairs else knobs.items)
        omitted = self.total - first - last
        note = plan.note_member(omitted, self.total, pairs, self.path, True) if omitted else ""
        opening, following = plan.prefixes(self.depth)
        limits = (knobs.items, knobs.keys, knobs.chars, knobs.depth - self.depth - 1)
        out.append("{" if pairs else "[")
        for i in range(first):
            if i >= len(self.front.texts):
                self.extend(True, first, INF)
            out.append(following if i else opening)
            if self.front.covered(i, limits):
                out.append(self.front.texts[i])  # type: ignore[arg-type]
            else:
                self.child(True, i, knobs, INF, out)
        if note:
            out.append(following if first else opening)
            out.append(note)
        if last and self.whole_front():
            for j in range(self.total - last, self.total):
                out.append(following if first or note or j > self.total - last else opening)
                if self.front.covered(j, limits):
                    out.append(self.front.texts[j])  # type: ignore[arg-type]
                else:
                    self.child(True, j, knobs, INF, out)
        else:
            while len(self.back.texts) < last:
                self.extend(False, last, INF)
            for i in range(last - 1, -1, -1):
                out.append(following if first or note or i < last - 1 else opening)
                if self.back.covered(i, limits):
                    out.append(self.back.texts[i])  # type: ignore[arg-type]
                else:
                    self.child(False, i, knobs, INF, out)
        out.append(plan.closing(self.depth))
        out.append("}" if pairs else "]")


class _Plan:
    """One document in one layout: what is measured of it, the trials, the final rendering.

    :meth:`fits` answers a trial from sizes: members measured once (by :func:`_serializer`
    and :meth:`_Box.extend`), prefix sums over them, and only what the knobs cut inside is
    sized again (each :class:`_Box` keeps its sizes by the knobs that matter to it).
    :meth:`render` writes the output once, from the texts already measured. :meth:`release`
    drops the boxes and the serializer when the cut is done.
    """

    def __init__(self, value: Any, *, budget: Budget, style: Style,
                 note: Callable[[ElementOmission], str], head_ratio: float,
                 max_depth: int) -> None:
        self.value = value
        self.budget = budget
        self.style = style
        self.note = note
        self.head_ratio = head_ratio
        self.max_depth = max_depth
        #: A container longer than this is never kept whole: it is not serialized whole.
        self.limit = max(budget.chars, 0)
        self.count_bytes = budget.bytes is not None
        self.count_lines = budget.lines is not None and style.indent is not None
        self.memo: dict[int, tuple[Any, int, int, int, int, int]] = {}
        #: How many containers were serialized (each at most once), and how many times the
        #: output was rendered (once): for tests.
        self.serialized = 0
        self.rendered = 0
        self.serialize = _serializer(self)
        self.notes: dict[tuple[str, int, int, str, str], str] = {}
        self.key_texts: dict[str, str] = {}
        self.frames: dict[int, tuple[int, int, str, str, str]] = {}
        self.sep_size = self.size_of(style.item_sep)
        self.root = (_Box(self, value, 0, "$") if type(value) in (list, tuple, Window)
                     else None)
        self.omitted = {"items": 0, "keys": 0, "chars": 0, "containers": 0}
        self.cuts = CutList()

    # -- texts and their sizes ------------------------------------------------------------------

    def size_of(self, text: str) -> int:
        size = len(text)
        if self.count_bytes and not text.isascii():
            size += (utf8_size(text) - len(text)) << _FIELD
        if self.count_lines:
            size += text.count("\n") * _NEWLINE
        return size

    def admits(self, size: int) -> bool:
        chars = size & _MASK
        budget = self.budget
        return (chars <= budget.chars
                and (budget.bytes is None or chars + ((size >> _FIELD) & _MASK) <= budget.bytes)
                and (budget.lines is None or size >> (2 * _FIELD) <= budget.lines - 1))

    def key_text(self, key: str) -> str:
        text = self.key_texts.get(key)
        if text is None:
            text = self.key_texts[key] = dump_string(key) + self.style.key_sep
        return text

    def _frame(self, depth: int) -> tuple[int, int, str, str, str]:
        indent, sep = self.style.indent, self.style.item_sep
        if indent is None:
            frame = (0, 0, "", sep, "")
        else:
            inner, outer = "\n" + indent * (depth + 1), "\n" + indent * depth
            frame = (self.size_of(inner), self.size_of(outer), inner, sep + inner, outer)
        self.frames[depth] = frame
        return frame

    def frame_size(self, depth: int, shown: int) -> int:
        """The size of brackets, separators and newlines of a container showing *shown*."""
        inner, outer, _, _, _ = self.frames.get(depth) or self._frame(depth)
        return 2 + (shown - 1) * self.sep_size + shown * inner + outer

    def prefixes(self, depth: int) -> tuple[str, str]:
        """What goes before the first member of a container at *depth*, and before the others."""
        frame = self.frames.get(depth) or self._frame(depth)
        return frame[2], frame[3]

    def closing(self, depth: int) -> str:
        return (self.frames.get(depth) or self._frame(depth))[4]

    def measure(self, values: Sequence[Any], pairs: bool, depth: int, room: int,
                ) -> tuple[list[str | None], list[int],
                           tuple[list[int], list[int], list[int], list[int]]]:
        """Texts, sizes and statistics of *values* (members at *depth*, ``(key, value)``
        pairs if *pairs*), until they add up to more than *room* characters."""
        texts: list[str | None] = []
        sizes: list[int] = []
        items: list[int] = []
        keys: list[int] = []
        chars: list[int] = []
        heights: list[int] = []
        serialize, size_of, key_text = self.serialize, self.size_of, self.key_text
        plain = not (self.count_bytes or self.count_lines)
        spent = 0
        key = ""
        for value in values:
            if pairs:
                key, value = value
            kind = type(value)
            stats: tuple[int, ...]
            try:
                if kind is str:
                    text, stats = encode_basestring(value), (0, 0, len(value), 0)
                elif kind is list or kind is tuple:
                    entry = serialize(value, depth)
                    text, stats = entry[0], entry[1:5]
                elif kind is Window or kind is LongString:
                    raise _Unmeasured
                else:
                    text, stats = _scalar_text(value), (0, 0, 0, 0)
            except _Unmeasured:  # stop here: the trial sizes it inside first
                texts.append(None)
                sizes.append(0)
                items.append(_NEVER)
                keys.append(_NEVER)
                chars.append(_NEVER)
                heights.append(_NEVER)
                break
            if not text.isascii():
                text = _escape_surrogates(text)
            if pairs:
                text = key_text(key) + text
            texts.append(text)
            sizes.append(len(text) if plain else size_of(text))
            items.append(stats[0])
            keys.append(stats[1])
            chars.append(stats[2])
            heights.append(stats[3])
            spent += len(text)
            if spent > room:
                break
        return texts, sizes, (items, keys, chars, heights)

    # -- notes ----------------------------------------------------------------------------------

    def note_text(self, kind: ElementKind, count: int, total: int, unit: str, path: str,
                  record: bool) -> str:
        """The text of a note, through ``format_marker`` once per distinct note; recorded in
        the cuts when *record* (the final rendering)."""
        key = (kind, count, total, unit, path)
        text = self.notes.get(key)
        if text is None or record:
            element = ElementOmission(kind=kind, count=count, total=total, unit=unit, path=path)
            if text is None:
                text = self.notes[key] = self.note(element)
            if record and kind != "json_key":
                self.cuts.add(element)
        return text

    def note_member(self, omitted: int, total: int, pairs: bool, path: str,
                    record: bool) -> str:
        """The member standing for *omitted* members: a string item, or a ``"...": ...``
        member."""
        unit = "keys" if pairs else "items"
        if record:
            self.omitted[unit] += omitted
        text = dump_string(self.note_text("json_keys" if pairs else "json_items", omitted,
                                          total, unit, path, record))
        if not pairs:
            return text
        key = self.note_text("json_key", omitted, total, unit, path, record)
        return dump_string(key) + self.style.key_sep + text

    def collapsed(self, total: int, pairs: bool, path: str, record: bool) -> str:
        """A container nested too deep: only a note, in brackets of its type."""
        unit = "keys" if pairs else "items"
        if record:
            self.omitted["containers"] += 1
            self.omitted[unit] += total
        text = dump_string(self.note_text("json_depth", total, total, unit, path, record))
        if not pairs:
            return "[" + text + "]"
        key = self.note_text("json_key", total, total, unit, path, record)
        return "{" + dump_string(key) + self.style.key_sep + text + "}"

    # -- leaves ---------------------------------------------------------------------------------

    def leaf(self, value: Any, knobs: Knobs, path: str, out: list[str] | None = None) -> int:
        """A value that is not a container, cut by *knobs*: its size, and with *out*, its
        text written there (and its cut recorded)."""
        kind = type(value)
        if kind is str:
            if len(value) > knobs.chars:
                text = self.cut_string(value, "", len(value), knobs.chars, path, out is not None)
            else:
                text = dump_string(value)
        elif kind is LongString:
            text = self.cut_string(value.head, value.tail, value.total, knobs.chars, path,
                                   out is not None)
        else:
            text = _scalar_text(value)
        if out is not None:
            out.append(text)
        return self.size_of(text)

    def cut_string(self, head: str, tail: str, total: int, chars: int, path: str,
                   record: bool) -> str:
        """A string of *total* characters, of which *head* and *tail* are held, kept to
        *chars* characters. A complete string is held whole in *head* (and *tail* is empty)."""
        complete = len(head) == total
        keep = min(chars, total if complete else len(head) + len(tail))
        if complete and keep >= total:
            return dump_string(head)
        first, last = _split(keep, self.head_ratio)
        if complete:
            front, back = head[:first], head[total - last:] if last else ""
        else:
            first, last = min(first, len(head)), min(last, len(tail))
            front, back = head[:first], tail[len(tail) - last:] if last else ""
        front, back = _no_split_pair(front, back)
        omitted = total - len(front) - len(back)
        if complete:
            # A note as long as what it stands for saves nothing and hides the value (a
            # 27-character script of a package.json became 45 characters, unreadable).
            note = self.note_text("json_string", omitted, total, "chars", path, False)
            if len(front) + len(note) + len(back) >= total:
                # Weighed as written: a middle of escapes or of wide characters costs more
                # than its characters, and the note then saves it. In both units, whatever
                # the budget counts: a cut depends on its knobs alone (tests/structured/
                # test_json_one_pass.py renders a trial's knobs without the budget).
                whole, shortened = dump_string(head), dump_string(front + note + back)
                if len(whole) <= len(shortened) and utf8_size(whole) <= utf8_size(shortened):
                    return whole
        if record:
            self.omitted["chars"] += omitted
        return dump_string(front + self.note_text("json_string", omitted, total, "chars", path,
                                                  record) + back)

    # -- trials and the output ------------------------------------------------------------------

    def fits(self, knobs: Knobs) -> bool:
        """Whether the document cut by *knobs* fits the budget in every unit."""
        try:
            if self.root is not None:
                size = self.root.size(knobs, self.budget.chars)
            else:
                size = self.leaf(self.value, knobs, "$")
        except _Over:
            return False
        return self.admits(size)

    def release(self) -> None:
        """Drop what refers back to the plan (its boxes, its serializer), so that reference
        counting frees it as soon as the caller does: the collector may be paused for the
        whole cut, and would otherwise keep every text measured until it runs."""
        self.root = None
        # The serializer is a recursive closure: it refers to itself through one of its
        # cells, and through them to the plan and its memo. Emptying the cells ends the cycle.
        for cell in getattr(self.serialize, "__closure__", None) or ():
            cell.cell_contents = None
        self.serialize = _released

    def render(self, knobs: Knobs) -> Fitted:
        """The output under *knobs* (which fit), written once, with its cuts."""
        self.rendered += 1
        out: list[str] = []
        if self.root is not None:
            self.root.render(knobs, out)
        else:
            self.leaf(self.value, knobs, "$", out)
        return Fitted(text="".join(out), knobs=knobs, omitted=self.omitted,
                      cuts=self.cuts.listed, cut_count=self.cuts.count,
                      indented=self.style.indent is not None)


def _no_split_pair(front: str, back: str) -> tuple[str, str]:
    """Do not end *front* with half a surrogate pair, nor start *back* with the other half."""
    if front and "\ud800" <= front[-1] <= "\udbff":
        front = front[:-1]
    if back and "\udc00" <= back[0] <= "\udfff":
        back = back[1:]
    return front, back


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

    *note* renders the text of one note (through ``format_marker``); it is called once per
    distinct note. Returns None when even the top-level note does not fit.
    """
    depth = max(max_depth, 1)
    styles = [style] if style.indent is None else [style, style.compact]
    for layout in styles:
        plan = _Plan(value, budget=budget, style=layout, note=note, head_ratio=head_ratio,
                     max_depth=depth)
        try:
            chosen = _choose(plan.fits, budget, depth)
            if chosen is not None:
                return plan.render(chosen)
        finally:
            plan.release()
    return None


def _choose(fits: Callable[[Knobs], bool], budget: Budget, depth: int) -> Knobs | None:
    """The knobs of the first rung of the ladder that fits, searched for the most kept."""
    full = Knobs(INF, INF, INF, depth)
    if fits(full):
        return full
    for fixed, knob, lo, hi in _ladder(budget, depth):
        if knob is None:
            if fits(fixed):
                return fixed
            continue
        def trial(x: int, fixed: Knobs = fixed, knob: str = knob) -> bool:
            return fits(fixed._replace(**{knob: x}))

        if not trial(lo):
            continue
        return fixed._replace(**{knob: _largest(lo, hi, trial)})
    return None
