"""The modules of ``truncation_core`` as its source holds them, and the package modules an
import statement names: what tests/test_layout.py (cycles) and tests/test_layering.py (the
order of the layers) read the package's imports with."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "truncation_core"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


#: Dotted name -> source file, for every module of the package.
MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imported_modules(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The ``truncation_core`` modules that *node* (in module *module*) imports: none when
    it is no import statement. A relative import is resolved from *module*, and ``from pkg
    import sub`` names the submodule when there is one."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            anchor = module.split(".") if is_package else module.split(".")[:-1]
            anchor = anchor[:len(anchor) - (node.level - 1)]
            base = ".".join([*anchor, *([base] if base else [])])
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                 for alias in node.names]
    else:
        return []
    return [name for name in names
            if name == "truncation_core" or name.startswith("truncation_core.")]
