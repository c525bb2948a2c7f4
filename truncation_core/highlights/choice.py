"""Choosing the highlights to show when an omitted region has more matches than room.

Real logs have hundreds of matches: retries, configuration dumps, progress frames that look
like summaries. What a developer needs is usually the one that is different. So matches are
grouped (the same pattern, the same text once digits, hexadecimal numbers and paths are
folded: :mod:`~truncation_core.highlights.bank`), and :func:`in_order` ranks what to show,
rank by rank (0: test summaries and final statuses, then 1: errors, ...):

1. one match of every group of the rank, the first in the region: from rank 1 on, the
   **causes** first (an exception, an assertion's message, a compiler's error), then the
   status lines that only name a test (``test_x (m.T) ... ERROR``, ``ERROR: test_x (m.T)``,
   ``FAILED tests/x.py::test_y``: :func:`~truncation_core.highlights.lines.names_only`);
   within each, the **rarest** group first (fewest matches in the region), then the
   earliest. A single sanitizer report among 400 retries is a group of one, and comes
   before the group of 400, which is shown once, with its count. Fifty failing tests that
   all raise the same ``TypeError`` show that ``TypeError`` (with its count) before any of
   their fifty status lines;
2. then, for the errors (rank 1 ..., not the summaries and final statuses of rank 0, which
   say it once), round after round over those groups in the same order, their next match,
   unless it shows the very same lines again, for groups that repeat no more often than the
   block has lines (six errors of two kinds in six files are six things to fix; a retry
   printed 400 times is one).

Ranks from :data:`DETAIL_RANK` on (details and warnings) are shown only when they are few in
the region (no more matches than the block has lines): a warning that explains a crash is
worth a slot; four hundred warnings of a noisy build are not.

The block shows its choices in line order; :mod:`~truncation_core.highlights.block` fits
them to the budget, in this order of preference.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from truncation_core.highlights.lines import names_only

if TYPE_CHECKING:
    from truncation_core.highlights.bank import Highlight, Pool, Pools

__all__ = ["DETAIL_RANK", "in_order"]

#: Ranks from this one on are details and warnings, shown only when few.
DETAIL_RANK = 2


def _shows(item: Highlight) -> tuple[str, ...]:
    """What showing *item* shows: its text and its units' lines."""
    return (item.text, *(u.text for u in item.above), *(u.text for u in item.below))


def _rarest_first(groups: list[Pool]) -> list[Pool]:
    """*groups* of one rank, causes before status lines that only name a test (from rank 1
    on: :func:`~truncation_core.highlights.lines.names_only`), each the rarest first, then
    the earliest. A group counted only in part, in a text dense with matches, may be any
    size: it comes after those counted whole."""
    return sorted(groups, key=lambda p: (p.more, p.rank > 0 and _names_only(p), p.count,
                                         p.first))


def _names_only(pool: Pool) -> bool:
    """Whether *pool*'s lines only name a test: judged on its key's folded text (the same
    words: only numbers, paths and quoted values are masked), so that no member need be
    looked at."""
    return names_only(pool.key.partition("\0")[2])


def _more(groups: list[Pool], limit: int, chosen: list[Highlight],
          shown: set[tuple[str, ...]]) -> None:
    """Round after round over *groups*, their next match, while there is room."""
    repeating = [p for p in groups if 1 < len(p.members) and p.count <= limit and not p.more]
    depth = 1
    while len(chosen) < limit and repeating:
        repeating = [p for p in repeating if depth < len(p.members)]
        for pool in repeating:
            item = pool.members[depth]
            if _shows(item) not in shown:
                shown.add(_shows(item))
                chosen.append(item)
                if len(chosen) >= limit:
                    return
        depth += 1


def in_order(pools: Pools, limit: int) -> list[Highlight]:
    """The matches worth showing, best first: at most *limit* of them."""
    if limit <= 0:
        return []
    by_rank: dict[int, list[Pool]] = {}
    for pool in pools.groups:
        if pool.members:
            by_rank.setdefault(pool.rank, []).append(pool)
    main = [rank for rank in sorted(by_rank) if rank < DETAIL_RANK]
    details = [rank for rank in sorted(by_rank) if rank >= DETAIL_RANK
               and sum(p.count for p in by_rank[rank]) <= limit
               and not any(p.more for p in by_rank[rank])]
    chosen: list[Highlight] = []
    shown: set[tuple[str, ...]] = set()

    def once(rank: int) -> None:
        for pool in _rarest_first(by_rank[rank]):
            if len(chosen) >= limit:  # (what follows is never shown: its units need not run)
                return
            chosen.append(pool.members[0])
            shown.add(_shows(pool.members[0]))

    for rank in main:
        once(rank)
    for rank in main:
        if rank > 0:  # a summary or a final status says it once
            _more(_rarest_first(by_rank[rank]), limit, chosen, shown)
    for rank in details:
        once(rank)
        _more(_rarest_first(by_rank[rank]), limit, chosen, shown)
    return chosen[:limit]
