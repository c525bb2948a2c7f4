"""Highlights: the salient lines (errors, failures, summaries) lifted from an omitted part.

:mod:`~truncation_core.highlights.patterns` compiles the patterns plugins supply and finds
matching lines fast; :mod:`~truncation_core.highlights.bank` keeps the best matches of a text
or a stream, in memory bounded by the number shown; :mod:`~truncation_core.highlights.block`
chooses what to show for an omitted region and renders the block within the budget.
"""
