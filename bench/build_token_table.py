"""Write truncation_core/tokens/estimate_ranks.bin, the table behind the `estimate` tokenizer.

Needs the full vocabularies, from the truncation-core-tiktoken plugin (no network):

    .venv/bin/python bench/build_token_table.py

The thresholds below were chosen with bench/bench_tokens.py (see docs/tokens.md): larger
ones make the estimate closer to the real counts and the file larger.
"""

from __future__ import annotations

import sys
from pathlib import Path

from truncation_core_tiktoken.files import load_ranks

from truncation_core.tokens.table import TABLE_FILE, build_table, parse_table

LIMITS = {
    "cl100k_base": {"ascii": 20_000, "no_alnum": 60_000, "all": 20_000},
    "o200k_base": {"ascii": 20_000, "no_alnum": 60_000, "all": 20_000},
}


def main() -> int:
    out = Path(__file__).resolve().parent.parent / "truncation_core" / "tokens" / TABLE_FILE
    blob = build_table((name, load_ranks(name), limits) for name, limits in LIMITS.items())
    out.write_bytes(blob)
    tables = parse_table(blob)
    for name, table in tables.items():
        print(f"{name}: ascii {len(table.ascii)}, no_alnum {len(table.no_alnum)}, "
              f"all {len(table.all)} tokens")
    print(f"wrote {out} ({len(blob)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
