"""Real texts for token-count tests: the bench corpus, CJK prose, code, JSON, base64.

Every source here is in the repository or in the Python installation running the tests, so
the same texts exist in CI. Localized program messages (``/usr/share/locale``) are added
where the machine has them: real Chinese, Japanese and Korean log lines.
"""

from __future__ import annotations

import base64
import gettext
import glob
import json
import random
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]  # the repository
CHUNK = 8000  # about what a 2,000-token budget keeps


def _mo_messages(path: str) -> str:
    try:
        with open(path, "rb") as f:
            catalog = gettext.GNUTranslations(f)._catalog  # type: ignore[attr-defined]
    except (OSError, ValueError, UnicodeDecodeError):
        return ""
    return "\n".join(v for k, v in catalog.items() if k and isinstance(v, str))


def api_json(seed: int = 7, records: int = 400) -> str:
    """API-like JSON records: 63-bit ids, hex uuids, floats, timestamps."""
    rnd = random.Random(seed)  # noqa: S311 (test data, not secrets)
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
        for _ in range(records)
    ]
    return json.dumps(rows, indent=1)


#: Real command output from the project's corpus (tests/corpus/manifest.json says how
#: each was made).
CORPUS_LOGS = ("cargo-test-failure", "gcc-make-errors", "npm-script-error",
               "pip-resolution-error", "pytest-failures", "pytest-many-failures",
               "python-traceback-in-log")


def texts() -> dict[str, list[tuple[str, str]]]:
    """Content type -> [(source, text)]."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    out: dict[str, list[tuple[str, str]]] = {}
    out["log"] = [
        (p.name, p.read_text(encoding="utf-8"))
        for p in (ROOT / "tests" / "corpus" / f"{name}.txt" for name in CORPUS_LOGS)
    ]
    code = sorted(stdlib.glob("*.py"))[::25]
    out["code"] = [(p.name, p.read_text(encoding="utf-8", errors="replace")) for p in code]
    manifest = (ROOT / "tests" / "corpus" / "manifest.json").read_text()
    out["json"] = [("api-records", api_json()), ("corpus manifest.json", manifest)]
    cjk = [("cjk-cpython.txt", (Path(__file__).parent / "data" / "cjk-cpython.txt").read_text())]
    for lang in ("zh_CN", "ja", "ko"):
        for path in sorted(glob.glob(f"/usr/share/locale/{lang}/LC_MESSAGES/*.mo"))[:3]:
            if text := _mo_messages(path):
                cjk.append((path, text))
    out["cjk"] = cjk
    binary = Path(sysconfig.get_paths()["stdlib"]).joinpath("json", "__init__.py").read_bytes()
    pycs = sorted(stdlib.glob("__pycache__/*.pyc"))[:2]
    blobs = [binary] + [p.read_bytes() for p in pycs]
    out["base64"] = [(f"base64 #{i}", base64.b64encode(b).decode()) for i, b in enumerate(blobs)]
    return out


def chunks(text: str, size: int = CHUNK) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size) if len(text[i : i + size]) > 500]
