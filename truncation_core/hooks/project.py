"""Importing a project plugin (``plugins.modules``) from the files the trust check passed,
and from nothing else.

Python's own import, given the project's directory on ``sys.path``, runs more than the
``.py`` files a check of ``h.py`` and ``h/__init__.py`` reads: a ``__pycache__/h.cpython-311.pyc``
whose header matches the source (or an unchecked hash-based one) instead of the source, an
extension module ``h.cpython-311-x86_64-linux-gnu.so`` or a sourceless ``h.pyc`` before it,
and, while the directory is on ``sys.path``, any module the plugin imports (a ``colorsys.pyc``
there shadows the standard library's). Whoever can put a file in that directory (a sticky
shared one, which the trust rule allows) would run code as the user. So:

* the project's directory is never put on ``sys.path``;
* a configured name is resolved here, in the order Python's finder uses for source: a
  package (``name/__init__.py``), a module (``name.py``), a namespace directory; each file
  (or namespace directory) passes :func:`~truncation_core.config.trust.untrusted_reason`
  before it is used, and is compiled from that source by :class:`CheckedSourceLoader`,
  which reads no bytecode and writes none;
* bytecode and extension modules beside it are never looked at;
* a submodule of a project package (``tools.hooks``, or one the plugin imports) is found by
  :class:`ProjectFinder`, on ``sys.meta_path``, which answers for project packages only and by
  the same rules: one without a ``.py`` source is a ``ModuleNotFoundError`` (the path finder
  would have found a ``.pyc`` or a ``.so`` in the package's directory);
* a name that the project holds and that resolves to another file (a module of the
  standard library or an installed one, or one already imported from elsewhere) is refused:
  loaded, it would replace that module for the whole process, or the configuration meant
  the other one. A name the project does not hold is imported as any installed module.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types
from collections.abc import Sequence
from pathlib import Path

__all__ = ["CheckedSourceLoader", "ProjectFinder", "UntrustedModuleError",
           "import_project_module"]


class UntrustedModuleError(PermissionError):
    """A project plugin's file could have been written by another user: it is not run."""


class CheckedSourceLoader(importlib.machinery.SourceFileLoader):
    """A loader of the one source file that passed the trust check: its code is compiled
    from that source, never read from a ``__pycache__`` file (whose header a planted file
    can match), and no bytecode is written."""

    def get_code(self, fullname: str) -> types.CodeType:
        path = self.get_filename(fullname)
        return self.source_to_code(self.get_data(path), path)


class _Checked:
    """A project package's directory, in its spec's ``loader_state``: where
    :class:`ProjectFinder` looks for its submodules."""

    __slots__ = ("directory",)

    def __init__(self, directory: Path) -> None:
        self.directory = directory


def _trusted(path: Path) -> Path:
    from truncation_core.config.trust import untrusted_reason

    reason = untrusted_reason(path)
    if reason is not None:
        raise UntrustedModuleError(f"{path} is not run: {reason}")
    return path


def source_spec(fullname: str, directory: Path) -> importlib.machinery.ModuleSpec | None:
    """The spec of module *fullname* (its last part) from *directory*, from source only: a
    package's ``__init__.py``, a module's ``.py``, or a namespace directory, in that order,
    once it passes the trust check; None when *directory* holds none of them."""
    name = fullname.rpartition(".")[2]
    package = directory / name
    init = package / "__init__.py"
    if init.is_file():
        spec = importlib.util.spec_from_file_location(
            fullname, _trusted(init), loader=CheckedSourceLoader(fullname, str(init)),
            submodule_search_locations=[str(package)])
    elif (module := directory / f"{name}.py").is_file():
        spec = importlib.util.spec_from_file_location(
            fullname, _trusted(module), loader=CheckedSourceLoader(fullname, str(module)))
    elif package.is_dir():
        _trusted(package)  # what a namespace package holds is checked file by file
        spec = importlib.machinery.ModuleSpec(fullname, None, is_package=True)
        spec.submodule_search_locations = [str(package)]
    else:
        return None
    assert spec is not None
    if spec.submodule_search_locations is not None:
        spec.loader_state = _Checked(package)
    return spec


class ProjectFinder(importlib.abc.MetaPathFinder):
    """Finds the submodules of project packages (those loaded by
    :func:`import_project_module`), from their checked source only; says nothing about any
    other module. Installed once, first on ``sys.meta_path``, when a project package is
    first loaded."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: types.ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        parent = sys.modules.get(fullname.rpartition(".")[0])
        state = getattr(getattr(parent, "__spec__", None), "loader_state", None)
        if not isinstance(state, _Checked):
            return None
        spec = source_spec(fullname, state.directory)
        if spec is None:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: a project package's modules are imported from "
                f"their .py source in {state.directory} only (bytecode and extension modules "
                "there are not run)", name=fullname)
        return spec


_FINDER = ProjectFinder()


def _install_finder() -> None:
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def _checked_name(module_path: str) -> str:
    if not all(part.isidentifier() for part in module_path.split(".")):
        raise ValueError(f"plugins.modules: {module_path!r} is not a module name (dotted "
                         "identifiers, such as 'truncation_hooks' or 'tools.hooks')")
    return module_path


def _origin(spec: importlib.machinery.ModuleSpec | None) -> list[str]:
    """The files or directories *spec* loads from, resolved."""
    if spec is None:
        return []
    if spec.origin is not None and spec.has_location:
        return [os.path.realpath(spec.origin)]
    return [os.path.realpath(p) for p in spec.submodule_search_locations or ()]


def _elsewhere(name: str, ours: importlib.machinery.ModuleSpec) -> str | None:
    """Where *name* resolves other than to the project's file *ours*, if it does: a module
    already imported from another file, or one the import system would find."""
    mine = _origin(ours)
    loaded = sys.modules.get(name)
    if loaded is not None:
        theirs = _origin(getattr(loaded, "__spec__", None))
        return None if theirs == mine else (
            f"{name!r} is already imported from {', '.join(theirs) or 'a built-in module'}")
    try:
        found = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        found = None
    theirs = _origin(found)
    if found is None or theirs == mine:
        return None
    return (f"{name!r} also resolves to {', '.join(theirs) or 'a built-in module'} (on "
            "sys.path), which any other import of it would load")


def _load(spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        if spec.loader is not None:
            spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(spec.name, None)
        raise
    return sys.modules[spec.name]


def import_project_module(module_path: str, project_root: Path) -> types.ModuleType:
    """Import *module_path* for ``plugins.modules``: from *project_root*, from checked source
    only, when the project holds its top-level name; else as an installed module (the
    project's directory is not searched: a ``.pyc`` or ``.so`` planted there is never run)."""
    top = _checked_name(module_path).partition(".")[0]
    spec = source_spec(top, project_root)
    if spec is None:
        return importlib.import_module(module_path)
    other = _elsewhere(top, spec)
    if other is not None:
        raise ImportError(f"{_origin(spec)[0]} is not imported for plugins.modules "
                          f"{module_path!r}: {other}; give the project's module a name of "
                          "its own", name=module_path)
    if top not in sys.modules:
        _install_finder()
        _load(spec)
    return importlib.import_module(module_path)
