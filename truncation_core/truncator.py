"""The Truncator: turns a tool result into what the model sees, keeping whatever is cut."""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

from truncation_core.artifacts import (
    ArtifactInfo,
    ArtifactRef,
    ArtifactStore,
    ArtifactWriter,
    new_session_id,
)
from truncation_core.config import Config, Policy, config_from_mapping
from truncation_core.errors import ConfigError, StoreError, StoreFull, did_you_mean
from truncation_core.gc_pause import paused_gc
from truncation_core.manager import PluginHost
from truncation_core.markers import MarkerRenderer
from truncation_core.models import Budget, ContentFacts, Cut, Omission
from truncation_core.offsets import raw_locator, text_locator
from truncation_core.plugin_failures import (
    NOT_KEPT,
    GuardedWriter,
    PluginFailure,
    WriterFailed,
    report,
)
from truncation_core.results import TruncationMetadata, TruncationResult, estimate_tokens
from truncation_core.sessions import Session, active_store
from truncation_core.stats import CallCounter, Stats, StatsRecorder
from truncation_core.structured.sniff import looks_like_json, looks_like_xml, parse
from truncation_core.text import count_lines, count_terminators, cut_text, measure, utf8_size

if TYPE_CHECKING:
    from truncation_core.retrieval import Retrieval
    from truncation_core.salient import Matcher
    from truncation_core.streams import AsyncStream, Stream
    from truncation_core.tools import ToolResult

__all__ = ["Truncator"]

_F = TypeVar("_F", bound=Callable[..., Any])

#: The library's logger. Records carry sizes, tool names, strategies and artifact ids; never
#: content.
log = logging.getLogger("truncation_core")

#: How a stream cuts its windows: ``(strategy, budget, markers, notes) -> Cut``.
CutWith = Callable[[str, Budget, MarkerRenderer, list[str]], Cut]

#: Context keys that describe the result for its artifact's one-line summary, in order.
_SUMMARY_KEYS = ("summary", "path", "command", "query", "url")


@attrs.frozen
class _ToolSlot:
    """Everything the pass-through path needs for one tool, found with one dict lookup."""

    policy: Policy
    count_call: CallCounter
    #: A ``str`` this long or shorter is within every limit without measuring it: the inline
    #: limit, or -1 when bytes or lines are limited too (then the text must be measured).
    unmeasured_chars: int

    @classmethod
    def of(cls, policy: Policy, count_call: CallCounter) -> _ToolSlot:
        plain = policy.max_bytes is None and policy.max_lines is None
        return cls(policy, count_call, policy.inline_limit if plain else -1)



def content_facts(text: str, *, from_bytes: bool = False, encoded: bytes | None = None,
                  byte_offsets: bool = True,
                  pause: contextlib.ExitStack | None = None) -> ContentFacts:
    """Facts about *text*: one pass to count line terminators, the rest O(1) or deferred.

    *encoded* is the content as bytes when already at hand (the tool's own bytes, or the
    encoding made for the artifact); otherwise the byte size is measured on first use. When
    the tool returned bytes (*from_bytes*), *encoded* must be those bytes: byte offsets then
    refer to them, even where they are not valid UTF-8. With *byte_offsets* false, omissions
    get no byte offsets (:meth:`ContentFacts.byte_offset` answers None). With *pause*, the
    parse (if anything asks for it) pauses the cyclic GC until the caller closes *pause*.
    """
    terminators = count_terminators(text)
    json = looks_like_json(text)
    byte_size = encoded.__len__ if encoded is not None else functools.cache(
        lambda: utf8_size(text))
    locate: Callable[[int], int] | None = None
    if from_bytes and encoded is not None:
        locate = raw_locator(encoded, encoded, total_chars=len(text), total_bytes=len(encoded),
                             tail_is_start=True)
    elif byte_offsets:
        locate = text_locator(text, byte_size)
    return ContentFacts(
        chars=len(text), lines=count_lines(text, terminators), terminators=terminators,
        looks_like_json=json, from_bytes=from_bytes,
        byte_size=byte_size, locate_byte=locate,
        looks_like_xml=not json and looks_like_xml(text),
        parse=(lambda: parse(text)) if pause is None else (lambda: _parse_paused(text, pause)))


