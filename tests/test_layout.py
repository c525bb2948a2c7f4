"""The package's shape stays as docs/architecture.md draws it: no import cycles (function-level
imports included), no import of the built-in plugins from the layers they plug into, and no
top-level module but the few that are the public faces.

Imports are read from the source (an AST walk), so an import inside a function counts as
much as one at the top of a module. Imports under ``if TYPE_CHECKING:`` are left out: they
never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest
from package_modules import MODULES, PACKAGE, imported_modules

TOP_LEVEL_ALLOWED = {"__init__", "__main__", "plugin", "testing", "errors", "truncator"}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node that may run: all of them but the bodies of ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                stack.extend(child.orelse)
                continue
            stack.append(child)


def imports_of(source: str, module: str, is_package: bool) -> set[str]:
    """The truncation_core modules that *source* imports when it runs."""
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(source)):
        found.update(imported_modules(node, module, is_package))
    found.discard(module)
    return found


def graph() -> dict[str, set[str]]:
    return {name: {target for target in imports_of(path.read_text(encoding="utf-8"), name,
                                                   path.name == "__init__.py")
                   if target in MODULES}
            for name, path in MODULES.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of *edges*, as the modules on it, or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(edges.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target):], target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_the_walk_sees_imports_anywhere_but_under_type_checking() -> None:
    """Negative control for the walker: function-level and relative imports count, and a
    TYPE_CHECKING block does not."""
    source = ("from typing import TYPE_CHECKING\n"
              "import truncation_core.errors\n"
              "if TYPE_CHECKING:\n    from truncation_core.truncator import Truncator\n"
              "def f():\n    from truncation_core.hooks import specs\n"
              "    from . import measure\n")
    assert imports_of(source, "truncation_core.text.cut", False) == {
        "truncation_core.errors", "truncation_core.hooks.specs", "truncation_core.text.measure"}


def test_the_cycle_finder_finds_a_cycle() -> None:
    """Negative control: a function-level import back up the layers is a cycle."""
    real = graph()
    # The pipeline's real imports, and one made up back from the text layer it imports.
    edges = {"truncation_core.pipeline.pipeline": real["truncation_core.pipeline.pipeline"],
             "truncation_core.text.measure": {"truncation_core.pipeline.pipeline"}}
    cycle = find_cycle(edges)
    assert cycle is not None and "truncation_core.text.measure" in cycle


def test_no_import_cycle() -> None:
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_core_does_not_import_the_builtin_plugins() -> None:
    """The built-ins plug into the core through hooks; the core never reaches into them (it
    registers them by name, in hooks/loader.py)."""
    offenders = sorted(f"{name} imports {target}" for name, targets in graph().items()
                       if not name.startswith("truncation_core.builtins")
                       for target in targets if target.startswith("truncation_core.builtins"))
    assert offenders == []


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_only_the_public_faces_are_top_level_modules(path: Path) -> None:
    assert path.stem in TOP_LEVEL_ALLOWED, (
        f"truncation_core/{path.name}: put it in the subpackage of its layer "
        "(docs/architecture.md)")


@pytest.mark.parametrize("package", sorted(p.parent for p in PACKAGE.rglob("__init__.py")
                                           if p.parent != PACKAGE),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_every_subpackage_says_what_it_holds(package: Path) -> None:
    tree = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
    doc = ast.get_docstring(tree)
    assert doc and len(doc) > 80, f"{package.name}/__init__.py needs a docstring paragraph"
