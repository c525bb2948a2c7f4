"""Linear cost at any density of matches: a log where most lines hold ``error:`` or
``warning:`` against a log of the same size with no keyword, measured in the same run.

Target (issue 28, part B): a 20 MB log where most lines hold ``error:``/``warning:`` is cut
within 5x the time of a same-size log with no keyword, in ``process()``, in a stream
(``Truncator.stream``, 1 MiB chunks) and through the MCP proxy (``trunc mcp proxy`` in
front of the official filesystem server, as in ``bench_mcp.py``); the log with no keyword no
slower than before.

Inputs (generated, deterministic, 20 MB each by default):

* **gcc, every line a diagnostic**: ``gcc -fno-diagnostics-show-caret`` output of a build of
  ~500 files in 10 directories: ``src/<dir>/<file>.c:L:C: warning: ...`` (85%) and
  ``error: ...`` (15%), under ``In function`` lines, quoted names with UTF-8 quotes (as gcc
  prints them in a UTF-8 locale), and a few distinctive failures spread through it (a missing
  header, an undefined reference, the linker's and make's exit statuses, a segmentation
  fault);
* **gcc with source and caret lines**: the same diagnostics in gcc's default form, each over
  the numbered source line and the caret line (a third of the lines hold a keyword);
* **service log, ERROR with request ids** (information): every line an ``ERROR`` that
  differs from the others by a request id and numbers.

Each is timed against two logs with no keyword, run right before it in every round: its
**twin**, the same log with its keywords renamed (``warning:`` made ``remark:``...) and its
distinctive lines left out (the same size, lines and share of UTF-8), and the ASCII service
log of ``bench_stream.py`` (which a stream skims fastest). The target is on the twin ("the
same log with no keyword"); both ratios are printed.

Each package (this worktree, and with ``--rev`` the package at that commit, extracted with
``git archive``) runs in a fresh process, round after round, so that load on the shared
machine hits a dense log and its baselines alike: the median of the per-round ratios. The
MCP proxy is timed the same way, through one proxy process per package. The distinctive
failure lines found in each block are counted too (they lie in the omitted middle: the
block is all that shows them), and the logs with no keyword are compared between the
packages (measured one after the other).

    python bench/bench_density.py                  # 20 MB, 5 rounds, with main as before
    python bench/bench_density.py --quick          # 5 MB, 2 rounds
    python bench/bench_density.py --rev HEAD~3 --no-mcp

Results go to ``bench/results/density.md`` and to stdout.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "density.md"
sys.path.insert(0, str(HERE))

#: Failure lines put in the middle of the gcc logs: what the block is for.
DISTINCTIVE = (
    "src/net/tls_session.c:12:10: fatal error: zlib.h: No such file or directory",
    "/usr/bin/ld: build/obj/main.o: in function `main': undefined reference to `run_loop'",
    "collect2: error: ld returned 1 exit status",
    "make[2]: *** [src/CMakeFiles/app.dir/build.make:76: app] Error 1",
    "Segmentation fault (core dumped)",
)

_DIRS = ["core", "net", "io", "util", "parser", "render", "audio", "db", "crypto", "cli"]
_STEMS = ["buffer", "socket", "stream", "table", "lexer", "node", "queue", "cache", "frame",
          "config", "plugin", "session", "worker", "index", "matrix", "signal", "timer",
          "vector", "string", "hash"]
_NAMES = ["tmp", "buf", "len", "ctx", "i", "ret", "node", "count", "flags", "result", "size",
          "offset", "entry", "state", "err", "data"]
_WARNINGS = [
    "unused variable '{v}' [-Wunused-variable]",
    "unused parameter '{v}' [-Wunused-parameter]",
    "'{v}' may be used uninitialized [-Wmaybe-uninitialized]",
    "implicit declaration of function '{f}' [-Wimplicit-function-declaration]",
    "comparison of integer expressions of different signedness: 'int' and 'size_t' "
    "[-Wsign-compare]",
    "passing argument {n} of '{f}' makes pointer from integer without a cast "
    "[-Wint-conversion]",
    "'{f}' defined but not used [-Wunused-function]",
]
_OPEN, _CLOSE = "\u2018", "\u2019"  # gcc's quotes in a UTF-8 locale


def _quoted(message: str) -> str:
    """*message* with its ASCII quotes made gcc's UTF-8 ones, opening and closing in turn."""
    parts = message.split("'")
    return "".join(part + (_OPEN if k % 2 == 0 else _CLOSE) for k, part in
                   enumerate(parts[:-1])) + parts[-1]


