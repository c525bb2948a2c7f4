"""Token counts: the `estimate` tokenizer against real cl100k_base and o200k_base counts.

    .venv/bin/python bench/bench_tokens.py            # a few minutes on a busy machine
    .venv/bin/python bench/bench_tokens.py --quick    # fewer texts, for a smoke run

Needs the truncation-core-tiktoken plugin (real counts, no network). Texts, cut in chunks of
8,000 characters (what a 2,000-token budget keeps):

| kind | source |
| --- | --- |
| log | tests/corpus/*.txt; /var/log/dpkg.log, apt/term.log, apt/history.log, alternatives.log |
| code | every 8th module of the standard library; every 20th header in /usr/include |
| json | generated API records (ids, uuids, floats, timestamps); JSON files in site-packages |
| cjk | CPython's Lib/test/cjkencodings/*-utf8.txt; messages of /usr/share/locale/{zh_*,ja,ko} |
| base64 | base64 of /usr/bin binaries, a shared library and PNG files (plain and 76-column) |
| other-scripts | program messages in ru, ar, hi, el, de, fr, th, he, vi |

Prints, per kind: the over-count of `estimate` against the larger real count (min, median,
p90, max), its under-counts (must be 0), and chars/4 for comparison; the speed of each way of
counting; and cost ratios for a 10 MB log cut to 2,000 tokens, simulated on today's pipeline
(cut by characters with `inline_limit`, then fit the result with the tokenizer). Writes
nothing; bench/results/tokens.md records a run. Nothing here is asserted by the test suite.
"""

from __future__ import annotations

import argparse
import base64
import gettext
import glob
import json
import random
import statistics
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path

from truncation_core_tiktoken import TiktokenTokenizer

from truncation_core import Truncator
from truncation_core.tokens import EstimateTokenizer

ROOT = Path(__file__).resolve().parent.parent
STDLIB = Path(sysconfig.get_paths()["stdlib"])
SITE = Path(sysconfig.get_paths()["purelib"])
CHUNK = 8000


def _read(path: str | Path) -> str:
    return Path(path).read_text(encoding="utf-8", errors="replace")


def _messages(path: str) -> str:
    try:
        with open(path, "rb") as f:
            catalog = gettext.GNUTranslations(f)._catalog  # type: ignore[attr-defined]
    except (OSError, ValueError, UnicodeDecodeError):
        return ""
    return "\n".join(v for k, v in catalog.items() if k and isinstance(v, str))


def api_records(n: int = 3000) -> str:
    rnd = random.Random(7)  # noqa: S311 - test data
    rows = [
        {
            "id": rnd.getrandbits(63),
            "uuid": f"{rnd.getrandbits(128):032x}",
            "score": rnd.random() * 1000,
            "lat": rnd.uniform(-90, 90),
            "name": rnd.choice(["alpha", "beta", "gamma"]) + str(rnd.randrange(1000)),
            "ts": f"2026-{rnd.randrange(1, 13):02d}-{rnd.randrange(1, 29):02d}T"
            f"{rnd.randrange(24):02d}:{rnd.randrange(60):02d}:{rnd.randrange(60):02d}Z",
        }
        for _ in range(n)
    ]
    return json.dumps(rows, indent=1)


