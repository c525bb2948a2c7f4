"""The redis backend against a real redis-server: selection by config, the protocol, the key
layout (hash tags, TTLs), atomic publication, quotas, sessions, retrieval that reads only what
it returns, export and import, ``trunc artifacts`` and the artifact tools."""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from redis_server import RedisServer, free_port
from truncation_core_redis import RedisStore

from truncation_core import (
    ArtifactNotFound,
    ConfigError,
    InvalidArtifactId,
    InvalidSessionId,
    StoreError,
    StoreFull,
    Truncator,
)
from truncation_core.artifacts.archive import export_session, import_archive
from truncation_core.retrieval import reader_for
from truncation_core.types.artifacts import ArtifactInfo
from truncation_core.types.ids import new_artifact_id
from truncation_core.types.storage import ArtifactStore, StorageBackend

MIB = 1 << 20
#: The commands the store runs, as docs/storage.md lists them for an ACL user.
STORE_COMMANDS = ("+ping", "+get", "+set", "+getrange", "+exists", "+unlink", "+rename",
                  "+pexpire", "+persist", "+hget", "+hmget", "+hgetall", "+hset", "+hincrby",
                  "+hdel", "+zadd", "+zrange", "+zrem", "+scan", "+eval")


def put(store: Any, data: bytes, **info: Any) -> Any:
    with store.writer(ArtifactInfo(**info)) as w:
        w.write(data)
        return w.commit()


def keys_of(admin: Any, prefix: str) -> list[str]:
    return sorted(k.decode() for k in admin.scan_iter(match=f"{prefix}:*", count=1000))


def log_text(lines: int) -> str:
    return "".join(f"[{i:08d}] compiling module_{i % 997:03d}.c ... ok\n" for i in range(lines))


# -- selection and settings -----------------------------------------------------------------------


def test_config_selects_the_plugin_through_its_entry_point(truncator: Truncator,
                                                           prefix: str) -> None:
    store = truncator.store
    assert isinstance(store, RedisStore) and store.session_id == "work"
    assert isinstance(store, ArtifactStore) and isinstance(store.backend, StorageBackend)
    assert store.backend.location.endswith(f"(prefix {prefix})")
    assert "redis" in truncator.plugins.backends


@pytest.mark.parametrize(("store", "problem"), [
    ({"ulr": "redis://h"}, "store.ulr: unknown key for the redis backend; did you mean 'url'?"),
    ({}, "store.url: required for the redis backend: redis://"),
    ({"url": "http://user:hunter2@h"}, "store.url: must be a Redis URL: redis://"),
    ({"prefix": "a*b"}, "store.prefix: must be 1 to 64 ASCII letters"),
    ({"prefix": "{s}"}, "store.prefix: must be 1 to 64 ASCII letters"),
    ({"chunk_size": 100}, "store.chunk_size: must be an integer from 4096 to 6.71089e+07"),
    ({"socket_timeout": "5"}, "store.socket_timeout: must be a number from 0.001 to 3600"),
    ({"retries": True}, "store.retries: must be an integer from 0 to 10, got True"),
    ({"cluster": "yes"}, "store.cluster: must be true or false, got 'yes'"),
    ({"fsync": True}, "store.fsync: the redis backend cannot fsync"),
])
def test_bad_settings_name_the_key_and_the_form(store: dict[str, Any], problem: str) -> None:
    settings = {"url": "redis://localhost:1/0", **store}
    if store == {}:
        settings.pop("url")
    with pytest.raises(ConfigError) as info:
        Truncator({"store": {"backend": "redis", **settings}, "plugins": {"enable": ["redis"]}})
    (found,) = [p for p in info.value.problems if p.startswith(problem.split(":")[0])]
    assert found.startswith(problem), found
    assert "hunter2" not in str(info.value)