_ERRORS = [
    "'{v}' undeclared (first use in this function)",
    "expected ';' before '}}' token",
    "incompatible types when assigning to type 'int' from type 'struct {v}'",
    "too few arguments to function '{f}'",
]


def gcc_log(size: int, *, carets: bool, seed: int = 28) -> str:
    """About *size* characters of a dense gcc build log (see the module docstring)."""
    rnd = random.Random(seed)  # noqa: S311 (a sample, not a secret)
    parts: list[str] = []
    written = 0
    files = [f"src/{d}/{s}{'_' + t if k else ''}.c" for d in _DIRS for s in _STEMS
             for k, t in enumerate(["", "ops", "impl", "test"][:rnd.randint(1, 4)])]
    rnd.shuffle(files)
    # Spread through the log, far from both ends.
    marks = [(size * (k + 1) // (len(DISTINCTIVE) + 1), line)
             for k, line in enumerate(DISTINCTIVE)]
    n = 0
    while written < size:
        path = files[n % len(files)]
        lines = [_quoted(f"{path}: In function '{rnd.choice(_NAMES)}_{rnd.choice(_STEMS)}':")]
        for _ in range(rnd.randint(3, 14)):
            row, col = rnd.randint(1, 2400), rnd.randint(1, 60)
            fill = {"v": rnd.choice(_NAMES), "f": f"{rnd.choice(_STEMS)}_{rnd.choice(_NAMES)}",
                    "n": rnd.randint(1, 4)}
            if rnd.random() < 0.15:
                message = "error: " + rnd.choice(_ERRORS).format(**fill)
            else:
                message = "warning: " + rnd.choice(_WARNINGS).format(**fill)
            lines.append(f"{path}:{row}:{col}: {_quoted(message)}")
            if carets:
                lines.append(f" {row:4d} |     int {fill['v']} = {fill['f']}(ctx, {col});")
                lines.append(f"      | {' ' * min(col, 30)}^~~~")
        if marks and written >= marks[0][0]:
            lines.append(marks.pop(0)[1])
        block = "\n".join(lines) + "\n"
        parts.append(block)
        written += len(block)
        n += 1
    return "".join(parts)


def request_log(size: int, seed: int = 28) -> str:
    """About *size* characters of a service log in which every line is an ERROR that differs
    from the others by a request id (hexadecimal) and numbers."""
    rnd = random.Random(seed)  # noqa: S311 (a sample, not a secret)
    parts: list[str] = []
    written = 0
    i = 0
    while written < size:
        line = (f"2026-03-02T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}."
                f"{i % 1000:03d}Z ERROR [worker-{i % 12}] request {rnd.getrandbits(64):016x} "
                f"failed: upstream {rnd.choice(['timeout', 'reset', 'refused'])} after "
                f"{rnd.randint(1, 30000)}ms (attempt {rnd.randint(1, 5)}/5)\n")
        parts.append(line)
        written += len(line)
        i += 1
    return "".join(parts)


def plain_log(size: int) -> str:
    from bench_stream import service_log

    block = service_log(200_000)
    return (block * (size // len(block) + 1))[:size].rsplit("\n", 1)[0] + "\n"


def without_keywords(text: str) -> str:
    """*text* with its keywords renamed (``warning:`` made ``remark:``...) and its
    distinctive lines left out: the same log, of about the same size, with nothing salient."""
    for line in DISTINCTIVE:
        text = text.replace(line + "\n", "")
    for word, other in (("warning:", "remark:"), ("error:", "issue:"), ("passing", "handing"),
                        ("ERROR", "EVENT"), ("failed", "dropped")):
        text = text.replace(word, other)
    return text


#: The dense logs; each is timed right after the same log without keywords (its twin) and
#: the service log, which has none either.
DENSE = {
    "gcc, every line a diagnostic": lambda size: gcc_log(size, carets=False),
    "gcc with source and caret lines": lambda size: gcc_log(size, carets=True),
    "service log, ERROR with request ids": lambda size: request_log(size),
}
PLAIN = "service log, no keyword (ASCII)"


def twin(name: str) -> str:
    return f"{name}, keywords renamed"


CHILD = textwrap.dedent(r"""
    import json, sys, time
    paths, order, rounds, distinctive = (json.loads(sys.argv[1]), json.loads(sys.argv[2]),
                                         int(sys.argv[3]), json.loads(sys.argv[4]))
    from truncation_core import Truncator
    from truncation_core.storage.memory import MemoryStore
    CHUNK = 1024 * 1024
    texts = {name: open(path, encoding="utf-8").read() for name, path in paths.items()}
    datas = {name: text.encode() for name, text in texts.items()}

    def truncator():
        return Truncator(load_entrypoints=False, store=MemoryStore())

    def process(name):
        return truncator().process(texts[name], tool="execute_command").content

    def stream(name):
        data = datas[name]
        with truncator().stream(tool="execute_command") as s:
            for at in range(0, len(data), CHUNK):
                s.write(data[at:at + CHUNK])
        return s.result().content

    found = {}
    for name in texts:  # warm up, and what the blocks show
        found[name] = sum(line in process(name) for line in distinctive)
        stream(name)
    times = {mode: {name: [] for name in texts} for mode in ("process", "stream")}
    for _ in range(rounds):
        for mode, run in (("process", process), ("stream", stream)):
            for group in order:  # each dense log right after its baselines
                for name in group:
                    start = time.perf_counter()
                    run(name)
                    times[mode][name].append(time.perf_counter() - start)
    print(json.dumps({"times": times, "found": found}))
""")


def _package(rev: str | None, scratch: Path) -> Path:
    """The directory to put first on sys.path for the package at *rev* (None: this one)."""
    if rev is None:
        return ROOT
    target = scratch / "old"
    target.mkdir(exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "truncation_core"],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    return target


def _run_child(package: Path, paths: dict[str, str], order: list[list[str]],
               rounds: int) -> dict[str, Any]:
    # (In the package's directory: ``python -c`` puts the working directory first on
    # sys.path.)
    out = subprocess.run([sys.executable, "-c", CHILD, json.dumps(paths), json.dumps(order),
                          str(rounds), json.dumps(DISTINCTIVE)], check=True,
                         capture_output=True, text=True, cwd=package,
                         env={**os.environ, "PYTHONPATH": str(package)})
    result: dict[str, Any] = json.loads(out.stdout)
    return result


def _mcp(package: Path, files: dict[str, Path], order: list[list[str]], root: Path,
         work: Path, rounds: int) -> dict[str, list[float]]:
    """Calls of ``read_text_file`` through ``trunc mcp proxy`` (the package at *package*),
    in *order*, *rounds* times."""
    import anyio
    from bench_mcp import SERVER, TRUNC, _params

    env_before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = str(package)  # what the proxy process imports
    try:
        argv = [str(TRUNC), "mcp", "proxy", "--config", str(work / ".truncation.yaml"), "--",
                str(SERVER), str(root)]

        async def calls() -> dict[str, list[float]]:
            from mcp import Client

            times: dict[str, list[float]] = {name: [] for name in files}
            async with Client(_params(argv)) as client:
                for path in files.values():  # warm up
                    await client.call_tool("read_text_file", {"path": str(path)})
                for _ in range(rounds):
                    for group in order:
                        for name in group:
                            start = time.perf_counter()
                            result = await client.call_tool("read_text_file",
                                                            {"path": str(files[name])})
                            times[name].append(time.perf_counter() - start)
                            assert not result.is_error
            return times

        return anyio.run(calls)
    finally:
        if env_before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = env_before


def _ratio(times: dict[str, list[float]], name: str, base: str) -> tuple[float, float]:
    """The median of *name*'s runs, and the median of its ratios to the runs of *base* made
    just before, round by round (the plain log: once per round and dense log, so its runs
    are taken in turn)."""
    mine = times[name]
    theirs = times[base]
    if len(theirs) != len(mine):  # the plain log, run before each dense log
        step = len(theirs) // len(mine)
        theirs = theirs[list(DENSE).index(name)::step] if name in DENSE else theirs[::step]
    return (statistics.median(mine),
            statistics.median(m / b for m, b in zip(mine, theirs, strict=True)))


def _check_twins(paths: dict[str, str]) -> None:
    """The twins hold no keyword (as the package here sees them)."""
    sys.path.insert(0, str(ROOT))
    from truncation_core import Truncator
    from truncation_core.storage.memory import MemoryStore

    truncator = Truncator(load_entrypoints=False, store=MemoryStore())
    matcher = truncator._pipeline.matcher("execute_command",
                                          truncator.policy("execute_command"))
    for name, path in paths.items():
        if name == PLAIN or name.endswith("renamed"):
            text = Path(path).read_text(encoding="utf-8")
            assert not any(k in text for k in matcher.keywords), name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rev", default="main", help="the package before (default main); "
                        "'none' to measure this worktree only")
    parser.add_argument("--size", type=float, default=20, help="MB per input (default 20)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="5 MB, 2 rounds")
    parser.add_argument("--no-mcp", action="store_true", help="skip the MCP proxy")
    args = parser.parse_args()
    if args.quick:
        args.size, args.rounds = 5, 2
    size = int(args.size * 1_000_000)
    revs: list[str | None] = [None] if args.rev == "none" else [args.rev, None]
    from bench_mcp import SERVER

    mcp = not args.no_mcp and SERVER.exists()
    rows: list[tuple[str, ...]] = []
    quality: list[tuple[str, ...]] = []
    plain_rows: list[tuple[str, ...]] = []
    order = [[PLAIN, twin(name), name] for name in DENSE]
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        root = scratch / "files"
        root.mkdir()
        files = {PLAIN: root / "plain.log"}
        files[PLAIN].write_text(plain_log(size), encoding="utf-8")
        for n, (name, make) in enumerate(DENSE.items()):
            text = make(size)
            files[name] = root / f"dense-{n}.log"
            files[name].write_text(text, encoding="utf-8")
            files[twin(name)] = root / f"twin-{n}.log"
            files[twin(name)].write_text(without_keywords(text), encoding="utf-8")
        paths = {name: str(path) for name, path in files.items()}
        _check_twins(paths)
        work = scratch / "work"
        work.mkdir()
        (work / ".truncation.yaml").write_text(json.dumps({
            "plugins": {"enable": ["mcp"]}, "store": {"root": str(work / "store")}}))
        measured: dict[str, dict[str, dict[str, list[float]]]] = {}
        for rev in revs:
            label = "this worktree" if rev is None else rev
            package = _package(rev, scratch)
            print(f"{label}: process() and streams...", file=sys.stderr)
            child = _run_child(package, paths, order, args.rounds)
            modes = dict(child["times"])
            if mcp:
                print(f"{label}: MCP proxy...", file=sys.stderr)
                modes["MCP proxy"] = _mcp(package, files, order, root, work, args.rounds)
            measured[label] = modes
            for mode, times in modes.items():
                for name in DENSE:
                    dense, by_twin = _ratio(times, name, twin(name))
                    _, by_plain = _ratio(times, name, PLAIN)
                    target = "" if "request ids" in name else (
                        " (target <= 5x: " + ("meets" if by_twin <= 5 else "MISSES") + ")")
                    rows.append((label, mode, name, f"{dense:.3f} s",
                                 f"{statistics.median(times[twin(name)]):.3f} s",
                                 f"{by_twin:.2f}x{target}",
                                 f"{statistics.median(times[PLAIN]):.3f} s", f"{by_plain:.2f}x"))
            for name, found in child["found"].items():
                if name in DENSE and name.startswith("gcc"):
                    quality.append((label, name, f"{found}/{len(DISTINCTIVE)}"))
        if len(revs) == 2:
            before, after = measured[str(revs[0])], measured["this worktree"]
            for mode in after:
                for name in (PLAIN, *(twin(n) for n in DENSE)):
                    old = statistics.median(before[mode][name])
                    new = statistics.median(after[mode][name])
                    plain_rows.append((mode, name, f"{old:.3f} s", f"{new:.3f} s",
                                       f"{new / old:.2f}x"))
    report = "\n".join([
        f"Inputs of {args.size:g} MB; {args.rounds} round(s); per round, each dense log runs "
        "right after the ASCII service log and the same log with its keywords renamed (its "
        "twin), in the same process; medians, and the median of the per-round ratios.\n",
        _table(("package", "path", "dense log", "dense", "twin (no keyword)",
                "dense / twin", "service log (no keyword)", "dense / service log"), rows),
        "\nLogs with no keyword, this worktree against the package before (medians; the "
        "packages ran one after the other, so load may differ between them):\n",
        _table(("path", "log", "before", "here", "here / before"), plain_rows)
        if plain_rows else "(only this worktree measured)",
        "\nDistinctive failure lines (in the omitted middle) shown by the block of "
        "`process()`:\n",
        _table(("package", "input", "shown"), quality)])
    print(report)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text("# Cost at any density of matches (`bench/bench_density.py`)\n\n"
                       f"python {sys.version.split()[0]}, load average "
                       f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs at the end of "
                       "the run.\n\n" + report + "\n")


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    return "\n".join(["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
                      *("| " + " | ".join(row) + " |" for row in rows)])


if __name__ == "__main__":
    main()
