"""Stateful property test: each backend's store against a dict model (reliability.md §3, §5).

Rules store, read back (whole, and through head, tail, lines and grep), delete, reopen (a new
store object over the same storage), list and use bad ids, in any order Hypothesis finds; the
store must always agree with the model. It runs on the filesystem, memory and redis backends
(the redis store with tiny chunks and index blocks, so that small contents span many).
"""

from __future__ import annotations

import io
import secrets

import attrs
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    invariant,
    rule,
    run_state_machine_as_test,
)

from truncation_core import ArtifactNotFound, InvalidArtifactId
from truncation_core.retrieval import grep, read_lines, read_tail, reader_for
from truncation_core.types.artifacts import ArtifactInfo
from truncation_core.types.ids import new_artifact_id

from .conftest import StoreMaker

contents = st.lists(st.sampled_from([b"a", b"\n", b"\r\n", b"\r", b"\xff", b"\xed\xa0\x80",
                                     "é".encode(), b"line\n"]), max_size=30).map(b"".join)


class StoreMachine(RuleBasedStateMachine):
    ids = Bundle("ids")
    make_store: StoreMaker

    def __init__(self) -> None:
        super().__init__()
        self.session = "model-" + secrets.token_hex(4)
        self.layout = {"chunk_size": 4, "index_block": 3}
        self.store = self.make_store(self.session, **self.layout)
        self.model: dict[str, bytes] = {}

    def teardown(self) -> None:
        self.store.delete_session()

    @rule(target=ids, data=contents, json=st.booleans())
    def store_one(self, data: bytes, json: bool) -> str:
        info = ArtifactInfo(content_type="application/json" if json else "text/plain")
        with self.store.writer(info) as w:
            w.write(data[: len(data) // 2])
            w.write(data[len(data) // 2:])
            ref = w.commit()
        assert ref.bytes == len(data)
        self.model[ref.id] = data
        return ref.id

    @rule(data=contents)
    def aborted_write_leaves_nothing(self, data: bytes) -> None:
        with self.store.writer(ArtifactInfo()) as w:
            w.write(data)
            w.abort()

    @rule(artifact_id=ids)
    def read(self, artifact_id: str) -> None:
        reader = reader_for(self.store)
        if artifact_id in self.model:
            assert reader.read(artifact_id) == self.model[artifact_id]
            assert self.store.stat(artifact_id).bytes == len(self.model[artifact_id])
        else:
            with pytest.raises(ArtifactNotFound):
                reader.read(artifact_id)

    @rule(artifact_id=ids, start=st.integers(1, 12), n=st.integers(1, 6))
    def retrieve(self, artifact_id: str, start: int, n: int) -> None:
        """head, tail, lines and grep give what the generic functions give over the bytes."""
        reader = reader_for(self.store)
        if artifact_id not in self.model:
            with pytest.raises(ArtifactNotFound):
                reader.tail(artifact_id, n)
            return
        f = io.BytesIO(self.model[artifact_id])

        def same(page: object, expected: object) -> None:
            assert page == attrs.evolve(expected, artifact_id=artifact_id)  # type: ignore[misc]

        same(reader.lines(artifact_id, start, start + n), read_lines(f, start, start + n))
        same(reader.head(artifact_id, n), read_lines(f, 1, n))
        same(reader.tail(artifact_id, n), read_tail(f, n))
        assert reader.grep(artifact_id, "a", start_line=start) == grep(
            f, "a", start_line=start, artifact_id=artifact_id)

    @rule(artifact_id=consumes(ids))
    def delete(self, artifact_id: str) -> None:
        assert self.store.delete(artifact_id) == (artifact_id in self.model)
        self.model.pop(artifact_id, None)

    @rule()
    def reopen(self) -> None:
        self.store = self.make_store(self.session, **self.layout)

    @rule()
    def unknown_id(self) -> None:
        with pytest.raises(ArtifactNotFound):
            self.store.stat(new_artifact_id())

    @rule(bad=st.text(max_size=40))
    def bad_id(self, bad: str) -> None:
        with pytest.raises(InvalidArtifactId):
            self.store.open(bad + "/x")

    @invariant()
    def listing_matches_the_model(self) -> None:
        refs = self.store.list()
        assert {r.id for r in refs} == set(self.model)
        assert refs == sorted(refs, key=lambda r: (r.created_at, r.id))


def test_store_against_a_dict_model(make_store: StoreMaker) -> None:
    machine = type("Machine", (StoreMachine,), {"make_store": staticmethod(make_store)})
    run_state_machine_as_test(machine, settings=settings(max_examples=60,
                                                         stateful_step_count=25,
                                                         deadline=None))
