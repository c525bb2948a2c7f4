"""Element truncation of JSON fed chunk by chunk, in memory bounded by the budget.

:class:`JsonStreamTruncator` is push-style: ``feed(chunk)`` any number of times (bytes or
str), then ``finish()`` returns the :class:`~truncation_core.types.cuts.Cut`. It parses with
ijson's C backend (yajl2_c) through ``basic_parse_coro``, so nothing blocks and nothing
recurses, whatever the nesting depth.

From the parse events it keeps a *skeleton* of the document, never the whole of it:

* every array and object holds its first members until they add up to the budget (or to
  more members than could ever be shown), then only its **last** members, in a ring buffer
  of the same bounds; the members in between are counted, not kept;
* a string longer than the budget keeps only its first and last ``budget`` characters;
* arrays and objects nested deeper than ``max_depth`` are counted, not kept.

So what is held is a few times the output budget, whatever the input size (plus the largest
single string or number token, which the parser hands over whole). On ``finish`` the
skeleton, whose partial nodes remember their exact original sizes, is fitted to the budget by
:func:`truncation_core.structured.json_element.fit`, exactly as parsed JSON is. Counts in the
notes and the metadata are exact.

Several top-level values in a row (JSON Lines, NDJSON) are kept as records: the first and
last whole records, one per line, with the count of those omitted.

Content that is not JSON (a parse error, or the stream ending inside a value) is cut as
text: with the whole text when the caller has it (``fallback_text``), else from the first and
last characters the truncator kept for that purpose. Nothing here raises on content.
"""

from __future__ import annotations

import codecs
import sys
from collections import deque
from collections.abc import Callable
from itertools import accumulate, islice
from operator import itemgetter
from typing import Any

import attrs

from truncation_core.structured.gc_pause import paused_gc
from truncation_core.structured.json_element import (
    INF,
    LongString,
    Style,
    Window,
    detect_style,
    fit,
)
from truncation_core.structured.json_element import fit as fit_value
from truncation_core.structured.jsonl import fit_records
from truncation_core.structured.notes import NoteCache, structured_details
from truncation_core.text.cut import fit_prefix, fit_suffix
from truncation_core.text.measure import count_terminators, measure
from truncation_core.types.cuts import Cut, Omission
from truncation_core.types.markers import MarkerRenderer
from truncation_core.types.models import Budget
from truncation_core.types.policy import Policy

__all__ = ["JsonStreamTruncator"]


class _Frame:
    """An array or object being parsed: its first members, its last members, its count."""

    __slots__ = ("collapsed", "counted_in", "head", "head_open", "head_size", "key", "pairs",
                 "size_cap", "tail", "tail_size", "total")

    def __init__(self, pairs: bool, size_cap: int, count_cap: int, collapsed: bool) -> None:
        self.pairs = pairs
        self.collapsed = collapsed
        self.head: list[Any] = []
        self.tail: deque[tuple[Any, int]] = deque(maxlen=count_cap)
        self.head_open = not collapsed
        self.head_size = 0
        self.tail_size = 0
        self.total = 0
        self.size_cap = size_cap
        self.key: str | None = None
        #: The chunk in which its members were last counted in bulk (see _Skeleton).
        self.counted_in = -1

    def add(self, value: Any, size: int) -> None:
        self.total += 1
        if self.collapsed:
            return
        if self.pairs:
            value = (self.key, value)
            size += len(self.key or "") + 4
        if self.head_open:
            self.head.append(value)
            self.head_size += size
            if self.head_size >= self.size_cap or len(self.head) >= self.tail.maxlen:  # type: ignore[operator]
                self.head_open = False
            return
        tail = self.tail
        if len(tail) == tail.maxlen:
            self.tail_size -= tail[0][1]
        tail.append((value, size))
        self.tail_size += size
        while self.tail_size > self.size_cap and len(tail) > 1:
            self.tail_size -= tail.popleft()[1]

    def value(self) -> tuple[Any, int]:
        """The node standing for this container, and its estimated size."""
        if self.collapsed:
            return Window(head=(), tail=(), total=self.total, pairs=self.pairs), 16
        if not self.tail and len(self.head) == self.total:
            node: Any = tuple(self.head) if self.pairs else self.head
        else:
            node = Window(head=self.head, tail=[v for v, _ in self.tail], total=self.total,
                          pairs=self.pairs)
        return node, self.head_size + self.tail_size + 2


