"""Connecting: a redis-py client from a URL, or from the client an application already has.

The store runs inside ``Truncator.process``, which is synchronous (``aprocess`` runs it in a
worker thread), so it needs a synchronous client. Given a ``redis.asyncio.Redis``, it makes a
synchronous one with the same address, database, credentials and TLS settings: the async
client's connections belong to its event loop and cannot be used from another thread.

Clients made here do not retry on their own (redis-py 6 and later retry every command three
times by default, writes included): the store retries what is safe to repeat
(:func:`truncation_core_redis.errors.retrying`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

__all__ = ["client_from_url", "describe", "sync_client"]

#: Settings of an async client's connections that a synchronous client takes as they are.
_CARRIED = ("host", "port", "db", "username", "password", "credential_provider",
            "socket_timeout", "socket_connect_timeout", "socket_keepalive",
            "socket_keepalive_options", "client_name", "protocol", "ssl_keyfile",
            "ssl_certfile", "ssl_cert_reqs", "ssl_ca_certs", "ssl_ca_path", "ssl_ca_data",
            "ssl_check_hostname", "ssl_min_version", "ssl_ciphers", "ssl_password",
            "encoding", "encoding_errors")


def _no_retry() -> Any:
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return Retry(NoBackoff(), 0)


def client_from_url(url: str, *, socket_timeout: float, connect_timeout: float,
                    cluster: bool = False) -> Any:
    """A client for *url* (``redis://``, ``rediss://`` or ``unix://``). It connects on first
    use: building it never fails for want of a server. Settings in the URL's query
    (``?socket_timeout=...``) win over the arguments."""
    kwargs: dict[str, Any] = {"socket_timeout": socket_timeout,
                              "socket_connect_timeout": connect_timeout,
                              "retry": _no_retry()}
    if cluster:
        from redis.cluster import RedisCluster

        return RedisCluster.from_url(url, **kwargs)
    import redis

    return redis.Redis.from_url(url, **kwargs)


def sync_client(client: Any) -> Any:
    """*client* if it is synchronous (``redis.Redis``, ``redis.cluster.RedisCluster``); for a
    ``redis.asyncio.Redis``, a synchronous client to the same server. Raises TypeError for
    anything else."""
    import redis
    import redis.asyncio
    from redis.cluster import RedisCluster

    if isinstance(client, redis.Redis | RedisCluster):
        return client
    if isinstance(client, redis.asyncio.RedisCluster):
        raise TypeError("client: a redis.asyncio.RedisCluster cannot be shared with the "
                        "store's worker threads; give a redis.cluster.RedisCluster, or "
                        "store.url with store.cluster: true")
    if isinstance(client, redis.asyncio.Redis):
        from redis.asyncio.connection import SSLConnection, UnixDomainSocketConnection

        pool = client.connection_pool
        given = pool.connection_kwargs
        kwargs = {k: given[k] for k in _CARRIED if k in given}
        if issubclass(pool.connection_class, UnixDomainSocketConnection):
            kwargs["unix_socket_path"] = given.get("path")
        elif issubclass(pool.connection_class, SSLConnection):
            kwargs["ssl"] = True
        kwargs.pop("decode_responses", None)  # the store reads bytes
        return redis.Redis(retry=_no_retry(), **kwargs)
    raise TypeError("client: expected a redis.Redis, redis.cluster.RedisCluster or "
                    f"redis.asyncio.Redis, got a {type(client).__name__}")


def describe(client: Any) -> str:
    """Where *client* connects, for messages: never its password."""
    try:
        nodes = getattr(client, "get_nodes", None)
        if nodes is not None:
            return "cluster " + ",".join(sorted(f"{n.host}:{n.port}" for n in nodes()))
        pool = client.connection_pool
        kwargs, kind = pool.connection_kwargs, pool.connection_class.__name__
    except Exception:
        return "redis"
    db = kwargs.get("db", 0)
    if kwargs.get("path"):
        return f"unix://{kwargs['path']}?db={db}"
    scheme = "rediss" if "SSL" in kind else "redis"
    return f"{scheme}://{kwargs.get('host', 'localhost')}:{kwargs.get('port', 6379)}/{db}"


def url_without_password(url: str) -> str:
    """*url* with any user and password removed."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}{parts.path}"
