"""Redis failing, for real: refused connections, a paused server (SIGSTOP), a read-only
replica, ``maxmemory`` with ``noeviction``, and a server killed mid-write and restarted.

Each raises a typed store error from the store, and ``Truncator.process`` never raises: it
degrades to an inline truncation that says the output was not kept, as on a full disk.
Nothing partial is ever visible. Negative controls show the failure bites naive code.
"""

from __future__ import annotations

import hashlib
import random
import threading
import time
from typing import Any

import pytest
import redis
from redis_server import RedisServer, free_port
from truncation_core_redis import (
    RedisOutOfMemory,
    RedisReadOnly,
    RedisStore,
    RedisTimeout,
    RedisUnavailable,
)

from truncation_core import StoreError, StoreFull, Truncator
from truncation_core.types.artifacts import ArtifactInfo

NOT_KEPT = "the full output could not be kept"


def log_text(lines: int, tag: str = "") -> str:
    return "".join(f"[{i:08d}] {tag} compiling module_{i % 997:03d}.c ... ok\n"
                   for i in range(lines))


def redis_truncator(url: str, prefix: str, **store: Any) -> Truncator:
    return Truncator({"inline_limit": 1000, "plugins": {"enable": ["redis"]},
                      "store": {"backend": "redis", "url": url, "prefix": prefix,
                                "session": "s", **store}})


def assert_degraded(result: Any, reason: str = "the artifact store failed") -> None:
    assert result.artifact is None
    assert result.metadata.artifact_error == reason
    assert NOT_KEPT in result.content and reason in result.content


def put(store: Any, data: bytes) -> Any:
    with store.writer(ArtifactInfo()) as w:
        w.write(data)
        return w.commit()


# -- refused --------------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["unix", "tcp"])
def test_refused_connections_degrade_inline(tmp_path: Any, prefix: str, where: str) -> None:
    url = (f"unix://{tmp_path}/nothing.sock" if where == "unix"
           else f"redis://127.0.0.1:{free_port()}/0")
    truncator = redis_truncator(url, prefix)
    result = truncator.process(log_text(3000), tool="execute_command")
    assert_degraded(result)
    # Still cut to its budget, as without a store: a log with no failure line keeps its head
    # and its tail (adaptive).
    assert result.content.startswith("[00000000]") and " omitted of 3,000 lines" in result.content
    with pytest.raises(RedisUnavailable):
        put(truncator.store, b"x")
    answer = truncator.call_tool("artifact_tail", {"artifact_id": "art_1_" + "0" * 32})
    assert answer.error is not None and answer.error.code == 500
    assert "the artifact store failed (RedisUnavailable)" in answer.content


# -- paused ---------------------------------------------------------------------------------------


def test_a_paused_server_times_out_and_reads_are_retried(own_server: Any, prefix: str) -> None:
    server = own_server()
    truncator = redis_truncator(server.url, prefix, socket_timeout=0.3, retries=3)
    ref = truncator.process(log_text(3000), tool="execute_command").artifact
    assert ref is not None
    store = truncator.store
    server.pause()
    try:
        with pytest.raises(RedisTimeout):
            put(store, b"y" * 10)
        assert_degraded(truncator.process(log_text(3000, "b"), tool="execute_command"))
        # A read during a pause is retried, and succeeds once the server is back.
        threading.Timer(0.5, server.resume).start()
        assert store.tail(ref.id, 1).text.startswith("[00002999]")
    finally:
        server.resume()
    # The control: without retries, the same read during a pause fails.
    hasty = RedisStore(server.url, prefix=prefix, session="s", socket_timeout=0.3, retries=0)
    hasty.stat(ref.id)
    server.pause()
    try:
        threading.Timer(0.5, server.resume).start()
        with pytest.raises(RedisTimeout):
            hasty.tail(ref.id, 1)
    finally:
        time.sleep(0.6)
        server.resume()


# -- read-only replica ----------------------------------------------------------------------------