#: How each event changes the nesting depth.
_DELTA = {"start_map": 1, "start_array": 1, "end_map": -1, "end_array": -1, "map_key": 0,
          "string": 0, "number": 0, "boolean": 0, "null": 0}
_NAME = itemgetter(0)


class _Skeleton:
    """Turns basic_parse events into the skeleton, within the caps.

    Building every member of a large array only for most of them to drop out of its ring
    buffer would cost a Python step per event. So once an array shows only its last members,
    the events of a chunk are first scanned in bulk (C-level ``map`` and ``accumulate`` give
    the depth after each event): the members that end before the last ``window`` events of
    the chunk are counted, not built; the ring then restarts from the next member.
    """

    def __init__(self, *, size_cap: int, count_cap: int, string_cap: int, max_depth: int) -> None:
        self.size_cap = size_cap
        self.count_cap = count_cap
        self.string_cap = string_cap
        self.max_depth = max_depth
        #: Events at the end of a chunk that are always built: enough to fill a ring buffer
        #: (each event stands for at least two characters of its estimated size).
        self.window = size_cap // 2 + 16
        #: The values at the top level: one for JSON, several for JSON Lines.
        self.root = _Frame(pairs=False, size_cap=size_cap, count_cap=count_cap, collapsed=False)
        self.stack: list[_Frame] = [self.root]
        #: Depth of nesting inside a collapsed container (its members are counted only).
        self.skipping = 0
        #: The number of the chunk being consumed.
        self.chunk = 0

    def consume(self, events: list[tuple[str, Any]]) -> None:
        self.chunk += 1
        i, n = 0, len(events)
        while i < n:
            i = self._count_members(events, i, n)
            i = self._build(events, i, n)

    def _ring_only(self, frame: _Frame, remaining: int) -> bool:
        return (not frame.head_open and not frame.pairs and not frame.collapsed
                and not self.skipping and remaining > 2 * self.window
                and frame.counted_in != self.chunk)

    def _count_members(self, events: list[tuple[str, Any]], i: int, n: int) -> int:
        """Count (without building) the members of a ring-only array that end early in
        ``events[i:n]``; return where building resumes."""
        frame = self.stack[-1]
        if not self._ring_only(frame, n - i):
            return i
        # Once per array per chunk: the depths reach the array's end or the chunk's, and
        # building resumes at most `window` events before that, so a second count could never
        # skip anything. Trying again after each member was quadratic in the window.
        frame.counted_in = self.chunk
        depth = _depths_in_array(events, i, n)
        start = len(depth) - self.window
        if start <= 0:
            return i
        # Resume at the start of the member holding position `start`: just after the last
        # event before it that brought the depth back to the array's level. Members are
        # usually short, so look just before `start` first, then at all of it.
        resume = _last_zero_before(depth, start, self.window)
        if resume is None:
            return i
        # The members ending before `resume`, without copying the (long) list up to it.
        frame.total += depth.count(0) - depth[resume:].count(0)
        frame.tail.clear()  # the ring must hold the last members, contiguous to the end
        frame.tail_size = 0
        return i + resume

    def _build(self, events: list[tuple[str, Any]], i: int, n: int) -> int:
        """Build the skeleton from ``events[i:]``; stop early (returning the position) when a
        ring-only array could count its members in bulk again."""
        stack = self.stack
        frame = stack[-1]
        string_cap = self.string_cap
        for index, (event, value) in enumerate(islice(events, i, n), i):
            if self.skipping:
                if event == "start_map" or event == "start_array":
                    self.skipping += 1
                elif event == "end_map" or event == "end_array":
                    self.skipping -= 1
                    if self.skipping == 0:
                        frame.total += 1
                continue
            if event == "map_key":
                frame.key = value
            elif event == "string":
                if len(value) > string_cap:
                    frame.add(LongString(head=value[:string_cap], tail=value[-string_cap:],
                                         total=len(value)), 2 * string_cap)
                else:
                    frame.add(value, len(value) + 2)
            elif event == "number" or event == "boolean" or event == "null":
                frame.add(value, 6)
            elif event == "start_map" or event == "start_array":
                if frame.collapsed:
                    self.skipping = 1
                    continue
                frame = _Frame(pairs=event == "start_map", size_cap=self.size_cap,
                               count_cap=self.count_cap,
                               collapsed=len(stack) > self.max_depth)
                stack.append(frame)
            else:  # end_map, end_array
                done = stack.pop()
                frame = stack[-1]
                node, size = done.value()
                frame.add(node, size)
                if self._ring_only(frame, n - index - 1):
                    return index + 1
        return n


