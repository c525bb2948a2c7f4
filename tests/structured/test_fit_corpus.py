"""Today's element cuts against the second golden corpus, written from commit 3d4b904 and
once more for a change on purpose (see fit_corpus.py): the same text, notes, omitted sizes
and details, case by case."""

from __future__ import annotations

import json

import pytest
from element_corpus import digest, run_case, summary
from fit_corpus import GOLDEN, cases, documents


@pytest.fixture(scope="module")
def golden() -> dict:
    return json.loads(GOLDEN.read_text())


@pytest.fixture(scope="module")
def docs() -> dict[str, str]:
    return dict(documents())


def test_the_generated_documents_are_the_ones_the_corpus_was_written_from(golden, docs):
    assert {name: digest(text) for name, text in docs.items()} == golden["inputs"]
    assert {key for key, *_ in cases()} == set(golden["cases"])


def test_every_case_cuts_as_commit_3d4b904_did(golden, docs):
    differ = {}
    for key, name, strategy, policy, budget in cases():
        got = summary(run_case(docs[name], strategy, policy, budget))
        if got != golden["cases"][key]:
            differ[key] = (golden["cases"][key], got)
    assert not differ, f"{len(differ)} cases differ\n" + "\n".join(
        f"{key}\n  old {old}\n  new {new}" for key, (old, new) in list(differ.items())[:20])


def test_negative_control_a_fitter_that_keeps_one_item_less_is_caught(golden, docs, monkeypatch):
    """The comparison bites: a fitter whose item search settles one below the largest that
    fits gives other outputs for some cases."""
    from truncation_core.structured import json_element

    real = json_element._largest

    def one_less(lo: int, hi: int, fits):  # type: ignore[no-untyped-def]
        found = real(lo, hi, fits)
        return max(lo, found - 1)

    monkeypatch.setattr(json_element, "_largest", one_less)
    changed = 0
    for key, name, strategy, policy, budget in list(cases())[:200]:
        if summary(run_case(docs[name], strategy, policy, budget)) != golden["cases"][key]:
            changed += 1
    assert changed > 20
