"""Writing output piece by piece against a budget, giving up as soon as it is exceeded.

The XML renderer tries many layouts while fitting; each attempt stops at the first piece
that does not fit (:class:`Overflow`), so an attempt never costs more than the budget. (The
JSON fitter answers its trials from sizes, see :mod:`.json_element`, and shares only
:class:`CutList`.)
"""

from __future__ import annotations

from typing import Any

from truncation_core.text.measure import utf8_size
from truncation_core.types.cuts import ElementOmission
from truncation_core.types.models import Budget

__all__ = ["MAX_LISTED_CUTS", "BudgetWriter", "CutList", "Overflow"]

#: At most this many cuts are listed in the metadata (the totals always count all of them).
MAX_LISTED_CUTS = 50


class Overflow(Exception):
    """The output being written does not fit the budget."""


class BudgetWriter:
    """Collects output pieces in ``parts`` while they fit *budget* in every unit.

    With *count_lines*, each piece's newlines count against a line limit; otherwise the
    caller counts lines itself (the JSON renderer knows where it puts newlines).
    """

    def __init__(self, budget: Budget, *, count_lines: bool) -> None:
        self.parts: list[str] = []
        self.chars_left = budget.chars
        self.bytes_left = budget.bytes
        self.lines_left = None if budget.lines is None else budget.lines - 1
        self._count_lines = count_lines and budget.lines is not None

    def put(self, text: str) -> None:
        self.parts.append(text)
        self.chars_left -= len(text)
        if self.chars_left < 0:
            raise Overflow
        if self.bytes_left is not None:
            self.bytes_left -= utf8_size(text)
            if self.bytes_left < 0:
                raise Overflow
        if self._count_lines:
            self.lines_left -= text.count("\n")  # type: ignore[operator]
            if self.lines_left < 0:
                raise Overflow

    def text(self) -> str:
        return "".join(self.parts)


class CutList:
    """The cuts one rendering made, for the metadata: all counted, the first
    :data:`MAX_LISTED_CUTS` listed as ``{"path", "kind", "omitted", "total"}``."""

    __slots__ = ("count", "listed")

    def __init__(self) -> None:
        self.count = 0
        self.listed: list[dict[str, Any]] = []

    def add(self, element: ElementOmission) -> None:
        self.count += 1
        if len(self.listed) < MAX_LISTED_CUTS:
            self.listed.append({"path": element.path, "kind": element.kind,
                                "omitted": element.count, "total": element.total})
