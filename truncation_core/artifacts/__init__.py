"""Artifacts: the full content of a tool result, kept so that nothing cut is ever lost.

:mod:`~truncation_core.types.ids` makes and checks artifact, session and tool call ids;
:mod:`~truncation_core.types.artifacts` defines what a stored artifact is known by;
:mod:`~truncation_core.artifacts.limit` keeps head and tail of content over
``max_artifact_size``; :mod:`~truncation_core.artifacts.sessions` scopes artifacts to a
session; :mod:`~truncation_core.artifacts.archive` exports and imports sessions. All of them
work through the storage protocol (:mod:`truncation_core.types.storage`), so that every
backend gets them.
"""
