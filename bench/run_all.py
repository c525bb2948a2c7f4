"""Run every benchmark script in this directory (``make bench``), one after the other.

Each ``bench_*.py`` prints its own ratios against baselines measured in the same run; extra
arguments (``--quick``) are passed to each.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def main() -> int:
    failed = []
    for script in sorted(Path(__file__).resolve().parent.glob("bench_*.py")):
        print(f"== {script.name}", flush=True)
        if subprocess.run([sys.executable, str(script), *sys.argv[1:]]).returncode != 0:
            failed.append(script.name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
