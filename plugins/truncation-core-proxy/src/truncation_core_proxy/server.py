"""The proxy as an ASGI app (Starlette), and serving it (uvicorn).

:func:`proxy_app` routes every request, whatever its method and path, to the
:class:`~truncation_core_proxy.relay.Relay`. :func:`serve` runs it until stopped;
:class:`ServerThread` runs any ASGI app on a free loopback port in a thread (the tests and
the benchmark use it, for the proxy and for their replaying upstream).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.routing import Route

from truncation_core_proxy.relay import Relay

__all__ = ["ServerThread", "is_loopback", "proxy_app", "serve"]

log = logging.getLogger("truncation_core_proxy")

METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]


def proxy_app(relay: Relay) -> Starlette:
    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        await relay.start()
        try:
            yield
        finally:
            await relay.close()

    return Starlette(routes=[Route("/{path:path}", relay.handle, methods=METHODS)],
                     lifespan=lifespan)


def _config(app: Any, host: str, port: int) -> uvicorn.Config:
    # No access log: its lines carry the query string, where some clients put keys.
    return uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                          lifespan="on", timeout_keep_alive=75, server_header=False)


def serve(app: Any, host: str, port: int,
          on_ready: Callable[[str], None] | None = None) -> None:
    """Serve *app* until interrupted; *on_ready* gets the URL once it listens."""
    server = uvicorn.Server(_config(app, host, port))

    async def run() -> None:
        task = asyncio.ensure_future(server.serve())
        while not server.started and not task.done():
            await asyncio.sleep(0.01)
        if server.started and on_ready is not None:
            on_ready(_url(server, host))
        await task

    # The loop uvicorn chose (uvloop when installed), as Server.run would run it.
    with asyncio.Runner(loop_factory=server.config.get_loop_factory()) as runner:
        runner.run(run())


def _url(server: uvicorn.Server, host: str) -> str:
    sockets = [s for srv in server.servers for s in srv.sockets]
    port = sockets[0].getsockname()[1] if sockets else 0
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class ServerThread:
    """``with ServerThread(app) as server:`` serves *app* on ``server.url`` (a free
    loopback port) in a thread, until the block ends."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0) -> None:
        self._server = uvicorn.Server(_config(app, host, port))
        self._host = host
        self._thread = threading.Thread(target=self._server.run, daemon=True,
                                        name="trunc-proxy-server")
        self.url = ""

    def __enter__(self) -> ServerThread:
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError("the server did not start")
            self._thread.join(0.01)
        self.url = _url(self._server, self._host)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(10)
