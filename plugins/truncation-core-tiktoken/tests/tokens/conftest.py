"""Real tokenizers for the token tests: tiktoken with the files the plugin installs.

These tests check the core's token machinery (the estimate, budgets, fitting) against the
exact counts of this plugin's tokenizers, so they live with the plugin: the core's own tests
(tests/) pass without it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from truncation_core_tiktoken import TiktokenTokenizer
from truncation_core_tiktoken.files import load_ranks

from truncation_core.tokens.table import RankTable

sys.path.insert(0, str(Path(__file__).parent))  # token_texts

ENCODINGS = ("cl100k_base", "o200k_base")


@pytest.fixture(scope="session")
def real() -> dict[str, TiktokenTokenizer]:
    return {name: TiktokenTokenizer(name) for name in ENCODINGS}


@pytest.fixture(scope="session")
def full_ranks() -> dict[str, dict[bytes, int]]:
    return {name: load_ranks(name) for name in ENCODINGS}


@pytest.fixture(scope="session")
def full_tables(full_ranks: dict[str, dict[bytes, int]]) -> dict[str, RankTable]:
    """Rank tables with no threshold: the estimate's machinery then counts exactly."""
    return {
        name: RankTable(
            name=name,
            ascii_limit=1 << 40,
            no_alnum_limit=1 << 40,
            all_limit=1 << 40,
            ascii=ranks,
            no_alnum=ranks,
            all=ranks,
        )
        for name, ranks in full_ranks.items()
    }
