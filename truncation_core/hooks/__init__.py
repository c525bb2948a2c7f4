"""The plugin contract and the machinery that calls it.

:mod:`~truncation_core.hooks.specs` declares the hooks (what a plugin may implement) and
:mod:`~truncation_core.types.models` the frozen value objects that cross the hook boundary:
those every Truncator needs from the start, and (importable from there) those of a cut, in
:mod:`~truncation_core.types.cuts`, imported with the first cut; their fields' converters
are in :mod:`~truncation_core.types.converters`.
:mod:`~truncation_core.hooks.host` builds the plugin manager of one Truncator (built-ins,
entry points, project and explicit plugins) and calls the hooks through a typed facade;
:mod:`~truncation_core.hooks.failures` decides what happens when a plugin raises or returns
something it must not. Plugin authors import from :mod:`truncation_core.plugin` instead.
"""
