"""The packages keep the order docs/architecture.md gives them: none imports one above it.

Every import counts: at the top of a module, inside a function, and under ``if
TYPE_CHECKING:`` (a type-only import is still a dependency a reader follows and a change
breaks). Imports are read from the source with :mod:`ast`; an import by name at run time
(``importlib.import_module``: the lazy public names, the built-in plugins registered by
name) is not one, and the faces at the top do all of those.

Packages in the same layer may import each other; a module may always import its own
package.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from package_modules import MODULES, imported_modules

#: The layers, bottom first. A subpackage, or a module at the top of the package, is named by
#: its last name; ``truncation_core`` is the package's own ``__init__``.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors",),  # every exception raised on purpose
    ("types",),  # the values and protocols a plugin sees
    ("text",),  # characters, bytes, lines; cutting text to a budget
    ("tokens",),  # the tokenizers
    ("config",),  # Config: files, the environment, the converter
    ("hooks",),  # the hook specifications, loading plugins, the typed facade
    ("retrieval",),  # reading artifacts back over store.open
    ("artifacts",),  # metadata documents, the size limit, sessions, archives
    ("storage",),  # the filesystem and memory backends
    ("outline",),  # where the sections of a cut document start
    ("structured",),  # JSON, JSON Lines, XML, ranked results
    ("highlights",),  # the salient lines of an omitted part
    ("adaptive",),  # where a command's information is: the adaptive strategy's split
    ("pipeline",),  # the steps for a result over its limits
    ("streaming",),  # streams and commands
    ("builtins",),  # the built-in plugins
    ("tools",),  # the artifact tools
    ("truncator",),  # the facade
    ("truncation_core", "plugin", "testing", "cli", "__main__"),  # the faces
)
RANK = {name: index for index, layer in enumerate(LAYERS) for name in layer}


def package_of(module: str) -> str:
    """``truncation_core.pipeline.call`` -> ``pipeline``; ``truncation_core`` itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def imports_of(source: str, module: str, is_package: bool) -> Iterator[tuple[int, str]]:
    """``(line, imported module)`` for every truncation_core import in *source*, wherever it
    stands (TYPE_CHECKING blocks and function bodies included)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for name in imported_modules(node, module, is_package):
                yield node.lineno, name


def upward_imports(source: str, module: str, is_package: bool) -> list[str]:
    """The imports of *source* (module *module*) of a package above its own."""
    own = package_of(module)
    found = []
    for line, target in imports_of(source, module, is_package):
        other = package_of(target)
        if other != own and RANK[other] > RANK[own]:
            found.append(f"{module}:{line} imports {target} ({own} is below {other})")
    return found


def violations() -> list[str]:
    return [problem for name, path in sorted(MODULES.items())
            for problem in upward_imports(path.read_text(encoding="utf-8"), name,
                                          path.name == "__init__.py")]


def test_every_package_has_a_layer() -> None:
    packages = {package_of(name) for name in MODULES}
    assert sorted(packages - RANK.keys()) == []


def test_the_walk_sees_type_only_and_function_level_imports() -> None:
    """Negative control: an import under TYPE_CHECKING and one inside a function, each of a
    package above, are both found; one of a package below is not."""
    source = ("from typing import TYPE_CHECKING\n"
              "from truncation_core.errors import log\n"
              "if TYPE_CHECKING:\n    from truncation_core.pipeline.call import Call\n"
              "def f():\n    from truncation_core.hooks import specs\n")
    found = upward_imports(source, "truncation_core.text.cut", False)
    assert [problem.split(" imports ")[1] for problem in found] == [
        "truncation_core.pipeline.call (text is below pipeline)",
        "truncation_core.hooks.specs (text is below hooks)"]


def test_no_package_imports_one_above_it() -> None:
    """Before the types moved down (issue 27), 132 imports went up (69 of them the built-ins
    importing truncation_core.plugin), and 13 pairs of packages imported each other."""
    found = violations()
    assert found == [], f"{len(found)} imports go up the layers:\n" + "\n".join(found)