def test_settings_from_the_environment(redis_server: RedisServer, prefix: str,
                                       tmp_path: Path) -> None:
    truncator = Truncator.from_config(start=tmp_path, environ={
        "TRUNCATION_CORE_STORE__BACKEND": "redis",
        "TRUNCATION_CORE_STORE__URL": redis_server.url,
        "TRUNCATION_CORE_STORE__PREFIX": prefix,
        "TRUNCATION_CORE_STORE__CHUNK_SIZE": "65536",
        "TRUNCATION_CORE_PLUGINS": "redis"})
    store = truncator.store
    assert isinstance(store, RedisStore)
    assert store.settings.chunk_size == 65536 and store.settings.prefix == prefix


def test_building_never_connects(prefix: str) -> None:
    """A Truncator starts while Redis is down; the store connects on first use."""
    truncator = Truncator({"store": {"backend": "redis", "url": "unix:///nonexistent/r.sock",
                                     "prefix": prefix}, "plugins": {"enable": ["redis"]}})
    assert isinstance(truncator.store, RedisStore)


def test_python_settings_are_checked() -> None:
    with pytest.raises(ConfigError, match="url: give either url or client"):
        RedisStore()
    with pytest.raises(ConfigError, match="chunk_size: must be an integer of 1 or more"):
        RedisStore("redis://h", chunk_size=0)
    with pytest.raises(ConfigError, match="prefix: must be"):
        RedisStore("redis://h", prefix="x?")
    with pytest.raises(TypeError, match=r"client: expected a redis\.Redis"):
        RedisStore(client=object())


# -- clients the application already has ----------------------------------------------------------


def test_a_sync_client_object_is_used_as_it_is(redis_server: RedisServer, prefix: str) -> None:
    client = redis_server.client()
    store = RedisStore(client=client, prefix=prefix, session="app")
    assert store.client is client
    truncator = Truncator(store=store, load_entrypoints=False)
    ref = truncator.process(log_text(5000), tool="execute_command").artifact
    assert ref is not None and ref.backend == "redis"
    assert truncator.artifacts.tail(ref.id, 1).text.endswith("ok\n")
    client.close()


def test_an_async_client_gives_its_settings_to_a_sync_one(redis_server: RedisServer,
                                                          prefix: str) -> None:
    """An app holding a redis.asyncio.Redis passes it; the store, which runs in process() and
    worker threads, talks to the same server and database through a synchronous client."""
    import asyncio

    import redis.asyncio

    aclient = redis.asyncio.Redis(unix_socket_path=str(redis_server.socket), db=3,
                                  socket_timeout=7.5)
    store = RedisStore(client=aclient, prefix=prefix, session="app")
    assert store.client is not aclient
    kwargs = store.client.connection_pool.connection_kwargs
    assert kwargs["db"] == 3 and kwargs["socket_timeout"] == 7.5
    truncator = Truncator(store=store, load_entrypoints=False)

    async def main() -> Any:
        result = await truncator.aprocess(log_text(5000), tool="execute_command")
        assert result.artifact is not None
        # The async client sees what the store wrote, in database 3.
        assert await aclient.exists(store.keys.meta(result.artifact.id)) == 1
        await aclient.aclose()
        return result.artifact

    ref = asyncio.run(main())
    assert store.read(ref.id) == log_text(5000).encode()
    store.close()


