"""The values and protocols a plugin sees: the bottom layer, which imports nothing of the
package but :mod:`truncation_core.errors`.

Plugin authors import these names from :mod:`truncation_core.plugin`, which re-exports them
(with the helpers of the layers above). Each module holds one concept:

- :mod:`~truncation_core.types.models`: the sizes and limits (:class:`Size`, :class:`Budget`)
  and what a plugin provides (:class:`Provides`); their fields' converters are in
  :mod:`~truncation_core.types.converters`;
- :mod:`~truncation_core.types.cuts`: a cut's values (:class:`ContentFacts`, :class:`Cut`,
  :class:`Omission`, :class:`ArtifactSpan`, :class:`Marker`, :class:`ElementOmission`),
  apart so that content within its limits never builds them;
- :mod:`~truncation_core.types.strategy`: a strategy, and its incremental cutter for streams;
- :mod:`~truncation_core.types.salient`: a highlights detector: its patterns, units and
  records;
- :mod:`~truncation_core.types.markers`: rendering a cut's markers (:class:`MarkerRenderer`),
  and :mod:`~truncation_core.types.resume`, where an omission is in a stored artifact;
- :mod:`~truncation_core.types.policy`: the effective settings of a tool (:class:`Policy`)
  and of the store (:class:`StoreConfig`), whose settings are declared in
  :mod:`~truncation_core.types.settings` and checked in :mod:`~truncation_core.types.checks`,
  with the marker templates (:mod:`~truncation_core.types.templates`) and the artifact
  tools' names (:mod:`~truncation_core.types.tool_names`);
- :mod:`~truncation_core.types.artifacts` and :mod:`~truncation_core.types.ids`: what an
  artifact is known by; :mod:`~truncation_core.types.storage` and
  :mod:`~truncation_core.types.reports`: the storage protocol every backend fulfils;
- :mod:`~truncation_core.types.tokenizer`: the tokenizer contract.
"""
