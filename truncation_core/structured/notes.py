"""What a structured cut says about what it left out: its notes, rendered once each, and the
machine-readable details that reach ``metadata.details``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from truncation_core.types.cuts import ElementOmission
    from truncation_core.types.markers import MarkerRenderer

__all__ = ["NoteCache", "structured_details"]


class NoteCache:
    """Renders notes through ``format_marker`` once per distinct omission.

    Fitting renders the same note many times (once per trial); the hook must have no side
    effects, so its answer can be reused.
    """

    def __init__(self, markers: MarkerRenderer) -> None:
        self._markers = markers
        self._cache: dict[ElementOmission, str] = {}

    def __call__(self, element: ElementOmission) -> str:
        text = self._cache.get(element)
        if text is None:
            text = self._cache[element] = self._markers.note(element)
        return text


def structured_details(format: str, fitted: Any, **extra: Any) -> dict[str, Any]:
    """The machine-readable part of the metadata for a fitted document."""
    return {
        "format": format,
        "omitted": dict(fitted.omitted),
        "cuts": list(fitted.cuts),
        "cut_count": fitted.cut_count,
        "limits": {k: (None if v >= (1 << 62) else v) for k, v in fitted.knobs._asdict().items()},
        **extra,
    }
