"""Is a stream's result with highlights on the same as at another commit?

Streams every output of ``tests/corpus/`` (each alone, and each put at the start, in the middle
and at the end of a few MB of a generated service log, ASCII and with non-ASCII lines) through
``execute_command`` (highlights on) as bytes in chunks of several sizes: 1 MiB, 256 KiB + 1,
odd sizes that put chunk boundaries inside multi-byte characters, and chunkings cut inside
each keyword of the output. It compares each result (content and metadata) with the result
of the package at *REV* (default ``main``), extracted with ``git archive``, and with
``process()`` of the whole text.

    python bench/compare_streams.py               # against main
    python bench/compare_streams.py --rev 3d4b904
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

CHILD = textwrap.dedent(r"""
    import hashlib, json, sys
    from truncation_core import Truncator
    from truncation_core.storage.memory import MemoryStore


    def digest(result):
        meta = result.metadata
        fields = meta.to_dict()
        # The artifact id is random (and the token estimate of a content holding it varies).
        fields.pop("estimated_tokens", None)
        text = result.content + json.dumps(fields, sort_keys=True, default=repr)
        if meta.artifact_id:
            text = text.replace(meta.artifact_id, "ART")
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    out = {}
    for line in sys.stdin:
        case = json.loads(line)
        # A store per case: one store would keep every artifact, some GB, in memory.
        truncator = Truncator(load_entrypoints=False, store=MemoryStore())
        data = open(case["path"], "rb").read()
        with truncator.stream(tool="execute_command") as s:
            for start, stop in zip(case["cuts"], case["cuts"][1:]):
                s.write(data[start:stop])
        key = case["key"]
        out[key] = digest(s.result())
        if case.get("process"):
            out[key + " process()"] = digest(truncator.process(
                data.decode("utf-8", "replace"), tool="execute_command"))
    print(json.dumps(out))
""")


def _keyword_cuts(data: bytes, keywords: list[bytes], most: int = 6) -> list[list[int]]:
    """Chunkings of 1 MiB whose first boundary falls inside an occurrence of a keyword."""
    cuts = []
    for keyword in keywords:
        at = data.find(keyword)
        if at > 0 and len(keyword) > 1:
            first = at + len(keyword) // 2
            cuts.append([0, *range(first, len(data), 1 << 20), len(data)])
        if len(cuts) >= most:
            break
    return cuts


def cases(work: Path) -> list[dict[str, object]]:
    sys.path.insert(0, str(HERE))
    from bench_stream import service_log

    keywords = [k.encode() for k in ("Traceback", "rror", "FAIL", "failed", "panic", "Error:",
                                     "error[", "not ok", "ERR!", "warning")]
    filler = {"ascii": service_log(40_000).encode(), "mixed": service_log(40_000, True)
              .encode()}
    made = []
    for path in sorted((ROOT / "tests" / "corpus").glob("*.txt")):
        output = path.read_bytes()
        texts = {"alone": output}
        for name, fill in filler.items():
            texts[f"{name}, at the start"] = output + fill
            texts[f"{name}, in the middle"] = fill[:len(fill) // 2] + output + fill[
                len(fill) // 2:]
            texts[f"{name}, at the end"] = fill + output
        for where, data in texts.items():
            file = work / f"{path.stem}-{len(made)}.bin"
            file.write_bytes(data)
            size = len(data)
            chunkings = {f"chunks of {n}": [*range(0, size, n), size]
                         for n in (1 << 20, (1 << 18) + 1, 300_007, 4099)}
            chunkings["whole"] = [0, size]
            for n, cut in enumerate(_keyword_cuts(data, keywords)):
                chunkings[f"cut in a keyword ({n})"] = cut
            for label, cut in chunkings.items():
                made.append({"key": f"{path.stem} / {where} / {label}", "path": str(file),
                             "cuts": cut, "process": label == "whole"})
    return made


def run(package: Path, todo: list[dict[str, object]]) -> dict[str, str]:
    # Run in the package's directory: ``python -c`` puts the working directory first on
    # sys.path, so run from a checkout it would import that checkout's package, not *package*.
    out = subprocess.run([sys.executable, "-c", CHILD],
                         input="".join(json.dumps(c) + "\n" for c in todo), text=True,
                         capture_output=True, check=True, cwd=package,
                         env={**os.environ, "PYTHONPATH": str(package)})
    result: dict[str, str] = json.loads(out.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="main")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        old = work / "old"
        old.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.rev,
                                  "truncation_core"], check=True, capture_output=True).stdout
        with tarfile.open(fileobj=__import__("io").BytesIO(archive)) as tar:
            tar.extractall(old, filter="data")
        todo = cases(work)
        print(f"{len(todo)} streams, at {args.rev} and in this worktree...", file=sys.stderr)
        with concurrent.futures.ThreadPoolExecutor(2) as pool:  # two processes
            before_job, after_job = pool.submit(run, old, todo), pool.submit(run, ROOT, todo)
            before, after = before_job.result(), after_job.result()
    differ = [key for key in before if before[key] != after.get(key)]
    own = [c["key"] for c in todo if c["process"] and
           after[f"{c['key']}"] != after[f"{c['key']} process()"]]
    print(f"{len(before)} results compared with {args.rev}: {len(differ)} differ")
    for key in differ[:20]:
        print("  differs:", key)
    print(f"streams whose result differs from process() of the same text: {len(own)} "
          f"(here), {sum(before[k] != before[k + ' process()'] for k in own)} of those "
          f"at {args.rev}")
    digest = hashlib.sha256(json.dumps(after, sort_keys=True).encode()).hexdigest()[:16]
    print(f"digest of all results here: {digest}")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
