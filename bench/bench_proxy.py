"""``trunc proxy`` against the same requests sent straight to the replaying upstream,
measured in the same run.

Targets (issue 30):

* a request under the limit: the proxy adds at most 5 ms (median of paired differences);
* a streamed answer's first byte is at most 5 ms later through the proxy (median);
* memory stays bounded with 100 concurrent streams (the proxy's resident memory after
  several waves of 100 is no higher than after the first).

The upstream is a loopback server (its own process) replaying the recorded answers of the
proxy's tests; the proxy is ``trunc proxy`` (its own process); this process is the client
(httpx), and alternates direct and proxied requests so that both see the same machine.
Information rows: the same through the proxy when the conversation holds a 1 MB tool
result it cut on an earlier turn (cut from memory).

    python bench/bench_proxy.py            # 300 requests of each kind, 3 waves of 100 streams
    python bench/bench_proxy.py --quick
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
RECORDED = REPO / "plugins" / "truncation-core-proxy" / "tests" / "recorded"
TRUNC = Path(sys.executable).parent / "trunc"


# -- the replaying upstream (run as `bench_proxy.py --upstream`) --------------------------------

def serve_upstream() -> None:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route
    from truncation_core_proxy.server import serve

    whole = (RECORDED / "chat_answer.json").read_bytes()
    events = [e.encode() + b"\n\n" for e in
              (RECORDED / "chat_answer.sse").read_text().split("\n\n") if e.strip()]

    async def answer(request: Request) -> Response:
        body = json.loads(await request.body())
        if body.get("stream"):
            async def stream() -> Any:
                for event in events:
                    yield event
            return StreamingResponse(stream(), media_type="text/event-stream")
        return Response(whole, media_type="application/json")

    app = Starlette(routes=[Route("/v1/chat/completions", answer, methods=["POST"])])
    serve(app, "127.0.0.1", 0, on_ready=lambda url: print(url, flush=True))


def _start(argv: list[str], *, stderr: bool) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "NO_COLOR": "1"})
    stream = process.stderr if stderr else process.stdout
    assert stream is not None
    line = stream.readline()
    if "http://" not in line:
        process.kill()
        raise RuntimeError(f"did not start: {line!r}")
    return process, "http://" + line.split("http://")[1].split(",")[0].split()[0]


def _cpu(pid: int) -> float:
    """Seconds of CPU *pid* has used (user + system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss(pid: int) -> tuple[int, int]:
    """Resident and peak resident memory of *pid*, in KiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


# -- the client ---------------------------------------------------------------------------------

def conversation(result: str, *, stream: bool) -> bytes:
    """A 20 KB conversation of an agent at work, its last tool result *result*."""
    system = "You are a coding agent. " * 40
    messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for n in range(12):
        messages.append({"role": "user" if n == 0 else "assistant",
                         "content": f"Step {n}: looking at the next file. " * 20})
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{n:04d}", "type": "function",
             "function": {"name": "read_file", "arguments": json.dumps({"path": f"f{n}.py"})}}]})
        messages.append({"role": "tool", "tool_call_id": f"call_{n:04d}",
                         "content": result if n == 11 else f"def f{n}():\n    return {n}\n" * 30})
    body = {"model": "gpt-4.1", "messages": messages, "stream": stream,
            "tools": [{"type": "function", "function": {
                "name": "read_file", "parameters": {"type": "object", "properties": {
                    "path": {"type": "string"}}}}}]}
    return json.dumps(body, separators=(",", ":")).encode()


async def _timed(client: httpx.AsyncClient, url: str, body: bytes) -> tuple[float, float]:
    """Seconds to the first byte of the body, and to its end."""
    start = time.perf_counter()
    async with client.stream("POST", url + "/v1/chat/completions", content=body,
                             headers={"content-type": "application/json",
                                      "authorization": "Bearer sk-bench"}) as response:
        first = None
        async for _ in response.aiter_raw():
            if first is None:
                first = time.perf_counter() - start
        assert response.status_code == 200, response.status_code
    return first or 0.0, time.perf_counter() - start


async def _paired(direct: str, proxied: str, body: bytes, count: int
                  ) -> tuple[list[float], list[float], list[float], list[float]]:
    d_first, d_total, p_first, p_total = [], [], [], []
    async with httpx.AsyncClient(timeout=60) as client:
        for _ in range(30):  # warm both paths (connections, caches, the memo)
            await _timed(client, direct, body)
            await _timed(client, proxied, body)
        for n in range(count):
            pairs = [(direct, d_first, d_total), (proxied, p_first, p_total)]
            for url, firsts, totals in (pairs if n % 2 else pairs[::-1]):
                first, total = await _timed(client, url, body)
                firsts.append(first)
                totals.append(total)
    return d_first, d_total, p_first, p_total


def _added(direct: list[float], proxied: list[float]) -> float:
    return statistics.median(p - d for p, d in zip(proxied, direct, strict=True))


async def _wave(url: str, body: bytes, count: int) -> None:
    async with httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=None)) as c:
        await asyncio.gather(*(_timed(c, url, body) for _ in range(count)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--upstream", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.upstream:
        serve_upstream()
        return
    count, waves = (60, 2) if args.quick else (300, 3)
    upstream, direct = _start([sys.executable, __file__, "--upstream"], stderr=False)
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / ".truncation.yaml"
        config.write_text(f"store:\n  root: {tmp}/store\n")
        proxy, proxied = _start([str(TRUNC), "proxy", "--port", "0", "--upstream", direct,
                                 "--config", str(config)], stderr=True)
        try:
            _report(direct, proxied, proxy.pid, count, waves)
        finally:
            for process in (proxy, upstream):
                process.terminate()
                process.wait(30)


def _report(direct: str, proxied: str, pid: int, count: int, waves: int) -> None:
    small = "ok\n" * 100
    big = "".join(f"2026-11-21T10:00:00Z INFO worker-{n % 17} wrote shard {n}, checksum ok\n"
                  for n in range(15000))
    print(f"python {sys.version.split()[0]}, {count} requests of each kind, alternating "
          f"direct and proxied; medians of paired differences; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs\n")
    rows = []
    for label, body, stream in (
            ("1. a 20 KB request under the limit, whole", conversation(small, stream=False), False),
            ("2. the same, streamed: first byte", conversation(small, stream=True), True),
            ("3. (info) a 1 MB tool result cut on an earlier turn, whole",
             conversation(big, stream=False), False),
            ("4. (info) the same, streamed: first byte", conversation(big, stream=True), True)):
        cpu = _cpu(pid)
        d_first, d_total, p_first, p_total = asyncio.run(_paired(direct, proxied, body, count))
        cpu_ms = (_cpu(pid) - cpu) / (count + 30) * 1000
        d, p = (d_first, p_first) if stream else (d_total, p_total)
        added = _added(d, p) * 1000
        target = "" if "(info)" in label else (
            f"   (target <= 5 ms)  {'ok' if added <= 5 else 'MISSED'}")
        rows.append(added)
        print(label)
        print(f"   direct            median {statistics.median(d) * 1000:8.3f} ms   (baseline)")
        print(f"   through the proxy median {statistics.median(p) * 1000:8.3f} ms   "
              f"added {added:6.3f} ms{target}")
        print(f"   the proxy's own CPU per request  {cpu_ms:6.3f} ms   (load-independent)\n")
    body = conversation(big[: 64 * 1024], stream=True)
    rss0, _ = _rss(pid)
    print("5. memory with 100 concurrent streams (64 KB tool result each, cut)")
    print(f"   the proxy before          {rss0 / 1024:7.1f} MiB resident")
    after = []
    for n in range(waves):
        start = time.perf_counter()
        asyncio.run(_wave(proxied, body, 100))
        rss, peak = _rss(pid)
        after.append(rss)
        print(f"   after wave {n + 1} of 100      {rss / 1024:7.1f} MiB resident, peak "
              f"{peak / 1024:7.1f} MiB  ({time.perf_counter() - start:.2f} s)")
    grew = (after[-1] - after[0]) / 1024
    print(f"   growth from wave 1 to {waves}   {grew:+7.1f} MiB   (target: bounded, no growth "
          f"beyond noise)  {'ok' if grew < 16 else 'MISSED'}")


if __name__ == "__main__":
    main()
