"""What the proxy does to one ``tools/call`` result: cut what is over the limit, keep it all.

Each text block goes through the processor under the downstream tool's name, so per-tool
policies apply. A result with ``isError`` keeps its tail and the error lines (strategy
``tail`` with highlights, unless the configuration names a strategy for the tool). Images,
audio, resource links and embedded resources pass through.

``structuredContent`` over the tool's limit is cut so that it stays valid JSON and, where the
tool declares an ``outputSchema``, valid against it:

1. a string that duplicates a text block (servers that return their text twice, as the
   official filesystem server does) is replaced by that block's cut, which names its
   artifact, so the full text is stored once and never reaches the model;
2. structured content whose text block is its JSON (``MCPServer``'s convention) becomes that
   block's cut, parsed, when the block was cut as JSON;
3. otherwise it is cut with the ``element`` strategy (or ``ranked``, if the tool's
   configuration names it), from an indented rendering so that its artifact has lines;
4. if the cut does not validate against the schema, the structured content is replaced by a
   reference object, ``{"_truncated": {...}}``, which the proxy's tools/list adds to the
   tool's ``outputSchema`` as an alternative (see :func:`exposed_output_schema`).

A result the processor leaves alone is forwarded byte for byte (the caller keeps the raw
message when :meth:`ResultProcessor.process` returns None).
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from truncation_core import Truncator, hookimpl
from truncation_core.config.model import Config
from truncation_core.pipeline.results import TruncationResult
from truncation_core.types.checks import NonNegativeInt, PositiveInt
from truncation_core.types.policy import Policy
from truncation_core.types.storage import ArtifactStore
from truncation_core.types.templates import MarkerConfig
from truncation_core_mcp.naming import ToolNames

__all__ = ["META_KEY", "REFERENCE_SCHEMA", "CallInfo", "ResultProcessor", "exposed_output_schema",
           "not_found_note"]

#: The ``_meta`` key of a result the proxy cut: one entry per part cut.
META_KEY = "truncation-core/truncated"
#: Strategies whose output is JSON whenever their input is.
JSON_STRATEGIES = ("element", "ranked")
#: Highlights (salient lines) shown from the omitted part of an error result, unless the
#: configuration asks for more.
ERROR_HIGHLIGHTS = 8
#: Context keys of the call's arguments that describe it in the artifact's summary.
_SUMMARY_ARGUMENTS = ("path", "command", "query", "url", "uri")

#: The reference object that stands for structured content whose cut would not validate.
REFERENCE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"_truncated": {
        "type": "object",
        "properties": {
            "artifact_id": {"type": ["string", "null"]},
            "original_chars": {"type": "integer"},
            "note": {"type": "string"},
        },
        "required": ["artifact_id", "original_chars", "note"],
    }},
    "required": ["_truncated"],
}


def exposed_output_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """*schema* (a tool's ``outputSchema``), also admitting the reference object.

    The original becomes the first branch of an ``anyOf``; its ``$defs`` / ``definitions``
    and ``$schema`` stay at the root, so that its ``#/...`` references still resolve.
    """
    hoisted = ("$schema", "$defs", "definitions")
    root: dict[str, Any] = {key: schema[key] for key in hoisted if key in schema}
    own = {key: value for key, value in schema.items() if key not in hoisted}
    root.update({"type": "object", "anyOf": [own, REFERENCE_SCHEMA]})
    return root


@attrs.frozen(kw_only=True)
class CallInfo:
    """One ``tools/call``: what the artifact's metadata says about it."""

    tool: str
    arguments: Mapping[str, Any] | None
    call_id: str
    server: str
    #: The tool's ``outputSchema`` as the downstream server declares it, if any.
    output_schema: Mapping[str, Any] | None = None


class _StructuredStrategy:
    """Structured content is cut by a strategy that keeps JSON valid."""

    __name__ = "mcp-structured"

    @hookimpl(tryfirst=True)
    def select_strategy(self, policy: Policy) -> str:
        return policy.strategy if policy.strategy in JSON_STRATEGIES else "element"


class _ErrorStrategy:
    """Error results keep their tail, unless the user's configuration names a strategy."""

    __name__ = "mcp-errors"

    def __init__(self, config: Config) -> None:
        self._configured = {tool for tool, override in config.tools.items()
                            if override.strategy is not None}

    @hookimpl(tryfirst=True)
    def select_strategy(self, tool: str | None) -> str | None:
        return None if tool in self._configured else "tail"


_UNCHANGED = object()


class ResultProcessor:
    """Cuts ``tools/call`` results (wire dicts) and answers the artifact tools."""

    def __init__(self, config: Config, *, names: ToolNames | None = None,
                 store: ArtifactStore | None = None, plugins: Iterable[object] = (),
                 load_entrypoints: bool = True, project_root: Path | None = None) -> None:
        self._base = config
        self._plugins = tuple(plugins)
        self._load_entrypoints = load_entrypoints
        self._project_root = project_root
        self._validators: dict[str, Callable[[Any], bool]] = {}
        self._note_patterns: dict[MarkerConfig, _Notes] = {}
        self._build(names or ToolNames.own(), store)

    def _build(self, names: ToolNames, store: ArtifactStore | None) -> None:
        config = names.config(self._base)
        self.names = names
        self.text = self._truncator(config, store, ())
        store = self.text.store
        # Structured content never gets the reference header (it would not be JSON): the
        # artifact threshold is out of reach, for every tool.
        # Nor the note that says how to read the rest (an extra member or item the output
        # schema does not allow): the text block says it.
        structured = attrs.evolve(
            config, artifact_threshold=PositiveInt(2**62),
            marker=attrs.evolve(config.marker, rest=""),
            tools={tool: override.replace(artifact_threshold=None)
                   for tool, override in config.tools.items()})
        self.structured = self._truncator(structured, store, (_StructuredStrategy(),))
        errors = attrs.evolve(
            config, highlights=NonNegativeInt(max(config.highlights, ERROR_HIGHLIGHTS)))
        self.errors = self._truncator(errors, store, (_ErrorStrategy(config),))

    def _truncator(self, config: Config, store: ArtifactStore | None,
                   plugins: tuple[object, ...]) -> Truncator:
        return Truncator(config, store=store, plugins=(*self._plugins, *plugins),
                         load_entrypoints=self._load_entrypoints,
                         project_root=self._project_root)

    @property
    def store(self) -> ArtifactStore:
        return self.text.store

    def rename(self, names: ToolNames) -> None:
        """Use *names* for the artifact tools from now on (markers and suggested calls)."""
        if names != self.names:
            self._build(names, self.store)

    # -- the artifact tools ---------------------------------------------------------------------

    def tool_definitions(self) -> list[dict[str, Any]]:
        """The artifact tools as ``tools/list`` entries, under the names shown."""
        out = []
        for schema in self.text.tool_schemas("mcp"):
            # named as shown already (the config's artifact_tools)
            name = self.names.tool_for(schema["name"]) or schema["name"]
            out.append({**schema, "name": self.names.shown[name],
                        "annotations": {"title": f"truncation-core: {name}",
                                        "readOnlyHint": True, "openWorldHint": False}})
        return out

    def call_tool(self, name: str, arguments: Any, *,
                  bare_call: tuple[int, str] | None = None) -> dict[str, Any]:
        """Answer a call of artifact tool *name* (its own name) as a ``CallToolResult``.

        *bare_call*: ``(request id, its handle)`` when the model gave a request id in place
        of an artifact id (``2``), which the proxy took as this connection's tool call of
        that id: a 404 says so."""
        result = self.text.call_tool(name, arguments, names=self.names.shown)
        text = result.content
        if result.error is not None and result.error.code == 404:
            if bare_call is not None:
                number, handle = bare_call
                text = (f"Error 404 (not found): no artifact is kept for tool call {number} of "
                        f"this connection ({handle}): its result was not cut, or it was no "
                        "tool call. A number stands for a tool call of this connection only; "
                        "markers name a call by its handle (connection:number), which works "
                        "from any connection to the same session")
            text += "." + not_found_note(self.store, arguments)
        return {"content": [{"type": "text", "text": text}], "isError": result.is_error}

    # -- results --------------------------------------------------------------------------------

    def fits(self, tool: str, size: int) -> bool:
        """True when a result message of *size* bytes cannot hold anything over *tool*'s
        limits: no text in it is that long (JSON only adds to a string's length)."""
        policies = (self.text.policy(tool), self.structured.policy(tool),
                    self.errors.policy(tool))
        return all(size <= p.inline_limit and p.max_lines is None and
                   (p.max_bytes is None or size <= p.max_bytes) for p in policies)

    def process(self, result: Mapping[str, Any], call: CallInfo) -> dict[str, Any] | None:
        """The result the host gets, or None when it passes unchanged."""
        content = result.get("content")
        if not isinstance(content, list):
            return None
        is_error = result.get("isError") is True
        truncator = self.errors if is_error else self.text
        context = _context(call)
        blocks: list[Any] = []
        report: list[dict[str, Any]] = []
        cut_texts: dict[str, TruncationResult] = {}
        for index, block in enumerate(content):
            text = block.get("text") if isinstance(block, dict) else None
            if not isinstance(text, str) or block.get("type") != "text":
                blocks.append(block)
                continue
            cut = truncator.process(text, tool=call.tool, **context)
            if not cut.was_truncated:
                blocks.append(block)
                continue
            cut_texts[text] = cut
            blocks.append({**block, "text": cut.content})
            blocks.extend(self._reference_block(cut))
            report.append(_entry(f"content[{index}]", cut))
        structured = result.get("structuredContent")
        new_structured: Any = _UNCHANGED
        if structured is not None:
            new_structured = self._structured(structured, call, cut_texts, context, report)
        if not report:
            return None
        out = dict(result)
        out["content"] = blocks
        if new_structured is not _UNCHANGED:
            out["structuredContent"] = new_structured
        meta = dict(out.get("_meta") or {})
        meta[META_KEY] = report
        out["_meta"] = meta
        return out

    def cut_error(self, text: str, call: CallInfo) -> tuple[str, dict[str, Any]] | None:
        """The message of a JSON-RPC error that answers *call*, cut as an error result is
        (its tail and its error lines), with its ``_meta`` entry; None when it fits."""
        cut = self.errors.process(text, tool=call.tool, **_context(call))
        if not cut.was_truncated:
            return None
        shown = "\n".join([cut.content, *(b["text"] for b in self._reference_block(cut))])
        return shown, _entry("error", cut)

    def _reference_block(self, cut: TruncationResult) -> list[dict[str, Any]]:
        """A text block naming the artifact, when the cut does not (a JSON cut's notes say
        what was left out, not where it is kept)."""
        artifact = cut.artifact
        if artifact is None or artifact.id in cut.content:
            return []
        get = self.names.shown["get_artifact"]
        return [{"type": "text", "text": (
            f"[The full output ({artifact.lines:,} lines, {artifact.size}) is stored as "
            f'artifact {artifact.id}: read it with {get}(artifact_id="{artifact.id}", '
            f"start_line=1, end_line=100), {self.names.shown['artifact_grep']} or "
            f"{self.names.shown['artifact_tail']}.]")}]

    def _structured(self, structured: Any, call: CallInfo,
                    cut_texts: Mapping[str, TruncationResult], context: Mapping[str, Any],
                    report: list[dict[str, Any]]) -> Any:
        policy = self.structured.policy(call.tool)
        if not _longer_than(structured, policy.inline_limit) and \
                len(_dumps(structured)) <= policy.inline_limit:
            return _UNCHANGED
        valid = self._validator(call.output_schema)
        source = structured
        if cut_texts:
            substituted, replaced = _substitute(structured, cut_texts)
            if replaced:
                if len(_dumps(substituted)) - replaced <= policy.inline_limit and \
                        valid(substituted):
                    report.append({"part": "structuredContent", "duplicates": "content"})
                    return substituted
                source = substituted
            for text, cut in cut_texts.items():
                candidate = _twin_cut(text, structured, cut)
                if candidate is not _UNCHANGED and valid(candidate):
                    report.append({"part": "structuredContent", "duplicates": "content"})
                    return candidate
        cut = self.structured.process(json.dumps(source, indent=1, ensure_ascii=False),
                                      tool=call.tool, **context)
        report.append(_entry("structuredContent", cut))
        try:
            candidate = json.loads(cut.content)
        except ValueError:
            candidate = _UNCHANGED
        if candidate is not _UNCHANGED:
            if valid(candidate):
                return candidate
            # The notes standing for what was left out (an array's string among objects, a
            # "..." member) are what a schema most often rejects: without them, the cut
            # may validate, and what was left out is still said in the text and _meta.
            bare = self._notes(policy).strip(candidate)
            if valid(bare):
                report[-1]["notes_removed"] = True
                return bare
        return self._reference_object(cut, cut.metadata.original_size)

    def _notes(self, policy: Policy) -> _Notes:
        notes = self._note_patterns.get(policy.marker)
        if notes is None:
            notes = self._note_patterns[policy.marker] = _Notes(policy.marker)
        return notes

    def _reference_object(self, cut: TruncationResult, original_chars: int) -> dict[str, Any]:
        artifact = cut.artifact
        if artifact is None:
            note = (f"The structured content ({original_chars:,} characters) is over this "
                    "tool's limit, and its cut does not match the tool's output schema; it "
                    f"could not be kept ({cut.metadata.artifact_error or 'spill is off'}).")
        else:
            get = self.names.shown["get_artifact"]
            note = (f"The structured content ({original_chars:,} characters) is over this "
                    "tool's limit, and its cut does not match the tool's output schema. It is "
                    f"stored whole, as indented JSON, in artifact {artifact.id}: read it with "
                    f'{get}(artifact_id="{artifact.id}", start_line=1, end_line=100) or '
                    f"{self.names.shown['artifact_grep']}.")
        return {"_truncated": {"artifact_id": artifact.id if artifact else None,
                               "original_chars": original_chars, "note": note}}

    def _validator(self, schema: Mapping[str, Any] | None) -> Callable[[Any], bool]:
        if schema is None:
            return lambda value: isinstance(value, dict)
        key = json.dumps(schema, sort_keys=True)
        check = self._validators.get(key)
        if check is None:
            import jsonschema  # type: ignore[import-untyped]

            try:
                cls = jsonschema.validators.validator_for(schema)
                cls.check_schema(schema)
                check = cls(schema).is_valid
            except (jsonschema.SchemaError, TypeError, ValueError):
                def check(value: Any) -> bool:  # a broken schema: JSON objects pass
                    return isinstance(value, dict)
            self._validators[key] = check
        return check


def not_found_note(store: ArtifactStore, arguments: Any) -> str:
    """What a 404 of the artifact tools adds: the session read, and the one that holds the
    artifact (or the tool call's) when another session of the store does."""
    from truncation_core.errors import ArtifactError
    from truncation_core.types.ids import is_tool_call_id
    from truncation_core.types.storage import find_tool_call_anywhere

    handle = arguments.get("artifact_id") if isinstance(arguments, Mapping) else None
    here = store.session_id
    elsewhere: str | None = None
    try:
        if is_tool_call_id(handle):
            found = find_tool_call_anywhere(store.backend, str(handle))
            elsewhere = found[0].session_id if found is not None else None
        elif isinstance(handle, str):
            elsewhere = store.backend.find(handle).session_id
    except (ArtifactError, OSError):
        elsewhere = None
    if elsewhere is not None and elsewhere != here:
        return (f" It is kept in session {elsewhere}, not in session {here}, which this "
                "server reads. Runs share artifacts through a named session: start this "
                f"one with --session {elsewhere} (or store.session: {elsewhere}) to read it.")
    return (f" This server reads session {here} only: artifacts of another run are found when "
            "both runs name the same session (--session NAME, or store.session).")


def _context(call: CallInfo) -> dict[str, Any]:
    context: dict[str, Any] = {"tool_call_id": call.call_id, "server": call.server}
    if call.arguments:
        for key in _SUMMARY_ARGUMENTS:
            value = call.arguments.get(key)
            if isinstance(value, str) and value.strip():
                context["path" if key == "uri" else key] = value
                break
    return context


def _entry(part: str, cut: TruncationResult) -> dict[str, Any]:
    meta = cut.metadata
    return {"part": part, "artifact_id": meta.artifact_id, "strategy": meta.strategy_used,
            "original_chars": meta.original_size, "shown_chars": meta.truncated_size,
            "omitted_lines": meta.omitted_lines}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _longer_than(value: Any, limit: int) -> bool:
    """Whether *value*'s JSON is surely longer than *limit* characters, found by adding up
    the lengths of its strings and numbers until they pass it (the JSON is longer still:
    quotes, escapes, punctuation), so a large value costs no more than *limit*."""
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item) + 2
        elif isinstance(item, dict):
            total += 2 * len(item) + 1  # braces, colons, commas; keys and quotes below
            for key, child in item.items():
                total += len(key) + 2
                stack.append(child)
        elif isinstance(item, list):
            total += len(item) + 1
            stack.extend(item)
        else:  # a number is at least 1 character; true, false and null at least 4
            total += 1 if isinstance(item, int | float) and not isinstance(item, bool) else 4
        if total > limit:
            return True
    return False


