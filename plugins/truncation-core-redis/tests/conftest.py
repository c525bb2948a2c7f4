"""Fixtures for the redis backend's tests: a real redis-server (tests/redis_server.py), and
Truncators that load this plugin as any installed plugin loads, by its entry point."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from redis_server import (  # noqa: F401 (redis_server is a fixture)
    RedisServer,
    free_port,
    redis_server,
    require_redis,
)

from truncation_core import Truncator


@pytest.fixture(autouse=True)
def _own_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def prefix() -> str:
    """A key prefix of this test's own: tests share one server and never see each other."""
    return "t" + secrets.token_hex(5)


@pytest.fixture
def redis_config(redis_server: RedisServer, prefix: str) -> dict[str, Any]:  # noqa: F811
    """Config selecting the redis backend on the test server; only this plugin loads."""
    return {"store": {"backend": "redis", "url": redis_server.url, "prefix": prefix,
                      "session": "work"},
            "plugins": {"enable": ["redis"]}}


@pytest.fixture
def truncator(redis_config: dict[str, Any]) -> Truncator:
    return Truncator({**redis_config, "inline_limit": 1000})


@pytest.fixture
def admin(redis_server: RedisServer) -> Iterator[Any]:  # noqa: F811
    """A plain redis-py client to look at the server."""
    client = redis_server.client()
    yield client
    client.close()


@pytest.fixture
def own_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """``start(*args, tcp=False) -> RedisServer``: servers of this test alone (to kill, pause,
    fill or make replicas of); stopped at the end."""
    require_redis()
    started: list[RedisServer] = []

    def start(*args: str, tcp: bool = False) -> RedisServer:
        directory = tmp_path_factory.mktemp("own")
        server = RedisServer(directory, *args, tcp_port=free_port() if tcp else 0)
        started.append(server.start())
        return server

    yield start
    for server in started:
        server.stop()
