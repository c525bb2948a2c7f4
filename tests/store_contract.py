"""The artifact store contract: what every backend's store must do, run by each backend's
tests with its own ``make_store`` fixture (a :data:`StoreMaker`).

tests/artifacts/test_store_contract.py runs it on the built-in backends (filesystem, memory);
a plugin's backend runs it from its own tests (plugins/truncation-core-redis/tests runs it on
the redis store, with tiny chunks and index blocks, so that small contents span many). A
test module runs the contract by importing its tests::

    from store_contract import *  # noqa: F403

The contract:

- every backend answers lines, head, tail, pages and grep exactly as the generic functions
  (truncation_core.retrieval) do over the same bytes in a file: the filesystem store runs them
  over its file, the memory store over a BytesIO, the redis store over chunk keys with its
  line index;
- a stateful property test (reliability.md §3, §5): rules store, read back (whole, and
  through head, tail, lines and grep), delete, reopen (a new store object over the same
  storage), list and use bad ids, in any order Hypothesis finds; the store must always
  agree with a dict model.
"""

from __future__ import annotations

import io
import secrets
from collections.abc import Callable

import attrs
import pytest
from hypothesis import example, given, settings
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
from truncation_core.retrieval import (
    Page,
    decode,
    grep,
    read_lines,
    read_page,
    read_tail,
    reader_for,
)
from truncation_core.types.artifacts import ArtifactInfo
from truncation_core.types.ids import new_artifact_id
from truncation_core.types.storage import ArtifactStore

__all__ = ["test_every_store_greps_as_the_reference",
           "test_every_store_pages_from_every_offset_as_the_reference",
           "test_every_store_reads_lines_head_and_tail_as_the_reference",
           "test_store_against_a_dict_model"]

#: ``make(session=None, **redis_settings) -> store``: a store of the backend under test.
#: Settings of one backend (the redis store's tiny ``chunk_size``) are ignored by the others.
StoreMaker = Callable[..., ArtifactStore]


def naive_lines(data: bytes) -> list[bytes]:
    """Raw lines with their terminators ("\\n", "\\r\\n", lone "\\r"), one byte at a time."""
    out, cur, i = [], bytearray(), 0
    while i < len(data):
        b = data[i : i + 1]
        cur += b
        if b == b"\n" or (b == b"\r" and data[i + 1 : i + 2] != b"\n"):
            out.append(bytes(cur))
            cur = bytearray()
        i += 1
    if cur:
        out.append(bytes(cur))
    return out


def strip(raw: bytes) -> bytes:
    for t in (b"\r\n", b"\n", b"\r"):
        if raw.endswith(t):
            return raw[: -len(t)]
    return raw


def naive_grep(data: bytes, needle: bytes) -> list[int]:
    return [i for i, raw in enumerate(naive_lines(data), start=1) if needle in strip(raw)]


# -- lines, head, tail, pages and grep as the generic functions ---------------------------------

pieces = st.sampled_from([b"\n", b"\r\n", b"\r", b"a", b"b", b"ab", b"\xc3\xa9", b"\xe2\x82\xac",
                          b"\xf0\x9f\x98\x80", b"\xed\xa0\x80", b"\xff", b"\x80", b"\xe2\x82",
                          b"x" * 9, b"needle", b"nee", b"dle", b"\x0b", b"\xc2\x85"])
artifacts = st.lists(pieces, max_size=40).map(b"".join)
redis_layouts = st.fixed_dictionaries({"chunk_size": st.integers(1, 9),
                                       "index_block": st.integers(1, 9)})


def _stored(make_store: StoreMaker, data: bytes, layout: dict[str, int],
            known_lines: bool = True) -> tuple[ArtifactStore, str]:
    store = make_store(**layout)
    lines = len(naive_lines(data)) if known_lines else 0
    with store.writer(ArtifactInfo(lines=lines)) as w:
        half = len(data) // 2
        w.write(data[:half])
        w.write(data[half:])
        ref = w.commit()
    return store, ref.id


