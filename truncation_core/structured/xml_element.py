"""XML elements: cut between child elements, and the output stays well-formed.

Parsing is the standard library's pull parser (``xml.etree.ElementTree.XMLPullParser``, the
non-blocking form of ``iterparse``), made safe as follows:

* a document that declares entities (``<!ENTITY`` anywhere in it) is **not parsed**: it is
  cut as text, with the reason. Internal entities are how "billion laughs" expands a few
  hundred bytes into gigabytes, and external ones how a document reads local files; refusing
  the declaration stops both before any expansion. (Expat 2.4+ also limits amplification,
  and ElementTree never fetches external entities or DTDs; the refusal does not rely on it.)
* anything that is not well-formed (including a reference to an undeclared entity) is cut as
  text, with the parser's message (position only, never content) as the reason.

We chose this over depending on ``defusedxml``: the one thing its ElementTree support adds
for this use, refusing entity declarations, is the check above, and its ElementTree module
swaps in the slower pure-Python parser. Comments and processing instructions of the input are
not kept; the XML declaration is dropped (the output is a ``str``, its encoding is not the
input's).

What is kept, with the same ladder as JSON (see :mod:`.json_element`): each element keeps its
first and last child elements (``head_ratio`` first) with an XML comment in place of the
others, ``<!-- 45 elements omitted -->``; then long text is shortened (``... [N chars omitted]
...`` inside it); then elements nested deeper than the depth limit keep only a comment. XML
larger than ``stream_threshold`` is cut as text.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, NamedTuple, cast
from xml.etree.ElementTree import Element, ParseError, XMLPullParser
from xml.parsers.expat import ErrorString

import attrs

from truncation_core.structured.json_element import MIN_STRING, _largest, _split
from truncation_core.structured.writer import BudgetWriter, CutList, Overflow
from truncation_core.types.cuts import ElementOmission
from truncation_core.types.models import Budget
from truncation_core.types.policy import Policy

__all__ = ["XmlFitted", "fit_xml", "parse_xml"]

INF = sys.maxsize
XML_NAMESPACE = "http://www.w3.org/XML/1998/namespace"


class _Knobs(NamedTuple):
    children: int
    chars: int
    depth: int


@attrs.frozen(kw_only=True)
class XmlFitted:
    """What :func:`fit_xml` returns: the output and the metadata's ``details``."""

    text: str = attrs.field(repr=False)  # content: never in a repr
    details: dict[str, Any]


@attrs.frozen(kw_only=True)
class _Document:
    root: Element
    #: Namespace declarations (prefix, uri) made on each element, by element identity.
    namespaces: dict[int, list[tuple[str, str]]]


def parse_xml(text: str) -> _Document | str:
    """Parse *text* safely; return the document, or why it cannot be used."""
    if "<!ENTITY" in text:
        return "XML that declares entities is not parsed (entity expansion is disabled)"
    parser: XMLPullParser[Any] = XMLPullParser(events=("start", "start-ns"))
    namespaces: dict[int, list[tuple[str, str]]] = {}
    pending: list[tuple[str, str]] = []
    root: Element | None = None
    try:
        parser.feed(text.lstrip("\ufeff"))
        parser.close()
        for pair in parser.read_events():
            event, item = cast("tuple[str, Any]", pair)
            if event == "start-ns":
                pending.append(cast("tuple[str, str]", item))
            else:
                element = cast(Element, item)
                if root is None:
                    root = element
                if pending:
                    namespaces[id(element)] = pending
                    pending = []
    except ParseError as exc:
        # The message is the parser's, except for undefined entities, which ElementTree
        # names (content): rebuild it from the error code and the position.
        line, column = exc.position
        message = ErrorString(exc.code) if isinstance(exc.code, int) else "error"
        return f"not well-formed XML: {message}: line {line}, column {column}"
    except (ValueError, RecursionError) as exc:
        return f"not well-formed XML: {type(exc).__name__}"
    if root is None:
        return "not well-formed XML: no element"
    return _Document(root=root, namespaces=namespaces)


def _escape_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _escape_attr(text: str) -> str:
    return (_escape_text(text).replace('"', "&quot;").replace("\n", "&#10;")
            .replace("\r", "&#13;").replace("\t", "&#9;"))


def _comment(text: str) -> str:
    """*text* as an XML comment: no ``--`` inside, no ``-`` at the end."""
    while "--" in text:
        text = text.replace("--", "- -")
    if text.endswith("-"):
        text += " "
    return "<!--" + text + "-->"


