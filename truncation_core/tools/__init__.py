"""What the agent calls: the artifact tools and the tool decorator.

:mod:`~truncation_core.tools.schemas` publishes the artifact tools (``get_artifact`` and the
rest) in each function-calling format, :mod:`~truncation_core.tools.calls` runs one call of
them (checked against the published schema, never raising), and
:mod:`~truncation_core.tools.decorator` wraps a tool function so that its result goes
through the processor.
"""
