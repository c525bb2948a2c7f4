"""The built-in implementations of the pipeline's four hooks, each ``trylast``: any other
plugin's answer wins.

``select_strategy``: the policy's strategy, or ``element`` for structured content. Content
that looks like JSON (or XML) goes to ``element`` when all of these hold:

* ``detect_structure`` is on (the default), globally and for the tool;
* the tool's own policy does not name a strategy: neither a built-in tool policy
  (``read_file`` keeps ``outline``, ``git_diff`` ``head_tail``: the model edits their lines
  next) nor ``tools.<name>.strategy`` in configuration. ``default_strategy`` is not the tool's
  policy: it applies to content that is not structured; nor is the built-in ``tail`` of
  ``execute_command``, which is for its text: JSON a command prints
  (``curl ... | python -m json.tool``) is cut as JSON
  (:data:`~truncation_core.types.policy.TEXT_POLICIES`); JSON Lines it prints are its log,
  and keep its ``tail`` (with highlights: the error records). A stream longer than the ends
  it keeps is not parsed here: its JSON Lines go to ``element``, which keeps records too.

The sniff here is cheap (first and last characters); ``element`` parses, and content that does
not parse is cut by a text strategy with the reason in the metadata.

``truncate``: asks the chosen :class:`~truncation_core.types.strategy.Strategy` for its cut.

``format_marker``: the templates from configuration (``marker:``). With the default templates
the markers are the specified ones, with numbers written like ``12,340``:
``\\n... [X lines / Y chars omitted] ...\\n`` for head_tail, ``... [Beginning omitted: X lines /
Y chars] ...`` for tail and ``... [Remainder omitted: X lines / Y chars] ...`` for head. When
the omitted part is kept, ``{hint}`` says how to read it back. Notes of structured strategies
(``marker.element`` set) use the ``json_*``, ``jsonl_records``, ``ranked_results`` and ``xml_*``
templates.

``store_artifact``: opens a writer on the current store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from truncation_core.hooks.specs import hookimpl

if TYPE_CHECKING:
    from truncation_core.types.artifacts import ArtifactInfo
    from truncation_core.types.cuts import ContentFacts, Cut, Marker
    from truncation_core.types.markers import MarkerRenderer
    from truncation_core.types.models import Budget
    from truncation_core.types.policy import Policy
    from truncation_core.types.storage import ArtifactStore, ArtifactWriter
    from truncation_core.types.strategy import Strategy

STRUCTURED = "element"


@hookimpl(trylast=True)
def select_strategy(facts: ContentFacts, policy: Policy) -> str:
    if policy.sniffs_structure and (facts.looks_like_json or facts.looks_like_xml):
        if policy.tool_strategy and facts.looks_like_json and facts.parsed.format == "jsonl":
            return policy.strategy  # a command's JSON Lines are its log: its tail and highlights
        return STRUCTURED
    return policy.strategy


@hookimpl(trylast=True)
def truncate(strategy: Strategy, text: str, budget: Budget, facts: ContentFacts,
             policy: Policy, markers: MarkerRenderer) -> Cut | None:
    return strategy.cut(text, budget=budget, facts=facts, policy=policy, markers=markers)


@hookimpl(trylast=True)
def format_marker(marker: Marker, policy: Policy) -> str:
    # With the values of a cut (types/cuts.py), 9 ms at start-up otherwise: only a cut
    # renders markers (see strategies.py).
    from truncation_core.types.markers import render_configured

    return render_configured(marker, policy)


@hookimpl(trylast=True)
def store_artifact(store: ArtifactStore, info: ArtifactInfo) -> ArtifactWriter:
    return store.writer(info)
