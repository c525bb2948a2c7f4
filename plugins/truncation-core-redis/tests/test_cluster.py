"""Redis Cluster: the store works under key-slot rules.

A real redis-server in cluster mode holding all 16384 slots refuses any multi-key command or
transaction whose keys are in different slots (CROSSSLOT), like a cluster of many nodes. The
store, through redis-py's cluster client (``cluster: true``), stores, reads, evicts, lists,
exports and deletes sessions there: every key of a session carries the session as its hash
tag, so everything one operation touches is in one slot.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import redis
from redis_server import free_port
from truncation_core_redis import RedisStore

from truncation_core import Truncator
from truncation_core.artifacts.archive import export_session, import_archive
from truncation_core.types.artifacts import ArtifactInfo


@pytest.fixture
def cluster(own_server: Any, tmp_path: Path) -> Any:
    server = own_server("--cluster-enabled", "yes", "--cluster-config-file",
                        str(tmp_path / "nodes.conf"), "--cluster-port", str(free_port()),
                        tcp=True)
    with server.client() as admin:
        admin.execute_command("CLUSTER", "ADDSLOTSRANGE", 0, 16383)
        deadline = time.monotonic() + 20
        while b"cluster_state:ok" not in admin.execute_command("CLUSTER", "INFO"):
            assert time.monotonic() < deadline, "the cluster never came up"
            time.sleep(0.05)
    return server


def test_the_store_works_on_a_cluster(cluster: Any, prefix: str, tmp_path: Path) -> None:
    url = f"redis://127.0.0.1:{cluster.tcp_port}/0"
    truncator = Truncator({"inline_limit": 1000, "plugins": {"enable": ["redis"]},
                           "store": {"backend": "redis", "url": url, "prefix": prefix,
                                     "session": "c", "cluster": True, "quota": 500_000,
                                     "chunk_size": 65536}})
    store = truncator.store
    assert isinstance(store, RedisStore)
    assert type(store.client).__name__ == "RedisCluster"
    text = "".join(f"line {i} of a cluster log\n" for i in range(9000))  # 3 chunks
    refs = [truncator.process(text + f"run {n}\n", tool="execute_command").artifact
            for n in range(3)]
    assert all(r is not None for r in refs)
    # The quota evicted the oldest, in the publish script.
    assert [r.id for r in store.list()] == [r.id for r in refs[1:]]  # type: ignore[union-attr]
    last = refs[-1]
    assert last is not None
    assert truncator.artifacts.tail(last.id, 1).text == "run 2\n"
    assert truncator.artifacts.lines(last.id, 4000, 4001).text.startswith("line 3999 ")
    assert truncator.artifacts.grep(last.id, "line 8999 ").matches[0].line.number == 9000
    backend = store.backend
    assert backend.find(last.id).session_id == "c"
    assert [s.id for s in backend.sessions()] == ["c"]
    export_session(store, tmp_path / "c.tar.gz")
    imported = import_archive(backend, tmp_path / "c.tar.gz", session="copy")
    assert len(imported.imported) == 2
    with backend.session("other").writer(ArtifactInfo()) as w:
        w.write(b"elsewhere\n")
        other = w.commit()
    assert store.delete(last.id)
    assert store.delete_session() == 1
    assert backend.session("other").read(other.id) == b"elsewhere\n"
    assert backend.session("copy").read(last.id) == (text + "run 2\n").encode()

    # Every key of a session is in one slot.
    with cluster.client() as admin:
        slots: dict[str, set[int]] = {}
        for key in admin.scan_iter(match=f"{prefix}:*"):
            session = key.decode().split("{")[1].split("}")[0]
            slots.setdefault(session, set()).add(admin.cluster("KEYSLOT", key))
    assert set(slots) == {"copy", "other"} and all(len(s) == 1 for s in slots.values())


def test_control_the_server_refuses_keys_of_two_slots(cluster: Any, prefix: str) -> None:
    """What the hash tags avoid: one command over two sessions' keys is refused."""
    with cluster.client() as admin:
        a, b = f"{prefix}:{{one}}:x", f"{prefix}:{{two}}:x"
        assert admin.cluster("KEYSLOT", a) != admin.cluster("KEYSLOT", b)
        with pytest.raises(redis.exceptions.ResponseError, match="same slot"):
            admin.mset({a: 1, b: 2})
        admin.mset({a: 1, f"{prefix}:{{one}}:y": 2})  # one tag, one slot: fine
