"""A fleet: 8 worker processes x 500 artifacts in one shared session, each worker reading
other workers' artifacts by id while they work, and a cleaner deleting other sessions and
running retention over and over. Nothing is lost; every artifact is byte-identical.

Payloads verify themselves (sha256, then the body), so a worker checks any artifact it reads.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import random
from typing import Any

import pytest
from redis_server import RedisServer

WORKERS = 8
PER_WORKER = 500
SESSION = "fleet"


def payload(worker: int, n: int) -> str:
    body = f"worker {worker} artifact {n}: step ok\n" * (40 + (worker * 7 + n) % 60)
    return hashlib.sha256(body.encode()).hexdigest() + "\n" + body


def intact(text: str) -> bool:
    digest, _, body = text.partition("\n")
    return hashlib.sha256(body.encode()).hexdigest() == digest


def _config(url: str, prefix: str) -> dict[str, Any]:
    return {"inline_limit": 1000, "plugins": {"enable": ["redis"]},
            "store": {"backend": "redis", "url": url, "prefix": prefix, "session": SESSION}}


def _worker(url: str, prefix: str, worker: int, start: Any, out: Any) -> None:
    from truncation_core import Truncator

    truncator = Truncator(_config(url, prefix))
    ids_key = f"fleet-test:{prefix}:ids"
    admin = truncator.store.client  # type: ignore[attr-defined]
    rng = random.Random(worker)  # noqa: S311 (sampling, not secrets)
    start.wait()
    mine, checked, problems = [], 0, []
    for n in range(PER_WORKER):
        result = truncator.process(payload(worker, n), tool="read_file")
        if result.artifact is None:
            problems.append(f"worker {worker} artifact {n} not stored: "
                            f"{result.metadata.artifact_error}")
            continue
        mine.append((result.artifact.id, n))
        admin.rpush(ids_key, f"{result.artifact.id} {worker} {n}")
        if n % 20 == 19:  # read others' artifacts by id, as another machine would
            known = admin.llen(ids_key)
            for index in rng.sample(range(known), min(known, 3)):
                artifact_id, w, m = admin.lindex(ids_key, index).decode().split()
                answer = truncator.call_tool("get_artifact", {"artifact_id": artifact_id,
                                                              "start_line": 1, "end_line": 1})
                text = truncator.artifacts.text(artifact_id)
                if answer.is_error or text != payload(int(w), int(m)) or not intact(text):
                    problems.append(f"worker {worker} read {artifact_id} wrong")
                checked += 1
    out.put((worker, mine, checked, problems))


def _cleaner(url: str, prefix: str, stop: Any, out: Any) -> None:
    from truncation_core_redis import RedisStore

    from truncation_core.types.artifacts import ArtifactInfo

    store = RedisStore(url, prefix=prefix, session="junk-0")
    backend = store.backend
    rounds = 0
    while not stop.is_set():
        junk = backend.session(f"junk-{rounds % 3}")
        with junk.writer(ArtifactInfo()) as w:
            w.write(b"junk\n" * 100)
            w.commit()
        backend.clean(older_than=3600)  # the fleet's session is live: untouched
        backend.delete_session(f"junk-{(rounds + 1) % 3}")
        backend.clean(session=f"junk-{(rounds + 2) % 3}")
        rounds += 1
        stop.wait(0.05)  # a cleaner runs now and then, not flat out
    out.put(rounds)


@pytest.mark.slow
def test_a_fleet_shares_one_session_and_loses_nothing(redis_server: RedisServer,
                                                      prefix: str) -> None:
    ctx = multiprocessing.get_context("fork")
    start, stop = ctx.Event(), ctx.Event()
    out, cleaned = ctx.Queue(), ctx.Queue()
    workers = [ctx.Process(target=_worker, args=(redis_server.url, prefix, w, start, out))
               for w in range(WORKERS)]
    cleaner = ctx.Process(target=_cleaner, args=(redis_server.url, prefix, stop, cleaned))
    for p in [*workers, cleaner]:
        p.start()
    start.set()
    reports = [out.get(timeout=600) for _ in workers]
    stop.set()
    rounds = cleaned.get(timeout=120)
    for p in [*workers, cleaner]:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert rounds > 0
    problems = [p for report in reports for p in report[3]]
    assert problems == []
    assert sum(report[2] for report in reports) >= WORKERS * PER_WORKER // 10
    expected = {artifact_id: payload(worker, n)
                for worker, mine, _, _ in reports for artifact_id, n in mine}
    assert len(expected) == WORKERS * PER_WORKER

    from truncation_core import Truncator

    truncator = Truncator(_config(redis_server.url, prefix))
    listed = truncator.store.list()
    assert {r.id for r in listed} == set(expected)
    reader = truncator.artifacts
    for artifact_id, text in expected.items():
        assert reader.read(artifact_id) == text.encode()
    truncator.store.delete_session()