def test_tls_with_an_acl_user_and_password_through_the_url(
        own_server: Any, tmp_path: Path, prefix: str) -> None:
    """rediss:// with a CA, an ACL user limited to the prefix's keys, a password: all in the
    URL. The password never shows in the store's location, repr, or errors."""
    import shutil
    import subprocess

    from redis_server import require_redis

    require_redis()
    if shutil.which("openssl") is None:
        if os.environ.get("REQUIRE_REDIS_SERVER") == "1":
            pytest.fail("openssl is needed to make the test's certificates")
        pytest.skip("!!! TLS TEST NOT RUN: openssl is not installed !!!")
    ca, key, cert = tmp_path / "ca.pem", tmp_path / "key.pem", tmp_path / "cert.pem"

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=test-ca",
            "-keyout", str(tmp_path / "ca.key"), "-out", str(ca))
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
            "-keyout", str(key), "-out", str(tmp_path / "req.pem"))
    (tmp_path / "ext.cnf").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    openssl("x509", "-req", "-in", str(tmp_path / "req.pem"), "-CA", str(ca), "-CAkey",
            str(tmp_path / "ca.key"), "-CAcreateserial", "-days", "1", "-out", str(cert),
            "-extfile", str(tmp_path / "ext.cnf"))
    port = free_port()
    server = own_server("--tls-port", str(port), "--tls-cert-file", str(cert),
                        "--tls-key-file", str(key), "--tls-ca-cert-file", str(ca),
                        "--tls-auth-clients", "no")
    with server.client() as admin:
        # The least the store needs (docs/storage.md): these commands, on the prefix's keys.
        admin.execute_command("ACL", "SETUSER", "agent", "on", ">s3cret-pw", f"~{prefix}:*",
                              "resetchannels", *STORE_COMMANDS)
    url = f"rediss://agent:s3cret-pw@localhost:{port}/0?ssl_ca_certs={ca}"
    truncator = Truncator({"store": {"backend": "redis", "url": url, "prefix": prefix,
                                     "session": "tls"}, "plugins": {"enable": ["redis"]}})
    ref = truncator.process(log_text(3000), tool="execute_command").artifact
    assert ref is not None, "stored over TLS as the ACL user"
    assert truncator.artifacts.grep(ref.id, "[00002999]").matches[0].line.number == 3000
    store = truncator.store
    assert isinstance(store, RedisStore)
    assert store.backend.sessions()[0].artifacts == 1
    assert "s3cret" not in store.location + repr(store) + repr(store.backend)
    # The wrong password: a typed error that does not repeat it.
    wrong = RedisStore(url.replace("s3cret-pw", "wrong-pw"), prefix=prefix, session="tls")
    with pytest.raises(StoreError) as info:
        wrong.stat(ref.id)
    assert type(info.value).__name__ == "RedisAccessDenied"
    assert "pw" not in str(info.value)
    # The ACL user may not touch keys outside its prefix: the prefix is where the store works.
    other = RedisStore(url, prefix="other", session="tls")
    with pytest.raises(StoreError) as info:
        put(other, b"x")
    assert type(info.value).__name__ == "RedisAccessDenied"
    # Every operation works with those commands alone.
    big = put(store, b"chunked\n" * 300_000)  # staged chunks, renamed by the publish
    assert store.tail(big.id, 1).text == "chunked\n" and store.backend.find(big.id)
    assert store.delete(ref.id) and store.delete_session() == 1
    store.close()


# -- layout: hash tags and TTLs -------------------------------------------------------------------


def test_keys_of_a_session_share_one_hash_tag_and_slot(truncator: Truncator, admin: Any,
                                                       prefix: str) -> None:
    from redis.crc import key_slot

    store = truncator.store
    put(store, b"x" * (3 * MIB + 5))
    with truncator.session("other") as other:
        truncator.process(log_text(5000), tool="execute_command")
        other.keep = True
    keys = keys_of(admin, prefix)
    assert {k.split("}")[0] for k in keys} == {f"{prefix}:{{work", f"{prefix}:{{other"}
    for session in ("work", "other"):
        slots = {key_slot(k.encode()) for k in keys if f"{{{session}}}" in k}
        assert len(slots) == 1


def test_every_key_expires_with_the_retention_period(redis_server: RedisServer, admin: Any,
                                                     prefix: str) -> None:
    store = RedisStore(redis_server.url, prefix=prefix, session="ttl", retention_days=2,
                       chunk_size=1000)
    put(store, b"line\n" * 1000)
    keys = keys_of(admin, prefix)
    assert len(keys) == 4 + 5  # session, index, sizes, meta, 5 chunks
    for key in keys:
        assert 2 * 86400 - 60 < admin.ttl(key) <= 2 * 86400
    forever = RedisStore(redis_server.url, prefix=prefix, session="ttl0", retention_days=0)
    put(forever, b"kept\n")
    assert all(admin.ttl(k) == -1 for k in keys_of(admin, prefix) if "{ttl0}" in k)


