"""The highlights block: the salient lines of an omitted part, shown within the budget.

When a cut leaves out part of a tool result, lines such as an exception and its innermost
frame, ``error:`` with its location, ``FAILED``, ``panic``, an error record of a JSON log or
a test summary may be in the part left out. The highlights block shows them, each with its
line number in the artifact (the number ``get_artifact`` takes), right after the omission
marker::

    ... [Beginning omitted: 9,870 lines / ...; get_artifact(...)] ...
    ... [highlights from the omitted part: 2 of 362 matching lines] ...
    line 16: 1: shard 0: error: connection refused (attempt 1/3), retrying in 100ms [360 like this]
    line 749: 62: ==12693==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020...
    line 750: 62: WRITE of size 17 at 0x602000000020 thread T0
    line 752: 62:     #1 0x55666007bf70 in main /tmp/work/shard.c:12:5
    <the kept tail>

Definitions (the same for ``process`` and for streams, which is what makes them agree):

* Lines are those of :mod:`truncation_core.text.cut`. A line is a **candidate** only if it lies
  entirely inside the omitted region.
* Each line is matched on its **probe**: its first
  :data:`~truncation_core.highlights.patterns.PROBE_CHARS` characters, without the
  terminator, ANSI escapes removed. A line matches a ``SalientPattern`` when the probe
  contains one of the pattern's ``keywords`` and, if the pattern has a ``regex``,
  ``re.search`` finds it in the probe; the first matching pattern, in rank order, classifies
  the line. A line holding a JSON object is judged by the ``SalientRecord`` rules instead
  (:mod:`~truncation_core.highlights.records`).
* A match brings the lines its **units** keep around it (``SalientUnit``,
  :mod:`~truncation_core.types.salient`): its location, its innermost frame, its
  diagnostics. They are shown with it, when they lie in the omitted region too.
* **Selection** is deterministic (:mod:`~truncation_core.highlights.choice`): matches are
  grouped by pattern and folded text; one match of each group first (rank 0 before rank 1
  ..., the rarest group first within a rank), each shown once with the count of its group,
  then more of the groups that repeat only a few times. At most ``policy.highlights``
  matches are shown, each clipped in the middle to
  :data:`~truncation_core.highlights.patterns.LINE_CHARS`, and the block takes at most
  :data:`SHARE` of the budget (more of a short preview: see :func:`lift_highlights`).
* The block counts against the budget: the content is cut again with the block's size taken
  off, and only lines still inside the (larger) omitted region are shown.
* Numbers address the artifact as stored: when it is itself cut (over ``max_artifact_size``),
  a line it keeps is shown with its number there, and a line it dropped is shown as not kept
  (``marker.highlight_not_kept``), with no number
  (:func:`truncation_core.types.resume.artifact_line`).

Patterns, units and records come from the detectors of the ``salient_detector`` hook: the
built-in one (``truncation_core.builtins.highlights``: the generic patterns and those of the
tool families) gives them for common tools, and plugins add their own per tool.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from truncation_core.highlights.choice import in_order
from truncation_core.highlights.lines import clip
from truncation_core.highlights.patterns import LINE_CHARS
from truncation_core.highlights.records import record_json
from truncation_core.structured.json_element import dump_string
from truncation_core.text.measure import measure
from truncation_core.types.cuts import Cut, Omission
from truncation_core.types.models import Budget

if TYPE_CHECKING:
    from truncation_core.highlights.bank import Highlight, Pools, UnitLine
    from truncation_core.types.templates import MarkerConfig

__all__ = ["PREVIEW_SHARE", "SHARE", "lift_highlights", "lift_records", "render"]

#: The most of the budget (in every limited unit) the block may take.
SHARE = 0.25
#: The most of a short preview (the artifact-reference tier's) the block may take: there the
#: preview is all the model sees of the content, and the highlights come first.
PREVIEW_SHARE = 0.6
#: How many times a cut is redone when the block's counts grow with the omitted region.
_ATTEMPTS = 3


# -- the block -------------------------------------------------------------------------------


def _same_line(line: int) -> int | None:
    return line


def _shown(line: int, text: str, pattern: str, templates: MarkerConfig,
           number: int | None) -> str:
    if number is None:
        return templates.highlight_not_kept.format(text=text, pattern=pattern,
                                                   original_line=line)
    return templates.highlight.format(line=number, text=text, pattern=pattern,
                                      original_line=line)


def _heading(templates: MarkerConfig, shown: int, found: int) -> str:
    """The first line of the highlights block (``marker.highlights``)."""
    return templates.highlights.format(shown=shown, found=found, shown_s="" if shown == 1
                                       else "s", found_s="" if found == 1 else "s")


def render(chosen: Sequence[Highlight], found: int, position: str,
           templates: MarkerConfig,
           artifact_line: Callable[[int], int | None] = _same_line, *,
           region: Omission | None = None, counts: dict[str, int] | None = None,
           ) -> tuple[str, list[dict[str, Any]]]:
    """The highlights block, with the separators its place next to the marker needs, and
    what it shows, line by line, for the metadata.

    *artifact_line* maps a line of the original to the number ``get_artifact`` takes for it,
    None when the artifact does not keep it (:func:`truncation_core.types.resume.artifact_line`).
    Unit lines outside *region* (visible in the kept part) are left out; *counts* gives
    the size of each group (by key), shown after a line whose group has more than one.
    """
    lines = [_heading(templates, len(chosen), found)]
    details: list[dict[str, Any]] = []
    done: set[int] = set()

    def add(line: int, text: str, pattern: str, extra: dict[str, Any], suffix: str = "") -> None:
        if line in done:
            return
        done.add(line)
        number = artifact_line(line)
        lines.append(_shown(line, text, pattern, templates, number) + suffix)
        details.append({"line": number, "pattern": pattern, "text": text,
                        "original_line": line, **extra})

    def unit_line(item: Highlight, line: UnitLine) -> None:
        if region is None or line.inside(region):
            add(line.line, clip(line.text, LINE_CHARS), item.pattern,
                {"unit": line.unit, "of_line": item.line})

    for item in sorted(chosen, key=lambda h: h.line):
        for above in item.above:
            unit_line(item, above)
        count = (counts or {}).get(item.key, 1)
        add(item.line, item.text, item.pattern, {"count": count} if count > 1 else {},
            templates.highlight_count.format(count=count, count_s="s") if count > 1 else "")
        for below in item.below:
            unit_line(item, below)
    if position == "end":  # after a marker that ends the output without a newline
        return "\n" + "\n".join(lines), details
    return "\n".join(lines) + "\n", details


def _counts(pools: Pools) -> dict[str, int]:
    return {pool.key: pool.count for pool in pools.groups}


def _choose(pools: Pools, limit: int, share: Budget, position: str,
            templates: MarkerConfig, artifact_line: Callable[[int], int | None],
            region: Omission) -> list[Highlight]:
    """The best highlights (up to *limit*) whose block fits *share*: in order of preference,
    each taken if the block still fits with it."""
    counts = _counts(pools)
    chosen: list[Highlight] = []
    for item in in_order(pools, limit):
        block, _ = render([*chosen, item], pools.found, position, templates, artifact_line,
                          region=region, counts=counts)
        if share.admits(measure(block)):
            chosen.append(item)
    return chosen


def _sole_omission(cut: Cut, text: Any) -> Omission | None:
    """The cut's omission, if it has one and the output ends with the text after it."""
    if len(cut.omissions) != 1:
        return None
    region = cut.omissions[0]
    try:
        kept_tail = text[region.end:]
    except LookupError:  # a stream's windows do not reach there
        return None
    return region if cut.text.endswith(kept_tail) else None


