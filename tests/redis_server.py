"""A real redis-server for the tests: started by the tests themselves, on a unix socket in a
temporary directory (no TCP port, so no clashes), with persistence off.

Tests that need it take the ``redis_server`` fixture (or start their own
:class:`RedisServer`, to kill, pause or restart it). Where ``redis-server`` or redis-py is
missing they skip, saying so loudly; with ``REQUIRE_REDIS_SERVER=1`` (set by ``.ci/run``,
which installs ``redis-server``) they fail instead, so CI can never skip them.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

__all__ = ["RedisServer", "free_port", "redis_server", "require_redis"]

REDIS_SERVER = shutil.which("redis-server")


def missing() -> str | None:
    """Why the Redis tests cannot run here, or None."""
    if REDIS_SERVER is None:
        return "redis-server is not installed (apt-get install redis-server; .ci/run does it)"
    try:
        import redis  # noqa: F401
        import truncation_core_redis  # noqa: F401
    except ImportError:
        return ("the redis plugin is not installed (pip install -e "
                "plugins/truncation-core-redis, which brings redis-py; make does it)")
    return None


def require_redis() -> None:
    """Skip (loudly) or, in CI, fail when Redis cannot run here."""
    reason = missing()
    if reason is None:
        return
    if os.environ.get("REQUIRE_REDIS_SERVER") == "1":
        pytest.fail(f"REQUIRE_REDIS_SERVER=1 but {reason}")
    pytest.skip(f"!!! REDIS TESTS NOT RUN: {reason} !!!")


class RedisServer:
    """One redis-server process of a test, in *directory*."""

    def __init__(self, directory: Path, *args: str, tcp_port: int = 0) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        self.socket = directory / "redis.sock"
        self.tcp_port = tcp_port
        self.args = args
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}"

    def command(self) -> list[str]:
        assert REDIS_SERVER is not None
        return [REDIS_SERVER, "--port", str(self.tcp_port), "--bind", "127.0.0.1",
                "--unixsocket", str(self.socket), "--unixsocketperm", "700",
                "--save", "", "--appendonly", "no", "--dir", str(self.directory),
                "--logfile", str(self.directory / "redis.log"), *self.args]

    def start(self, timeout: float = 10.0) -> RedisServer:
        self.socket.unlink(missing_ok=True)
        self.proc = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while True:
            try:
                with self.client() as c:
                    c.ping()
                return self
            except Exception:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    log = (self.directory / "redis.log")
                    raise RuntimeError("redis-server did not start: " + (
                        log.read_text()[-2000:] if log.exists() else "no log")) from None
                time.sleep(0.01)

    def client(self, **kwargs: Any) -> Any:
        import redis

        return redis.Redis(unix_socket_path=str(self.socket), **kwargs)

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, sig)

    def kill(self) -> None:
        """SIGKILL: the server dies at once, mid-command if need be."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(timeout=10)

    def pause(self) -> None:
        self.signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.signal(signal.SIGCONT)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.proc = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A redis-server shared by the tests of a run (each test uses its own key prefix or
    session)."""
    require_redis()
    with RedisServer(tmp_path_factory.mktemp("redis")) as server:
        yield server


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
