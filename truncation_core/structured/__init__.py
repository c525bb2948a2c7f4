"""Structured truncation: the algorithms behind the ``element`` and ``ranked`` strategies.

One file per format, each readable on its own:

* :mod:`~truncation_core.structured.sniff` — is this JSON, JSON Lines or XML? Parses JSON once,
  never raising (BOM, NaN, deep nesting, huge integers, lone surrogates).
* :mod:`~truncation_core.structured.json_element` — fits a parsed JSON value to a budget:
  arrays keep their first and last items, objects a subset of their members, long strings
  their ends, deep containers collapse; notes in place say what was left out.
* :mod:`~truncation_core.structured.json_stream` — the same from ijson parse events, fed
  chunk by chunk, in memory bounded by the budget (large input, streams).
* :mod:`~truncation_core.structured.jsonl` — JSON Lines: whole records, first and last.
* :mod:`~truncation_core.structured.ranked` — ranked results: the best-scored whole
  results that fit.
* :mod:`~truncation_core.structured.xml_element` — XML elements, parsed safely.
* :mod:`~truncation_core.structured.dispatch` — which of these handles a given content, and
  the fall back to a text strategy (with the reason) when none can.
* :mod:`~truncation_core.structured.rest` — the note that says how to read what a cut left
  out, when the content was kept as an artifact.
* :mod:`~truncation_core.structured.writer` — output written against a budget, abandoned at
  the first piece that does not fit (the XML renderer's), and the list of cuts for the
  metadata (shared with the JSON fitter, which sizes its trials instead of writing them).

The hook modules in :mod:`truncation_core.builtins` only delegate here. docs/structured.md
describes what each strategy keeps, with examples.
"""

#: How far into each end of the content the format sniffs look
#: (:func:`~truncation_core.structured.sniff.looks_like_json`, ``looks_like_xml``). Here, not in
#: ``sniff``, because a stream sizes the ends it keeps by it: opening one need not import the
#: JSON parse.
SNIFF_CHARS = 256
