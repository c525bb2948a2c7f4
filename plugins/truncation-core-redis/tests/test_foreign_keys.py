"""A prefix shared with other data loses no foreign key (issue 26, item 0, on Redis).

An application that shares ``store.prefix`` may keep keys that look like the store's: its own
web sessions under ``<prefix>:{<id>}:session`` (a hash, as the store's), an index under
``<prefix>:{<id>}:index``, or keys beside a session of the store's (``<prefix>:{work}:notes``).
The store lists, cleans and deletes only sessions it can prove it made (the marker field, or
the shape of a session stored before the marker), deletes only keys named as it names its
own, and its scripts change nothing in a session that is not its own.

Every foreign key is compared before and after, by DUMP (type and value, byte for byte) and
TTL. The negative controls run the old listing and deletion (every ``:{*}:session`` hash is a
session; SCAN its base and UNLINK all) over the same keys: they delete the application's.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from redis_server import RedisServer
from truncation_core_redis import RedisStore
from truncation_core_redis.keys import session_from_key

from truncation_core import StoreError, Truncator
from truncation_core.types.artifacts import ArtifactInfo
from truncation_core.types.ids import new_artifact_id

ARTIFACT = new_artifact_id(1_700_000_000)


def put(store: Any, data: bytes) -> Any:
    with store.writer(ArtifactInfo(tool="t")) as w:
        w.write(data)
        return w.commit()


def plant_foreign(admin: Any, prefix: str) -> list[str]:
    """The application's keys under the shared prefix (no TTL); returns their names."""
    p = prefix
    admin.hset(f"{p}:{{user42}}:session", mapping={"user": "alice", "csrf": "x" * 32})
    admin.zadd(f"{p}:{{user42}}:index", {"page1": 1, ARTIFACT: 2})
    admin.hset(f"{p}:{{user42}}:sizes", mapping={ARTIFACT: "7"})
    admin.set(f"{p}:{{user42}}:profile", b"alice's profile")
    # Named exactly like an artifact of the store's, in the application's session.
    admin.hset(f"{p}:{{user42}}:a:{ARTIFACT}", mapping={"chunks": "1", "kind": "app"})
    admin.set(f"{p}:{{user42}}:c:{ARTIFACT}:0", b"the app's bytes")
    # A session hash with the fields of the store's and one more.
    admin.hset(f"{p}:{{cart}}:session", mapping={"used": "3", "modified": "5", "owner": "bob"})
    admin.set(f"{p}:{{orders}}:session", b"a string, not a hash")
    admin.set(f"{p}:plain", b"plain")
    # Beside a session of the store's, under its base.
    admin.set(f"{p}:{{work}}:notes", b"the app's notes")
    admin.hset(f"{p}:{{work}}:a:not-an-artifact", mapping={"chunks": "3"})
    admin.set(f"{p}:{{work}}:c:{ARTIFACT}:x", b"not a chunk number")
    admin.set(f"{p}:{{work}}:w:short:0", b"not a writer's token")
    return sorted(k.decode() for k in admin.scan_iter(match=f"{p}:*"))


def state(admin: Any, keys: list[str]) -> dict[str, tuple[Any, int]]:
    """Each key's DUMP (None when it is gone) and TTL."""
    return {key: (admin.dump(key), admin.pttl(key)) for key in keys}


def own_keys(admin: Any, prefix: str, session: str) -> list[str]:
    return sorted(k.decode() for k in admin.scan_iter(match=f"{prefix}:{{{session}}}:*"))


@pytest.fixture
def shared(redis_server: RedisServer, admin: Any, prefix: str
           ) -> tuple[RedisStore, list[str], dict[str, Any]]:
    """A store session "work" with two artifacts, and the application's keys around it."""
    store = RedisStore(redis_server.url, prefix=prefix, session="work")
    put(store, b"first\n" * 100)
    put(store, b"second\n" * 100)
    made = set(own_keys(admin, prefix, "work"))
    foreign = [k for k in plant_foreign(admin, prefix) if k not in made]
    return store, foreign, state(admin, foreign)


@pytest.mark.parametrize("how", ["clean", "clean each", "delete each", "session end"])
def test_cleaning_and_deleting_sessions_loses_no_foreign_key(
        shared: tuple[RedisStore, list[str], dict[str, Any]], admin: Any, prefix: str,
        how: str) -> None:
    store, foreign, before = shared
    backend = store.backend
    names = ["work", "user42", "cart", "orders"]
    if how == "clean":
        report: Any = backend.clean()
    elif how == "clean each":
        report = [backend.clean(session=name).sessions for name in names]
    elif how == "delete each":
        report = {name: backend.delete_session(name) for name in names}
    else:
        report = {name: store.for_session(name).delete_session() for name in names}
    assert state(admin, foreign) == before  # every foreign key, byte for byte, and its TTL
    assert own_keys(admin, prefix, "work") == sorted(k for k in foreign if "{work}" in k)
    if how == "clean":
        assert report.sessions == ("work",) and report.artifacts == 2
    elif how == "clean each":
        assert [s for s in report if s] == [("work",)]
    else:
        assert report == {"work": 2, "user42": 0, "cart": 0, "orders": 0}


def test_only_the_stores_sessions_are_listed_and_searched(
        shared: tuple[RedisStore, list[str], dict[str, Any]]) -> None:
    store, _, _ = shared
    assert [s.id for s in store.backend.sessions()] == ["work"]
    assert store.backend.session_ids() == ["work"]
    from truncation_core import ArtifactNotFound

    with pytest.raises(ArtifactNotFound):  # the app's key named like an artifact
        store.backend.find(ARTIFACT)


