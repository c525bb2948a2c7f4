"""The definitions of a source file, found by a tree-sitter grammar.

Each grammar package of the tree-sitter project ships a **tags query** (``TAGS_QUERY``), the
one GitHub's code navigation runs: its ``@definition.*`` captures are the classes,
functions, methods, interfaces, modules ... of the language. An outline lists them with
their line numbers, nested as the definitions nest.

The grammars are the ``outline`` extra (``pip install truncation-core[outline]``: the
``tree-sitter`` bindings and the grammars of Python, JavaScript/TypeScript/TSX, Go, Rust, C,
C++ and Java). Without them, or for another language, :func:`definitions` answers None and
the outline falls back to the document's indentation (:mod:`~truncation_core.outline.toc`).

The language is sniffed from the content (a tool result carries no file name): each
language's telltale line starts are counted over the first lines, and the best-scoring
language is parsed; a parse whose tree is mostly errors is not believed.
"""

from __future__ import annotations

import functools
import importlib
import re
from typing import Any

__all__ = ["LANGUAGES", "available", "definitions", "sniff_language", "unparsed_code"]

#: Language -> (grammar module, its language function, the grammar modules whose tags
#: queries apply: TypeScript's extends JavaScript's).
LANGUAGES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "python": ("tree_sitter_python", "language", ("tree_sitter_python",)),
    "tsx": ("tree_sitter_typescript", "language_tsx",
            ("tree_sitter_javascript", "tree_sitter_typescript")),
    "go": ("tree_sitter_go", "language", ("tree_sitter_go",)),
    "rust": ("tree_sitter_rust", "language", ("tree_sitter_rust",)),
    "c": ("tree_sitter_c", "language", ("tree_sitter_c",)),
    "cpp": ("tree_sitter_cpp", "language", ("tree_sitter_cpp",)),
    "java": ("tree_sitter_java", "language", ("tree_sitter_java",)),
}

#: Telltale starts of a line (after its indentation) in each language; a line counts for
#: every language whose pattern it matches. Only a shortlist for the parser, which decides.
_TELLTALES: dict[str, re.Pattern[str]] = {
    "python": re.compile(r"(?:(?:async )?def \w+\(|class \w+[(:]|from [\w.]+ import |import \w+"
                         r"(?:\.\w+)*(?: as \w+)?$|@\w+|if __name__ ==|elif |except\b.*:$)"),
    "tsx": re.compile(r"(?:import .* from ['\"]|import ['\"]|export |const \w+ = |let \w+ = |"
                      r"function \w*\(|interface \w+|type \w+ = |\"use client\"|'use client'|"
                      r"return \(|</?[A-Za-z][\w.]*[ />]|\}\);?$)"),
    "go": re.compile(r"(?:package \w+$|func |import \($|type \w+ (?:struct|interface)|"
                     r"\w+ := |if err != nil)"),
    "rust": re.compile(r"(?:(?:pub(?:\(\w+\))? )?(?:async )?fn \w+|use \w+(?:::\w+)+|impl\b|"
                       r"mod \w+|#\[|let mut |(?:pub )?struct \w+|(?:pub )?enum \w+)"),
    "c": re.compile(r"(?:#include [<\"]|#define |#ifn?def |typedef |static \w+|"
                    r"(?:void|int|char|unsigned|uint\d+_t|bool) \**\w+\()"),
    "cpp": re.compile(r"(?:#include <\w+>$|namespace \w+|template ?<|std::|class \w+ *[:{]|"
                      r"public:|private:)"),
    "java": re.compile(r"(?:package [\w.]+;$|import [\w.]+(?:\.\*)?;$|(?:public|private|"
                       r"protected) (?:static )?(?:final )?(?:class|interface|enum|void|\w+) )"),
}
#: Lines the sniff looks at, and the votes a language needs to be parsed.
_SNIFF_LINES = 300
_MIN_VOTES = 3
#: A parse is believed when fewer than this share of its lines hold a syntax error.
_MAX_ERROR_SHARE = 0.1
#: Larger sources are not parsed: the parse is linear, but takes about 1.5 s a megabyte
#: (bench/results/view.md); their outline comes from their indentation.
MAX_PARSE_CHARS = 256_000


def sniff_language(lines: list[str]) -> list[str]:
    """The languages *lines* may be in, most likely first (at most two)."""
    votes = dict.fromkeys(_TELLTALES, 0)
    for line in lines[:_SNIFF_LINES]:
        stripped = line.lstrip()
        if not stripped:
            continue
        for language, pattern in _TELLTALES.items():
            if pattern.match(stripped):
                votes[language] += 1
    if votes["cpp"] and votes["c"]:
        votes["cpp"] += votes["c"] // 2  # C++ headers look like C's
    ranked = sorted((v, language) for language, v in votes.items() if v >= _MIN_VOTES)
    return [language for _, language in reversed(ranked)][:2]


@functools.cache
def _grammar(language: str) -> tuple[Any, Any] | None:
    """The tree-sitter (language, definitions query) of *language*, or None when the
    bindings or the grammar are not installed."""
    module, function, tag_modules = LANGUAGES[language]
    try:
        import tree_sitter

        grammar = tree_sitter.Language(getattr(importlib.import_module(module), function)())
        source = "\n".join(_definition_patterns(importlib.import_module(m).TAGS_QUERY)
                           for m in tag_modules)
        return grammar, tree_sitter.Query(grammar, source)
    except Exception:  # not installed, or a grammar of another ABI: no definitions
        return None


