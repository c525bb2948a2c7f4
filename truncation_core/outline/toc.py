"""The table of contents of an omitted region: its entries, chosen, fitted and rendered.

A :class:`Document` is built once per cut text: its lines (numbering prefixes stripped,
:mod:`~truncation_core.outline.numbering`) and its **structure**, the lines where sections
start, each with a depth:

1. the definitions a tree-sitter grammar finds in a source file (:mod:`~.code`);
2. else the headings of a Markdown or reStructuredText document (:mod:`~.markup`), when it
   has at least two and is not source code that no installed grammar parses (a ``#``
   comment is no heading);
3. else its indentation: a line followed by a more indented block opens that block (a
   directory in a tree listing, a function in code no grammar is installed for), at the
   two outermost levels.

Texts over :data:`STRUCTURE_CHARS` are outlined by boundaries alone (``boundaries``): their
lines are read only where an entry is looked for.

For a region left out of the view, :meth:`Document.entries` chooses what to list within a
character allowance, in two passes:

* **reach**: until no section of the region is longer than :data:`SPAN` lines, the longest
  is split, where the parts of at most :data:`SPAN` lines it needs divide evenly (its
  middle, for two), at the shallowest structure entry near there, or, when none lies there,
  at the best boundary among the 20 lines before (a line after a blank line, the least
  indented) - so that any part
  of the region is one ``get_artifact`` call of at most :data:`SPAN` lines away;
* **structure**: then the remaining structure entries, outermost first, while they fit.

The region's first line is always an entry, and the first line after it (where the kept
tail starts) closes the last section.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from typing import overload

import attrs

from truncation_core.outline.numbering import Numbering, detect

__all__ = ["SPAN", "Document", "Entry", "document", "render"]

#: The longest section an outline aims at, in lines: a range a model reads in one call.
SPAN = 100
#: Characters of an entry's title at most (clipped in the middle).
TITLE_CHARS = 72
#: Texts larger than this get no outline (their lines are not split in memory).
MAX_CHARS = 4_000_000
#: The title of the entry that closes the region: the first line of the kept part after it.
KEPT_TITLE = "(shown below)"
_TERMINATORS = re.compile(r"\r\n|\r|\n")


@attrs.frozen
class Entry:
    """One line of an outline: the output's 1-based line, a depth (0 for a boundary that is
    no part of the structure) and the title shown."""

    line: int
    depth: int
    title: str
    #: The file's own number for the line, when the output is numbered and it differs.
    file_line: int | None = None


def _clip(title: str) -> str:
    title = title.strip()
    if len(title) <= TITLE_CHARS:
        return title
    half = (TITLE_CHARS - 3) // 2
    return f"{title[:half]}...{title[len(title) - half:]}"


def split_lines(text: str) -> list[str]:
    """The lines of *text* as truncation-core counts them (``\\r\\n``, ``\\n``, ``\\r``)."""
    # Without "\r", a plain split (in C, a third of the regular expression's time).
    lines = text.split("\n") if "\r" not in text else _TERMINATORS.split(text)
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()
    return lines


@attrs.frozen(eq=False)
class Document:
    """A text's lines and structure, for outlining any of its regions."""

    #: The output's lines, numbering prefixes stripped.
    bodies: Sequence[str]
    #: The file's own numbers of the lines (None for an unnumbered line or output).
    numbers: Sequence[int | None]
    #: (0-based line index, depth from 1, title) of each structure entry, in order.
    structure: list[tuple[int, int, str]]
    #: Where the structure comes from: ``headings``, ``definitions`` or ``indentation``.
    source: str
    numbering: Numbering | None = None

    def entry(self, index: int, depth: int, title: str | None = None) -> Entry:
        number = self.numbers[index]
        return Entry(line=index + 1, depth=depth,
                     title=_clip(self.bodies[index] if title is None else title),
                     file_line=number if number is not None and number != index + 1 else None)

    def boundary(self, lo: int, hi: int) -> int:
        """The best line to start a section at within 0-based ``[lo, hi]``: non-blank, after
        a blank (or separator) line, least indented; the latest of equals."""
        best, best_score = hi, None
        for index in range(hi, lo - 1, -1):
            body = self.bodies[index]
            stripped = body.strip()
            if not stripped:
                continue
            before = self.bodies[index - 1].strip() if index > 0 else ""
            indent = len(body) - len(body.lstrip())
            score = (0 if before in ("", "--", "---") else 1, indent)
            if best_score is None or score < best_score:
                best, best_score = index, score
        return best

    def entries(self, first: int, last: int, allowance: int,
                measure_entry: Callable[[Entry], int]) -> list[Entry]:
        """The outline of the 1-based lines *first* to *last* (and the line after, where the
        next kept part starts), in at most *allowance* characters as *measure_entry* counts
        them; empty when not even its first entry fits."""
        lo, hi = first - 1, min(last, len(self.bodies)) - 1
        if hi < lo:
            return []
        inside = [(i, d, t) for i, d, t in self.structure if lo <= i <= hi]
        chosen: dict[int, Entry] = {}
        used = 0

        def add(entry: Entry) -> bool:
            nonlocal used
            cost = measure_entry(entry)
            if used + cost > allowance:
                return False
            chosen[entry.line - 1] = entry
            used += cost
            return True

        start = self._nonblank(lo, hi)
        depths = {i: (d, t) for i, d, t in inside}
        if not add(self.entry(start, *depths.get(start, (0, None)))):
            return []
        if hi + 1 < len(self.bodies):
            add(self.entry(hi + 1, 0, KEPT_TITLE))
        # Reach: split the longest section until none is longer than SPAN.
        while True:
            points = sorted(chosen)
            ends = [*points[1:], hi + 1] if points[-1] <= hi else points[1:]
            gaps = [(end - begin, begin, end) for begin, end in zip(points, ends, strict=False)
                    if begin <= hi]
            length, begin, _end = max(gaps)
            if length <= SPAN:
                break
            # Split where the parts of at most SPAN lines the section needs divide evenly
            # (the middle, for two): halving a long region instead would leave sections of
            # a little over SPAN / 2 lines, and cost a third more entries.
            parts = -(-length // SPAN)
            middle = begin + length * (parts // 2) // parts
            quarter = max(1, length // parts // 4)
            window = inside[bisect.bisect_left(inside, (middle - quarter,)):
                            bisect.bisect_right(inside, (middle + quarter + 1,))]
            near = [(d, abs(i - middle), i) for i, d, _ in window if i not in chosen]
            if near:
                index = min(near)[2]
                entry = self.entry(index, depths[index][0], depths[index][1])
            else:
                # A boundary among the lines just before the middle (a short look: a long
                # section has many lines, and any of them starts a section as well).
                index = self.boundary(max(begin + 1, middle - min(quarter, SPAN // 5)), middle)
                if index in chosen:
                    index = middle
                entry = self.entry(index, 0)
            if not add(entry):
                break
        # Structure: the remaining entries, outermost first, while they fit.
        for index, depth, title in sorted(inside, key=lambda e: (e[1], e[0])):
            if index not in chosen and not add(self.entry(index, depth, title)):
                break
        return [chosen[i] for i in sorted(chosen)]

    def _nonblank(self, lo: int, hi: int) -> int:
        for index in range(lo, min(hi, lo + SPAN // 4) + 1):
            if self.bodies[index].strip():
                return index
        return lo


#: Larger texts are outlined by their boundaries only (no scan for headings, definitions or
#: indentation over every line): what a scan of a megabyte would cost is some 20 times the cut.
STRUCTURE_CHARS = 256_000


class _Split(Sequence[str]):
    """The lines of a numbered output without their prefixes, stripped on demand."""

    def __init__(self, lines: list[str], numbering: Numbering) -> None:
        self._lines, self._numbering = lines, numbering

    def __len__(self) -> int:
        return len(self._lines)

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self._numbering.split(line)[1] for line in self._lines[index]]
        return self._numbering.split(self._lines[index])[1]


class _Numbers(Sequence["int | None"]):
    """The file's own number of each line of a numbered output, read on demand."""

    def __init__(self, lines: list[str], numbering: Numbering | None) -> None:
        self._lines, self._numbering = lines, numbering

    def __len__(self) -> int:
        return len(self._lines)

    @overload
    def __getitem__(self, index: int) -> int | None: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[int | None]: ...
    def __getitem__(self, index: int | slice) -> int | Sequence[int | None] | None:
        if self._numbering is None:
            return [None] * len(self._lines[index]) if isinstance(index, slice) else None
        if isinstance(index, slice):
            return [self._numbering.split(line)[0] for line in self._lines[index]]
        return self._numbering.split(self._lines[index])[0]


def document(text: str) -> Document | None:
    """The :class:`Document` of *text*, or None when it is too large to outline."""
    if len(text) > MAX_CHARS:
        return None
    lines = split_lines(text)
    numbering = detect(lines)
    numbers = _Numbers(lines, numbering)
    bodies: Sequence[str] = lines if numbering is None else _Split(lines, numbering)
    if len(text) > STRUCTURE_CHARS:
        return Document(bodies, numbers, [], "boundaries", numbering)
    bodies = list(bodies)
    from truncation_core.outline.records import records

    grouped = records(bodies)
    if grouped:
        return Document(bodies, numbers, grouped, "records", numbering)
    from truncation_core.outline import code

    defined = code.definitions(bodies, title_chars=TITLE_CHARS)
    if defined:
        return Document(bodies, numbers, defined, "definitions", numbering)
    from truncation_core.outline.markup import headings

    found = headings(bodies)
    if len(found) >= 2 and not code.unparsed_code(bodies):
        return Document(bodies, numbers, found, "headings", numbering)
    return Document(bodies, numbers, _indentation(bodies), "indentation", numbering)


def _indentation(bodies: list[str]) -> list[tuple[int, int, str]]:
    """Lines that open a more indented block, at the two outermost indentation levels."""
    openers: list[tuple[int, int]] = []
    previous: tuple[int, int] | None = None  # (index, indent) of the last non-blank line
    for index, body in enumerate(bodies):
        stripped = body.lstrip()
        if not stripped:
            continue
        indent = len(body) - len(stripped)
        if previous is not None and indent > previous[1]:
            openers.append(previous)
        previous = (index, indent)
    levels = sorted({indent for _, indent in openers})[:2]
    return [(index, levels.index(indent) + 1, bodies[index].strip())
            for index, indent in dict(openers).items() if indent in levels]


def render_entry(entry: Entry, template: str = "{line}: {indent}{file_line}{title}") -> str:
    """One entry's line (without its terminator)."""
    return template.format(line=entry.line, indent="  " * max(0, entry.depth - 1),
                           file_line=f"[{entry.file_line}] " if entry.file_line else "",
                           title=entry.title)


def render(entries: list[Entry], header: str) -> str:
    """The outline block: *header*, then one line per entry, each ending with a newline."""
    return header + "\n" + "".join(render_entry(e) + "\n" for e in entries)
