"""Fixtures for the artifact tests: a real filesystem store in a temporary directory."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from redis_server import redis_server  # noqa: F401 (a fixture)

from truncation_core import Truncator
from truncation_core.storage.filesystem import ArtifactRoot, FilesystemStore
from truncation_core.storage.memory import MemoryBackend
from truncation_core.types.artifacts import ArtifactInfo, ArtifactRef
from truncation_core.types.storage import ArtifactStore


@pytest.fixture
def root_path(tmp_path: Path) -> Path:
    return tmp_path / "workspace" / ".truncation" / "artifacts"


@pytest.fixture
def store(root_path: Path) -> Iterator[FilesystemStore]:
    s = FilesystemStore(str(root_path), "test-session")
    yield s
    s.close()
    s.root.close()


@pytest.fixture
def truncator(root_path: Path) -> Truncator:
    return Truncator({"store": {"root": str(root_path)}}, load_entrypoints=False)


#: The backends every backend-neutral test runs on: the built-in ones, and the redis plugin's
#: (against a real redis-server the tests start).
BACKENDS = ("filesystem", "memory", "redis")

#: ``make(session=None, **redis_settings) -> store``: a store of the backend under test.
StoreMaker = Callable[..., ArtifactStore]


@pytest.fixture(scope="module", params=BACKENDS)
def make_store(request: pytest.FixtureRequest,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[StoreMaker]:
    """Stores of one backend (each parameter), all of one family: a store made with a
    session id reaches what another made with that id stored. Redis settings (such as a tiny
    ``chunk_size``) apply to the redis backend only."""
    kind = request.param
    if kind == "filesystem":
        root = ArtifactRoot(str(tmp_path_factory.mktemp("stores") / "artifacts"))

        def filesystem(session: str | None = None, **_: Any) -> ArtifactStore:
            return FilesystemStore(root, session)

        yield filesystem
        root.close()
    elif kind == "memory":
        memory = MemoryBackend()

        def in_memory(session: str | None = None, **_: Any) -> ArtifactStore:
            return memory.session(session)

        yield in_memory
    else:
        server = request.getfixturevalue("redis_server")
        from truncation_core_redis import RedisStore

        client = server.client()
        prefix = "t" + secrets.token_hex(4)

        def redis(session: str | None = None, **settings: Any) -> ArtifactStore:
            return RedisStore(client=client, session=session, prefix=prefix, **settings)

        yield redis
        client.close()


def put(store: FilesystemStore | object, data: bytes, **info: object) -> ArtifactRef:
    """Store *data* as one artifact and return its ref."""
    with store.writer(ArtifactInfo(**info)) as w:  # type: ignore[attr-defined]
        w.write(data)
        return w.commit()


def session_dir(root: Path, session: str = "test-session") -> Path:
    return root / session


__all__ = ["ArtifactRoot", "put", "session_dir"]


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