def test_writing_into_a_foreign_session_changes_nothing(
        shared: tuple[RedisStore, list[str], dict[str, Any]], admin: Any, prefix: str,
        redis_server: RedisServer) -> None:
    _, foreign, before = shared
    intruder = RedisStore(redis_server.url, prefix=prefix, session="user42", quota=10)
    with pytest.raises(StoreError, match="was not made by truncation-core") as info:
        put(intruder, b"y" * 5)
    assert "alice" not in str(info.value)
    assert intruder.delete(ARTIFACT) is False  # the app's key named like an artifact
    truncator = Truncator({"inline_limit": 200, "plugins": {"enable": ["redis"]},
                           "store": {"backend": "redis", "url": redis_server.url,
                                     "prefix": prefix, "session": "cart"}})
    result = truncator.process("line\n" * 5000)
    assert result.artifact is None and result.metadata.was_truncated
    assert state(admin, foreign) == before
    # Nothing left behind either: no staged chunk, no marker.
    assert [k for k in own_keys(admin, prefix, "user42") if k not in foreign] == []
    assert [k for k in own_keys(admin, prefix, "cart") if k not in foreign] == []


def test_a_session_stored_before_the_marker_is_still_the_stores(
        redis_server: RedisServer, admin: Any, prefix: str) -> None:
    store = RedisStore(redis_server.url, prefix=prefix, session="legacy")
    put(store, b"old\n")
    admin.hdel(store.keys.state, "store")  # as the store wrote it before the marker
    assert store.backend.session_ids() == ["legacy"]
    put(store, b"newer\n")  # storing into it marks it
    assert admin.hget(store.keys.state, "store") == b"truncation-core"
    admin.hdel(store.keys.state, "store")
    assert store.delete_session() == 2
    assert own_keys(admin, prefix, "legacy") == []


def test_trunc_artifacts_clean_in_a_real_process_loses_no_foreign_key(
        shared: tuple[RedisStore, list[str], dict[str, Any]], admin: Any, prefix: str,
        redis_server: RedisServer, tmp_path: Path) -> None:
    _, foreign, before = shared
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNCATION_CORE_")}
    env.update({"TRUNCATION_CORE_STORE__BACKEND": "redis",
                "TRUNCATION_CORE_STORE__URL": redis_server.url,
                "TRUNCATION_CORE_STORE__PREFIX": prefix, "TRUNCATION_CORE_PLUGINS": "redis"})
    trunc = str(Path(sys.executable).parent / "trunc")
    done = subprocess.run([trunc, "artifacts", "clean"], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert state(admin, foreign) == before
    assert done.stdout.startswith("deleted 1 session, 2 artifacts")
    assert own_keys(admin, prefix, "work") == sorted(k for k in foreign if "{work}" in k)


# -- negative controls ------------------------------------------------------------------------


def naive_clean(admin: Any, prefix: str) -> list[str]:
    """The old clean: every session hash under the prefix is a session, and deleting one
    UNLINKs everything SCAN finds under its base."""
    sessions = sorted({s for key in admin.scan_iter(match=f"{prefix}:{{*}}:session",
                                                    _type="HASH")
                       if (s := session_from_key(prefix, key)) is not None})
    for session in sessions:
        keys = list(admin.scan_iter(match=f"{prefix}:{{{session}}}:*"))
        if keys:
            admin.unlink(*keys)
    return sessions


def test_control_the_old_clean_deletes_the_applications_keys(
        shared: tuple[RedisStore, list[str], dict[str, Any]], admin: Any, prefix: str) -> None:
    _, foreign, _ = shared
    assert naive_clean(admin, prefix) == ["cart", "user42", "work"]
    after = state(admin, foreign)
    lost = sorted(k for k in foreign if after[k][0] is None)
    assert f"{prefix}:{{user42}}:profile" in lost and f"{prefix}:{{work}}:notes" in lost
    assert len(lost) == len([k for k in foreign if "{user42}" in k or "{cart}" in k
                             or "{work}" in k])


def test_control_without_the_check_publish_writes_into_the_applications_session(
        redis_server: RedisServer, admin: Any, prefix: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The publish script with its checks taken away (as it was): storing into a session
    named like the application's changes the application's hash, gives it a TTL, and quota
    eviction removes members of its index and the keys named like an artifact."""
    from truncation_core_redis import scripts, writer

    checks = ("if not session_kind then return {'foreign'} end",
              "if not is_artifact_id(victim) then break end")
    unchecked = scripts.PUBLISH
    for check in checks:
        assert check in unchecked
        unchecked = unchecked.replace(check, "")
    monkeypatch.setattr(writer, "PUBLISH", unchecked)
    foreign = plant_foreign(admin, prefix)
    before = state(admin, foreign)
    intruder = RedisStore(redis_server.url, prefix=prefix, session="user42", quota=10)
    put(intruder, b"y" * 5)
    put(intruder, b"z" * 6)  # over the quota: evicts the oldest members of "its" index
    after = state(admin, foreign)
    changed = sorted(k for k in foreign if after[k] != before[k])
    assert f"{prefix}:{{user42}}:session" in changed  # its hash gained fields and a TTL
    assert f"{prefix}:{{user42}}:index" in changed  # its members were evicted
    assert after[f"{prefix}:{{user42}}:c:{ARTIFACT}:0"][0] is None  # its bytes are gone
