"""The redis backend: ratios against baselines measured in the same run, over loopback TCP.

    python bench/bench_redis.py            # 1 MB and 200 MB artifacts
    python bench/bench_redis.py --quick    # 1 MB and 50 MB

Starts its own redis-server (persistence off) on a free loopback port; needs ``redis-server``
on PATH and the plugin installed (``make`` does both but the apt package). Prints:

1. storing 10 MB (write + commit) against a bare redis-py SET of the same bytes in a pipeline,
   as one value and as 1 MiB values (target: within 1.5x the faster), and the filesystem store;
2. ``tail(100)``, ``lines`` of a 1,000-line window in the middle, and literal ``grep`` (one
   match, near the end), on a 1 MB and a large artifact, for the redis and filesystem stores,
   with bare redis-py GETs of the same bytes for scale (target: ``tail(100)`` on the large one
   within 2x the 1 MB one);
3. what an artifact costs Redis in memory (``MEMORY USAGE`` of its keys) against its bytes.

Timings are medians of interleaved runs. Nothing here asserts: it prints numbers.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

MB = 1_000_000
MIB = 1 << 20


def log_bytes(size: int) -> bytes:
    line = b"[%08d] compiling module_%03d.c ... ok, 12 warnings\n"
    n = size // len(line % (0, 0)) + 1
    return b"".join(line % (i, i % 997) for i in range(n))[:size]


def interleaved(fns: dict[str, Callable[[], object]], runs: int,
                setup: Callable[[], None] | None = None) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            if setup is not None:
                setup()
            start = time.perf_counter()
            fn()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(times) for name, times in samples.items()}


def ms(seconds: float) -> str:
    return f"{seconds * 1000:9.2f} ms"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, scratch: Path) -> None:
        exe = shutil.which("redis-server")
        if exe is None:
            sys.exit("redis-server is not installed (apt-get install redis-server)")
        self.port = free_port()
        self.proc = subprocess.Popen(
            [exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(scratch), "--logfile", str(scratch / "log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        import redis

        self.client = redis.Redis(port=self.port)
        for _ in range(1000):
            try:
                self.client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.01)
        self.url = f"redis://127.0.0.1:{self.port}/0"
        version = self.client.info("server")["redis_version"]
        print(f"redis-server {version} on 127.0.0.1:{self.port}, redis-py "
              f"{redis.__version__}, hiredis "
              f"{'yes' if redis.utils.HIREDIS_AVAILABLE else 'no'}")

    def stop(self) -> None:
        self.client.close()
        self.proc.terminate()
        self.proc.wait(timeout=30)


def store_of(kind: str, server: Server, scratch: Path, session: str) -> object:
    if kind == "redis":
        from truncation_core_redis import RedisStore

        return RedisStore(server.url, prefix="bench", session=session)
    from truncation_core.storage.filesystem import FilesystemStore

    return FilesystemStore(str(scratch / "fs"), session)


def put(store: object, data: bytes, lines: int = 0) -> str:
    from truncation_core.types.artifacts import ArtifactInfo

    with store.writer(ArtifactInfo(lines=lines)) as w:  # type: ignore[attr-defined]
        w.write(data)
        return w.commit().id  # type: ignore[no-any-return]


def bench_store(server: Server, scratch: Path, runs: int) -> None:
    size = 10 * MB
    print(f"\n1. storing {size / MB:g} MB (ASCII build log), loopback TCP")
    data = log_bytes(size)
    r = server.client
    redis_store = store_of("redis", server, scratch, "store")
    fs_store = store_of("filesystem", server, scratch, "store")

    def bare_one() -> None:
        pipe = r.pipeline(transaction=False)
        pipe.set("bare:one", data)
        pipe.execute()

    def bare_chunks() -> None:
        pipe = r.pipeline(transaction=False)
        view = memoryview(data)
        for i, at in enumerate(range(0, len(data), MIB)):
            pipe.set(f"bare:c:{i}", view[at: at + MIB])
        pipe.execute()

    def clean() -> None:
        for s in (redis_store, fs_store):
            for ref in s.list():  # type: ignore[attr-defined]
                s.delete(ref.id)  # type: ignore[attr-defined]
        r.delete("bare:one", *[f"bare:c:{i}" for i in range(11)])

    t = interleaved({"one": bare_one, "chunks": bare_chunks,
                     "redis": lambda: put(redis_store, data),
                     "fs": lambda: put(fs_store, data)}, runs, clean)
    base = min(t["one"], t["chunks"])
    print(f"   {'bare pipelined SET, one 10 MB value':46} {ms(t['one'])}")
    print(f"   {'bare pipelined SET, 1 MiB values':46} {ms(t['chunks'])}")
    print(f"   {'redis store: write + commit (sha256, index)':46} {ms(t['redis'])}   "
          f"{t['redis'] / base:5.2f}x the faster bare SET   (target <= 1.5x)")
    print(f"   {'filesystem store: write + commit':46} {ms(t['fs'])}   "
          f"{t['fs'] / base:5.2f}x")
    import hashlib

    sha = statistics.median(
        [_time(lambda: hashlib.sha256(data).hexdigest()) for _ in range(runs)])
    print(f"   (sha256 of the same bytes alone: {ms(sha).strip()}; the store computes it)")


def _time(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def bench_retrieval(server: Server, scratch: Path, large: int, runs: int) -> None:
    print(f"\n2. retrieval on a 1 MB and a {large / MB:g} MB artifact")
    r = server.client
    stores = {kind: store_of(kind, server, scratch, "read") for kind in ("redis", "fs")}
    ids: dict[tuple[str, int], str] = {}
    lines_of: dict[int, int] = {}
    for size in (MB, large):
        data = log_bytes(size - 12) + b"ERROR: boom\n"
        lines_of[size] = data.count(b"\n")
        for kind, store in stores.items():
            ids[kind, size] = put(store, data, lines_of[size])
        # The same bytes as bare 1 MiB values, for the baselines.
        pipe = r.pipeline(transaction=False)
        for i, at in enumerate(range(0, len(data), MIB)):
            pipe.set(f"bare:{size}:{i}", data[at: at + MIB])
            if i % 16 == 15:
                pipe.execute()
        pipe.execute()
        del data

    def bare_get_all(size: int) -> bytes:
        n = (size + MIB - 1) // MIB
        out = []
        for lo in range(0, n, 16):
            pipe = r.pipeline(transaction=False)
            for i in range(lo, min(n, lo + 16)):
                pipe.get(f"bare:{size}:{i}")
            out.extend(pipe.execute())
        return b"".join(out)

    def bare_tail(size: int) -> bytes:
        n = (size + MIB - 1) // MIB
        return r.getrange(f"bare:{size}:{n - 1}", -8192, -1)  # type: ignore[no-any-return]

    # Fast operations on both sizes in one interleaved loop (load drifts over all alike);
    # grep, which reads everything, in a shorter one.
    fast: dict[str, Callable[[], object]] = {}
    slow: dict[str, Callable[[], object]] = {}
    for size in (MB, large):
        middle = lines_of[size] // 2
        for kind, store in stores.items():
            artifact = ids[kind, size]
            fast[f"{size} {kind} tail"] = lambda s=store, a=artifact: s.tail(a, 100)  # type: ignore[attr-defined]
            fast[f"{size} {kind} lines"] = (  # type: ignore[attr-defined]
                lambda s=store, a=artifact, m=middle: s.lines(a, m, m + 999))
            slow[f"{size} {kind} grep"] = lambda s=store, a=artifact: s.grep(a, "ERROR: boom")  # type: ignore[attr-defined]
        fast[f"{size} bare tail"] = lambda s=size: bare_tail(s)
        slow[f"{size} bare grep"] = lambda s=size: bare_get_all(s).find(b"ERROR: boom")
    t = {**interleaved(fast, runs * 3), **interleaved(slow, max(3, runs // 2))}
    rows = [(size, {key.split(" ", 1)[1]: v for key, v in t.items()
                    if key.split(" ", 1)[0] == str(size)}) for size in (MB, large)]
    small, big = rows[0][1], rows[1][1]
    print(f"   {'':34}{'1 MB':>12}{f'{large / MB:g} MB':>14}{'ratio':>9}")
    for label, key in (("tail(100), redis", "redis tail"), ("tail(100), filesystem", "fs tail"),
                       ("tail: bare GETRANGE of 8 KiB", "bare tail"),
                       ("lines (1,000 in the middle), redis", "redis lines"),
                       ("lines, filesystem", "fs lines"),
                       ("grep (literal), redis", "redis grep"),
                       ("grep, filesystem", "fs grep"),
                       ("grep: bare GETs + bytes.find", "bare grep")):
        target = "   (target <= 2x)" if key == "redis tail" else ""
        print(f"   {label:34}{ms(small[key])}{ms(big[key]):>14}{big[key] / small[key]:8.2f}x"
              f"{target}")
    ratio = {key: big[f"redis {key}"] / big[f"fs {key}"] for key in ("tail", "lines", "grep")}
    print(f"   on {large / MB:g} MB, redis against the filesystem: tail {ratio['tail']:.2f}x, "
          f"lines {ratio['lines']:.2f}x, grep {ratio['grep']:.2f}x (grep is "
          f"{big['redis grep'] / big['bare grep']:.2f}x bare GETs + find)")
    for store in stores.values():
        store.delete_session()  # type: ignore[attr-defined]
    r.delete(*[k for k in r.scan_iter(match="bare:*")])


def bench_memory(server: Server) -> None:
    print("\n3. Redis memory per artifact (MEMORY USAGE of its keys, jemalloc)")
    from truncation_core_redis import RedisStore

    store = RedisStore(server.url, prefix="bench", session="memory")
    r = server.client
    print(f"   {'content':>10} {'keys':>5} {'memory':>12} {'overhead':>10}")
    for size in (1_000, 100_000, MB, 10 * MB):
        artifact = put(store, log_bytes(size))
        keys = [store.keys.meta(artifact), *[store.keys.chunk(artifact, n)
                                             for n in range((size + MIB - 1) // MIB)]]
        used = sum(r.memory_usage(k, samples=0) or 0 for k in keys)
        print(f"   {size:>10,} {len(keys):>5} {used:>12,} {used - size:>10,}")
        store.delete(artifact)
    for key in (store.keys.state, store.keys.index, store.keys.sizes):
        store.client.delete(key)
    print("   (plus per session: its session, index and sizes keys, about 100 bytes and "
          "60 bytes per artifact)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    large = 50 * MB if args.quick else 200 * MB
    runs = 5 if args.quick else 9
    scratch = Path(os.environ.get("BENCH_ROOT") or tempfile.mkdtemp(prefix="bench-redis-"))
    scratch.mkdir(parents=True, exist_ok=True)
    print(f"python {sys.version.split()[0]}, scratch {scratch}")
    try:
        import truncation_core_redis  # noqa: F401
    except ImportError:
        sys.exit("the redis plugin is not installed (pip install -e plugins/truncation-core-redis)")
    server = Server(scratch)
    try:
        bench_store(server, scratch, runs)
        bench_retrieval(server, scratch, large, runs)
        bench_memory(server)
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
