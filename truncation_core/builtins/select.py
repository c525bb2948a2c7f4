"""The default ``select_strategy``: the policy's strategy, or ``element`` for structured content.

Content that looks like JSON (or XML) goes to ``element`` when all of these hold:

* ``detect_structure`` is on (the default), globally and for the tool;
* the tool's own policy does not name a strategy: neither a built-in tool policy (
  ``read_file`` and ``git_diff`` keep ``head_tail``, ``execute_command`` keeps ``tail``) nor
  ``tools.<name>.strategy`` in configuration. ``default_strategy`` is not the tool's policy: it
  applies to content that is not structured.

The sniff here is cheap (first and last characters); ``element`` parses, and content that does
not parse is cut by a text strategy with the reason in the metadata.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from truncation_core.hooks.specs import hookimpl
from truncation_core.types.policy import Policy

if TYPE_CHECKING:
    from truncation_core.types.cuts import ContentFacts

STRUCTURED = "element"


@hookimpl(trylast=True)
def select_strategy(facts: ContentFacts, policy: Policy) -> str:
    if (policy.detect_structure and not policy.tool_strategy
            and (facts.looks_like_json or facts.looks_like_xml)):
        return STRUCTURED
    return policy.strategy
