"""Outlines: where the sections of a cut document, source file or listing start.

When a long file view, document or listing is cut, the part left out is one ``get_artifact``
call away only if the model knows which lines to ask for. An outline lists, in place of the
omitted part, the lines where its sections start, each with its line number, so that every
part of it lies within a short range named in the view.

One file per concern:

* :mod:`~truncation_core.outline.numbering` — line-number prefixes of file views
  (``    12→code``, ``    12|code``, ``cat -n``): detected, and stripped for parsing.
* :mod:`~truncation_core.outline.markup` — headings of Markdown and reStructuredText
  (fenced code skipped).
* :mod:`~truncation_core.outline.code` — the definitions of a source file, found by a
  tree-sitter grammar's own tags query (the ``outline`` extra); the language is sniffed from
  the content.
* :mod:`~truncation_core.outline.toc` — the table of contents of an omitted region: the
  structure's entries, the gaps filled so that no section is longer than
  :data:`~truncation_core.outline.toc.SPAN` lines, fitted to its share of the budget, and
  rendered.
* :mod:`~truncation_core.outline.cut` — the ``outline`` strategy's cut: head and tail, with
  the outline of what lies between.

docs/strategies.md describes the strategy, with an example.
"""
