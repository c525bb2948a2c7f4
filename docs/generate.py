"""Regenerate the parts of the docs that are derived from the code.

    python docs/generate.py          # rewrite them in place
    python docs/generate.py --check  # exit 1 if any is out of date (the docs tests do this too)

Each generated part sits between a ``<!-- generated from SOURCE ... -->`` line and a
``<!-- end of generated NAME -->`` line in its page; a page may hold several.

The hooks reference (docs/hooks.md) is rendered whole from the hook specifications in
truncation_core/hooks/specs.py: every function marked as a hook specification, in the order
the module defines them, its signature, and its docstring turned into Markdown. The reST a
docstring may use: paragraphs; bullet lists (``- item``, nested by indentation); field lists
(``:param name:``, ``:returns:``, ``:called:``, ``:cost:`` ...), whose bodies may hold further
indented paragraphs and lists; ``.. rubric:: Title`` for a sub-heading; ``.. versionadded::``
and its kin; roles (``:class:`~a.b.C```), literals and links (```text <docs/page.md#part>`_``,
a relative target taken from the repository's root). A hook added, removed, renamed or
redocumented there only needs this script run again.
"""

from __future__ import annotations

import inspect
import posixpath
import re
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent


# -- docs/configuration.md --------------------------------------------------------------------


def _settings_table() -> str:
    from truncation_core.types.settings import settings_table

    return settings_table()


# -- docs/hooks.md ----------------------------------------------------------------------------


def hook_specs() -> list[tuple[str, Callable[..., Any], dict[str, Any]]]:
    """(name, function, options) of every hook specification, in the order the module
    defines them (any defined elsewhere and set on the module, after them)."""
    from truncation_core.hooks import specs

    marker = f"{specs.PROJECT_NAME}_spec"
    found = [(name, function, getattr(function, marker))
             for name, function in vars(specs).items()
             if callable(function) and isinstance(getattr(function, marker, None), dict)]
    return sorted(found, key=lambda spec: (spec[1].__module__ != specs.__name__,
                                           spec[1].__code__.co_firstlineno))


def _heading(name: str, function: Callable[..., Any]) -> str:
    return f"{name}({', '.join(inspect.signature(function).parameters)})"


def _annotation(annotation: Any) -> str:
    """An annotation as written (the specs' are strings: ``from __future__ import
    annotations``)."""
    return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)


def _definition(name: str, signature: inspect.Signature) -> str:
    """``def name(a: A, b: B) -> R: ...``, one parameter a line when that is too long."""
    params = [(p.name if p.annotation is inspect.Parameter.empty
               else f"{p.name}: {_annotation(p.annotation)}")
              + ("" if p.default is inspect.Parameter.empty else f" = {p.default!r}")
              for p in signature.parameters.values()]
    returns = "" if signature.return_annotation is inspect.Signature.empty \
        else f" -> {_annotation(signature.return_annotation)}"
    line = f"def {name}({', '.join(params)}){returns}: ..."
    if len(line) <= 92 or not params:
        return line
    return "\n".join([f"def {name}(", *(f"    {p}," for p in params), f"){returns}: ..."])


