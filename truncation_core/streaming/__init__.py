"""Content that arrives in pieces: streams in bounded memory, and running commands.

:mod:`~truncation_core.streaming.stream` counts a stream as it arrives, keeps only its two
ends (:mod:`~truncation_core.pipeline.ends`) and hands them to the same pipeline that
``process`` uses; :mod:`~truncation_core.types.strategy` is the seam for strategies
that must see all of a stream (structured data); :mod:`~truncation_core.streaming.command`
runs a command through a stream (``trunc run``).
"""
