"""Finding installed plugins: the entry points of a group, read as importlib.metadata reads them.

Importing :mod:`importlib.metadata` costs more than the rest of a ``trunc`` start-up's plugin
discovery (it brings ``email``, ``zipfile``, ``csv`` and more), and parsing each
distribution's metadata with the ``email`` package costs again. This module reads the same
files for the layout every installer writes: on each directory of ``sys.path``, in order, the
``*.dist-info`` and ``*.egg-info`` entries in listing order, the first distribution of each
normalized name winning (a later one is shadowed, as importlib.metadata's ``entry_points()``
has it); each one's ``entry_points.txt`` sections; and, for a distribution with an entry point
in the group, the ``Name`` and ``Version`` headers of its ``METADATA`` (or ``PKG-INFO``).

Where the layout is one this module does not read (a zip file or an ``.egg`` directory on
``sys.path``, or a finder on ``sys.meta_path`` that finds distributions of its own), it asks
importlib.metadata instead, so the answer is the same either way.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import sys
import textwrap
from collections.abc import Iterator
from importlib.machinery import PathFinder

__all__ = ["EntryPoint", "entry_points"]

#: What an entry point's value may look like (``module``, ``module:attr.attr [extras]``);
#: importlib.metadata's ``EntryPoint.pattern`` (compiled when a plugin is loaded).
_VALUE = (r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")
_NORMALIZE = re.compile(r"[-_.]+")
_INFO_SUFFIXES = (".dist-info", ".egg-info")
#: A header's first line, as the ``email`` parser knows one (its ``headerRE``, the name
#: printable ASCII without a space or a colon).
_HEADER = re.compile(r"[\041-\071\073-\176]*:")


class EntryPoint:
    """One entry point of the group, and the distribution that declares it."""

    __slots__ = ("distribution", "name", "value", "version")

    def __init__(self, name: str, value: str, distribution: str | None,
                 version: str | None) -> None:
        self.name = name
        #: ``module`` or ``module:attribute``, as declared.
        self.value = value
        #: The distribution's ``Name`` and ``Version``, as its metadata says.
        self.distribution = distribution
        self.version = version

    def load(self) -> object:
        """Import the module and return it, or the attribute the value names (what
        importlib.metadata's ``EntryPoint.load`` does, errors included)."""
        match = re.match(_VALUE, self.value)
        if match is None:
            raise ValueError(f"entry point {self.name!r}: {self.value!r} is not a module "
                             "path, or a module path, a colon and an attribute")
        module = importlib.import_module(match.group("module"))
        attributes = filter(None, (match.group("attr") or "").split("."))
        return functools.reduce(getattr, attributes, module)

    def __repr__(self) -> str:
        return f"EntryPoint(name={self.name!r}, value={self.value!r})"


def entry_points(group: str) -> list[EntryPoint]:
    """The entry points of *group* of the installed distributions, in the order
    importlib.metadata's ``entry_points(group=...)`` gives them."""
    if not _readable_layout():
        return _from_importlib_metadata(group)
    found: list[EntryPoint] = []
    for info in _distributions():
        declared = _declared(info, group)
        if declared:
            name, version = _name_and_version(info)
            found.extend(EntryPoint(ep_name, value, name, version)
                         for ep_name, value in declared)
    return found


def _readable_layout() -> bool:
    if any(getattr(finder, "find_distributions", None) is not None and finder is not PathFinder
           for finder in sys.meta_path):
        return False
    for entry in sys.path:
        if not isinstance(entry, str) or entry.lower().endswith(".egg") or os.path.isfile(entry):
            return False
    return True


def _distributions() -> Iterator[str]:
    """The metadata path of each distribution on ``sys.path``, shadowed ones left out."""
    seen: set[str] = set()
    for entry in sys.path:
        try:
            children = os.listdir(entry or ".")
        except OSError:
            continue
        for child in children:
            low = child.lower()
            if not low.endswith(_INFO_SUFFIXES):
                continue
            normalized = _NORMALIZE.sub("-", low.rpartition(".")[0].partition("-")[0])
            normalized = normalized.replace("-", "_")
            if normalized in seen:
                continue
            seen.add(normalized)
            yield os.path.join(entry, child)


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def _declared(info: str, group: str) -> list[tuple[str, str]]:
    """``(name, value)`` of each entry point of *group* in *info*'s ``entry_points.txt``."""
    path = os.path.join(info, "entry_points.txt")
    # Most distributions declare no entry point: a failed stat costs less than a failed open.
    text = _read(path) if os.path.exists(path) else None
    if not text or f"[{group}]" not in text:
        return []
    out = []
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
            continue
        if section == group:
            name, _, value = line.partition("=")
            out.append((name.strip(), value.strip()))
    return out


def _name_and_version(info: str) -> tuple[str | None, str | None]:
    """The ``Name`` and ``Version`` headers of the distribution's metadata, as
    importlib.metadata gives them: read by the ``email`` parser (the first of each, leading
    blanks and the line end dropped; the headers end at a blank line or at a line that is no
    header), a folded value then dedented as its ``_adapters.Message`` dedents it."""
    text = (_read(os.path.join(info, "METADATA")) or _read(os.path.join(info, "PKG-INFO"))
            or (_read(info) if os.path.isfile(info) else None))
    if not text:
        return None, None
    headers: dict[str, str] = {}
    current = None
    # Read in text mode, the lines end in \n alone; the email parser splits at nothing else
    # (str.splitlines would also split at \x0c, \x85, \u2028 ...).
    for line in text.split("\n"):
        if line[:1] in (" ", "\t"):
            if current is not None:
                headers[current] += "\n" + line
            continue
        current = None
        if line.startswith("From "):
            continue  # an mbox envelope line, which the parser passes over
        if _HEADER.match(line) is None:
            break  # a blank line, or a line that is no header: the end of the headers
        key, _, value = line.partition(":")
        if key.lower() in ("name", "version") and key.lower() not in headers:
            current = key.lower()
            headers[current] = value.lstrip(" \t")
    return _unfolded(headers.get("name")), _unfolded(headers.get("version"))


def _unfolded(value: str | None) -> str | None:
    """A header's value as importlib.metadata's ``_adapters.Message`` gives it: a folded
    one (rare: the ``email`` parser keeps its line breaks) dedented after eight spaces."""
    if value is None or "\n" not in value:
        return value
    return textwrap.dedent(" " * 8 + value)


def _from_importlib_metadata(group: str) -> list[EntryPoint]:
    from importlib.metadata import entry_points as installed

    found = []
    for ep in installed(group=group):
        dist = ep.dist
        found.append(EntryPoint(ep.name, ep.value,
                                dist.metadata["Name"] if dist is not None else None,
                                dist.version if dist is not None else None))
    return found