def lift_highlights(cut: Cut, *, text: Any, budget: Budget, limit: int,
                    templates: MarkerConfig, pools_for: Callable[[Omission], Pools],
                    recut: Callable[[Budget], Cut],
                    artifact_line: Callable[[int], int | None] = _same_line,
                    share: float = SHARE) -> Cut:
    """*cut* with a highlights block after its marker, cut again to make room for the block.

    The block takes at most *share* of *budget* (:data:`SHARE`; :data:`PREVIEW_SHARE` for
    the short preview under an artifact reference). Each line is shown with the number
    *artifact_line* gives it (the artifact's), or as not kept when it gives None. Returns
    *cut* unchanged when there is nothing to lift, or when the result would not fit.
    """
    region = _sole_omission(cut, text)
    if region is None or limit <= 0:
        return cut
    pools = pools_for(region)
    chosen = _choose(pools, limit, budget.scaled(share), region.position, templates,
                     artifact_line, region)
    for _ in range(_ATTEMPTS):
        if not chosen:
            return cut
        block, _ = render(chosen, pools.found, region.position, templates, artifact_line,
                          region=region, counts=_counts(pools))
        room = budget.minus(measure(block))
        if room is None:
            return cut
        again = recut(room)
        wider = _sole_omission(again, text)
        if wider is None:
            return cut
        chosen = [h for h in chosen if h.inside(wider)]
        pools = pools_for(wider)
        block, shown = render(chosen, pools.found, wider.position, templates, artifact_line,
                              region=wider, counts=_counts(pools))
        at = len(again.text) - (len(text) - wider.end)
        out = again.text[:at] + block + again.text[at:]
        if chosen and budget.admits(measure(out)):
            details = {**again.details, "highlights": shown}
            return attrs.evolve(again, text=out, details=details)
        region = wider
    return cut


# -- JSON Lines cut by element: the salient records come back as records -----------------------