class _Renderer(BudgetWriter):
    def __init__(self, doc: _Document, knobs: _Knobs, *, budget: Budget,
                 note: Callable[[ElementOmission], str], head_ratio: float,
                 record: bool) -> None:
        super().__init__(budget, count_lines=True)
        self.doc = doc
        self.knobs = knobs
        self.note = note
        self.head_ratio = head_ratio
        self.record = record
        self.scopes: list[dict[str, str]] = [{XML_NAMESPACE: "xml"}]
        self.omitted = {"elements": 0, "chars": 0, "collapsed": 0}
        self.cuts = CutList()

    def omission(self, kind: Any, count: int, total: int, unit: str, path: str) -> str:
        element = ElementOmission(kind=kind, count=count, total=total, unit=unit, path=path)
        if self.record:
            self.cuts.add(element)
        return self.note(element)

    def qname(self, name: str, *, attribute: bool = False) -> str:
        if name[:1] != "{":
            return name
        uri, _, local = name[1:].partition("}")
        for scope in reversed(self.scopes):
            prefix = scope.get(uri)
            if prefix is not None and (prefix or not attribute):
                return f"{prefix}:{local}" if prefix else local
        return local  # unreachable for parsed documents: every namespace was declared

    def element_text(self, text: str | None, path: str) -> None:
        if not text:
            return
        if len(text) > self.knobs.chars:
            first, last = _split(self.knobs.chars, self.head_ratio)
            omitted = len(text) - first - last
            self.omitted["chars"] += omitted
            note = self.omission("xml_text", omitted, len(text), "chars", path)
            text = text[:first] + note + (text[len(text) - last:] if last else "")
        self.put(_escape_text(text))

    def element(self, el: Element, depth: int, path: str) -> None:
        declared = self.doc.namespaces.get(id(el), [])
        self.scopes.append({uri: prefix for prefix, uri in declared})
        tag = self.qname(el.tag)
        path = f"{path}/{tag}"
        opening = ["<", tag]
        for prefix, uri in declared:
            opening.append(f' xmlns{":" + prefix if prefix else ""}="{_escape_attr(uri)}"')
        for name, value in el.attrib.items():
            opening.append(f' {self.qname(name, attribute=True)}="{_escape_attr(value)}"')
        children = list(el)
        if not children and not el.text:
            self.put("".join(opening) + "/>")
            self.scopes.pop()
            return
        self.put("".join(opening) + ">")
        if depth >= self.knobs.depth and children:
            self.omitted["collapsed"] += 1
            self.omitted["elements"] += len(children)
            self.put(_comment(self.omission("xml_elements", len(children), len(children),
                                            "elements", path)))
        else:
            self.element_text(el.text, path)
            total = len(children)
            first, last = (total, 0) if total <= self.knobs.children else _split(
                self.knobs.children, self.head_ratio)
            for child in children[:first]:
                self.element(child, depth + 1, path)
                self.element_text(child.tail, path)
            if first + last < total:
                omitted = total - first - last
                self.omitted["elements"] += omitted
                # Mixed content: text between the omitted elements goes with them (blank
                # text is layout, not content, and is not counted).
                self.omitted["chars"] += sum(len(c.tail) for c in children[first:total - last]
                                             if c.tail and c.tail.strip())
                self.put(_comment(self.omission("xml_elements", omitted, total, "elements",
                                                path)))
                gap = children[total - last - 1].tail or ""
                if last and not gap.strip():
                    self.put(gap)
            for child in children[total - last:] if last else ():
                self.element(child, depth + 1, path)
                self.element_text(child.tail, path)
        self.put(f"</{tag}>")
        self.scopes.pop()


def _render(doc: _Document, knobs: _Knobs, *, budget: Budget,
            note: Callable[[ElementOmission], str], head_ratio: float,
            record: bool = False) -> _Renderer | None:
    renderer = _Renderer(doc, knobs, budget=budget, note=note, head_ratio=head_ratio,
                         record=record)
    try:
        renderer.element(doc.root, 0, "")
    except Overflow:
        return None
    return renderer


def fit_xml(text: str, *, budget: Budget, policy: Policy,
            note: Callable[[ElementOmission], str]) -> XmlFitted | str:
    """Fit XML *text* to *budget*, well-formed; or return why it must be cut as text."""
    if len(text) > policy.stream_threshold:
        return "XML larger than stream_threshold is cut as text"
    doc = parse_xml(text)
    if isinstance(doc, str):
        return doc
    depth = max(policy.max_depth, 1)
    chars = max(budget.chars, 1)

    def fits(knobs: _Knobs) -> bool:
        return _render(doc, knobs, budget=budget, note=note,
                       head_ratio=policy.head_ratio) is not None

    rungs: list[tuple[_Knobs, str | None, int, int]] = [
        (_Knobs(INF, INF, depth), None, 0, 0),
        (_Knobs(INF, INF, depth), "children", 2, chars // 3 + 1),
        (_Knobs(2, INF, depth), "chars", MIN_STRING, chars),
        (_Knobs(2, MIN_STRING, depth), "depth", 1, depth),
        (_Knobs(1, 0, 1), None, 0, 0),
        (_Knobs(0, 0, 0), None, 0, 0),
    ]
    for fixed, knob, lo, hi in rungs:
        if knob is None:
            if not fits(fixed):
                continue
            chosen = fixed
        else:
            if not fits(fixed._replace(**{knob: lo})):
                continue
            def fits_at(x: int, f: _Knobs = fixed, k: str = knob) -> bool:
                return fits(f._replace(**{k: x}))

            best = _largest(lo, hi, fits_at)
            chosen = fixed._replace(**{knob: best})
        final = _render(doc, chosen, budget=budget, note=note, head_ratio=policy.head_ratio,
                        record=True)
        if final is None:
            continue
        limits = {k: (None if v == INF else v) for k, v in chosen._asdict().items()}
        return XmlFitted(text="".join(final.parts), details={
            "format": "xml", "omitted": final.omitted, "cuts": final.cuts.listed,
            "cut_count": final.cuts.count, "limits": limits})
    return "the budget is too small for well-formed XML"
