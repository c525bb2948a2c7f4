"""The default ``select_strategy``: the policy's strategy, or ``element`` for structured content.

Content that looks like JSON (or XML) goes to ``element`` when all of these hold:

* ``detect_structure`` is on (the default), globally and for the tool;
* the tool's own policy does not name a strategy: neither a built-in tool policy
  (``read_file`` keeps ``outline``, ``git_diff`` ``head_tail``: the model edits their lines
  next) nor ``tools.<name>.strategy`` in configuration. ``default_strategy`` is not the tool's
  policy: it applies to content that is not structured; nor is the built-in ``tail`` of
  ``execute_command``, which is for its text: JSON a command prints
  (``curl ... | python -m json.tool``) is cut as JSON
  (:data:`~truncation_core.config.model.TEXT_POLICIES`); JSON Lines it prints are its log,
  and keep its ``tail`` (with highlights: the error records). A stream longer than the ends
  it keeps is not parsed here: its JSON Lines go to ``element``, which keeps records too.

The sniff here is cheap (first and last characters); ``element`` parses, and content that does
not parse is cut by a text strategy with the reason in the metadata.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from truncation_core.config.model import Policy
from truncation_core.hooks.specs import hookimpl

if TYPE_CHECKING:
    from truncation_core.hooks.models import ContentFacts

STRUCTURED = "element"


@hookimpl(trylast=True)
def select_strategy(facts: ContentFacts, policy: Policy) -> str:
    if policy.sniffs_structure and (facts.looks_like_json or facts.looks_like_xml):
        if policy.tool_strategy and facts.looks_like_json and facts.parsed.format == "jsonl":
            return policy.strategy  # a command's JSON Lines are its log: its tail and highlights
        return STRUCTURED
    return policy.strategy
