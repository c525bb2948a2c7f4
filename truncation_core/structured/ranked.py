"""Ranked results: keep the highest-scored whole results that fit.

The input is JSON: a list of results, either the top-level value or a list inside a response
object (the first member whose value is a list of objects carrying the score, else the
largest list of objects). Each result's score is read at ``score_key``, a dotted path
(``score``, ``metadata.similarity_score``); results without a numeric score rank last, and
equal scores keep their original order.

Results are taken from the highest score down for as long as the whole output fits the
budget, the response around the list included; a result is never cut. The kept results come
in score order, followed by one note item, ``"... 42 lower-scored results omitted ..."``.

If not even the best result fits, it alone is element-truncated to the budget (reason
``single_result_too_large``). Input that is not such a list falls back to ``element``.

``element`` hands scored results to ``ranked`` (:func:`element_or_ranked`): JSON whose list
of results carries a numeric score in nearly every result (90% of the first 50, at least two),
under ``score_key`` or else under one of :data:`SCORE_FIELDS` (the first found), is cut by
keeping the best scores, and a note says which field was used. Not when the user's
configuration names the tool's strategy (``tools.<name>.strategy``), nor with
``detect_structure`` off: then ``element`` is what was asked for.

The metadata carries a ``truncation_info``: ``reason`` (``character_limit``,
``single_result_too_large`` or None), ``original_count``, ``returned_count``,
``estimated_chars``, ``limit_chars``, ``estimated_tokens`` and ``limit_tokens``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from truncation_core.structured.dispatch import element_cut, text_fallback
from truncation_core.structured.json_element import (
    _MASK,
    INF,
    Note,
    Style,
    _path_segment,
    _Plan,
    detect_style,
    dump_string,
    fit,
)
from truncation_core.structured.notes import NoteCache
from truncation_core.structured.rest import estimate_tokens
from truncation_core.structured.sniff import NOT_PARSED, RawNumber, parse
from truncation_core.text.measure import count_lines, measure
from truncation_core.types.cuts import ContentFacts, Cut, ElementOmission
from truncation_core.types.markers import MarkerRenderer
from truncation_core.types.models import Budget, Size
from truncation_core.types.policy import Policy

if TYPE_CHECKING:
    from truncation_core.structured.json_stream import JsonStreamTruncator

__all__ = ["SCORE_FIELDS", "detect_score_key", "element_or_ranked", "find_results",
           "ranked_cut", "score_of"]

#: At most this many indices of returned results are listed in the metadata.
MAX_LISTED = 50
#: The fields search tools put a result's score in, tried in this order (each a key of the
#: result itself) when the results do not carry ``score_key``.
SCORE_FIELDS = ("score", "_score", "similarity_score", "similarity", "relevance",
                "relevance_score", "search_score", "@search.score", "rerank_score",
                "ranking_score", "confidence")
#: Results a score field is looked for in, and the share of them that must carry it.
_SAMPLE, _SCORED_SHARE = 50, 0.9


def _member(pairs: tuple[Any, ...], key: str) -> Any:
    for name, value in pairs:  # the first of duplicate keys, as most parsers would not do,
        if name == key:        # but stable: the score the tool wrote first
            return value
    return None


def score_of(result: Any, path: tuple[str, ...]) -> float | None:
    """The numeric score of one result at the key *path*, or None."""
    value = result
    for key in path:
        if type(value) is not tuple:
            return None
        value = _member(value, key)
    if type(value) is int:
        return float(value)
    if type(value) is RawNumber:
        try:
            number = float(value)
        except ValueError:
            return None
        return number if math.isfinite(number) else (math.copysign(1e308, number))
    return None


def find_results(value: Any, path: tuple[str, ...]) -> tuple[str | None, list[Any] | None]:
    """Where the results are: ``(member name or None for the top level, the list)``."""
    if type(value) is list:
        return None, value
    if type(value) is not tuple:
        return None, None
    lists = [(key, member) for key, member in value
             if type(member) is list and member and all(type(r) is tuple for r in member)]
    for key, member in lists:
        if any(score_of(r, path) is not None for r in member[:10]):
            return key, member
    if lists:
        return max(lists, key=lambda kv: len(kv[1]))
    return None, None


def detect_score_key(value: Any, configured: tuple[str, ...]) -> tuple[str, ...] | None:
    """The key path of the score that the results in the parsed JSON *value* carry: the
    *configured* one (``score_key``) when they carry it, else the first of
    :data:`SCORE_FIELDS`; None when they carry none (in 90% of the first 50 results, and at
    least two)."""
    for path in (configured, *((name,) for name in SCORE_FIELDS if (name,) != configured)):
        _, results = find_results(value, path)
        if results is not None and _scored(results, path):
            return path
    return None


def _scored(results: list[Any], path: tuple[str, ...]) -> bool:
    sample = results[:_SAMPLE]
    scored = sum(score_of(r, path) is not None for r in sample)
    return scored >= max(2, math.ceil(_SCORED_SHARE * len(sample)))


def element_or_ranked(text: str, *, budget: Budget, facts: ContentFacts, policy: Policy,
                      markers: MarkerRenderer, prefed: JsonStreamTruncator | None = None
                      ) -> Cut:
    """The ``element`` strategy, which hands JSON results carrying scores to ``ranked`` (see
    the module docstring)."""
    if policy.detect_structure and not policy.explicit_strategy and prefed is None \
            and facts.chars <= policy.stream_threshold \
            and (facts.looks_like_json or text[:1] in "[{"):
        parsed = facts.parsed if facts.parsed is not NOT_PARSED else parse(text)
        if parsed.format == "json" and not parsed.deep:
            path = detect_score_key(parsed.value, tuple(policy.score_key.split(".")))
            if path is not None:
                cut = ranked_cut(text, budget=budget, facts=facts, policy=policy,
                                 markers=attrs.evolve(markers, strategy="ranked"),
                                 key_path=path)
                if cut.strategy is None:  # ranked, not handed back to element
                    field = ".".join(path) if len(path) > 1 else path[0]
                    return attrs.evolve(cut, strategy="ranked", notes=(
                        f"ranked: the results carry a numeric score in {field!r}, so the "
                        "best-scored were kept (tools.<name>.strategy: element keeps the "
                        "first and last instead)",
                        *cut.notes))
    return element_cut(text, budget=budget, facts=facts, policy=policy, markers=markers,
                       prefed=prefed)


def ranked_cut(text: str, *, budget: Budget, facts: ContentFacts, policy: Policy,
               markers: MarkerRenderer, prefed: JsonStreamTruncator | None = None,
               key_path: tuple[str, ...] | None = None) -> Cut:
    """The ``ranked`` strategy. *prefed*: as for
    :func:`~truncation_core.structured.dispatch.element_cut`, for a stream. *key_path*: the
    score's key path, when detected (default: ``score_key``)."""
    if facts.chars > policy.stream_threshold:
        return _as_element(text, budget, facts, policy, markers,
                           "larger than stream_threshold: cut by element instead", prefed)
    parsed = facts.parsed if facts.parsed is not NOT_PARSED else parse(text)
    if parsed.format != "json" or parsed.deep:
        if parsed.format is None:
            return text_fallback(text, budget=budget, facts=facts, policy=policy,
                                 markers=markers, reason=parsed.error or "not JSON")
        return _as_element(text, budget, facts, policy, markers, "not a single JSON document")
    if key_path is None:
        key_path = tuple(policy.score_key.split("."))
    member, results = find_results(parsed.value, key_path)
    if results is None:
        return _as_element(text, budget, facts, policy, markers, "no list of results found")

    order = sorted(range(len(results)), key=lambda i: _rank_key(results[i], key_path, i))
    note_cache = NoteCache(markers)
    style = detect_style(text)
    list_path = "$" + (_path_segment(member) if member is not None else "")

    def document(kept: int) -> Any:
        items: list[Any] = [results[i] for i in order[:kept]]
        omitted = len(results) - kept
        if omitted:
            items.append(Note(note(omitted)))
        if member is None:
            return items
        return tuple((k, items if k == member and v is results else v)
                     for k, v in parsed.value)

    def note(omitted: int) -> str:
        return note_cache(ElementOmission(kind="ranked_results", count=omitted,
                                          total=len(results), unit="results", path=list_path))

    layout = _Layout(parsed.value, member, results, order, budget=budget, style=style,
                     note=note)
    reason: str | None = "character_limit"
    try:
        out = layout.render(1) if results and layout.fits(1) else None
        if out is not None:
            lo, hi = 1, len(results)
            while lo < hi:
                mid = (lo + hi + 1) // 2
                lo, hi = (mid, hi) if layout.fits(mid) else (lo, mid - 1)
            kept = lo
            out = layout.render(kept) or ""  # fits, so it is written
            if kept == len(results):
                reason = None
            else:  # which limit the next result would break
                following = layout.render(kept + 1)
                if following is not None:
                    reason = _binding_limit(measure(following), budget)
    finally:
        layout.plan.release()
    if out is not None:
        details_fit: dict[str, Any] = {}
    else:  # not even the best result fits whole: element-truncate it
        kept, reason = min(1, len(results)), "single_result_too_large"
        fitted = fit(document(kept), budget=budget, style=style, note=note_cache,
                     head_ratio=policy.head_ratio, max_depth=policy.max_depth)
        if fitted is None:
            return text_fallback(text, budget=budget, facts=facts, policy=policy,
                                 markers=markers, reason="the budget is too small for valid JSON")
        out = fitted.text
        details_fit = {"omitted": dict(fitted.omitted), "cuts": list(fitted.cuts)}
    info = {
        "reason": reason,
        "original_count": len(results),
        "returned_count": kept,
        "estimated_chars": len(out),
        "limit_chars": budget.chars,
        "estimated_tokens": estimate_tokens(len(out)),
        "limit_tokens": budget.chars // 4,
        **({"limit_bytes": budget.bytes} if budget.bytes is not None else {}),
        **({"limit_lines": budget.lines} if budget.lines is not None else {}),
    }
    details = {"format": "json", "results_path": list_path, "score_key": ".".join(key_path),
               "truncation_info": info, "returned": order[:min(kept, MAX_LISTED)],
               **details_fit}
    return Cut(text=out, omitted_chars=max(0, facts.chars - len(out)),
               omitted_lines=max(0, facts.lines - count_lines(out)), details=details,
               notes=("ranked: the best result alone is too large; it is cut inside",)
               if reason == "single_result_too_large" else ())


