"""The MCP proxy (``trunc mcp proxy``), against the same calls made straight to the server,
measured in the same run.

Targets (the MCP issue):

* a 20 MB tool result end to end (host -> proxy -> downstream -> back) is at least 10x faster
  than the same call through the stock SDK client straight to the server, whose stdio
  framing is quadratic in the size of a message;
* on a 1 KB result the proxy adds under 1 ms to the direct call.

The host is the official ``mcp`` Python client in both cases; the server is the official
``@modelcontextprotocol/server-filesystem`` (which sends a file's text twice: as text and as
structured content, so a 20 MB file is a 40 MB message). Information rows: the proxy on
10 MB (its cost is linear: about half of 20 MB), and a raw pipe read of the same message.

    python bench/bench_mcp.py                 # 3 runs of the 20 MB call, 300 small calls
    python bench/bench_mcp.py --quick
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

NPM_PREFIX = Path(os.environ.get("MCP_SERVERS_NPM_PREFIX")
                  or Path.home() / ".cache" / "truncation-core" / "npm")
SERVER = NPM_PREFIX / "node_modules" / ".bin" / "mcp-server-filesystem"
TRUNC = Path(sys.executable).parent / "trunc"


def _write_file(path: Path, size: int) -> None:
    line = "2026-11-21T10:00:00Z INFO worker-17 processed batch of records, all ok\n"
    with path.open("w", encoding="utf-8") as f:
        written = 0
        while written < size:
            f.write(line)
            written += len(line)


def _params(argv: list[str]) -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(command=argv[0], args=argv[1:], env=dict(os.environ))


async def _timed_calls(argv: list[str], path: Path, repeats: int) -> list[float]:
    from mcp import Client

    times = []
    async with Client(_params(argv)) as client:
        await client.call_tool("list_allowed_directories", {})
        for _ in range(repeats):
            start = time.perf_counter()
            result = await client.call_tool("read_text_file", {"path": str(path)})
            times.append(time.perf_counter() - start)
            assert not result.is_error
    return times


async def _latency(direct: list[str], proxied: list[str], path: Path,
                   calls: int) -> tuple[list[float], list[float]]:
    """Alternating calls of a 1 KB read, direct and through the proxy."""
    from mcp import Client

    d_times, p_times = [], []
    async with Client(_params(direct)) as d, Client(_params(proxied)) as p:
        for client in (d, p):
            for _ in range(20):  # warm up both
                await client.call_tool("read_text_file", {"path": str(path)})
        for _ in range(calls):
            for client, times in ((d, d_times), (p, p_times)):
                start = time.perf_counter()
                await client.call_tool("read_text_file", {"path": str(path)})
                times.append(time.perf_counter() - start)
    return d_times, p_times


def _raw_pipe(root: Path, path: Path, repeats: int) -> float:
    """The server's answer read raw from the pipe, in 1 MiB reads, without parsing it: the
    floor for any client (best of *repeats*, after one call to warm the server up)."""
    process = subprocess.Popen([str(SERVER), str(root)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdin is not None and process.stdout is not None
    out = process.stdout.fileno()

    def ask(message: dict[str, Any]) -> int:
        process.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
        process.stdin.flush()  # type: ignore[union-attr]
        size = 0
        while True:
            chunk = os.read(out, 1024 * 1024)
            size += len(chunk)
            if not chunk or chunk.endswith(b"\n"):
                return size

    ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}}})
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "read_text_file", "arguments": {"path": str(path)}}}
    ask(call)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        assert ask(call) > path.stat().st_size
        times.append(time.perf_counter() - start)
    process.stdin.close()
    process.wait()
    process.stdout.close()
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="1 run of the large call, "
                                                             "100 small calls")
    args = parser.parse_args()
    if not SERVER.exists():
        sys.exit(f"{SERVER} is missing: npm install --prefix {NPM_PREFIX} "
                 "@modelcontextprotocol/server-filesystem (bash .ci/run does)")
    repeats, calls = (1, 100) if args.quick else (3, 300)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "files"
        root.mkdir()
        work = Path(scratch) / "work"
        work.mkdir()
        (work / ".truncation.yaml").write_text(json.dumps({
            "plugins": {"enable": ["mcp"]}, "store": {"root": str(work / "store")}}))
        for size in (10, 20):
            _write_file(root / f"{size}mb.txt", size * 1024 * 1024)
        _write_file(root / "1kb.txt", 1024)
        direct = [str(SERVER), str(root)]
        proxied = [str(TRUNC), "mcp", "proxy", "--config", str(work / ".truncation.yaml"),
                   "--", *direct]
        print(f"python {sys.version.split()[0]}, server {SERVER.name}, "
              f"{repeats} run(s) of each large call (best shown), {calls} small calls")
        print("\n1. a 20 MB tool result (a 40 MB message: text + structured content)")
        raw = _raw_pipe(root, root / "20mb.txt", repeats)
        stock = min(anyio.run(_timed_calls, direct, root / "20mb.txt", repeats))
        proxy20 = min(anyio.run(_timed_calls, proxied, root / "20mb.txt", repeats))
        proxy10 = min(anyio.run(_timed_calls, proxied, root / "10mb.txt", repeats))
        ok = "ok" if stock / proxy20 >= 10 else "MISSED"
        print(f"   stock client, straight to the server     {stock:8.2f} s   (baseline)")
        print(f"   stock client -> trunc mcp proxy -> server {proxy20:8.2f} s   "
              f"{stock / proxy20:6.1f}x faster   (target >= 10x)  {ok}")
        print(f"   the same through the proxy, 10 MB         {proxy10:8.2f} s   "
              f"20 MB / 10 MB = {proxy20 / proxy10:.2f} (linear: about 2)")
        print(f"   the answer read raw from the pipe         {raw:8.2f} s   (the floor: the "
              "server's own time)")
        print("\n2. a 1 KB tool result: latency the proxy adds")
        d_times, p_times = anyio.run(_latency, direct, proxied, root / "1kb.txt", calls)
        d_med, p_med = statistics.median(d_times), statistics.median(p_times)
        added = statistics.median(p - d for p, d in zip(p_times, d_times, strict=True))
        ok = "ok" if added < 0.001 else "MISSED"
        print(f"   direct call        median {d_med * 1e3:7.3f} ms   (baseline)")
        print(f"   through the proxy  median {p_med * 1e3:7.3f} ms   added (median of "
              f"paired differences) {added * 1e3:6.3f} ms   (target < 1 ms)  {ok}")


if __name__ == "__main__":
    main()