def _definition_patterns(query: str) -> str:
    """The patterns of a tags query that capture a definition (its references, every call
    of every function, would be matched for nothing)."""
    forms, depth, start, in_string = [], 0, 0, False
    for i, char in enumerate(query):
        if in_string:
            in_string = char != '"' or query[i - 1] == "\\"
        elif char == '"':
            in_string = True
        elif char == ";" and depth == 0:
            continue
        elif char in "([":
            if depth == 0:
                start = i
            depth += 1
        elif char in ")]":
            depth -= 1
            if depth == 0:
                forms.append(query[start:_form_end(query, i + 1)])
    return "\n".join(f for f in forms if "@definition." in f
                     and "@definition.constant" not in f)


def _form_end(query: str, i: int) -> int:
    """The end of a pattern's trailing captures and predicates are inside it; a capture
    name may follow the closing parenthesis (``(...) @definition.function``)."""
    match = re.match(r"(?:\s*@[\w.]+)*", query[i:])
    return i + (match.end() if match else 0)


def available() -> bool:
    """Whether the tree-sitter bindings are installed."""
    try:
        importlib.import_module("tree_sitter")
    except ImportError:
        return False
    return True


def unparsed_code(lines: list[str]) -> bool:
    """Whether *lines* look like source code in a language no installed grammar parses
    (the extra is missing): its comments may look like headings, but it is not prose."""
    languages = sniff_language(lines)
    return bool(languages) and _grammar(languages[0]) is None


def definitions(lines: list[str], *, title_chars: int) -> list[tuple[int, int, str]] | None:
    """The definitions of a source file whose lines (prefixes stripped) are *lines*: (0-based
    line index, depth from 1, the definition's first line, whole when it fits in
    *title_chars*), in order; None when no installed grammar parses it."""
    for language in sniff_language(lines):
        found = _definitions(lines, language, title_chars)
        if found is not None:
            return found
    return None


def _definitions(lines: list[str], language: str,
                 title_chars: int) -> list[tuple[int, int, str]] | None:
    grammar = _grammar(language)
    if grammar is None:
        return None
    source = "\n".join(lines)
    if len(source) > MAX_PARSE_CHARS:
        return None
    import tree_sitter

    data = source.encode("utf-8", "surrogatepass")
    tree = tree_sitter.Parser(grammar[0]).parse(data)
    if _error_lines(tree.root_node) > _MAX_ERROR_SHARE * max(1, len(lines)):
        return None
    captures = tree_sitter.QueryCursor(grammar[1]).captures(tree.root_node)
    nodes = {}
    for name, found in captures.items():
        if name.startswith("definition.") and name != "definition.constant":
            for node in found:
                nodes[node.start_byte, node.end_byte] = node
    names: dict[int, list[Any]] = {}
    for node in captures.get("name", ()):
        names.setdefault(node.start_point[0], []).append(node)
    out: list[tuple[int, int, str]] = []
    open_ends: list[int] = []
    seen_rows: set[int] = set()
    for start, end in sorted(nodes):
        while open_ends and open_ends[-1] <= start:
            open_ends.pop()
        depth = len(open_ends) + 1
        open_ends.append(end)
        row = nodes[start, end].start_point[0]
        if row in seen_rows or row >= len(lines):
            continue
        seen_rows.add(row)
        out.append((row, depth, _title(lines[row], row, names, title_chars)))
    return out


def _title(line: str, row: int, names: dict[int, list[Any]], title_chars: int) -> str:
    """The title of a definition starting on *line*: the whole line when it fits in
    *title_chars* (an entry's title, :data:`~truncation_core.outline.toc.TITLE_CHARS`) or no
    name is found on it, since an agent searches for and edits a signature as it is
    written; else the compact form, the
    line up to the end of the defined name (``def size``, ``export function AppContent``,
    ``pub async fn scan``) with ``(…)`` when parameters follow. Quoting short signatures
    whole: on the dev half of ``bench/agent_corpus`` code search 0.821 -> 0.842 visible,
    file views unchanged (issue 28)."""
    on_row = names.get(row, ())
    if not on_row or len(line.strip()) <= title_chars:
        return line.strip()
    # Columns are bytes: the name's end is found in the encoded line.
    data = line.encode("utf-8", "surrogatepass")
    end = min(n.end_point[1] for n in on_row)
    title = data[:end].decode("utf-8", "replace").strip()
    rest = data[end:].decode("utf-8", "replace").lstrip()
    return title + "(…)" if rest.startswith(("(", "<")) else title


def _error_lines(root: Any) -> int:
    """How many lines hold a syntax error (an ``ERROR`` or missing node) in the tree."""
    if not root.has_error:
        return 0
    rows: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            rows.update(range(node.start_point[0], min(node.end_point[0], node.start_point[0]
                                                        + 50) + 1))
            continue
        if node.has_error:
            stack.extend(node.children)
    return len(rows)