def _as_stored(page: Page, artifact_id: str) -> Page:
    return attrs.evolve(page, artifact_id=artifact_id)


@settings(max_examples=150, deadline=None)
@given(data=artifacts, layout=redis_layouts, start=st.integers(1, 30), count=st.integers(0, 30),
       n=st.integers(1, 30), max_chars=st.none() | st.integers(1, 25),
       line_cost=st.integers(0, 3), known=st.booleans())
@example(data=b"a\r\nb\r\nc", layout={"chunk_size": 2, "index_block": 2}, start=2, count=1, n=2,
         max_chars=None, line_cost=0, known=True)
@example(data=b"\r\n" * 6, layout={"chunk_size": 3, "index_block": 3}, start=4, count=0, n=3,
         max_chars=None, line_cost=0, known=False)
def test_every_store_reads_lines_head_and_tail_as_the_reference(
        make_store: StoreMaker, data: bytes, layout: dict[str, int], start: int, count: int,
        n: int, max_chars: int | None, line_cost: int, known: bool) -> None:
    store, artifact_id = _stored(make_store, data, layout, known)
    reader = reader_for(store)
    f = io.BytesIO(data)
    end = start + count
    assert reader.lines(artifact_id, start, end, max_chars=max_chars, line_cost=line_cost) == \
        _as_stored(read_lines(f, start, end, max_chars=max_chars, line_cost=line_cost),
                   artifact_id)
    assert reader.lines(artifact_id, start) == _as_stored(read_lines(f, start), artifact_id)
    assert reader.head(artifact_id, n) == _as_stored(read_lines(f, 1, n), artifact_id)
    total = len(naive_lines(data)) if known else None
    assert reader.tail(artifact_id, n, max_chars=max_chars, line_cost=line_cost) == \
        _as_stored(read_tail(f, n, max_chars=max_chars, line_cost=line_cost,
                             total_lines=total), artifact_id)
    ref = naive_lines(data)
    assert reader.lines(artifact_id, start, end).text == decode(b"".join(ref[start - 1:end]))
    assert reader.read(artifact_id) == data


@settings(max_examples=100, deadline=None)
@given(data=artifacts, layout=redis_layouts, max_chars=st.integers(1, 25))
def test_every_store_pages_from_every_offset_as_the_reference(
        make_store: StoreMaker, data: bytes, layout: dict[str, int], max_chars: int) -> None:
    store, artifact_id = _stored(make_store, data, layout)
    reader = reader_for(store)
    for offset in range(len(data) + 2):
        assert reader.page(artifact_id, offset, max_chars=max_chars) == _as_stored(
            read_page(io.BytesIO(data), offset=offset, max_chars=max_chars), artifact_id)


@settings(max_examples=100, deadline=None)
@given(data=artifacts, layout=redis_layouts,
       pattern=st.sampled_from([("needle", False), ("a", False), ("é", False),
                                (r"^a|b$|ne+d", True), ("(?i)NEEDLE", True)]),
       context=st.integers(0, 3), start_line=st.integers(1, 12), max_matches=st.integers(1, 9))
def test_every_store_greps_as_the_reference(
        make_store: StoreMaker, data: bytes, layout: dict[str, int], pattern: tuple[str, bool],
        context: int, start_line: int, max_matches: int) -> None:
    store, artifact_id = _stored(make_store, data, layout)
    needle, regex = pattern
    got = reader_for(store).grep(artifact_id, needle, regex=regex, context=context,
                                 start_line=start_line, max_matches=max_matches)
    want = grep(io.BytesIO(data), needle, regex=regex, context=context, start_line=start_line,
                max_matches=max_matches, artifact_id=artifact_id)
    assert got == want
    if start_line == 1 and not regex:
        assert [m.line.number for m in got.matches] == \
            naive_grep(data, needle.encode())[:max_matches]


# -- a dict model ---------------------------------------------------------------------------

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