def test_a_read_only_replica_serves_reads_and_refuses_writes(own_server: Any,
                                                             prefix: str) -> None:
    primary = own_server(tcp=True)
    replica = own_server("--replicaof", "127.0.0.1", str(primary.tcp_port))
    ref = put(RedisStore(primary.url, prefix=prefix, session="s"), b"line\n" * 1000)
    with replica.client() as r:
        deadline = time.monotonic() + 10
        while not r.exists(f"{prefix}:{{s}}:a:{ref.id}"):
            assert time.monotonic() < deadline, "the replica never caught up"
            time.sleep(0.02)
    truncator = redis_truncator(replica.url, prefix)
    assert truncator.artifacts.lines(ref.id, 1000).text == "line\n"
    with pytest.raises(RedisReadOnly):
        put(truncator.store, b"x" * 10)
    with pytest.raises(RedisReadOnly):
        put(truncator.store, b"x" * (3 << 20))  # staged chunks first
    assert_degraded(truncator.process(log_text(3000), tool="execute_command"))


# -- out of memory --------------------------------------------------------------------------------


def test_maxmemory_with_noeviction_is_store_full_then_inline(own_server: Any,
                                                             prefix: str) -> None:
    server = own_server("--maxmemory", "2mb", "--maxmemory-policy", "noeviction")
    store = RedisStore(server.url, prefix=prefix, session="s", chunk_size=64 << 10)
    stored: dict[str, bytes] = {}
    with pytest.raises(StoreFull) as info:
        for i in range(100):
            data = (f"artifact {i}\n".encode() * 20_000)[:150_000]
            stored[put(store, data).id] = data
    assert isinstance(info.value, RedisOutOfMemory) and stored
    with pytest.raises(RedisOutOfMemory):  # one large write, sent on the writer's helper thread
        put(store, b"x" * (3 << 20))
    # Nothing partial: every artifact listed is one that was committed, intact; the failed
    # writer's staged chunks are gone.
    assert {r.id for r in store.list()} == set(stored)
    for artifact_id, data in stored.items():
        assert store.read(artifact_id) == data
    with server.client() as admin:
        assert not [k for k in admin.scan_iter(match=f"{prefix}:*:w:*")]
    truncator = Truncator(store=store, config={"inline_limit": 1000},
                          load_entrypoints=False)
    assert_degraded(truncator.process(log_text(20_000), tool="execute_command"),
                    "the artifact store is full")
    # Deleting works when Redis is full, and makes room.
    for artifact_id in list(stored)[:4]:
        assert store.delete(artifact_id)
    assert truncator.process(log_text(2000), tool="execute_command").artifact is not None


def test_control_a_naive_write_raises_an_untyped_error_when_redis_is_full(
        own_server: Any) -> None:
    server = own_server("--maxmemory", "2mb", "--maxmemory-policy", "noeviction")
    with server.client() as r, pytest.raises(redis.exceptions.OutOfMemoryError) as info:
        for i in range(100):
            r.set(f"k{i}", b"x" * 150_000)
    assert not isinstance(info.value, StoreError)  # process() would not know to degrade


# -- killed mid-write, restarted ------------------------------------------------------------------


def _persistent(own_server: Any) -> RedisServer:
    return own_server("--appendonly", "yes", "--appendfsync", "always")  # type: ignore[no-any-return]


def test_killed_mid_write_leaves_no_artifact_and_restarts_clean(own_server: Any,
                                                                prefix: str) -> None:
    """The server dies after a writer staged chunks: the commit is a typed error; after a
    restart (with persistence, so what was written survives) nothing is visible, and the
    staged chunks expire."""
    server = _persistent(own_server)
    store = RedisStore(server.url, prefix=prefix, session="s", chunk_size=4096, retries=1)
    earlier = put(store, b"earlier\n" * 100)
    writer = store.writer(ArtifactInfo())
    writer.write(b"half written\n" * 2000)
    writer._send()
    server.kill()
    with pytest.raises(RedisUnavailable):
        writer.write(b"more\n" * 2000)
        writer.commit()
    writer.abort()
    server.start()
    assert [r.id for r in store.list()] == [earlier.id]
    assert store.read(earlier.id) == b"earlier\n" * 100
    with server.client() as admin:
        staged = [k for k in admin.scan_iter(match=f"{prefix}:*:w:*")]
        assert staged, "the staged chunks survived the restart (persistence is on)"
        assert all(0 < admin.ttl(k) <= 3600 for k in staged)


