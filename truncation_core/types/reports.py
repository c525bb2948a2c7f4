"""What a backend reports about its sessions: :class:`SessionInfo` (``sessions()``, as
``trunc artifacts`` lists them) and :class:`CleanReport` (``clean()`` and the retention
sweep).

Apart from the storage protocol (:mod:`truncation_core.types.storage`, which still exports
both) so that a command that lists or cleans nothing does not build them at start-up.
"""

from __future__ import annotations

import attrs

__all__ = ["CleanReport", "SessionInfo"]


@attrs.frozen(kw_only=True)
class SessionInfo:
    """One session of a backend, as ``trunc artifacts`` lists it."""

    id: str
    #: How many artifacts it holds, and their content's size.
    artifacts: int
    bytes: int
    #: Last modification (an artifact stored or deleted), seconds since the epoch.
    modified: float


@attrs.frozen(kw_only=True)
class CleanReport:
    """What a clean or a retention sweep deleted."""

    sessions: tuple[str, ...] = ()
    artifacts: int = 0
    bytes: int = 0
    #: Leftovers of writers that died (temporary files, staging keys).
    temp_files: int = 0