def test_retention_needs_no_sweeper(redis_server: RedisServer, admin: Any, prefix: str) -> None:
    """A key TTL does the sweeping: here a 1-day retention cut to 1 second."""
    store = RedisStore(redis_server.url, prefix=prefix, session="old", chunk_size=10)
    ref = put(store, b"old stuff\n" * 5)
    for key in keys_of(admin, prefix):
        admin.pexpire(key, 1000)
    time.sleep(1.2)
    with pytest.raises(ArtifactNotFound):
        store.stat(ref.id)
    assert keys_of(admin, prefix) == [] and store.backend.sessions() == []


# -- atomic publication ---------------------------------------------------------------------------


def test_nothing_is_visible_until_commit_and_staged_chunks_expire(
        redis_server: RedisServer, admin: Any, prefix: str) -> None:
    store = RedisStore(redis_server.url, prefix=prefix, session="w", chunk_size=1000,
                       staging_ttl=30)
    writer = store.writer(ArtifactInfo())
    writer.write(b"a" * 5000 + b"\n")
    writer._send()  # push the queued chunks now, as a big write does
    staged = keys_of(admin, prefix)
    assert len(staged) == 5 and all(":w:" in k for k in staged)
    assert all(0 < admin.ttl(k) <= 30 for k in staged)
    assert store.list() == []
    with pytest.raises(ArtifactNotFound):
        store.stat(writer.id)
    ref = writer.commit()
    assert not any(":w:" in k for k in keys_of(admin, prefix))
    assert store.read(ref.id) == b"a" * 5000 + b"\n"


def test_an_aborted_or_failed_writer_leaves_no_keys(redis_server: RedisServer, admin: Any,
                                                    prefix: str) -> None:
    store = RedisStore(redis_server.url, prefix=prefix, session="w", chunk_size=100)
    with store.writer(ArtifactInfo()) as w:
        w.write(b"x" * 10_000)
        w._send()
        assert keys_of(admin, prefix)
        w.abort()
    assert keys_of(admin, prefix) == []
    with pytest.raises(RuntimeError), store.writer(ArtifactInfo()) as w:
        w.write(b"x" * 10_000)
        raise RuntimeError("the tool crashed")
    assert keys_of(admin, prefix) == []