class _Layout:
    """The response with its best results kept whole: sized for any number kept, from each
    result measured once (in score order, as far as a trial needs), and written once."""

    def __init__(self, value: Any, member: str | None, results: list[Any], order: list[int],
                 *, budget: Budget, style: Style, note: Callable[[int], str]) -> None:
        self.plan = _Plan(value, budget=budget, style=style, note=lambda element: "",
                          head_ratio=1.0, max_depth=INF)
        self.results = results
        self.order = order
        self.note = note
        self.budget = budget
        #: The depth of the list of results, and the response around it.
        self.depth = 0 if member is None else 1
        self.before, self.after = "", ""
        self.around: int | None = 0
        if member is not None:
            self._response(value, member, results)
        #: Texts of the results measured so far, in score order (None: larger than the
        #: budget), and prefix sums of their sizes.
        self.texts: list[str | None] = []
        self.sums = [0]

    def _response(self, value: tuple[tuple[str, Any], ...], member: str,
                  results: list[Any]) -> None:
        plan = self.plan
        opening, following = plan.prefixes(0)
        pieces = ["{"]
        mark = 0
        for i, (key, item) in enumerate(value):
            pieces.append(following if i else opening)
            if key == member and item is results:
                pieces.append(plan.key_text(key))
                mark = len(pieces)
                pieces.append("")
                continue
            text = plan.measure([(key, item)], True, 1, INF)[0][0]
            if text is None:  # this member alone is larger than the budget
                self.around = None
                return
            pieces.append(text)
        pieces += [plan.closing(0), "}"]
        self.before, self.after = "".join(pieces[:mark]), "".join(pieces[mark + 1:])
        self.around = plan.size_of(self.before) + plan.size_of(self.after)

    def _measured(self, kept: int) -> bool:
        """Measure the best *kept* results, unless they are larger than the budget first."""
        plan = self.plan
        while len(self.texts) < kept:
            if self.sums[-1] & _MASK > self.budget.chars:
                return False
            text = plan.measure([self.results[self.order[len(self.texts)]]], False,
                                self.depth + 1, INF)[0][0]
            self.texts.append(text)
            self.sums.append(self.sums[-1] + (plan.size_of(text) if text is not None
                                              else self.budget.chars + 1))
        return None not in self.texts[:kept]

    def fits(self, kept: int) -> bool:
        """Whether the response with the best *kept* results (and a note) fits the budget."""
        if self.around is None or not self._measured(kept):
            return False
        plan = self.plan
        omitted = len(self.results) - kept
        size = (self.around + self.sums[kept]
                + plan.frame_size(self.depth, kept + (1 if omitted else 0)))
        if omitted:
            size += plan.size_of(dump_string(self.note(omitted)))
        return plan.admits(size)

    def render(self, kept: int) -> str | None:
        """The response with the best *kept* results; None when one of them, or the response
        around them, is larger than the budget."""
        if self.around is None or not self._measured(kept):
            return None
        plan = self.plan
        items: list[str] = self.texts[:kept]  # type: ignore[assignment]
        omitted = len(self.results) - kept
        if omitted:
            items = [*items, dump_string(self.note(omitted))]
        opening, following = plan.prefixes(self.depth)
        listed = ("[" + opening + following.join(items) + plan.closing(self.depth) + "]"
                  if items else "[]")
        return self.before + listed + self.after


def _binding_limit(size: Size, budget: Budget) -> str:
    """The reason for stopping: the limit the next result would break (characters
    first, when it would break several)."""
    if size.chars > budget.chars:
        return "character_limit"
    if budget.bytes is not None and size.bytes > budget.bytes:
        return "byte_limit"
    if budget.lines is not None and size.lines > budget.lines:
        return "line_limit"
    return "character_limit"


def _rank_key(result: Any, path: tuple[str, ...], index: int) -> tuple[bool, float, int]:
    score = score_of(result, path)
    return (score is None, -(score or 0.0), index)


def _as_element(text: str, budget: Budget, facts: ContentFacts, policy: Policy,
                markers: MarkerRenderer, why: str,
                prefed: JsonStreamTruncator | None = None) -> Cut:
    cut = element_cut(text, budget=budget, facts=facts, policy=policy,
                      markers=attrs.evolve(markers, strategy="element"), prefed=prefed)
    return attrs.evolve(cut, strategy=cut.strategy or "element",
                        notes=(*cut.notes, f"ranked: {why}"))