def _anchor(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


#: ``:role:`~a.b.c``` shows ``c``, ``:role:`a.b.c``` shows ``a.b.c``, and
#: ``:role:`text <target>``` shows ``text``.
_ROLE = re.compile(r":(?:[\w-]+:)?[\w-]+:`(~?)([^`<]*?)\s*(?:<[^`>]*>)?`")
#: A hyperlink: ```text <target>`_``.
_LINK = re.compile(r"(?<![`:])`([^`<]+?)\s*<([^`>]+)>`_")


def _link_target(target: str) -> str:
    """A link's target as the pages see it: a relative one is taken from the repository's
    root (``docs/tokens.md#adding-a-tokenizer``) and made relative to docs/."""
    if re.match(r"\w+:|#", target):
        return target
    path, hash_, fragment = target.partition("#")
    return posixpath.relpath(path, "docs") + hash_ + fragment


def markdown(text: str) -> str:
    """reST inline markup as Markdown: roles and double-backquoted literals become code,
    hyperlinks become links."""

    def role(match: re.Match[str]) -> str:
        shown = match.group(2)
        return f"`{shown.rsplit('.', 1)[-1] if match.group(1) else shown}`"

    text = _LINK.sub(lambda m: f"[{m.group(1)}]({_link_target(m.group(2))})", text)
    return _ROLE.sub(role, text).replace("``", "`")


#: A field of a docstring's field list: ``:param name: text`` or ``:returns: text``.
_FIELD = re.compile(r":(\w+)(?: ([\w*]+))?:(?:\s+|$)")
#: A directive: ``.. versionadded:: 0.1``, ``.. rubric:: A sub-heading``.
_DIRECTIVE = re.compile(r"\.\. ([\w-]+):: ?(.*)")
#: The start of a bullet list's item.
_BULLET = re.compile(r"[-*] ")


def _indented_after(lines: list[str], i: int) -> int:
    """The end of the indented lines from *i* on (blank lines among them, not after them)."""
    end = i
    while i < len(lines) and (not lines[i].strip() or lines[i][:1].isspace()):
        i += 1
        if lines[i - 1].strip():
            end = i
    return end


def _blocks(doc: str) -> Iterator[tuple[str, str | None, str | None, list[str]]]:
    """The docstring's blocks, in order: ``("prose", None, None, lines)`` for a paragraph or
    a bullet list, as written; ``("field", name, argument, lines)`` for a field, its body
    dedented (further paragraphs and lists in it, indented in the docstring, included);
    ``("directive", name, argument, [])``. A paragraph ends at a blank line, a field or a
    directive."""
    lines = doc.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        field, directive = _FIELD.match(line), _DIRECTIVE.match(line)
        if field:
            end = _indented_after(lines, i + 1)
            rest = textwrap.dedent("\n".join(lines[i + 1:end])).splitlines()
            yield "field", field.group(1), field.group(2), [line[field.end():], *rest]
            i = end
        elif directive:
            yield "directive", directive.group(1), directive.group(2).strip(), []
            i += 1
        elif _BULLET.match(line):
            end = i + 1
            while True:  # the items, each with its indented lines
                end = _indented_after(lines, end)
                if end < len(lines) and _BULLET.match(lines[end]):
                    end += 1
                    continue
                blank = end
                while blank < len(lines) and not lines[blank].strip():
                    blank += 1
                if blank < len(lines) and _BULLET.match(lines[blank]):
                    end = blank + 1
                    continue
                break
            yield "prose", None, None, lines[i:end]
            i = end
        else:
            body = []
            while (i < len(lines) and lines[i].strip()
                   and not _FIELD.match(lines[i]) and not _DIRECTIVE.match(lines[i])):
                body.append(lines[i])
                i += 1
            yield "prose", None, None, body


#: A word that would open a list, a quote or a heading at the start of a Markdown line.
_OPENS_A_BLOCK = re.compile(r"[-+*>#|=]|\d+[.)]")
#: The width the page is wrapped at.
WIDTH = 92


def _wrap(words: list[str], width: int, indent: str = "", first: str = "") -> list[str]:
    """Greedy word wrap, never starting a line with a word Markdown would read as markup;
    the first line starts with *first*, the others with *indent*."""
    lines: list[str] = []
    for word in words:
        if lines and (len(lines[-1]) + 1 + len(word) <= width or _OPENS_A_BLOCK.fullmatch(word)):
            lines[-1] += " " + word
        else:
            lines.append((indent if lines else first) + word)
    return lines


def _markdown_lines(lines: list[str], lead: str = "", indent: str = "",
                    first: str | None = None) -> list[str]:
    """A dedented body of a docstring (paragraphs and bullet lists, nested by indentation)
    as Markdown wrapped at :data:`WIDTH`: *lead* opens its first paragraph, which starts
    with *first* (default *indent*); every other line starts with *indent*. Blocks are
    separated by a blank line, the items of a list are not."""
    first = indent if first is None else first
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        opening = not out
        start = first if opening else indent
        if not opening:
            out.append("")
        if _BULLET.match(lines[i]):
            if opening and lead:  # a body that opens with a list: the lead on its own line
                out.append(start + lead)
                start = indent
            while i < len(lines) and _BULLET.match(lines[i]):
                end = _indented_after(lines, i + 1)
                item = [lines[i][2:], *textwrap.dedent("\n".join(lines[i + 1:end])).splitlines()]
                out.extend(_markdown_lines(item, "-", indent + "  ", start))
                start = indent
                i = end
                while i < len(lines) and not lines[i].strip():
                    i += 1
            continue
        end = i
        while end < len(lines) and lines[end].strip():
            end += 1
        words = markdown(" ".join(line.strip() for line in lines[i:end])).split()
        out.extend(_wrap([*(lead.split() if opening else []), *words], WIDTH, indent, start))
        i = end
    if not out and lead:
        out.append(first + lead)
    return out


#: How a field other than ``param`` is labelled, in the order the labels are shown.
_FIELD_LABELS = {"returns": "Returns", "return": "Returns", "rtype": "Return type",
                 "raises": "Raises", "called": "Called", "cost": "Cost"}


def hook_section(name: str, function: Callable[..., Any], options: dict[str, Any]) -> str:
    """The reference section of one hook: its heading and its signature with the marker's
    options (``firstresult``: the first answer that is not None is used), then its
    docstring: the prose before the fields, the parameters (with their annotations), the
    other fields, the directives, and the prose after the fields (where a ``rubric`` is a
    sub-heading)."""
    signature = inspect.signature(function)
    flags = ", ".join(f"{key}=True" for key in sorted(options) if options[key] is True)
    decorator = f"@hookspec({flags})" if flags else "@hookspec"
    out = [f"## {_heading(name, function)}", "", "```python", decorator,
           _definition(name, signature), "```", ""]
    before: list[str] = []
    params: list[str] = []
    fields: list[tuple[int, str]] = []
    directives: list[str] = []
    after: list[str] = []
    for kind, key, argument, lines in _blocks(inspect.getdoc(function) or ""):
        prose = after if params or fields or directives else before
        if kind == "prose":
            prose.extend([*_markdown_lines(lines), ""])
        elif kind == "directive" and key == "rubric":
            prose.extend([f"### {markdown(argument or '')}", ""])
        elif kind == "directive":
            assert key is not None
            label = {"versionadded": "Added in", "versionchanged": "Changed in",
                     "deprecated": "Deprecated since"}.get(key, key)
            directives.append(f"*{label} {argument}.*")
        elif key == "param" and argument is not None:
            annotation = signature.parameters[argument].annotation \
                if argument in signature.parameters else inspect.Parameter.empty
            kind_of = ("" if annotation is inspect.Parameter.empty
                       else f" (`{_annotation(annotation)}`)")
            params.extend(_markdown_lines(lines, f"- `{argument}`{kind_of}:", "  ", ""))
        else:
            assert key is not None
            label = _FIELD_LABELS.get(key, key.capitalize())
            order = list(_FIELD_LABELS.values()).index(label) \
                if label in _FIELD_LABELS.values() else len(_FIELD_LABELS)
            fields.append((order, "\n".join(_markdown_lines(lines, f"**{label}:**"))))
    out.extend(before)
    if params:
        out.extend(["Parameters:", "", *params, ""])
    for _, text in sorted(fields, key=lambda field: field[0]):
        out.extend([text, ""])
    if directives:
        out.extend([*directives, ""])
    out.extend(after)
    return "\n".join(out).rstrip("\n") + "\n"


def _hooks_reference() -> str:
    """Every hook's section, one after the other."""
    return "\n".join(hook_section(*spec) for spec in hook_specs())


def _first_paragraph_of_field(doc: str, field: str, hook: str) -> str:
    for kind, key, _, lines in _blocks(doc):
        if kind == "field" and key == field:
            paragraph = lines[:lines.index("")] if "" in lines else lines
            return markdown(" ".join(line.strip() for line in paragraph))
    raise SystemExit(f"hook {hook}: its docstring needs a :{field}: field")


def _hooks_table() -> str:
    """One row per hook: whether it stops at the first answer, when it is called, its cost,
    all read from the specifications."""
    rows = ["| hook | answers | when it is called | cost |", "| --- | --- | --- | --- |"]
    for name, function, options in hook_specs():
        doc = inspect.getdoc(function) or ""
        when, spent = (_first_paragraph_of_field(doc, field, name) for field in ("called", "cost"))
        answers = "the first that is not None" if options.get("firstresult") else "all"
        anchor = _anchor(_heading(name, function))
        rows.append(f"| [`{name}`](#{anchor}) | {answers} | {when} | {spent} |")
    return "\n".join(rows) + "\n"


# -- the pages --------------------------------------------------------------------------------


#: (page, name of the part, what it is made from, how to render it).
PARTS: list[tuple[str, str, str, Callable[[], str]]] = [
    ("configuration.md", "table", "truncation_core/types/settings.py", _settings_table),
    ("hooks.md", "table", "truncation_core/hooks/specs.py", _hooks_table),
    ("hooks.md", "reference", "truncation_core/hooks/specs.py", _hooks_reference),
]


def generated(page: str, text: str) -> str:
    """*text* (the page *page*) with each of its generated parts rendered again."""
    for part_page, name, source, render in PARTS:
        if part_page != page:
            continue
        pattern = re.compile(rf"(<!-- generated from {re.escape(source)} [^\n]*-->\n)"
                             r"((?:(?!<!-- generated from ).)*?)"
                             rf"(<!-- end of generated {re.escape(name)} -->)", re.S)
        match = pattern.search(text)
        if match is None:
            raise SystemExit(f"docs/{page}: no generated {name} from {source}")
        text = text[:match.start(2)] + render() + text[match.end(2):]
    return text


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for page in dict.fromkeys(part[0] for part in PARTS):
        path = DOCS / page
        text = path.read_text(encoding="utf-8")
        new = generated(page, text)
        if new != text:
            stale.append(page)
            if not check:
                path.write_text(new, encoding="utf-8")
    if stale:
        print(("out of date (run python docs/generate.py): " if check else "rewrote: ")
              + ", ".join(stale))
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
