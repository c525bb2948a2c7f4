"""The artifact store contract (tests/store_contract.py) on the redis store, against a real
redis-server, with the tiny chunks and index blocks the contract asks for."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from redis_server import RedisServer
from store_contract import *  # noqa: F403
from store_contract import StoreMaker

from truncation_core.types.storage import ArtifactStore


@pytest.fixture(scope="module")
def make_store(redis_server: RedisServer) -> Iterator[StoreMaker]:
    """Redis stores of one family: a store made with a session id reaches what another made
    with that id stored."""
    from truncation_core_redis import RedisStore

    client = redis_server.client()
    prefix = "t" + secrets.token_hex(4)

    def redis(session: str | None = None, **settings: Any) -> ArtifactStore:
        return RedisStore(client=client, session=session, prefix=prefix, **settings)

    yield redis
    client.close()