def test_control_a_naive_writer_killed_mid_write_leaves_a_partial_artifact(
        own_server: Any, prefix: str) -> None:
    """Metadata first, content appended: a reader after the restart sees half an artifact."""
    server = _persistent(own_server)
    with server.client() as r:
        r.hset(f"{prefix}:naive:meta", mapping={"size": 3 * 4096})
        r.append(f"{prefix}:naive:data", b"x" * 4096)
    server.kill()
    server.start()
    with server.client() as r:
        size = int(r.hget(f"{prefix}:naive:meta", "size"))
        assert r.strlen(f"{prefix}:naive:data") < size  # visible, and partial


@pytest.mark.slow
def test_process_never_raises_when_the_server_dies_at_any_moment(own_server: Any,
                                                                  prefix: str) -> None:
    """Kill the server at random moments of process() of 3 MB outputs, restart it each time:
    process() always returns; an artifact it reported is there after the restart, intact;
    every artifact there is one that was sent, intact; no chunk without its artifact."""
    server = _persistent(own_server)
    truncator = redis_truncator(server.url, prefix, chunk_size=65536, retries=0,
                                socket_timeout=2)
    store = truncator.store
    rng = random.Random(7)  # noqa: S311 (timings, not secrets)
    started = time.perf_counter()  # how long one takes here: kills land within that time
    assert truncator.process(log_text(40_000, "warm"), tool="read_file").artifact is not None
    span = (time.perf_counter() - started) * 1.2
    sent: dict[str, str] = {}
    reported = []
    outcomes = {"stored": 0, "degraded": 0}
    for trial in range(12):
        text = log_text(40_000, f"trial {trial}")
        sent[hashlib.sha256(text.encode()).hexdigest()] = text
        box: dict[str, Any] = {}

        def run(text: str = text, box: dict[str, Any] = box) -> None:
            try:
                box["result"] = truncator.process(text, tool="read_file")
            except BaseException as exc:  # the assertion below reports it
                box["error"] = exc

        worker = threading.Thread(target=run)
        worker.start()
        time.sleep(rng.uniform(0, span))
        server.kill()
        worker.join(timeout=60)
        assert "error" not in box, f"process() raised {box.get('error')!r}"
        result = box["result"]
        if result.artifact is not None:
            reported.append(result.artifact)
            outcomes["stored"] += 1
        else:
            assert result.metadata.artifact_error == "the artifact store failed"
            outcomes["degraded"] += 1
        server.start()
    listed = {r.id: r for r in store.list()}
    for ref in reported:
        assert ref.id in listed, "a reported artifact was lost"
    for artifact_id, ref in listed.items():
        if "warm" in store.lines(artifact_id, 1, 1).text:
            continue
        assert ref.sha256 in sent
        assert store.read(artifact_id) == sent[ref.sha256].encode()
    with server.client() as admin:
        for key in admin.scan_iter(match=f"{prefix}:*:c:*"):
            artifact_id = key.decode().split(":c:")[1].rsplit(":", 1)[0]
            assert artifact_id in listed, "a chunk without its artifact"
    assert outcomes["degraded"] > 0, outcomes  # the kills did land mid-write


# -- a reply lost on the way ----------------------------------------------------------------------


def test_a_lost_reply_to_the_publish_is_retried_safely(redis_server: RedisServer,
                                                       prefix: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The connection drops after the server ran the publish script: the writer runs it again,
    which finds its own token and reports the artifact published, once."""
    store = RedisStore(redis_server.url, prefix=prefix, session="s", retries=2)
    real = redis.client.Pipeline.execute
    dropped = []

    def drop_first_reply(self: Any, *args: Any, **kwargs: Any) -> Any:
        results = real(self, *args, **kwargs)  # the server did it all
        if not dropped:
            dropped.append(True)
            raise redis.exceptions.ConnectionError("Connection closed by server.")
        return results

    monkeypatch.setattr(redis.client.Pipeline, "execute", drop_first_reply)
    ref = put(store, b"published once\n")
    monkeypatch.undo()
    assert dropped and [r.id for r in store.list()] == [ref.id]
    assert store.read(ref.id) == b"published once\n"
    # The control: run again under another writer's token, the same publish says "exists":
    # without the token a repeat would report a published artifact as failed.
    from truncation_core_redis.scripts import PUBLISH

    k = store.keys
    with redis_server.client() as admin:
        again = admin.eval(PUBLISH, 4, k.meta(ref.id), k.state, k.index, k.sizes, k.base,
                           ref.id, "other-token", 0, b"x", 1, 0, 1, b"{}", b"", 1, 1, 0, 1,
                           "", "1")
    assert again == [b"exists"]