def _near(text: Any, start: int, stop: int, backwards: bool) -> int:
    """The nearest "\\n" after *start* (or before *stop*, *backwards*), or -1; looked for
    in growing steps, and, in a stream's kept ends, only as far as the window reaches."""

    def search(lo: int, hi: int) -> int:
        found: int = text.rfind("\n", lo, hi) if backwards else text.find("\n", lo, hi)
        return found

    step, reach = 256, start if not backwards else stop  # how far is known to be searchable
    while True:
        lo, hi = (max(start, stop - step), stop) if backwards else (start, min(stop, start + step))
        try:
            found = search(lo, hi)
        except LookupError:  # beyond the window: search up to where it ends
            inside, outside = (hi, lo) if backwards else (reach, hi)
            while abs(outside - inside) > 1:
                mid = (inside + outside) // 2
                try:
                    search(mid, stop) if backwards else search(start, mid)
                    inside = mid
                except LookupError:
                    outside = mid
            return search(inside, stop) if backwards else search(start, inside)
        if found != -1 or (lo == start and hi == stop):
            return found
        reach = lo if backwards else hi
        step *= 4


def _jsonl_region(text: Any, first: int, last: int) -> Omission | None:
    """The part of a JSON Lines *text* between its first *first* and its last *last*
    records (a record is a line that is not blank), as the ``element`` cut leaves it out."""
    length = len(text)
    try:
        start, kept = 0, 0
        while kept < first:
            end = _near(text, start, length, backwards=False)
            if end < 0:
                return None
            kept += bool(text[start:end].strip())
            start = end + 1
        stop, kept = length, 0
        while kept < last:
            end = stop - 1 if text[stop - 1:stop] == "\n" else stop
            line_start = _near(text, 0, end, backwards=True) + 1
            kept += bool(text[line_start:end].strip())
            stop = line_start
    except LookupError:  # a stream's windows do not reach there
        return None
    if stop <= start:
        return None
    return Omission(position="middle", start=start, end=stop, lines=0, first_line=0,
                    last_line=0)


def lift_records(cut: Cut, *, text: Any, budget: Budget, limit: int,
                 templates: MarkerConfig, pools_for: Callable[[Omission], Pools],
                 recut: Callable[[Budget], Cut], records: frozenset[str],
                 artifact_line: Callable[[int], int | None] = _same_line,
                 share: float = SHARE) -> Cut:
    """*cut*, a JSON Lines text cut by ``element``, with the salient records it left out put
    back after its note, as records (long strings cut inside), so that the output is still
    JSON Lines; a note before them, a JSON string, says which lines of the artifact they
    are. *records* names the record rules whose matches count. Returns *cut* unchanged
    when there is nothing to lift, or when the result would not fit."""
    def chosen_in(current: Cut) -> tuple[Omission, list[tuple[Highlight, str]], int] | None:
        details = current.details
        if details.get("format") != "jsonl" or "reason" in details or \
                not details.get("omitted", {}).get("records"):
            return None
        region = _jsonl_region(text, details["kept_first"], details["kept_last"])
        if region is None:
            return None
        pools = pools_for(region)
        kept = [p for p in pools.groups if p.members[0].pattern in records]
        found = sum(p.count for p in kept)
        out = []
        for item in in_order(attrs.evolve(pools, groups=tuple(kept)), limit):
            shown = record_json(item.text, LINE_CHARS)
            if shown is not None:
                out.append((item, shown))
        return region, out, found

    def block(items: list[tuple[Highlight, str]], found: int) -> str:
        numbers = ", ".join(f"line {artifact_line(h.line) or 'not kept'}" for h, _ in items)
        head = dump_string(_heading(templates, len(items), found) + f" {numbers}")
        return "\n".join([head, *(shown for _, shown in items)])

    def insert(current: Cut, addition: str) -> str:
        first = current.details["kept_first"]
        at = 0
        for _ in range(first + 1):  # the kept records, then the note
            nl = current.text.find("\n", at)
            if nl < 0:
                return current.text + "\n" + addition
            at = nl + 1
        return current.text[:at] + addition + "\n" + current.text[at:]

    found_now = chosen_in(cut)
    if found_now is None or not found_now[1]:
        return cut
    _, items, found = found_now
    share_budget = budget.scaled(share)
    while items and not share_budget.admits(measure(block(items, found) + "\n")):
        items.pop()
    for _ in range(_ATTEMPTS):
        if not items:
            return cut
        room = budget.minus(measure(block(items, found) + "\n"))
        if room is None:
            return cut
        again = recut(room)
        now = chosen_in(again)
        if now is None:
            return cut
        wider, _, found = now
        items = [(h, shown) for h, shown in items if h.inside(wider)]
        if not items:
            return cut
        out = insert(again, block(items, found))
        if budget.admits(measure(out)):
            details = {**again.details, "highlights": [
                {"line": artifact_line(h.line), "pattern": h.pattern, "text": shown,
                 "original_line": h.line} for h, shown in items]}
            return attrs.evolve(again, text=out, details=details)
    return cut