def _substitute(value: Any, cut_texts: Mapping[str, TruncationResult],
                depth: int = 0) -> tuple[Any, int]:
    """*value* with each string equal to a cut text block replaced by that block's cut, and
    the serialized size of the replacements."""
    if isinstance(value, str):
        cut = cut_texts.get(value)
        return (value, 0) if cut is None else (cut.content, len(_dumps(cut.content)))
    if depth > 64:
        return value, 0
    if isinstance(value, dict):
        replaced = 0
        out: dict[str, Any] = {}
        for key, item in value.items():
            out[key], n = _substitute(item, cut_texts, depth + 1)
            replaced += n
        return (out, replaced) if replaced else (value, 0)
    if isinstance(value, list):
        items = [_substitute(item, cut_texts, depth + 1) for item in value]
        replaced = sum(n for _, n in items)
        return ([item for item, _ in items], replaced) if replaced else (value, 0)
    return value, 0


def _twin_cut(text: str, structured: Any, cut: TruncationResult) -> Any:
    """The cut of *text* parsed, when *text* is *structured* as JSON and was cut as JSON."""
    if cut.metadata.strategy_used not in JSON_STRATEGIES or text.lstrip()[:1] not in ("{", "["):
        return _UNCHANGED
    try:
        if json.loads(text) != structured:
            return _UNCHANGED
        return json.loads(cut.content)
    except (ValueError, RecursionError):
        return _UNCHANGED


class _Notes:
    """Recognises the notes the element strategy puts in a JSON cut, to take them out."""

    def __init__(self, templates: MarkerConfig) -> None:
        self._item = _pattern(templates.json_items)
        self._depth = _pattern(templates.json_depth)
        self._keys = _pattern(templates.json_keys)
        self._key = templates.json_key

    def strip(self, value: Any, depth: int = 0) -> Any:
        if depth > 256:
            return value
        if isinstance(value, list):
            return [self.strip(item, depth + 1) for item in value
                    if not (isinstance(item, str) and self._is_item_note(item))]
        if isinstance(value, dict):
            return {key: self.strip(item, depth + 1) for key, item in value.items()
                    if not (key == self._key and isinstance(item, str)
                            and (self._keys.fullmatch(item) or self._depth.fullmatch(item)))}
        return value

    def _is_item_note(self, text: str) -> bool:
        return bool(self._item.fullmatch(text) or self._depth.fullmatch(text))


def _pattern(template: str) -> re.Pattern[str]:
    """A regular expression matching what *template* renders, whatever its fields hold."""
    parts = []
    for literal, field, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field is not None:
            parts.append(".*?")
    return re.compile("".join(parts), re.S)
