"""Counting tokens: the tokenizer contract and the built-in ``estimate`` tokenizer.

A :class:`Tokenizer` says how many tokens a model sees for a text and fits a text to a token
budget (:mod:`.contract`). The built-in ``estimate`` (:mod:`.estimate`) needs no dependency:
it merges each piece of the text with part of the cl100k_base and o200k_base vocabularies
(:mod:`.table`), which can only leave more tokens than the real encodings, so it never counts
fewer tokens than either, on any text; it is typically 5 to 20% over on logs, code, JSON, CJK
text and base64 (docs/tokens.md). Exact tokenizers come from plugins, such as
``truncation-core-tiktoken``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from truncation_core.types.tokenizer import (
    Tokenizer,
    fit_prefix_by_count,
    fit_suffix_by_count,
    utf8_size,
    visible_text,
)

if TYPE_CHECKING:
    from truncation_core.tokens.estimate import ESTIMATE, EstimateTokenizer

__all__ = [
    "ESTIMATE",
    "EstimateTokenizer",
    "Tokenizer",
    "fit_prefix_by_count",
    "fit_suffix_by_count",
    "utf8_size",
    "visible_text",
]


def __getattr__(name: str) -> Any:
    # The estimate and its table load on first use: importing the contract stays cheap.
    if name in ("ESTIMATE", "EstimateTokenizer"):
        value = getattr(importlib.import_module("truncation_core.tokens.estimate"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'truncation_core.tokens' has no attribute {name!r}")
