"""Stateful property test: the filesystem store against a dict model (reliability.md §3, §5).

Rules store, read, delete, reopen (a new store object over the same directory), list and
use bad ids, in any order Hypothesis finds; the store must always agree with the model.
"""

from __future__ import annotations

import shutil
import tempfile

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, rule

from truncation_core import ArtifactNotFound, InvalidArtifactId
from truncation_core.artifacts.model import ArtifactInfo, new_artifact_id
from truncation_core.storage.filesystem import FilesystemStore

contents = st.lists(st.sampled_from([b"a", b"\n", b"\r\n", b"\r", b"\xff", b"\xed\xa0\x80",
                                     "é".encode(), b"line\n"]), max_size=30).map(b"".join)


class StoreMachine(RuleBasedStateMachine):
    ids = Bundle("ids")

    def __init__(self) -> None:
        super().__init__()
        self.tmp = tempfile.mkdtemp()
        self.store = FilesystemStore(self.tmp + "/artifacts", "model")
        self.model: dict[str, bytes] = {}

    def teardown(self) -> None:
        self.store.close()
        shutil.rmtree(self.tmp)

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
        if artifact_id in self.model:
            assert self.store.read(artifact_id) == self.model[artifact_id]
            assert self.store.stat(artifact_id).bytes == len(self.model[artifact_id])
        else:
            with pytest.raises(ArtifactNotFound):
                self.store.read(artifact_id)

    @rule(artifact_id=consumes(ids))
    def delete(self, artifact_id: str) -> None:
        assert self.store.delete(artifact_id) == (artifact_id in self.model)
        self.model.pop(artifact_id, None)

    @rule()
    def reopen(self) -> None:
        self.store.close()
        self.store = FilesystemStore(self.tmp + "/artifacts", "model")

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
        assert {r.id for r in self.store.list()} == set(self.model)


StoreMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=25,
                                          deadline=None)
test_store_against_a_dict_model = StoreMachine.TestCase
