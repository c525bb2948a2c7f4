"""The pipeline that turns one tool result over its limits into what the model sees.

:mod:`~truncation_core.pipeline.pipeline` runs the steps in one order for ``process`` and for
streams: select a strategy, store the artifact, cut, render markers, lift highlights, build
the metadata. :mod:`~truncation_core.pipeline.call` is the frozen state of one call,
:mod:`~truncation_core.pipeline.facts` what is known about the content,
:mod:`~truncation_core.types.markers` renders markers through ``format_marker``,
:mod:`~truncation_core.types.resume` maps omissions to coordinates in the artifact,
:mod:`~truncation_core.pipeline.plain` removes terminal control from what a cut keeps,
:mod:`~truncation_core.pipeline.results` is what ``process`` returns,
:mod:`~truncation_core.pipeline.tokens` holds ``max_tokens`` over whatever a strategy cuts, and
:mod:`~truncation_core.pipeline.counters` counts calls per tool and how full results are,
and :mod:`~truncation_core.pipeline.stats` is the report made of those counts.
"""
