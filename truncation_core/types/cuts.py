"""The frozen value objects of one cut: the facts a strategy cuts by, what it returns, and
what its markers and notes describe.

Like every hook value object (:mod:`truncation_core.types.models`), each class here is
``@attrs.frozen(kw_only=True)``. They are apart from the ones every Truncator needs, so
that content within its limits never builds them: this module is imported with the first
cut. Each name is importable from :mod:`truncation_core.types.models` too.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

import attrs

from truncation_core.types.converters import frozen_mapping, omissions, strings

if TYPE_CHECKING:
    from truncation_core.types.artifacts import ArtifactRef

__all__ = [
    "NOT_PARSED",
    "ArtifactSpan",
    "ContentFacts",
    "Cut",
    "ElementKind",
    "ElementOmission",
    "Marker",
    "MarkerPosition",
    "Omission",
    "Parsed",
]

MarkerPosition = Literal["beginning", "middle", "end"]
#: The kinds of note that structured strategies put in place of what they leave out (see
#: :class:`ElementOmission`); each has a template of the same name in ``marker:``.
ElementKind = Literal["json_items", "json_keys", "json_key", "json_string", "json_depth",
                      "jsonl_records", "ranked_results", "xml_elements", "xml_text"]


@attrs.frozen(kw_only=True)
class Parsed:
    """What content parses as: :attr:`ContentFacts.parsed` (see
    :func:`truncation_core.structured.sniff.parse`)."""

    #: ``json`` (one value), ``jsonl`` (one value per line), or None (not JSON).
    format: Literal["json", "jsonl"] | None
    #: The value (``json``), or the records' source lines (``jsonl``).
    value: Any = attrs.field(default=None, repr=False)
    #: Why the content is not JSON, when ``format`` is None.
    error: str | None = None
    #: The content is JSON nested too deep for the recursive parser: parse it from events.
    deep: bool = False
    #: A BOM was skipped.
    bom: bool = False


NOT_PARSED = Parsed(format=None, error="not parsed")


@attrs.frozen(kw_only=True)
class ContentFacts:
    """Facts about one tool result, computed once when it is over its limit.

    ``bytes`` is computed on first use: for non-ASCII text it costs a full UTF-8 encode.
    """

    #: Size in characters.
    chars: int
    #: Number of lines (see :mod:`truncation_core.text.cut` for the definition).
    lines: int
    #: Number of line terminators; ``lines`` minus one when the text ends mid-line.
    terminators: int
    #: The content starts with ``{`` or ``[`` and ends with ``}`` or ``]`` (a sniff, not a parse).
    looks_like_json: bool
    #: The tool returned bytes rather than text.
    from_bytes: bool = False
    _byte_size: Callable[[], int] = attrs.field(alias="byte_size", repr=False, eq=False)
    #: The content starts with ``<`` and ends with ``>`` (a sniff, not a parse).
    looks_like_xml: bool = False
    #: Parses the content once, on first use of :attr:`parsed` (never part of repr or eq).
    _parse: Callable[[], Any] | None = attrs.field(default=None, alias="parse", repr=False,
                                                   eq=False)
    #: While the processor cuts this content: a parse made for it keeps the cyclic GC
    #: paused until the cut is done (see :meth:`parsing`).
    _scope: contextlib.ExitStack | None = attrs.field(default=None, alias="scope",
                                                      repr=False, eq=False)
    #: Maps a character offset to the offset of the same point in the original bytes (the
    #: tool's own bytes, or the UTF-8 encoding of the text); None when not available.
    _locate_byte: Callable[[int], int] | None = attrs.field(
        alias="locate_byte", default=None, repr=False, eq=False)

    @cached_property
    def bytes(self) -> int:
        """Size in UTF-8 bytes (the original bytes when the tool returned bytes)."""
        return self._byte_size()

    @cached_property
    def parsed(self) -> Any:
        """The content parsed as JSON, computed on first use and shared by every hook.

        A :class:`Parsed`: the format found (``json``,
        ``jsonl`` or None), the parsed value, and why parsing failed. Whoever reads it first
        pays for the parse; ``select_strategy`` plugins and the ``element`` strategy then share
        it. Large content (over ``stream_threshold``) is element-truncated from a stream of
        parse events instead, and does not need this.
        """
        if self._parse is None:
            return NOT_PARSED
        return self._parse()

    def parsing(self, text: str,
                parse: Callable[[str, contextlib.ExitStack | None], Parsed]) -> ContentFacts:
        """These facts, with :attr:`parsed` computed from *text* by *parse* (given the scope
        of the processor's cut), once, on first use: for an incremental cutter that kept a
        stream's whole text and parses it when finishing. The parse is made as the
        processor's own: the cyclic GC waits until the cut is done
        (:func:`truncation_core.structured.sniff.parse_in`)."""
        scope = self._scope
        return attrs.evolve(self, parse=functools.cache(lambda: parse(text, scope)))

    def byte_offset(self, char_offset: int) -> int | None:
        """The byte offset in the original of the point before character *char_offset*.

        For bytes that are not valid UTF-8 (shown with replacement characters) this is an
        offset into the tool's own bytes, so it addresses the artifact exactly.
        """
        return None if self._locate_byte is None else self._locate_byte(char_offset)


@attrs.frozen(kw_only=True)
class ArtifactSpan:
    """Where an omitted region is in the stored artifact: the numbers its marker shows.

    When the artifact holds the whole output, these are the region's own line and byte
    numbers. When the artifact is itself cut (the output exceeded ``max_artifact_size``), the
    artifact keeps the output's head and tail with a marker line between them, and these
    address what it keeps of the region: lines of the artifact, and bytes of the artifact.
    """

    #: Lines of the artifact (1-based, inclusive) that ``get_artifact`` returns for the region.
    start_line: int
    end_line: int
    #: ``artifact[start_byte:end_byte]`` holds the region (what is kept of it), when known.
    start_byte: int | None = None
    end_byte: int | None = None
    #: True when the artifact holds all of the region. False when the artifact is itself cut
    #: and keeps only part of it: the range then also takes in the artifact's marker line
    #: where the region spans the part not kept.
    complete: bool = True


@attrs.frozen(kw_only=True)
class Omission:
    """One contiguous region of the original text that the output leaves out.

    ``first_line``, ``last_line``, ``start_byte`` and ``end_byte`` are the region's numbers in
    the original output; ``in_artifact`` gives the numbers that read it back from the artifact
    (the same ones, unless the artifact is itself cut).
    """

    #: Where the region lies in the original: at its beginning, in the middle, or at its end.
    position: MarkerPosition
    #: Character offset of the first omitted character.
    start: int
    #: Character offset just after the last omitted character.
    end: int
    #: Lines lying entirely inside the region (a line cut in two is partly shown, so not counted).
    lines: int
    #: First line (1-based) the region touches; 0 when the region is empty.
    first_line: int
    #: Last line (1-based, inclusive) the region touches; 0 when the region is empty.
    last_line: int
    #: Byte offset in the original (the tool's own bytes, or the UTF-8 encoding of its text)
    #: of the first omitted byte, when known.
    start_byte: int | None = None
    #: Byte offset in the original just after the last omitted byte, when known.
    end_byte: int | None = None
    #: Where the region is in the stored artifact: the line and byte numbers the marker shows
    #: (see :class:`ArtifactSpan`). Strategies leave it None: the marker renderer and the
    #: processor fill it in from the artifact (:mod:`truncation_core.types.resume`). None when
    #: nothing is stored, and when the artifact keeps none of the region (it is itself cut
    #: and the region lies in the part it dropped).
    in_artifact: ArtifactSpan | None = None

    @property
    def chars(self) -> int:
        return self.end - self.start

    @property
    def bytes(self) -> int | None:
        """Omitted bytes of the original, when the byte range is known."""
        if self.start_byte is None or self.end_byte is None:
            return None
        return self.end_byte - self.start_byte


@attrs.frozen(kw_only=True)
class Cut:
    """What a ``truncate`` implementation returns: the output and exactly what it left out."""

    #: The text the model sees, markers included. Never larger than the budget.
    text: str
    #: Characters of the original that are not in the output.
    omitted_chars: int
    #: Lines of the original that are not in the output at all.
    omitted_lines: int
    #: The omitted regions, in order, for strategies that cut contiguous text.
    omissions: tuple[Omission, ...] = attrs.field(default=(), converter=omissions)
    #: The strategy that really produced the output, when it differs from the one asked for.
    strategy: str | None = None
    #: Human-readable remarks, e.g. why a fallback was taken.
    notes: tuple[str, ...] = attrs.field(default=(), converter=strings)
    #: Machine-readable, strategy-specific details (JSON-serialisable).
    details: Mapping[str, Any] = attrs.field(factory=dict, converter=frozen_mapping)


@attrs.frozen(kw_only=True)
class Marker:
    """Everything ``format_marker`` may use to render one marker."""

    #: ``beginning``, ``middle`` or ``end`` for an omission marker; ``reference`` for the
    #: artifact reference shown above the cut when content exceeds ``artifact_threshold``;
    #: ``rest`` (and ``rest_key``, its key in a JSON object) for the note a structured cut
    #: adds to say how to read what it left out;
    #: one of :data:`ElementKind` for a note that a structured strategy puts in place
    #: (``element`` says what it replaces).
    kind: Literal["beginning", "middle", "end", "reference", "rest", "rest_key"] | ElementKind
    #: The omitted region (None for ``reference``).
    omission: Omission | None
    #: The strategy that is cutting.
    strategy: str
    #: The tool that produced the content, if known.
    tool: str | None
    #: Size of the whole original content.
    original_chars: int
    original_lines: int
    #: Where the full content is kept, or None when it is not kept.
    artifact: ArtifactRef | None = None
    #: Why the full content could not be kept, when spilling was on but failed.
    artifact_error: str | None = None
    #: What a structured strategy left out, for the kinds in :data:`ElementKind`.
    element: ElementOmission | None = None


@attrs.frozen(kw_only=True)
class ElementOmission:
    """Part of a structured document left out, described where the note stands.

    ``kind`` says which note (``json_items``: array items; ``json_keys`` / ``json_key``: object
    members, the note's value and key; ``json_string``: characters of a string;
    ``json_depth``: a container nested too deep, collapsed; ``jsonl_records``: JSON Lines
    records; ``ranked_results``: results with lower scores; ``xml_elements``: child
    elements; ``xml_text``: characters of an element's text).
    """

    kind: ElementKind
    #: How many units were omitted.
    count: int
    #: How many there were in the original.
    total: int
    #: ``items``, ``keys``, ``chars``, ``records``, ``results`` or ``elements``.
    unit: str
    #: Where, as a JSONPath (``$.results``) or, for XML, a simple XPath (``/feed/entry[3]``).
    path: str = "$"
