"""Storage backends: where artifacts are kept.

:mod:`~truncation_core.types.storage` is the contract every backend fulfils (the
:class:`~truncation_core.types.storage.StorageBackend`, the session-bound
:class:`~truncation_core.types.storage.ArtifactStore` and its writers), and
:mod:`~truncation_core.types.reports` what a backend reports about its sessions;
:mod:`~truncation_core.storage.filesystem` is the default backend (built on the checked
file access of :mod:`~truncation_core.storage.fsio`) and :mod:`~truncation_core.storage.memory`
keeps artifacts in memory. Backends from plugins are registered through ``provides``.
"""