def gather(quick: bool) -> dict[str, list[tuple[str, str]]]:
    step = 4 if quick else 1
    logs = sorted(glob.glob(str(ROOT / "tests" / "corpus" / "*.txt"))) + [
        p
        for p in ("/var/log/dpkg.log", "/var/log/apt/term.log", "/var/log/apt/history.log",
                  "/var/log/alternatives.log")
        if Path(p).is_file()
    ]
    code = sorted(STDLIB.glob("*.py"))[:: 8 * step] + sorted(Path("/usr/include").glob("*.h"))[
        :: 20 * step
    ]
    jsons = [p for p in sorted(SITE.rglob("*.json")) if p.stat().st_size > 2000][: 40 // step]
    cjk = [(p, _read(p)) for p in sorted(STDLIB.glob("test/cjkencodings/*-utf8.txt"))]
    for lang in ("zh_CN", "zh_TW", "ja", "ko"):
        for p in sorted(glob.glob(f"/usr/share/locale/{lang}/LC_MESSAGES/*.mo"))[: 12 // step]:
            if text := _messages(p):
                cjk.append((p, text))
    binaries = [
        p for p in ("/usr/bin/make", "/usr/bin/gzip", "/usr/lib/x86_64-linux-gnu/libz.so.1")
        if Path(p).is_file()
    ] + sorted(glob.glob(str(STDLIB / "test" / "*.png")))[:3]
    b64 = []
    for p in binaries[:: step if step < len(binaries) else 1]:
        data = Path(p).read_bytes()[:200_000]
        b64.append((p, base64.b64encode(data).decode()))
        b64.append((p + " (76 columns)", base64.encodebytes(data).decode()))
    other = []
    for lang in ("ru", "ar", "hi", "el", "de", "fr", "th", "he", "vi"):
        for p in sorted(glob.glob(f"/usr/share/locale/{lang}/LC_MESSAGES/*.mo"))[:3 // step or 1]:
            if text := _messages(p):
                other.append((p, text))
    return {
        "log": [(p, _read(p)) for p in logs],
        "code": [(str(p), _read(p)) for p in code],
        "json": [("generated API records", api_records()), *((str(p), _read(p)) for p in jsons)],
        "cjk": [(str(p), t) for p, t in cjk],
        "base64": b64,
        "other-scripts": other,
    }


def chunks(text: str) -> list[str]:
    parts = (text[i : i + CHUNK] for i in range(0, len(text), CHUNK))
    return [part for part in parts if len(part) > 1000]


def dist(values: list[float]) -> str:
    v = sorted(values)
    return (f"{v[0]:.2f} | {statistics.median(v):.2f} | {v[int(len(v) * 0.9)]:.2f} | {v[-1]:.2f}")


def best_time(fn: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    estimate = EstimateTokenizer()
    cl100k, o200k = TiktokenTokenizer("cl100k_base"), TiktokenTokenizer("o200k_base")
    texts = gather(args.quick)

    print("## Over-count of estimate, 8,000-character chunks\n")
    print("Ratio of `estimate` to the larger of the cl100k_base and o200k_base counts "
          "(and, for comparison, chars/4 to the same).\n")
    print("| kind | chunks | min | median | p90 | max | under-counts | vs cl100k median | "
          "vs o200k median | chars/4: median | chars/4 under-counts |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    fills: dict[str, list[float]] = {}
    speed_text: dict[str, str] = {}
    for kind, docs in texts.items():
        over, over_cl, over_o2, naive = [], [], [], []
        under = naive_under = 0
        for _, text in docs:
            for chunk in chunks(text):
                a, b = cl100k.count(chunk), o200k.count(chunk)
                e = estimate.count(chunk)
                real = max(a, b)
                under += e < real
                naive_under += len(chunk) / 4 < real
                over.append(e / real)
                over_cl.append(e / a)
                over_o2.append(e / b)
                naive.append(len(chunk) / 4 / real)
        speed_text[kind] = "".join(t for _, t in docs)[:400_000]
        print(f"| {kind} | {len(over)} | {dist(over)} | {under} | "
              f"{statistics.median(over_cl):.2f} | {statistics.median(over_o2):.2f} | "
              f"{statistics.median(naive):.2f} | {naive_under} |")
        # Budget use: what each tokenizer keeps of a text for 2,000 tokens, in real tokens.
        fill_e, fill_o = [], []
        for _, text in docs:
            sample = text[:40_000]
            if len(fill_e) == 8 or o200k.count(sample) <= 2000:
                continue
            kept = sample[: estimate.fit_prefix(sample, 2000)]
            fill_e.append(max(cl100k.count(kept), o200k.count(kept)) / 2000)
            kept = sample[: o200k.fit_prefix(sample, 2000)]
            fill_o.append(o200k.count(kept) / 2000)
        fills[kind] = [statistics.median(fill_e), statistics.median(fill_o)]

    print("\n## Budget use with max_tokens 2,000 (fit_prefix on each text's start)\n")
    print("Real tokens of what is kept / 2,000: under `estimate`, the larger real count; "
          "under `o200k_base`, its own count. Median over texts.\n")
    print("| kind | estimate | o200k_base |")
    print("| --- | --- | --- |")
    for kind, (fe, fo) in fills.items():
        print(f"| {kind} | {fe:.0%} | {fo:.0%} |")

    print("\n## Speed, MB/s of characters (fastest of 3; estimate cold = its piece cache empty)\n")
    print("| kind | len/4 | estimate cold | estimate warm | cl100k_base | o200k_base |")
    print("| --- | --- | --- | --- | --- | --- |")
    from truncation_core.tokens.estimate import _encodings

    for kind, text in speed_text.items():
        mb = len(text) / 1e6

        def cold(text: str = text) -> None:
            for encoding in _encodings():
                encoding.cache.clear()
            estimate.count(text)

        rates = [
            mb / best_time(lambda text=text: len(text) // 4),
            mb / best_time(cold),
            mb / best_time(lambda text=text: estimate.count(text)),
            mb / best_time(lambda text=text: cl100k.count(text)),
            mb / best_time(lambda text=text: o200k.count(text)),
        ]
        print(f"| {kind} | " + " | ".join(f"{r:,.1f}" for r in rates) + " |")

    print("\n## A 10 MB log cut to 2,000 tokens (simulated on today's pipeline)\n")
    log = "".join(t for _, t in texts["log"])
    log = (log * (10_000_000 // len(log) + 1))[:10_000_000]
    truncator = Truncator({"inline_limit": 8000, "spill": False}, load_entrypoints=False)

    def cut() -> str:
        return truncator.process(log).content

    content = cut()
    base = best_time(cut, 5)
    print("Baseline: `process()` with inline_limit 8,000 characters, spill off. Then the kept "
          "output's first 60% is fitted to 1,200 tokens by fit_prefix and the rest to 800 by "
          "fit_suffix (each returns at once, after one count, when its part fits), and the "
          "result is counted once.\n")
    print("| tokenizer | cut ms | count + fit ms | ratio to the cut | target |")
    print("| --- | --- | --- | --- | --- |")
    for tokenizer, target in ((estimate, 1.5), (o200k, 2.0), (cl100k, 2.0)):
        def fit(tokenizer: object = tokenizer) -> None:
            split = len(content) * 6 // 10
            head, tail = content[:split], content[split:]
            head = head[: tokenizer.fit_prefix(head, 1200)]  # type: ignore[attr-defined]
            tail = tail[tokenizer.fit_suffix(tail, 800) :]  # type: ignore[attr-defined]
            tokenizer.count(head + tail)  # type: ignore[attr-defined]

        fit()  # load tables and warm caches as a long-lived process would have
        extra = best_time(fit, 5)
        ratio = (base + extra) / base
        name = tokenizer.name  # type: ignore[attr-defined]
        verdict = "ok" if ratio <= target else "MISSED"
        print(f"| {name} | {base * 1e3:.1f} | {extra * 1e3:.1f} | {ratio:.2f}x | "
              f"<= {target}x {verdict} |")


if __name__ == "__main__":
    main()
