"""The highlights block: the salient lines of an omitted part, shown within the budget.

When a cut leaves out part of a tool result, lines such as an exception header, ``error:``,
``FAILED``, ``panic`` or a test summary may be in the part left out. The highlights block
shows them, each with its line number in the artifact (the number ``get_artifact`` takes),
right after the omission marker::

    ... [Beginning omitted: 9,870 lines / ...; get_artifact(...)] ...
    ... [highlights from the omitted part: 2 of 2 matching lines] ...
    line 129: Traceback (most recent call last):
    line 135: ValueError: invalid literal for int() with base 10: 'x'
    <the kept tail>

Definitions (the same for ``process`` and for streams, which is what makes them agree):

* Lines are those of :mod:`truncation_core.text.cut`. A line is a **candidate** only if it lies
  entirely inside the omitted region.
* Each line is matched on its **probe**: its first :data:`PROBE_CHARS` characters, without
  the terminator. A line matches a :class:`SalientPattern` when the probe contains one of the
  pattern's ``keywords`` and, if the pattern has a ``regex``, ``re.search`` finds it in the
  probe. The first matching pattern, in rank order, classifies the line.
* **Selection** is deterministic: patterns of rank 0 (test summaries, exit statuses) first,
  then rank 1 (error headers), and so on; within a rank, when there are more matches than
  room, the first half of the room goes to the earliest matches and the rest to the latest
  (the first failure and the last one). At most ``policy.highlights`` lines are shown, each
  clipped to :data:`LINE_CHARS`, and the block takes at most a quarter of the budget.
* The block counts against the budget: the content is cut again with the block's size taken
  off, and only lines still inside the (larger) omitted region are shown.
* Numbers address the artifact as stored: when it is itself cut (over ``max_artifact_size``),
  a line it keeps is shown with its number there, and a line it dropped is shown as not kept
  (``marker.highlight_not_kept``), with no number
  (:func:`truncation_core.pipeline.resume.artifact_line`).

Keywords are what keeps scanning fast: only lines holding one are classified (and run the
patterns' regular expressions), and those lines are found with ``str.find``, each literal
looked for by its rarest character first (see :class:`_LiteralSearch`): a character absent
from the text costs a memchr over it. Scanning still costs a few times a plain cut, which is
why highlights are on only for tools whose output is command output (see ``highlights`` in
docs/configuration.md).

Patterns come from the ``salient_patterns`` hook: the built-in plugin
(:mod:`truncation_core.builtins.salient`) gives generic ones, and plugins add their own per tool.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from truncation_core.highlights.bank import Pools, select
from truncation_core.highlights.patterns import Highlight
from truncation_core.hooks.models import Budget, Cut, Omission
from truncation_core.text.measure import measure

if TYPE_CHECKING:
    from truncation_core.config.markers import MarkerConfig

__all__ = ["SHARE", "lift_highlights", "render"]

#: The most of the budget (in every limited unit) the block may take.
SHARE = 0.25
#: How many times a cut is redone when the block's counts grow with the omitted region.
_ATTEMPTS = 3


# -- the block -------------------------------------------------------------------------------


def _found(pools: Pools) -> int:
    return sum(pool.count for pool in pools.values())


def _same_line(line: int) -> int | None:
    return line


def _shown(item: Highlight, templates: MarkerConfig, number: int | None) -> str:
    if number is None:
        return templates.highlight_not_kept.format(text=item.text, pattern=item.pattern,
                                                   original_line=item.line)
    return templates.highlight.format(line=number, text=item.text, pattern=item.pattern,
                                      original_line=item.line)


def render(chosen: Sequence[Highlight], found: int, position: str,
           templates: MarkerConfig,
           artifact_line: Callable[[int], int | None] = _same_line) -> str:
    """The highlights block, with the separators its place next to the marker needs.

    *artifact_line* maps a line of the original to the number ``get_artifact`` takes for it,
    None when the artifact does not keep it (:func:`truncation_core.pipeline.resume.artifact_line`).
    """
    lines = [templates.highlights.format(shown=len(chosen), found=found)]
    lines += [_shown(h, templates, artifact_line(h.line)) for h in chosen]
    if position == "end":  # after a marker that ends the output without a newline
        return "\n" + "\n".join(lines)
    return "\n".join(lines) + "\n"


def _choose(pools: Pools, limit: int, budget: Budget, position: str,
            templates: MarkerConfig,
            artifact_line: Callable[[int], int | None]) -> list[Highlight]:
    """The most highlights (up to *limit*) whose block fits :data:`SHARE` of the budget."""
    share = budget.scaled(SHARE)
    found = _found(pools)
    for k in range(limit, 0, -1):
        chosen = select(pools, k)
        if not chosen:
            return []
        if share.admits(measure(render(chosen, found, position, templates, artifact_line))):
            return chosen
    return []


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
                    artifact_line: Callable[[int], int | None] = _same_line) -> Cut:
    """*cut* with a highlights block after its marker, cut again to make room for the block.

    Each line is shown with the number *artifact_line* gives it (the artifact's), or as not
    kept when it gives None. Returns *cut* unchanged when there is nothing to lift, or when
    the result would not fit.
    """
    region = _sole_omission(cut, text)
    if region is None or limit <= 0:
        return cut
    pools = pools_for(region)
    chosen = _choose(pools, limit, budget, region.position, templates, artifact_line)
    found = _found(pools)
    for _ in range(_ATTEMPTS):
        if not chosen:
            return cut
        room = budget.minus(measure(render(chosen, found, region.position, templates,
                                           artifact_line)))
        if room is None:
            return cut
        again = recut(room)
        wider = _sole_omission(again, text)
        if wider is None:
            return cut
        chosen = [h for h in chosen if h.inside(wider)]
        found = _found(pools_for(wider))
        block = render(chosen, found, wider.position, templates, artifact_line)
        at = len(again.text) - (len(text) - wider.end)
        out = again.text[:at] + block + again.text[at:]
        if chosen and budget.admits(measure(out)):
            details = {**again.details, "highlights": [
                {"line": artifact_line(h.line), "pattern": h.pattern, "text": h.text,
                 "original_line": h.line} for h in chosen]}
            return attrs.evolve(again, text=out, details=details)
    return cut
