"""The ``estimate`` tokenizer, the default (implemented in :mod:`truncation_core.tokens.estimate`).

Its rank table loads on the first count, not when this module is imported.
"""

from __future__ import annotations

from truncation_core.hooks.specs import hookimpl
from truncation_core.tokens.estimate import EstimateTokenizer
from truncation_core.types.models import Provides
from truncation_core.types.tokenizer import Tokenizer

NAME = "estimate"


def _estimate() -> Tokenizer:
    return EstimateTokenizer()


@hookimpl(trylast=True)
def provides() -> Provides:
    return Provides(tokenizers={NAME: _estimate})
