"""Measuring and cutting text: the primitives every text strategy is built on.

:mod:`~truncation_core.text.measure` defines characters, bytes and lines and counts them;
:mod:`~truncation_core.text.cut` cuts a text to a budget at line boundaries and describes
what it left out; :mod:`~truncation_core.text.offsets` maps character offsets to byte offsets
of the original, so that omissions can say where they lie in the stored bytes;
:mod:`~truncation_core.text.terminal` removes terminal escape sequences and ``\\r`` redraws
from text shown to a reader; :mod:`~truncation_core.text.bounded_regex` compiles and searches
regular expressions from untrusted sources (a model's grep, plugins' salient patterns) within
bounds of time and memory, and :mod:`~truncation_core.text.trusted` holds the built-in salient
patterns' regular expressions, which need no bounds.
"""
