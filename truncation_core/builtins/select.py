"""The default ``select_strategy``: the strategy the effective policy names."""

from __future__ import annotations

from truncation_core.config import Policy
from truncation_core.hookspecs import hookimpl


@hookimpl(trylast=True)
def select_strategy(policy: Policy) -> str:
    return policy.strategy