_BOM = b"\xef\xbb\xbf"
#: The parser is given at most this many bytes at a time, so that a token it holds is seen
#: growing (see JsonStreamTruncator._holds_too_much).
_SLICE = 1 << 20
_DIGITS = b"0123456789"


class _DigitRuns:
    """Finds a run of more than *limit* ASCII digits in bytes fed in chunks (0: no limit).

    Runs are short in real JSON, so rather than scanning every byte it probes one byte in
    every *limit*: a run longer than that covers a probe, and is measured around it. A run
    across chunks is the end of one plus the start of the next.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._carry = 0  # the length of the run of digits the data so far ends with

    def too_long(self, data: bytes) -> bool:
        limit = self.limit
        if not limit or not data:
            return False
        reach = limit + 1
        first = data[:reach]
        lead = len(first) - len(first.lstrip(_DIGITS))
        if self._carry + lead > limit:
            return True
        for probe in range(0, len(data), limit):
            if 48 <= data[probe] <= 57:
                after = data[probe:probe + reach]
                before = data[max(0, probe - reach):probe]
                if (len(after) - len(after.lstrip(_DIGITS))
                        + len(before) - len(before.rstrip(_DIGITS))) > limit:
                    return True
        if lead == len(data):
            self._carry += lead
        else:
            last = data[-reach:]
            self._carry = len(last) - len(last.rstrip(_DIGITS))
        return False


def _depths_in_array(events: list[tuple[str, Any]], i: int, n: int) -> list[int]:
    """The depth after each event of ``events[i:n]``, relative to the array they are in, up to
    the array's own end (excluded) or the end of the chunk.

    Computed in blocks that double in size and stop at the array's end: an array that ends
    early in a long chunk costs its own length, not the chunk's. Measuring to the end of the
    chunk each time made a chunk with many such arrays (an object of long arrays) quadratic.
    """
    depth: list[int] = []
    level, size = 0, 256
    while i < n:
        stop = min(n, i + size)
        block = list(accumulate(map(_DELTA.__getitem__, map(_NAME, events[i:stop])),
                                initial=level))
        del block[0]  # the initial level
        try:
            end = block.index(-1)
        except ValueError:
            depth += block
            level, i, size = block[-1], stop, size * 2
            continue
        del block[end:]
        depth += block
        break
    return depth


def _last_zero_before(depth: list[int], start: int, near: int) -> int | None:
    """The position just after the last 0 in ``depth[:start]``, or None if there is none."""
    for low in (max(0, start - near), 0):
        before = depth[low:start]
        before.reverse()
        try:
            return start - before.index(0)
        except ValueError:
            continue
    return None


def _first_line(exc: BaseException) -> str:
    """The parser's message without the excerpt of content that yajl appends to it.

    yajl's message is bytes, whose ``str()`` is a repr with the excerpt's newlines escaped:
    the first line must be taken from the decoded message, or the excerpt (content, which
    must never reach metadata or logs) comes along. It also depends on how the content was
    chunked, which the excerpt shows.
    """
    if isinstance(exc, UnicodeDecodeError):
        return "not valid UTF-8"  # its message quotes the offending byte
    message = exc.args[0] if exc.args else ""
    if isinstance(message, bytes):
        message = message.decode("utf-8", "replace")
    lines = str(message).strip().splitlines()
    return lines[0].strip() if lines else type(exc).__name__


@attrs.frozen
class _Ends:
    """The first and last characters of a stream, and its size, for a text fallback."""

    head: str = attrs.field(repr=False)  # content: never in a repr
    tail: str = attrs.field(repr=False)
    chars: int
    lines: int


class JsonStreamTruncator:
    """Element-truncates JSON fed in chunks: ``feed(chunk)``..., then ``finish() -> Cut``.

    :param budget: the limits the output must fit, notes included.
    :param policy: the effective policy (``head_ratio``, ``max_depth``, templates ...).
    :param markers: renders the notes (through ``format_marker``); may be None until
        ``finish``, which then must be given them (they are used only there).
    :param fallback_text: called with a reason when the content is not JSON, to cut the
        whole content as text. Without it, the truncator keeps the first and last characters
        of the stream itself and cuts those.
    :param keep_ends: whether to keep those characters; by default, when no *fallback_text*
        is given. A caller that gives *fallback_text* only to ``finish`` passes False.

    Memory is bounded by the budget, not the input (see the module docstring). ``feed`` and
    ``finish`` never raise on content; ``finish`` may be called again, with another budget.
    """

    def __init__(self, *, budget: Budget, policy: Policy, markers: MarkerRenderer | None,
                 fallback_text: Callable[[str], Cut] | None = None,
                 keep_ends: bool | None = None) -> None:
        import ijson  # heavy: only when a stream is truncated

        self.budget = budget
        self.policy = policy
        self.markers = markers
        self._fallback_text = fallback_text
        self._events = ijson.sendable_list()
        self._parser = ijson.basic_parse_coro(self._events, multiple_values=True)
        chars = max(budget.chars, 16)
        self._skeleton = _Skeleton(size_cap=chars, count_cap=chars // 2 + 2, string_cap=chars,
                                   max_depth=policy.max_depth)
        #: Why the content is not JSON, once known.
        self.failed: str | None = None
        self._bytes = 0
        self._style: Style | None = None
        self._sniff = ""
        # The ends of the stream as text, for the fallback without fallback_text.
        self._keep_ends = fallback_text is None if keep_ends is None else keep_ends
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._head: list[str] = []
        self._head_chars = 0
        self._tail = ""
        self._chars = 0
        self._terminators = 0
        self._last_char = ""
        # The first bytes, held until they show whether the content starts with a BOM.
        self._start: bytes | None = b""
        #: The content started with a BOM, which the parser is not given.
        self.bom = False
        self._digit_runs = _DigitRuns(sys.get_int_max_str_digits())
        #: Bytes given to the parser since its last event (the token it holds), and the most
        #: it may hold.
        self._held = 0
        self._held_cap = policy.stream_threshold

    @property
    def bytes_fed(self) -> int:
        return self._bytes

    def feed(self, chunk: bytes | str) -> None:
        """Parse the next piece of the content. Never raises on content."""
        if isinstance(chunk, str) and len(chunk) > _SLICE:  # not encoded whole at once
            for start in range(0, len(chunk), _SLICE):
                self.feed(chunk[start:start + _SLICE])
            return
        if isinstance(chunk, str):
            text = chunk
            data = chunk.encode("utf-8", "surrogatepass")
        else:
            data = bytes(chunk)
            text = None
        if not data:
            return  # an empty send would end the parse
        self._bytes += len(data)
        if self._style is None and len(self._sniff) < 2048:
            self._sniff += (text if text is not None else data[:2048].decode("utf-8", "replace"))
        if self._keep_ends:
            self._track_ends(text if text is not None else self._decoder.decode(data))
        if self.failed:
            return
        if self._start is not None:
            data = self._start + data
            if len(data) < len(_BOM) and _BOM.startswith(data):
                self._start = data  # too short to tell yet
                return
            self._start = None
            if data.startswith(_BOM):
                self.bom, data = True, data[len(_BOM):]
                if not data:
                    return
        self._send(data)

    def _send(self, data: bytes) -> None:
        if self._digit_runs.too_long(data):
            # yajl's C backend crashes the interpreter on an integer longer than Python's
            # int conversion allows (sys.get_int_max_str_digits); such a run is never given
            # to it. A run inside a string or a fraction is refused too: it cannot tell.
            self.failed = (f"a run of more than {self._digit_runs.limit:,} digits, which the "
                           "streaming JSON parser cannot take")
            return
        # Parsing makes millions of short-lived tuples: the cyclic GC would scan them over
        # and over, and there are no cycles to find. Paused per call, never between calls.
        with paused_gc():
            for start in range(0, len(data), _SLICE):
                piece = data[start:start + _SLICE]
                try:
                    self._parser.send(piece)
                except Exception as exc:  # any parser error (yajl, UnicodeDecodeError ...)
                    self.failed = f"not valid JSON: {_first_line(exc)}"
                    break
                if self._holds_too_much(piece):
                    break
                self._drain()
            self._drain()
        if self.failed:
            self._parser = None  # what it holds (a long token) goes with it

    def _holds_too_much(self, piece: bytes) -> bool:
        """Whether the parser now holds one token (a string, a key, a number) longer than
        ``stream_threshold``: it hands a token over whole, once it ends, so it buffers all
        of it, however long. No event since the last one means it is still in that token
        (blanks between values are not held); the count is exact to one slice."""
        if self._events:
            self._held = 0
        elif self._held or piece.strip(b" \t\r\n"):
            self._held += len(piece)
            if self._held > self._held_cap:
                self.failed = (f"a single string or number longer than "
                               f"{self._held_cap:,} bytes (stream_threshold), which the "
                               "streaming JSON parser would hold whole")
                return True
        return False

    def _drain(self) -> None:
        events = self._events
        if events:
            try:
                self._skeleton.consume(events)
            except Exception as exc:  # a bug must not lose the content: fall back to text
                self.failed = f"could not follow the JSON events ({type(exc).__name__})"
            del events[:]

    def _track_ends(self, text: str) -> None:
        cap = max(self.budget.chars, 1)
        if self._head_chars < cap:
            piece = text[: cap - self._head_chars]
            self._head.append(piece)
            self._head_chars += len(piece)
        self._tail = (self._tail + text)[-cap:]
        self._chars += len(text)
        self._terminators += count_terminators(text)
        if self._last_char == "\r" and text.startswith("\n"):
            self._terminators -= 1  # a "\r\n" split between two chunks counts once
        if text:
            self._last_char = text[-1]

    def finish(self, *, budget: Budget | None = None, markers: MarkerRenderer | None = None,
               fallback_text: Callable[[str], Cut] | None = None) -> Cut:
        """Close the parse and return the cut. Never raises on content.

        *budget*, *markers* and *fallback_text*, when given, replace the ones the truncator was
        built with: the budget of a result is final only at its end (an artifact reference
        takes room from it), and so are its markers (they name the artifact). What is kept
        while feeding is sized from the budget given when the truncator was built.
        """
        if budget is not None:
            self.budget = budget
        if markers is not None:
            self.markers = markers
        if fallback_text is not None:
            self._fallback_text = fallback_text
        if self.markers is None:
            raise TypeError("finish() needs markers: none were given when the truncator "
                            "was built")
        if not self.failed and self._start:  # fewer bytes than a BOM in all
            self._send(self._start)
            self._start = None
        if not self.failed:
            try:
                self._parser.close()
            except Exception as exc:
                self.failed = f"not valid JSON: {_first_line(exc)}"
            self._drain()
        if not self.failed and self._skeleton.stack[-1] is not self._skeleton.root:
            self.failed = "not valid JSON: the content ends inside a value"
        root = self._skeleton.root
        if not self.failed and root.total == 0:
            self.failed = "no JSON value in the content"
        if self.failed:
            return self._fallback(self.failed)

        note = NoteCache(self.markers)
        if root.total > 1:  # JSON Lines: whole records first and last
            return self._records(root, note)
        value = root.head[0]
        fitted = fit(value, budget=self.budget, style=detect_style(self._sniff), note=note,
                     head_ratio=self.policy.head_ratio, max_depth=self.policy.max_depth)
        if fitted is None:
            return self._fallback("the budget is too small for valid JSON")
        return Cut(text=fitted.text, omitted_chars=0, omitted_lines=0,
                   notes=("element: a BOM was removed",) if self.bom else (),
                   details=structured_details("json", fitted, streamed=True,
                                              bytes=self._bytes))

    def _records(self, root: _Frame, note: Any) -> Cut:
        def record_text(value: Any) -> str:
            fitted = fit_value(value, budget=Budget(chars=INF), style=Style().compact,
                               note=note, head_ratio=self.policy.head_ratio,
                               max_depth=self.policy.max_depth)
            return fitted.text if fitted is not None else "null"

        head = [record_text(v) for v in root.head]
        tail = [record_text(v) for v, _ in root.tail]
        out = fit_records(head, budget=self.budget, policy=self.policy, note=note, tail=tail,
                          total=root.total)
        if out is None:
            return self._fallback("the budget is too small for any whole JSON Lines record")
        return Cut(text=out.text, omitted_chars=0, omitted_lines=0,
                   details={**out.details, "streamed": True, "bytes": self._bytes})

    def _fallback(self, reason: str) -> Cut:
        if self._fallback_text is not None:
            return self._fallback_text(reason)
        ends = _Ends(head="".join(self._head), tail=self._tail, chars=self._chars,
                     lines=self._terminators + (1 if self._last_char not in ("", "\r", "\n")
                                                else 0))
        assert self.markers is not None, "finish() gives the markers before any fallback"
        return _cut_ends(ends, budget=self.budget, policy=self.policy, markers=self.markers,
                         reason=reason)


def _cut_ends(ends: _Ends, *, budget: Budget, policy: Policy, markers: MarkerRenderer,
              reason: str) -> Cut:
    """A head_tail cut of a stream of which only the first and last characters were kept."""
    head, tail = ends.head, ends.tail
    whole = ends.chars <= len(head)
    if whole and budget.admits(measure(head)):
        return Cut(text=head, omitted_chars=0, omitted_lines=0, strategy="head_tail",
                   notes=(f"element: {reason}; shown as text",), details={"reason": reason})
    markers = attrs.evolve(markers, strategy="head_tail")
    worst = measure(markers.worst_case("middle"))
    room = budget.minus(worst) or Budget(chars=0, bytes=0, lines=0)
    start = fit_prefix(head, room.scaled(policy.head_ratio))
    tail_room = room.minus(measure(head[:start])) or Budget(chars=0, bytes=0, lines=0)
    floor = max(0, len(tail) - (ends.chars - start))  # never show a character twice
    begin = fit_suffix(tail, tail_room, floor=floor)
    end = ends.chars - (len(tail) - begin)
    head_lines = count_terminators(head, 0, start)
    tail_lines = count_terminators(tail, begin)
    region = Omission(position="middle", start=start, end=end,
                      lines=max(0, ends.lines - head_lines - tail_lines - 1
                                - (1 if start and head[start - 1] not in "\r\n" else 0)),
                      first_line=head_lines + 1, last_line=max(head_lines + 1,
                                                               ends.lines - tail_lines))
    marker = markers.render(region)
    out = head[:start] + marker + tail[begin:]
    if not budget.admits(measure(out)):
        out = head[:start] + tail[begin:] if budget.admits(
            measure(head[:start] + tail[begin:])) else ""
    return Cut(text=out, omitted_chars=region.chars, omitted_lines=region.lines,
               omissions=(region,), strategy="head_tail",
               notes=(f"element: {reason}; cut as text",),
               details={"fallback": "head_tail", "reason": reason})