def test_a_writer_that_dies_leaves_only_expiring_staged_chunks(
        redis_server: RedisServer, admin: Any, prefix: str, tmp_path: Path) -> None:
    """A real process killed mid-write: its staged chunks are invisible, and expire."""
    import signal
    import subprocess
    import sys

    script = f"""
import os, signal, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from truncation_core_redis import RedisStore
from truncation_core.types.artifacts import ArtifactInfo
store = RedisStore({redis_server.url!r}, prefix={prefix!r}, session="dies", chunk_size=4096,
                   staging_ttl=2)
w = store.writer(ArtifactInfo())
w.write(b"partial line\\n" * 5000)
w._send()
print("staged", flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == -signal.SIGKILL and "staged" in proc.stdout
    staged = keys_of(admin, prefix)
    assert staged and all(":w:" in k for k in staged)
    store = RedisStore(redis_server.url, prefix=prefix, session="dies")
    assert store.list() == [] and store.backend.sessions() == []
    time.sleep(2.2)
    assert keys_of(admin, prefix) == []


def test_a_slow_stream_keeps_its_staged_chunks_alive(redis_server: RedisServer,
                                                    prefix: str) -> None:
    """A stream that writes slowly renews its staged chunks' TTL as it goes; a writer that
    stops writing for longer than ``staging_ttl`` (the control) loses them, and its commit
    says so instead of publishing a partial artifact."""
    store = RedisStore(redis_server.url, prefix=prefix, session="slow", chunk_size=100,
                       staging_ttl=3)
    with store.writer(ArtifactInfo()) as slow:
        for _ in range(4):  # 4.4 s in all, more than staging_ttl
            slow.write(b"s" * 100)
            slow._send()
            time.sleep(1.1)
        ref = slow.commit()
    assert store.read(ref.id) == b"s" * 400
    with store.writer(ArtifactInfo()) as stalled:
        stalled.write(b"t" * 100)
        stalled._send()
        time.sleep(3.2)
        with pytest.raises(StoreError, match="the write was interrupted"):
            stalled.commit()
    assert [r.id for r in store.list()] == [ref.id]


def test_a_session_deleted_under_a_writer_fails_its_commit(redis_server: RedisServer,
                                                           admin: Any, prefix: str) -> None:
    store = RedisStore(redis_server.url, prefix=prefix, session="gone", chunk_size=100)
    put(store, b"earlier")
    with store.writer(ArtifactInfo()) as w:
        w.write(b"y" * 1000)
        w._send()
        store.delete_session()
        with pytest.raises(StoreError, match="the write was interrupted"):
            w.commit()
    assert keys_of(admin, prefix) == []


# -- quota, sessions ------------------------------------------------------------------------------


def test_quota_evicts_the_oldest_atomically_and_readers_get_404_evicted(
        redis_config: dict[str, Any]) -> None:
    config = {**redis_config, "inline_limit": 1000}
    config["store"] = {**config["store"], "quota": 30_000}
    truncator = Truncator(config)
    refs = [truncator.process(f"run {i}\n" * 2500, tool="execute_command").artifact
            for i in range(3)]
    assert all(r is not None for r in refs)
    store = truncator.store
    assert [r.id for r in store.list()] == [refs[1].id, refs[2].id]  # type: ignore[union-attr]
    answer = truncator.call_tool("artifact_tail", {"artifact_id": refs[0].id})  # type: ignore[union-attr]
    assert answer.error is not None and answer.error.code == 404
    assert "evicted: the session's quota of 30.0 kB was full" in answer.content
    info = store.backend.sessions()[0]
    assert info.artifacts == 2 and info.bytes == sum(r.bytes for r in refs[1:])  # type: ignore[union-attr]
    too_big = truncator.process("x" * 40_000 + "\n", tool="read_file")
    assert too_big.artifact is None
    assert too_big.metadata.artifact_error == "the artifact store is full"
    with pytest.raises(StoreFull):
        put(store, b"z" * 40_000)


def test_session_end_deletes_only_its_keys_with_scan_and_batched_unlink(
        redis_config: dict[str, Any], admin: Any, prefix: str, redis_server: RedisServer) -> None:
    truncator = Truncator({**redis_config, "inline_limit": 1000})
    truncator.process(log_text(3000), tool="execute_command")  # the default session
    neighbour = RedisStore(redis_server.url, prefix=prefix + "x", session="s")
    put(neighbour, b"another app's artifact")
    before = {k: v for k, v in admin.info("commandstats").items()}
    with truncator.session("job") as session:
        store = session.store
        for _ in range(300):  # 300 artifacts of 5 keys: more than one UNLINK batch
            put(store, b"x" * 5, tool="t")
        assert len([k for k in keys_of(admin, prefix) if "{job}" in k]) == 3 + 2 * 300
    after = admin.info("commandstats")
    assert not [k for k in keys_of(admin, prefix) if "{job}" in k]
    assert len([k for k in keys_of(admin, prefix) if "{work}" in k]) > 0
    assert keys_of(admin, prefix + "x")
    calls = {name: after.get(name, {}).get("calls", 0) - before.get(name, {}).get("calls", 0)
             for name in ("cmdstat_keys", "cmdstat_scan", "cmdstat_unlink")}
    assert calls["cmdstat_keys"] == 0 and calls["cmdstat_scan"] >= 1
    assert calls["cmdstat_unlink"] >= 2


def test_trunc_artifacts_cleans_lists_and_finds_across_sessions(
        redis_server: RedisServer, prefix: str) -> None:
    backend = RedisStore(redis_server.url, prefix=prefix, session="a").backend
    a = put(backend.session("a"), b"one\n")
    b = put(backend.session("b"), b"two\ntwo\n")
    assert [s.id for s in backend.sessions()] == ["a", "b"]
    assert backend.find(b.id).session_id == "b"
    with pytest.raises(ArtifactNotFound):
        backend.find(new_artifact_id())
    report = backend.clean(session="a")
    assert report.sessions == ("a",) and report.artifacts == 1 and report.bytes == 4
    assert backend.clean(older_than=3600).sessions == ()
    assert backend.clean().sessions == ("b",)
    with pytest.raises(ArtifactNotFound):
        backend.session("a").stat(a.id)


# -- retrieval reads only what it returns ---------------------------------------------------------


def _bytes_sent(admin: Any) -> int:
    return int(admin.info("stats")["total_net_output_bytes"])


def test_tail_lines_and_pages_of_a_large_artifact_read_little(
        redis_server: RedisServer, admin: Any, prefix: str) -> None:
    """On a 64 MB artifact, tail, a window of lines and a page in the middle each get well
    under 2 MiB from the server (the bytes it sends are counted by the server itself). A
    reader that finds a line by counting from the start, as generic code over ``open()``
    does, gets the first half of the artifact."""
    store = RedisStore(redis_server.url, prefix=prefix, session="big")
    line = b"[%08d] compiling module ... ok, 12 warnings and then some more text\n"
    total = 64 * MIB // len(line % 0)
    with store.writer(ArtifactInfo(lines=total)) as w:
        for start in range(0, total, 10_000):
            w.write(b"".join(line % i for i in range(start, min(total, start + 10_000))))
        ref = w.commit()
    assert ref.bytes > 60 * MIB

    def costs(fn: Any) -> tuple[int, Any]:
        before = _bytes_sent(admin)
        result = fn()
        return _bytes_sent(admin) - before, result

    middle = total // 2
    spent, page = costs(lambda: store.tail(ref.id, 100))
    assert page.first_line == total - 99 and spent < 2 * MIB
    spent, page = costs(lambda: store.lines(ref.id, middle, middle + 999))
    assert page.text.startswith(f"[{middle - 1:08d}]") and page.last_line == middle + 999
    assert spent < 2 * MIB
    spent, page = costs(lambda: store.page(ref.id, ref.bytes // 2 + 7, max_chars=8000))
    assert page.first_line == middle + 1 and spent < 2 * MIB
    spent, page = costs(lambda: store.head(ref.id, 5))
    assert page.last_line == 5 and spent < 2 * MIB
    # The control: generic retrieval over open() counts lines from the start.
    spent, page = costs(lambda: reader_for(_OpenOnly(store)).lines(ref.id, middle, middle + 5))
    assert spent > 30 * MIB
    store.delete_session()


class _OpenOnly:
    """A store seen through open() and stat() only (what reader_for adapts)."""

    def __init__(self, store: RedisStore) -> None:
        self.open, self.stat = store.open, store.stat


def test_grep_streams_a_large_artifact_chunk_by_chunk(redis_server: RedisServer,
                                                      prefix: str) -> None:
    store = RedisStore(redis_server.url, prefix=prefix, session="grep")
    body = b"".join(b"line %d ok\n" % i for i in range(2_000_000))  # 24 MB
    ref = put(store, body[:-3] + b"ERROR: boom\n")
    del body
    tracemalloc.start()
    try:
        result = store.grep(ref.id, "ERROR")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [m.line.number for m in result.matches] == [2_000_000]
    assert peak < 16 * MIB
    store.delete_session()


# -- writing --------------------------------------------------------------------------------------


def test_sha256_is_recorded_and_buffers_may_be_reused(redis_server: RedisServer,
                                                      prefix: str) -> None:
    store = RedisStore(redis_server.url, prefix=prefix, session="sha", chunk_size=4096)
    chunks = [bytearray(os.urandom(10_000)), memoryview(b"small\n"), bytearray(b"z" * 9000),
              bytearray(os.urandom(3 * MIB))]  # sent on a helper thread while it is hashed
    expected = hashlib.sha256(b"".join(bytes(c) for c in chunks)).hexdigest()
    with store.writer(ArtifactInfo()) as w:
        for chunk in chunks:
            w.write(chunk)  # type: ignore[arg-type]
            if isinstance(chunk, bytearray):
                chunk[:] = b"\0" * len(chunk)
        ref = w.commit()
    assert ref.sha256 == expected == hashlib.sha256(store.read(ref.id)).hexdigest()
    assert store.stat(ref.id).sha256 == expected == store.checksum(ref.id)


def test_max_artifact_size_is_honoured_and_streams_work(redis_config: dict[str, Any]) -> None:
    truncator = Truncator({**redis_config, "inline_limit": 1000, "max_artifact_size": 50_000})
    text = log_text(20_000)
    result = truncator.process(text, tool="read_file")
    ref = result.artifact
    assert ref is not None and ref.truncated and ref.bytes <= 50_000
    assert truncator.artifacts.read(ref.id).startswith(text[:1000].encode())
    with truncator.stream(tool="execute_command") as stream:
        for i in range(0, len(text), 7777):
            stream.write(text[i:i + 7777])
    streamed = stream.result().artifact
    assert streamed is not None and streamed.truncated and streamed.bytes <= 50_000
    assert truncator.artifacts.tail(streamed.id, 1).text == text.splitlines(True)[-1]


def test_two_workers_share_a_session(redis_config: dict[str, Any]) -> None:
    """The fleet case: one worker truncates, another (another Truncator, another client)
    pages through the artifact by id."""
    first = Truncator({**redis_config, "inline_limit": 1000})
    second = Truncator({**redis_config, "inline_limit": 1000})
    ref = first.process(log_text(4000), tool="read_file").artifact
    assert ref is not None
    page = second.call_tool("get_artifact", {"artifact_id": ref.id, "start_line": 3001,
                                             "end_line": 3003})
    assert not page.is_error
    assert "[00003000]" in page.content and "[00003002]" in page.content


# -- export and import, trunc artifacts -----------------------------------------------------------


def test_export_and_import_keep_ids_and_bytes(redis_server: RedisServer, prefix: str,
                                              tmp_path: Path) -> None:
    store = RedisStore(redis_server.url, prefix=prefix, session="src", chunk_size=4096)
    refs = [put(store, os.urandom(20_000) + b"\n", tool="t"), put(store, b"text\n" * 3)]
    report = export_session(store, tmp_path / "s.tar.gz")
    assert report.artifacts == 2
    imported = import_archive(store.backend, tmp_path / "s.tar.gz", session="dst")
    assert sorted(imported.imported) == sorted(r.id for r in refs)
    dst = store.for_session("dst")
    for ref in refs:
        assert dst.read(ref.id) == store.read(ref.id)
        assert dst.stat(ref.id).created_at == ref.created_at
    # Again into the same session: the same content is left alone.
    again = import_archive(store.backend, tmp_path / "s.tar.gz", session="dst")
    assert again.imported == () and len(again.skipped) == 2
    import io

    import attrs

    other = attrs.evolve(refs[1], sha256=hashlib.sha256(b"other").hexdigest())
    with pytest.raises(StoreError, match="with other content"):
        dst.restore(other, io.BytesIO(b"other"))


def test_every_trunc_artifacts_command_works_on_redis(
        redis_server: RedisServer, prefix: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from truncation_core.cli import cli

    for name in list(os.environ):
        if name.startswith("TRUNCATION_CORE_"):
            monkeypatch.delenv(name)
    (tmp_path / ".truncation.yaml").write_text(
        f"store:\n  backend: redis\n  url: {redis_server.url}\n  prefix: {prefix}\n"
        "  session: work\nplugins:\n  enable: [redis]\n")

    def trunc(*args: str, input: str | None = None) -> tuple[int, str]:
        result = CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)
        return result.exit_code, result.stdout

    log = "".join(f"step {i}: ok\n" for i in range(1, 5001)) + "ERROR: boom\n"
    code, out = trunc("apply", "--tool", "execute_command", "--json", input=log)
    assert code == 0
    artifact = json.loads(out)["artifact"]["id"]
    code, out = trunc("artifacts", "list", "--json")
    assert code == 0 and [(a["id"], a["backend"]) for a in json.loads(out)] == [
        (artifact, "redis")]
    assert trunc("artifacts", "tail", artifact, "-n", "1") == (0, "ERROR: boom\n")
    assert trunc("artifacts", "grep", artifact, "boom") == (0, "5001:ERROR: boom\n")
    assert trunc("artifacts", "show", artifact, "--lines", "2-3") == (
        0, "step 2: ok\nstep 3: ok\n")
    code, _ = trunc("artifacts", "export", "--session", "work", "-o", "work.tar.gz")
    assert code == 0
    code, out = trunc("artifacts", "clean", "--session", "work")
    assert code == 0 and out.startswith("deleted 1 session, 1 artifact")
    assert trunc("artifacts", "list", "--json") == (0, "[]\n")
    code, out = trunc("artifacts", "import", "work.tar.gz")
    assert code == 0 and out.startswith("imported 1 artifact into session work")
    assert trunc("artifacts", "show", artifact, "--lines", "5001") == (0, "ERROR: boom\n")


# -- hostile input --------------------------------------------------------------------------------


HOSTILE_IDS = ["../../etc/passwd", "art_1_" + "0" * 31 + "*", "*", "art_1_{x}", "a\nb",
               "art_1_" + "A" * 32, "art_1_" + "0" * 32 + "\n", "", "x" * 5000, "\\"]


@pytest.mark.parametrize("bad", HOSTILE_IDS)
def test_hostile_ids_get_400_from_call_tool(truncator: Truncator, admin: Any, prefix: str,
                                            bad: str) -> None:
    truncator.process(log_text(3000), tool="execute_command")
    before = keys_of(admin, prefix)
    for tool in ("get_artifact", "artifact_head", "artifact_tail"):
        answer = truncator.call_tool(tool, {"artifact_id": bad})
        assert answer.error is not None and answer.error.code == 400
        assert "artifact_id: expected an artifact id (art_" in answer.content
    answer = truncator.call_tool("artifact_grep", {"artifact_id": bad, "pattern": "x"})
    assert answer.error is not None and answer.error.code == 400
    assert keys_of(admin, prefix) == before


@pytest.mark.parametrize("bad", ["*", "a}b", "{x}", "../x", "A", "a b", "a" * 65, "", "a\n"])
def test_hostile_session_names_are_refused_before_redis(truncator: Truncator, bad: str,
                                                        redis_config: dict[str, Any]) -> None:
    store = truncator.store
    with pytest.raises(InvalidSessionId):
        store.for_session(bad)
    with pytest.raises(InvalidSessionId):
        truncator.session(bad)
    with pytest.raises(InvalidSessionId):
        store.backend.delete_session(bad)
    with pytest.raises(ConfigError, match=r"store\.session: must be 1 to 64"):
        Truncator({**redis_config, "store": {**redis_config["store"], "session": bad}})
    with pytest.raises(InvalidArtifactId):
        store.backend.find("art_*")


def test_control_a_glob_in_a_session_name_would_delete_other_sessions(
        redis_server: RedisServer, admin: Any, prefix: str) -> None:
    """Why session ids and the prefix exclude glob characters: SCAN's MATCH of a session
    named ``*`` would take every session's keys."""
    store = RedisStore(redis_server.url, prefix=prefix, session="victim")
    put(store, b"precious")
    naive = [k for k in admin.scan_iter(match=f"{prefix}:{{*}}:*")]
    assert any(b"{victim}" in k for k in naive)  # what delete_session("*") would unlink


def test_ids_are_unpredictable_and_of_the_core_form(redis_server: RedisServer,
                                                    prefix: str) -> None:
    store = RedisStore(redis_server.url, prefix=prefix, session="ids")
    ids = {put(store, b"x").id for _ in range(50)}
    assert len(ids) == 50
    assert all(len(i.rsplit("_", 1)[1]) == 32 for i in ids)
    assert secrets  # ids come from truncation_core's new_artifact_id (secrets.token_hex)
