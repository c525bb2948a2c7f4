"""Highlights: the salient lines (errors, failures, summaries) lifted from an omitted part.

:mod:`~truncation_core.highlights.patterns` compiles the patterns plugins supply and finds
matching lines fast; :mod:`~truncation_core.types.salient` says which lines around a match
are shown with it, and :mod:`~truncation_core.highlights.records` which records of a JSON
Lines log are salient; :mod:`~truncation_core.highlights.lines` cleans a line of ANSI escapes,
folds it for grouping and clips it in the middle; :mod:`~truncation_core.highlights.bank`
keeps the matches of a text or a stream, by group, in memory bounded by the number shown;
:mod:`~truncation_core.highlights.choice` chooses what to show, the rare before the frequent;
:mod:`~truncation_core.highlights.block` renders the block within the budget.
"""
