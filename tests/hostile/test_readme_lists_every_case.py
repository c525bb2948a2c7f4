"""tests/hostile/README.md lists every attack case: each test of the files it names has a
row, and each row names a test that exists. (The counts in its summary come from the same
tables; a new test without a row fails here, so "every case" stays checkable.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
README = Path(__file__).with_name("README.md")
#: Files that must be listed whole: every hostile test file, and the plugins' own.
REQUIRED = {*(f"tests/hostile/{p.name}" for p in Path(__file__).parent.glob("test_*.py")
              if p.name != Path(__file__).name),
            "plugins/truncation-core-proxy/tests/test_hostile.py",
            "plugins/truncation-core-hosts/tests/test_hostile.py"}


def _tests(path: str) -> set[str]:
    tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
    return {f"{path}::{node.name}" for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.name.startswith("test_")}


def test_every_case_has_a_row_and_every_row_a_test() -> None:
    listed = set(re.findall(r"`([\w./-]+\.py::test_\w+)`", README.read_text(encoding="utf-8")))
    files = {entry.split("::")[0] for entry in listed} | REQUIRED
    missing = REQUIRED - {entry.split("::")[0] for entry in listed}
    assert not missing, f"files with no row in README.md: {sorted(missing)}"
    existing = set().union(*(_tests(path) for path in files))
    assert not existing - listed, f"tests with no row: {sorted(existing - listed)}"
    assert not listed - existing, f"rows naming no test: {sorted(listed - existing)}"
