"""The house by count (issue 27): hooks, modules, imports inside functions and lines of
``truncation_core/`` in a checkout, so that a change's CHANGELOG entry can say before and
after.

    python bench/house_count.py [CHECKOUT ...]

A hook is an ``@hookspec`` in ``truncation_core/hooks/specs.py``; an import inside a function
is an ``import`` statement that a ``def`` encloses (at any depth), counted once; lines are
the physical lines of every ``.py`` file. With no argument it counts this checkout. To count
an older commit: ``git worktree add /tmp/before <commit>`` and pass ``/tmp/before``.
"""

from __future__ import annotations

import ast
import pathlib
import sys


def count(checkout: pathlib.Path) -> dict[str, int]:
    package = checkout / "truncation_core"
    modules = sorted(package.rglob("*.py"))
    lines = function_imports = 0
    for module in modules:
        source = module.read_text(encoding="utf-8")
        lines += len(source.splitlines())
        function_imports += _imports_in_functions(ast.parse(source), inside=False)
    specs = package / "hooks" / "specs.py"
    hooks = specs.read_text(encoding="utf-8").count("@hookspec") if specs.exists() else 0
    return {"hooks": hooks, "modules": len(modules), "function_imports": function_imports,
            "lines": lines}


def _imports_in_functions(node: ast.AST, *, inside: bool) -> int:
    """The import statements under *node* that some ``def`` encloses, each counted once."""
    found = 0
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            found += inside
        found += _imports_in_functions(
            child, inside=inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return found


def main(argv: list[str]) -> None:
    checkouts = [pathlib.Path(arg) for arg in argv] or [pathlib.Path(__file__).parent.parent]
    for checkout in checkouts:
        figures = count(checkout)
        print(f"{checkout}: " + ", ".join(f"{name} {value:,}" for name, value in figures.items()))


if __name__ == "__main__":
    main(sys.argv[1:])
