"""Running code that may exhaust memory or time in a subprocess under ``RLIMIT_AS`` and a
timeout, so that a regression fails the test instead of taking the machine down."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

#: Address space a bounded child gets: the interpreter with the library imported takes
#: about 100 MiB of it.
DEFAULT_LIMIT = 512 << 20

_PRELUDE = """
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
def report(**values):
    print("RESULT " + json.dumps(values), flush=True)
"""


@dataclass
class Outcome:
    """How the child ended: what it reported (``report(...)``), or how it failed."""

    returncode: int | None  # None: killed at the timeout
    results: list[dict]
    stderr: str
    seconds: float

    @property
    def memory_error(self) -> bool:
        return "MemoryError" in self.stderr or "Cannot allocate memory" in self.stderr \
            or "std::bad_alloc" in self.stderr

    @property
    def result(self) -> dict:
        assert self.results, f"the child reported nothing (rc={self.returncode}):\n" \
                             f"{self.stderr[-3000:]}"
        return self.results[-1]


def run_bounded(code: str, *, limit: int = DEFAULT_LIMIT, timeout: float = 60,
                cwd: Path | None = None, env: dict[str, str] | None = None) -> Outcome:
    """Run *code* (which calls ``report(key=value, ...)`` to hand back JSON values) in a
    fresh interpreter whose address space is capped at *limit* bytes."""
    import time

    source = _PRELUDE.format(limit=limit) + textwrap.dedent(code)
    start = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                              timeout=timeout, cwd=cwd, env=env)
    except subprocess.TimeoutExpired as exc:
        stderr = exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes) else ""
        return Outcome(None, [], stderr, time.monotonic() - start)
    results = [json.loads(line[len("RESULT "):]) for line in done.stdout.splitlines()
               if line.startswith("RESULT ")]
    return Outcome(done.returncode, results, done.stderr, time.monotonic() - start)