def _parse_paused(text: str, pause: contextlib.ExitStack) -> Any:
    pause.enter_context(paused_gc())  # until the document is dropped (see Truncator._cut)
    return parse(text)


def summary_for(tool: str | None, context: Mapping[str, Any], facts: ContentFacts) -> str:
    """A one-line description of a tool result for its artifact (``ArtifactInfo`` clips it to
    100 characters)."""
    for key in _SUMMARY_KEYS:
        value = context.get(key)
        if isinstance(value, str) and value.strip():
            return value if key == "summary" else f"{tool or 'tool'}: {value}"
    kind = "JSON" if facts.looks_like_json else "output"
    return f"{tool} {kind}" if tool else f"tool {kind}"


class Truncator:
    """Decides what the model sees of each tool result, and keeps the rest.

    :param config: a :class:`~truncation_core.config.Config`, or a mapping with the config
        file's keys (``{"inline_limit": 2000, "default_strategy": "tail"}``). None uses the
        defaults. Nothing is read from the environment or from files; for that, use
        :meth:`from_config`.
    :param plugins: plugin objects (modules, or instances with ``@hookimpl`` methods) to
        register on top of the built-ins, installed plugins and configured project plugins.
        They are called first.
    :param store: the artifact store to use instead of the configured backend.
    :param load_entrypoints: discover installed plugins through entry points.
    """

    def __init__(
        self,
        config: Config | Mapping[str, Any] | None = None,
        *,
        plugins: Iterable[object] = (),
        store: ArtifactStore | None = None,
        load_entrypoints: bool = True,
        project_root: Path | None = None,
    ) -> None:
        if config is None:
            config = Config()
        elif not isinstance(config, Config):
            config = config_from_mapping(config)
        self.config: Config = config
        self.plugins = PluginHost.build(settings=config.plugins, plugins=plugins,
                                        load_entrypoints=load_entrypoints,
                                        project_root=project_root)
        self._check_names(store)
        # The default store: artifacts outside any session() go here. A relative store root
        # is taken from the project (the config file's directory), else the working directory.
        self._store: ArtifactStore = store if store is not None else self.plugins.backends[
            config.store.backend](config.store.resolved(project_root))
        self._slots: dict[str | None, _ToolSlot] = {}
        self._stats = StatsRecorder()
        self._matchers: dict[str | None, Matcher] = {}

    @classmethod
    def from_config(
        cls,
        path: Path | str | None = None,
        *,
        start: Path | str | None = None,
        environ: Mapping[str, str] | None = None,
        overrides: Mapping[str, Any] | None = None,
        plugins: Iterable[object] = (),
        store: ArtifactStore | None = None,
        load_entrypoints: bool = True,
    ) -> Truncator:
        """Build a Truncator from the project's configuration.

        Reads, by precedence: *overrides* (code), ``TRUNCATION_CORE_*`` environment variables,
        the nearest ``.truncation.yaml`` or ``[tool.truncation_core]`` in ``pyproject.toml``
        (or *path*), then the defaults. Project plugins named in config are imported relative
        to the config file's directory.
        """
        from truncation_core.config_sources import load_config

        loaded = load_config(path, start=start, environ=environ, overrides=overrides)
        return cls(loaded.config, plugins=plugins, store=store,
                   load_entrypoints=load_entrypoints, project_root=loaded.project_root)

    def _check_names(self, store: ArtifactStore | None) -> None:
        problems = []
        available = sorted(self.plugins.strategies)
        for path, name in self.config.strategy_names().items():
            if name not in self.plugins.strategies:
                problems.append(f"{path}: unknown strategy {name!r}{did_you_mean(name, available)}"
                                f" (available: {', '.join(available)})")
        backend = self.config.store.backend
        if store is None and backend not in self.plugins.backends:
            backends = sorted(self.plugins.backends)
            problems.append(f"store.backend: unknown backend {backend!r}"
                            f"{did_you_mean(backend, backends)} (available: {', '.join(backends)})")
        if problems:
            raise ConfigError(problems)

    @property
    def store(self) -> ArtifactStore:
        """Where artifacts go now: the store of the session entered here, if any, else the
        default one (see :meth:`session`)."""
        return active_store(self) or self._store

    # -- policies and stats ------------------------------------------------------------------

    def policy(self, tool: str | None = None) -> Policy:
        """The effective policy for *tool* (see :meth:`Config.policy_for`)."""
        return self._slot(tool).policy

    def _slot(self, tool: str | None) -> _ToolSlot:
        slot = self._slots.get(tool)
        if slot is None:
            new = _ToolSlot.of(self.config.policy_for(tool), self._stats.call_counter(tool))
            slot = self._slots.setdefault(tool, new)
        return slot

    def _matcher(self, tool: str | None, policy: Policy,
                 notes: list[str] | None = None) -> Matcher:
        """The compiled salient-line patterns of *tool* (from the ``salient_patterns`` hook)."""
        matcher = self._matchers.get(tool)
        if matcher is None:
            from truncation_core.salient import Matcher

            try:
                matcher = Matcher(self.plugins.salient_patterns(tool=tool, policy=policy))
            except Exception as exc:  # not cached: each result says why it has no highlights
                self._plugin_failed(exc, "salient_patterns", "no highlights", tool, notes)
                return Matcher(())
            matcher = self._matchers.setdefault(tool, matcher)
        return matcher

    def stats(self) -> Stats:
        """Per-tool calls, truncations, artifacts created, characters saved, and rates."""
        return self._stats.snapshot()

    # -- processing --------------------------------------------------------------------------

    def process(self, content: str | bytes, *, tool: str | None = None,
                **context: Any) -> TruncationResult:
        """Turn one tool result into what the model sees.

        Content within every limit comes back unchanged, at almost no cost: no hook runs and
        nothing is stored. Content over a limit is cut by the selected strategy to fit, and
        (unless ``spill`` is off) the full content is kept as an artifact first, so that the
        markers can say how to read back what was cut. Content over ``artifact_threshold``
        is shown as an artifact reference with a short preview.

        :param content: the tool result, ``str`` or ``bytes``. Bytes that are not valid UTF-8
            are shown with replacement characters; the artifact keeps the original bytes.
        :param tool: the tool's name, which selects its policy.
        :param context: anything else about the call. Recognised: ``tool_call_id``,
            ``server`` and ``summary`` (kept with the artifact); ``path``, ``command``,
            ``query``, ``url`` (used for the artifact's summary); ``already_truncated=True``
            (the tool truncated its own output: leave it alone). All of it reaches the
            ``select_strategy`` hook.
        """
        slot = self._slots.get(tool) or self._slot(tool)
        slot.count_call()
        if type(content) is str:
            if len(content) <= slot.unmeasured_chars:
                return TruncationResult(content, policy=slot.policy)
            text, raw = content, None
        elif isinstance(content, bytes | bytearray | memoryview):
            raw = bytes(content)
            text = raw.decode("utf-8", "replace")
        elif isinstance(content, TruncationResult):
            return content  # never truncate twice
        elif isinstance(content, str):  # a str subclass
            text, raw = str(content), None
        else:
            raise TypeError(f"content: expected str or bytes, got {type(content).__name__}")
        policy = slot.policy
        if context.get("already_truncated"):
            return TruncationResult(text, metadata=TruncationMetadata.unchanged(
                text, policy, opted_out=True))
        if len(text) <= policy.inline_limit and policy.budget.admits(measure(text)):
            return TruncationResult(text, policy=policy)
        return self._cut(text, raw, policy, tool, context)

    def stream(self, *, tool: str | None = None, **context: Any) -> Stream:
        """Start a tool result that arrives in chunks; see :mod:`truncation_core.streams`.

        ``with truncator.stream(tool=...) as s: s.write(chunk) ...``, then ``s.result()``.
        Memory is bounded by the budget whatever the size of the content, the full content
        goes to the artifact as it arrives, and the result equals what :meth:`process` gives
        for the same content. *context* is as for :meth:`process`, except that
        ``already_truncated`` (which would mean keeping everything) is refused.
        """
        from truncation_core.streams import Stream

        slot = self._slots.get(tool) or self._slot(tool)
        slot.count_call()
        if context.get("already_truncated"):
            raise ValueError("already_truncated: not supported by streams, which are always "
                             "cut to the budget; use process() for content the tool cut itself")
        policy = slot.policy
        try:
            cutters = self.plugins.stream_cutters(tool=tool, policy=policy, context=context)
        except Exception as exc:
            self._plugin_failed(exc, "stream_cutter", "the stream cuts as text", tool)
            cutters = []
        matcher = self._matcher(tool, policy) if policy.highlights else None
        return Stream(self, tool=tool, policy=policy, context=context, cutters=cutters,
                      matcher=matcher or None)

    def astream(self, *, tool: str | None = None, **context: Any) -> AsyncStream:
        """The async form of :meth:`stream`: ``async with truncator.astream(...) as s:
        await s.write(chunk)``, then ``await s.result()``."""
        from truncation_core.streams import AsyncStream

        return AsyncStream(self.stream(tool=tool, **context))

    def _unchanged(self, text: str, policy: Policy) -> TruncationResult:
        return TruncationResult(text, policy=policy)

    def _cut(self, text: str, raw: bytes | None, policy: Policy, tool: str | None,
             context: Mapping[str, Any]) -> TruncationResult:
        # Facts parse JSON content on first use and hold the document: millions of small
        # objects, which every collection would traverse while they live (as long again as
        # the parse, for no cycles). So from the parse on, the collector waits, and the
        # facts, the only holder of the document, are gone before it resumes. Content that
        # is never parsed never pauses it.
        document_alive = contextlib.ExitStack()
        try:
            # Encode once, up front, when the artifact will need the bytes: facts then know
            # the byte size without a second pass.
            data = raw if raw is not None else (
                text.encode("utf-8", "surrogatepass") if policy.spill else None)
            # Byte offsets say where omitted parts lie in the stored bytes (or the tool's
            # own); for text that is not kept they would cost a full encode and address
            # nothing.
            facts = content_facts(text, from_bytes=raw is not None, encoded=data,
                                  byte_offsets=data is not None, pause=document_alive)
            notes: list[str] = []
            strategy = self._choose_strategy(tool, facts, policy, context, notes)
            artifact, artifact_error = (self._spill(data, facts, policy, tool, context, notes)
                                        if data is not None and policy.spill else (None, None))
            result = self._render(text, facts, strategy, policy, tool, context, notes,
                                  artifact=artifact, artifact_error=artifact_error,
                                  byte_size_known=data is not None)
            del facts
        finally:
            document_alive.close()
        return result

    def _choose_strategy(self, tool: str | None, facts: ContentFacts, policy: Policy,
                         context: Mapping[str, Any], notes: list[str]) -> str:
        try:
            chosen = self.plugins.select_strategy(tool=tool, facts=facts, policy=policy,
                                                  context=context)
        except Exception as exc:
            self._plugin_failed(exc, "select_strategy", f"used {policy.strategy!r}", tool,
                                notes)
            return policy.strategy
        if chosen is None:
            return policy.strategy
        if not isinstance(chosen, str):
            notes.append(f"select_strategy returned a {type(chosen).__name__}, not a strategy "
                         f"name; used {policy.strategy!r}")
            return policy.strategy
        if chosen not in self.plugins.strategies:
            notes.append(f"no plugin provides strategy {chosen!r}; used {policy.strategy!r}")
            return policy.strategy
        return chosen

    def _plugin_failed(self, exc: Exception, hook: str, instead: str, tool: str | None,
                       notes: list[str] | None = None, *,
                       suspect: object = None) -> PluginFailure:
        """Report a plugin's exception and let the caller fall back (see
        :mod:`truncation_core.plugin_failures`); with ``plugins.strict``, re-raise it."""
        if self.config.plugins.strict:
            raise exc
        failure = PluginFailure.of(exc, hook, self.plugins, suspect)
        report(failure, instead, tool=tool, notes=notes)
        return failure

    def _render(self, text: str, facts: ContentFacts, strategy: str, policy: Policy,
                tool: str | None, context: Mapping[str, Any], notes: list[str], *,
                artifact: ArtifactRef | None, artifact_error: str | None,
                byte_size_known: bool, cut_with: CutWith | None = None,
                pools_for: Callable[[Omission], Any] | None = None) -> TruncationResult:
        """Everything after the artifact is kept: markers, the cut, metadata, stats.

        *text* may be a stream's :class:`~truncation_core.windows.TextWindows`; the stream
        then passes *cut_with*, which cuts its windows the way the strategy would, and
        *pools_for*, which gives the salient lines it found in an omitted region.
        """
        markers = MarkerRenderer(format=self.plugins.format_marker, policy=policy,
                                 strategy=strategy, tool=tool, facts=facts, artifact=artifact,
                                 artifact_error=artifact_error)
        budget, header = policy.budget, ""
        if artifact is not None and facts.chars > policy.artifact_threshold:
            try:
                header = markers.reference()
            except Exception as exc:
                self._plugin_failed(exc, "format_marker", "used the built-in markers", tool,
                                    notes)
                markers = markers.without_plugins()
                header = markers.reference()
            room = budget.minus(measure(header))
            if room is not None and room.chars > 0:
                budget = room.capped(policy.preview_limit)
            else:
                header = ""  # the reference does not fit: inline truncation, whose markers
                notes.append("artifact reference does not fit the budget")  # name the artifact

        def run(room: Budget, notes: list[str]) -> Cut:
            nonlocal markers
            try:
                if cut_with is None:
                    return self._run_strategy(strategy, text, room, facts, policy, markers,
                                              notes)
                return cut_with(strategy, room, markers, notes)
            except Exception as exc:
                self._plugin_failed(exc, "truncate",
                                    "cut with head_tail and the built-in markers", tool, notes)
                markers = markers.without_plugins()
                return _head_tail(text, room, facts, policy, markers)

        cut = run(budget, notes)
        if policy.highlights and cut.omissions:
            matcher = self._matcher(tool, policy, notes)
            if matcher:
                from truncation_core.resume import artifact_line
                from truncation_core.salient import lift_highlights

                cut = lift_highlights(
                    cut, text=text, budget=budget, limit=policy.highlights,
                    templates=policy.marker,
                    pools_for=pools_for or _scanned(matcher, text, policy),
                    recut=lambda room: run(room, []),
                    artifact_line=lambda line: artifact_line(line, artifact))
        content = header + cut.text
        omissions = cut.omissions
        if artifact is not None:  # the numbers the markers show, for programs
            from truncation_core.resume import located

            omissions = tuple(located(region, artifact) for region in omissions)
        if artifact is not None and artifact.cut is not None:
            notes.append(f"the artifact itself is cut: original lines {artifact.cut.first_line}"
                         f"-{artifact.cut.last_line} ({artifact.cut.omitted_bytes} bytes) are "
                         "over max_artifact_size and were not kept")
        metadata = TruncationMetadata(
            tool=tool,
            was_truncated=True,
            strategy_used=cut.strategy or strategy,
            original_size=facts.chars,
            truncated_size=len(content),
            original_lines=facts.lines,
            omitted_chars=cut.omitted_chars,
            omitted_lines=cut.omitted_lines,
            estimated_tokens=estimate_tokens(len(content)),
            original_tokens=estimate_tokens(facts.chars),
            limits=policy.budget,
            artifact_id=artifact.id if artifact else None,
            artifact_error=artifact_error,
            original_bytes=facts.bytes if byte_size_known else None,
            omissions=omissions,
            notes=(*notes, *cut.notes),
            details=cut.details,
            artifact_truncated=artifact is not None and artifact.truncated,
        )
        self._stats.record_truncation(tool, chars_saved=facts.chars - len(content),
                                      artifact=artifact is not None)
        log.debug("truncated tool=%s strategy=%s chars=%d->%d omitted_lines=%d artifact=%s",
                  tool, metadata.strategy_used, facts.chars, len(content), cut.omitted_lines,
                  metadata.artifact_id)
        return TruncationResult(content, artifact=artifact, metadata=metadata)

    def _run_strategy(self, strategy: str, text: str, budget: Budget, facts: ContentFacts,
                      policy: Policy, markers: MarkerRenderer, notes: list[str]) -> Cut:
        cut = self.plugins.truncate(strategy=strategy, text=text, budget=budget, facts=facts,
                                    policy=policy, markers=markers)
        if isinstance(cut, Cut) and budget.admits(measure(cut.text)):
            return cut
        problem = ("returned nothing" if cut is None
                   else f"returned a {type(cut).__name__}, not a Cut" if not isinstance(cut, Cut)
                   else "returned output over the budget")
        notes.append(f"strategy {strategy!r} {problem}; cut with head_tail instead")
        return _head_tail(text, budget, facts, policy, markers)

    def artifact_info(self, tool: str | None, context: Mapping[str, Any],
                      facts: ContentFacts) -> ArtifactInfo:
        """What the store is told about a tool result it keeps."""
        return ArtifactInfo(
            tool=tool,
            tool_call_id=_str_or_none(context.get("tool_call_id")),
            server=_str_or_none(context.get("server")),
            summary=summary_for(tool, context, facts),
            content_type="application/json" if facts.looks_like_json else "text/plain",
            chars=facts.chars,
            lines=facts.lines,
        )

    def open_artifact(self, info: ArtifactInfo, policy: Policy) -> ArtifactWriter | None:
        """A writer for a new artifact, through the ``store_artifact`` hook.

        Every path that keeps content (``process``, streams) opens its writer here. The writer
        keeps at most ``policy.max_artifact_size`` bytes: beyond that, the head and the tail,
        and the committed ref says the artifact is cut (see
        :mod:`truncation_core.artifact_limit`). Pass the final sizes to ``commit(info)`` when
        they are known only at the end. A plugin's bug in opening or using the writer
        becomes a :class:`~truncation_core.plugin_failures.WriterFailed` (a ``StoreError``).
        """

        def failed(exc: Exception, writer: object = None) -> WriterFailed:
            return WriterFailed(self._plugin_failed(exc, "store_artifact", NOT_KEPT, info.tool,
                                                    suspect=writer))

        try:
            writer = self.plugins.store_artifact(store=self.store, info=info, policy=policy)
        except (StoreError, OSError):
            raise
        except Exception as exc:
            raise failed(exc) from None
        if writer is None:
            return None
        from truncation_core.artifact_limit import SizeLimitedWriter

        return SizeLimitedWriter(GuardedWriter(writer, failed), info=info,
                                 limit=policy.max_artifact_size, head_share=policy.head_ratio)

    def _spill(self, data: bytes, facts: ContentFacts, policy: Policy, tool: str | None,
               context: Mapping[str, Any], notes: list[str]
               ) -> tuple[ArtifactRef | None, str | None]:
        """Keep the full content; on failure, say why instead of raising."""
        try:
            writer = self.open_artifact(self.artifact_info(tool, context, facts), policy)
            if writer is None:
                return None, "no storage backend accepted it"
            with writer:
                writer.write(data)
                ref = writer.commit()
        except StoreFull:
            log.warning("artifact not stored (tool=%s, %d bytes): store full", tool, len(data))
            return None, "the artifact store is full"
        except WriterFailed as exc:  # reported where it was caught
            notes.append(exc.note)
            return None, "the artifact store failed"
        except (StoreError, OSError) as exc:
            log.warning("artifact not stored (tool=%s, %d bytes): %s", tool, len(data),
                        type(exc).__name__)
            return None, "the artifact store failed"
        log.debug("stored artifact %s backend=%s bytes=%d tool=%s", ref.id, ref.backend,
                  ref.bytes, tool)
        return ref, None

    # -- artifacts: sessions, retrieval, tools ---------------------------------------------

    def session(self, session_id: str | None = None, *, keep: bool = False) -> Session:
        """A session: inside ``with truncator.session() as s:`` (or ``async with``), artifacts
        go to session *session_id* (a new one when None), and are deleted when the block
        ends unless *keep* (or ``s.keep = True``). See :mod:`truncation_core.sessions`.
        """
        if session_id is None:
            session_id = new_session_id()
        return Session(self, self._store.for_session(session_id), keep=keep)

    @property
    def artifacts(self) -> Retrieval:
        """Read artifacts of the current session back: ``read``, ``text``, ``lines``,
        ``head``, ``tail``, ``page``, ``grep``, ``stat``, ``checksum`` (see
        :class:`truncation_core.retrieval.Retrieval`); ``list`` and ``delete`` are on
        :attr:`store`."""
        from truncation_core.retrieval import reader_for

        return reader_for(self.store)

    def tool_schemas(self, format: str = "openai") -> list[dict[str, Any]]:
        """JSON schemas of the artifact tools (``get_artifact``, ``artifact_head``,
        ``artifact_tail``, ``artifact_grep``) in a function-calling *format*: ``openai``,
        ``openai-responses``, ``anthropic`` or ``mcp``."""
        from truncation_core.tools import tool_schemas

        return tool_schemas(format)

    def call_tool(self, name: str, arguments: Mapping[str, Any] | str | None = None, *,
                  names: Mapping[str, str] | None = None) -> ToolResult:
        """Run one artifact tool call (*arguments* as a mapping or a JSON string). Never
        raises: errors come back in the result (400 bad call, 404 unknown artifact).

        *names* maps tool names to the names the model knows the tools by, when they differ
        (``{"get_artifact": "trunc_get_artifact"}``): the calls the result suggests use them.
        """
        from truncation_core.tools import call_tool

        return call_tool(self, name, arguments, names=names)

    def tool(self, name: str | Callable[..., Any] | None = None) -> Any:
        """Decorator: the function's result goes through :meth:`process` as tool *name*
        (default: the function's name), and the wrapper returns what the model sees.

        ``@truncator.tool("read_file")``, ``@truncator.tool()`` or ``@truncator.tool``.
        Async functions stay async (and use :meth:`aprocess`).
        """
        from truncation_core.tools import wrap_tool

        if callable(name):
            return wrap_tool(self, name, getattr(name, "__name__", "tool"))

        def decorate(fn: _F) -> _F:
            return wrap_tool(self, fn, name or getattr(fn, "__name__", "tool"))  # type: ignore[return-value]

        return decorate

    async def aprocess(self, content: str | bytes, *, tool: str | None = None,
                       **context: Any) -> TruncationResult:
        """:meth:`process` for async code: content over its limit is cut and stored in a
        worker thread, so the event loop is never blocked (NFR-004). Content within its
        limit is returned at once."""
        slot = self._slots.get(tool) or self._slot(tool)
        if type(content) is str and len(content) <= slot.unmeasured_chars:
            return self.process(content, tool=tool, **context)
        import asyncio

        return await asyncio.to_thread(self.process, content, tool=tool, **context)


def _scanned(matcher: Matcher, text: str, policy: Policy) -> Callable[[Omission], Any]:
    """Salient lines of an in-memory text, scanned once, for any region a cut omits."""
    from truncation_core.salient import StreamHighlights
    from truncation_core.streams import window_for

    bank = StreamHighlights(matcher, keep=policy.highlights, window=window_for(policy))
    bank.feed(text, final=True)
    bank.close()
    return lambda region: bank.pools(region, len(text))


def _head_tail(text: str, budget: Budget, facts: ContentFacts, policy: Policy,
               markers: MarkerRenderer) -> Cut:
    """The fallback cut: the built-in head_tail, whatever strategy was asked for."""
    return attrs.evolve(cut_text(text, budget=budget, facts=facts, markers=markers,
                                 head_share=policy.head_ratio), strategy="head_tail")


def _str_or_none(value: object) -> str | None:
    return None if value is None else str(value)
