"""The converters of fields of the frozen hook value objects (typed, so that type checkers
see what each field accepts)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from truncation_core.types.cuts import Omission

__all__ = ["frozen_mapping", "names", "omissions", "strings"]


def strings(value: Iterable[str]) -> tuple[str, ...]:
    """A tuple of *value*: the converter for fields of strings of frozen attrs classes (typed,
    so that type checkers see what the field accepts)."""
    return tuple(value)


def names(value: Iterable[str]) -> frozenset[str]:
    """A frozenset of *value*: the converter for fields holding a set of names."""
    return frozenset(value)


def omissions(value: Iterable[Omission]) -> tuple[Omission, ...]:
    """A tuple of *value*: the converter for fields holding omitted regions."""
    return tuple(value)


def frozen_mapping(value: Mapping[Any, Any] | None) -> Mapping[Any, Any]:
    """A read-only copy: the converter for mapping fields of frozen attrs classes."""
    return MappingProxyType(dict(value or {}))
