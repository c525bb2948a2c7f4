"""Content never reaches logs, exception messages or reprs on the redis backend either: a
canary goes through storing, reading, grep, eviction, and every failure (refused, out of
memory, a hostile id, a store deleted under a writer, a bad pattern)."""

from __future__ import annotations

import logging
import secrets
from typing import Any

import pytest

from truncation_core import Truncator
from truncation_core.types.artifacts import ArtifactInfo


def test_canary_never_leaks(own_server: Any, prefix: str, tmp_path: Any,
                            caplog: pytest.LogCaptureFixture) -> None:
    canary = "CANARY-" + secrets.token_hex(8)
    caplog.set_level(logging.DEBUG)
    server = own_server("--maxmemory", "3mb", "--maxmemory-policy", "noeviction")
    config = {"inline_limit": 300, "plugins": {"enable": ["redis"]},
              "store": {"backend": "redis", "url": server.url, "prefix": prefix,
                        "session": "c", "quota": 150_000, "chunk_size": 4096}}
    truncator = Truncator(config)
    seen: list[str] = []
    content = "".join(f"line {i} {canary}\n" for i in range(2000))
    refs = [truncator.process(content, tool="execute_command").artifact for _ in range(3)]
    assert refs[-1] is not None  # the quota evicted the first ones
    for ref in refs:
        for call, args in (("artifact_tail", {}), ("artifact_grep", {"pattern": canary}),
                           ("artifact_grep", {"pattern": "(" + canary, "regex": True}),
                           ("get_artifact", {"start_line": 10**9})):
            answer = truncator.call_tool(call, {"artifact_id": ref.id, **args})  # type: ignore[union-attr]
            if answer.is_error:
                seen.append(answer.content)
    answer = truncator.call_tool("artifact_head", {"artifact_id": canary})
    seen.append(answer.content)
    store = truncator.store
    failures: list[BaseException] = []
    for _ in range(40):  # fill Redis: out of memory
        try:
            with store.writer(ArtifactInfo(summary="x")) as w:
                w.write((canary + "\n").encode() * 20_000)
                w.commit()
        except Exception as exc:
            failures.append(exc)
            break
    with store.writer(ArtifactInfo()) as w:
        w.write((canary * 2000).encode())
        w._send()  # type: ignore[attr-defined]
        store.delete_session()
        try:
            w.commit()
        except Exception as exc:
            failures.append(exc)
    down = Truncator({**config, "store": {**config["store"], "url": f"unix://{tmp_path}/x"}})
    result = down.process(content, tool="execute_command")
    seen.append(repr(result.metadata))
    try:
        down.store.stat(refs[-1].id)  # type: ignore[union-attr]
    except Exception as exc:
        failures.append(exc)
    assert len(failures) == 3
    seen += [str(e) for e in failures] + [repr(e) for e in failures]
    seen += [repr(store), repr(store.backend), repr(refs[-1])]
    seen += [caplog.text]
    assert not [s for s in seen if canary in s]
