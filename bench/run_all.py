"""Run every benchmark in this folder (``bench_*.py``), one after the other, with defaults."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

if __name__ == "__main__":
    failed = []
    for script in sorted(HERE.glob("bench_*.py")):
        print(f"\n## {script.name}\n", flush=True)
        if subprocess.run([sys.executable, str(script)], check=False).returncode:
            failed.append(script.name)
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")
