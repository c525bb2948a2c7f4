"""The ``sample`` strategy: head, tail, and evenly spaced lines from the middle.

A head_tail cut is made first, with part of the budget held back; the held-back part then
shows whole lines sampled evenly from the omitted middle. Every gap gets its own marker, so
the model knows exactly which lines it has not seen and how to read them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from truncation_core.plugin import Provides, Strategy, hookimpl

if TYPE_CHECKING:
    from truncation_core.plugin import Budget, ContentFacts, Cut, MarkerRenderer, Policy

NAME = "sample"
#: Share of the budget held back for sampled lines.
SAMPLE_SHARE = 0.2
#: Lines sampled from the middle, at most.
MAX_SAMPLES = 5
#: Longer lines are not sampled: a sample should be a glance, not a page.
MAX_SAMPLE_CHARS = 300


def _sample_lines(text: str, start: int, end: int, count: int) -> list[tuple[int, int]]:
    """Up to *count* whole lines inside ``text[start:end]``, evenly spaced, as (start, end)."""
    picked: list[tuple[int, int]] = []
    for i in range(1, count + 1):
        pos = start + (end - start) * i // (count + 1)
        line_start = text.find("\n", pos, end)
        if line_start == -1:
            continue
        line_start += 1
        line_end = text.find("\n", line_start, end)
        if line_end == -1:
            continue
        line_end += 1
        if line_end - line_start <= MAX_SAMPLE_CHARS and (
            not picked or line_start >= picked[-1][1]
        ):
            picked.append((line_start, line_end))
    return picked


def sample(
    text: str, *, budget: Budget, facts: ContentFacts, policy: Policy, markers: MarkerRenderer
) -> Cut:
    """The cut: *text* within *budget*, each gap rendered by *markers*."""
    # Imported by the first cut: every Truncator imports this module, most never cut.
    from truncation_core.plugin import Cut, cut_text, is_line_start, measure, omission

    base = cut_text(text, budget=budget.scaled(1 - SAMPLE_SHARE), facts=facts, markers=markers,
                    head_share=policy.head_ratio)
    if len(base.omissions) != 1 or not (
        is_line_start(text, base.omissions[0].start) and is_line_start(text, base.omissions[0].end)
    ):
        return base  # nothing (or no whole lines) to sample from
    head_end, tail_start = base.omissions[0].start, base.omissions[0].end
    for count in range(MAX_SAMPLES, 0, -1):
        samples = _sample_lines(text, head_end, tail_start, count)
        pieces, gaps, previous = [text[:head_end]], [], head_end
        for line_start, line_end in (*samples, (tail_start, tail_start)):
            gap = omission(text, previous, line_start, total_terminators=facts.terminators,
                           position="middle", byte_offset=facts.byte_offset)
            gaps.append(gap)
            pieces += [markers.render(gap), text[line_start:line_end]]
            previous = line_end
        pieces.append(text[tail_start:])
        out = "".join(pieces)
        if samples and budget.admits(measure(out)):
            return Cut(
                text=out,
                omitted_chars=sum(g.chars for g in gaps),
                omitted_lines=sum(g.lines for g in gaps),
                omissions=gaps,
                details={"sampled_lines": [g.last_line + 1 for g in gaps[:-1]]},
            )
    return base


SAMPLE = Strategy(
    name=NAME,
    description="head and tail, plus evenly spaced lines from the middle",
    cut=sample,
)


@hookimpl
def provides() -> Provides:
    return Provides(strategies=[SAMPLE])
