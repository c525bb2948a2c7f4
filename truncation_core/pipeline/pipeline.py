"""The one pipeline: what happens to a tool result over its limits, for ``process`` and streams.

The steps, in this order, each a hook that plugins may take over::

    select_strategy -> store_artifact -> truncate (format_marker for each marker)
                    -> highlights (salient_detector) -> metadata

Content over ``artifact_threshold`` gets an artifact reference above its cut, or, when it
is cut as a JSON, JSON Lines or XML document, inside it, so that it stays valid alone; what
the cut keeps is shown without terminal control (:mod:`truncation_core.pipeline.plain`).

:meth:`Pipeline.run` does them all for text in memory (``Truncator.process``). A stream
counts and keeps its content as it arrives, then asks the same object for each step:
:meth:`Pipeline.select`, :meth:`Pipeline.open_artifact`, and :meth:`Pipeline.finish`,
which cuts, renders markers, lifts highlights and builds the metadata exactly as for
``process``. A stream longer than the ends it kept is cut by the strategy's incremental
cutter if its ``stream_cutter`` made one, else by the strategy's cut when the strategy is
``streamable``, else by ``head_tail``, and the notes say why.

The user's word is enforced here: a tool whose strategy the user named (``tools.<name>
.strategy``, ``--strategy``) is cut with it whatever the plugins' ``select_strategy`` would
say, and the metadata names who chose (``strategy_chosen_by``).

Nothing a plugin does fails the call: an exception, or a result of the wrong type, is
reported with the plugin's name (:mod:`truncation_core.hooks.failures`) and the built-ins
take over, unless ``plugins.strict`` is on. The output is measured against the budget the
host holds, whatever a plugin returns.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from truncation_core.errors import StoreError, StoreFull, StoreRootRefused, log
from truncation_core.pipeline.counters import log_use, utilization
from truncation_core.pipeline.ends import window_for
from truncation_core.pipeline.results import (
    BinaryContent,
    TokenFigures,
    TruncationMetadata,
    TruncationResult,
)
from truncation_core.text.measure import measure
from truncation_core.tokens.estimate import EstimateTokenizer

if TYPE_CHECKING:
    from truncation_core.artifacts.limit import SizeLimitedWriter
    from truncation_core.highlights.bank import Pools
    from truncation_core.highlights.patterns import Matcher
    from truncation_core.hooks.failures import PluginFailure
    from truncation_core.hooks.host import PluginHost
    from truncation_core.pipeline.call import Call
    from truncation_core.pipeline.counters import StatsRecorder
    from truncation_core.pipeline.facts import Utf8Size
    from truncation_core.pipeline.tokens import CallTokens, Shown, Within
    from truncation_core.types.artifacts import ArtifactInfo, ArtifactRef
    from truncation_core.types.cuts import ContentFacts, Cut, Omission
    from truncation_core.types.markers import MarkerRenderer
    from truncation_core.types.models import Budget, Size
    from truncation_core.types.policy import Policy
    from truncation_core.types.storage import ArtifactStore
    from truncation_core.types.strategy import IncrementalCut
    from truncation_core.types.tokenizer import Tokenizer

__all__ = ["ORIGINAL_SAMPLE_CHARS", "Pipeline"]

#: A large original's tokens are extrapolated from this many characters at each of its ends.
ORIGINAL_SAMPLE_CHARS = 4096

# What only content over its limits uses is imported where it is first used, so that a
# Truncator whose content stays within its limits, and `trunc apply` of such content, never
# builds those classes: the cut's modules (the call, its facts, the token fit, the view, the
# value objects of a cut, the markers, resume coordinates, the text cutter, the size-limited
# writer, a plugin's failure) take 29 ms, 2.4x `python -c pass`, and the highlights' (the
# patterns' engine, the bank, the block) 80 ms (python -X importtime, fastest of 9, 2026-12).


class Pipeline:
    """The steps for one tool result over its limits, in one order, over one plugin host.

    :param plugins: the Truncator's plugins.
    :param store: gives the store artifacts go to now (the active session's).
    :param stats: where truncations are counted.
    """

    def __init__(self, plugins: PluginHost, *, store: Callable[[], ArtifactStore],
                 stats: StatsRecorder) -> None:
        self.plugins = plugins
        self._store = store
        self._stats = stats
        self._matchers: dict[str | None, Matcher] = {}

    # -- when a plugin fails -------------------------------------------------------------------

    def failed(self, exc: Exception, hook: str, instead: str, tool: str | None,
               notes: list[str] | None = None, *, suspect: object = None) -> PluginFailure:
        """Report a plugin's exception (or wrong result) and let the caller fall back; with
        ``plugins.strict``, re-raise it."""
        if self.plugins.strict:
            raise exc
        from truncation_core.hooks.failures import PluginFailure, report

        failure = PluginFailure.of(exc, hook, self.plugins, suspect)
        report(failure, instead, tool=tool, notes=notes)
        return failure

    # -- tokens and utilization ----------------------------------------------------------------

    def call_tokens(self, policy: Policy, notes: list[str] | None) -> CallTokens | None:
        """The token limit of a call under *policy*, or None without ``max_tokens``."""
        if policy.max_tokens is None:
            return None
        from truncation_core.pipeline.tokens import CallTokens

        def failed(exc: Exception, tokenizer: Tokenizer) -> None:
            self.failed(exc, "provides", f"counted with estimate instead of "
                        f"{getattr(tokenizer, 'name', '?')!r}", policy.tool, notes,
                        suspect=tokenizer)

        return CallTokens(_tokenizer_of(policy), policy.max_tokens, failed)

    def within_tokens(self, policy: Policy, text: str, size_bytes: int | None = None
                      ) -> Within | None:
        """Whether *text* (*size_bytes* in UTF-8, when measured) is within ``max_tokens``,
        and its count when it was counted whole (content within its other limits, on its way
        through); None without ``max_tokens`` (nothing to count: the token machinery is not
        even imported, see tests/test_imports.py). Content over the limit is counted only as
        far as a prefix that proves it over (:meth:`CallTokens.within
        <truncation_core.pipeline.tokens.CallTokens.within>`)."""
        tokens = self.call_tokens(policy, None)
        if tokens is None:
            return None
        return tokens.within(text, size_bytes)

    def record_use(self, policy: Policy, size: Size, tokens: int | None, *,
                   truncated: bool) -> None:
        """Count a result in the utilization histogram, and log it when it is over
        ``log_utilization_above``."""
        share, limit = utilization(size, policy, tokens)
        self._stats.record_use(policy.tool, share)
        threshold = policy.log_utilization_above
        if threshold is not None and share > threshold:
            log_use(policy.tool, share, limit, chars=size.chars, truncated=truncated)

    # -- the steps -----------------------------------------------------------------------------

    def select(self, tool: str | None, facts: ContentFacts, policy: Policy,
               context: Mapping[str, Any], notes: list[str]) -> tuple[str, str]:
        """The strategy that cuts, and who chose it: ``user`` (the user named the tool's
        strategy: no plugin is asked), ``plugin NAME`` (its ``select_strategy`` answered), or
        ``default`` (the built-in choice: the policy's strategy, or ``element`` for
        structured content)."""
        if policy.explicit_strategy:
            return policy.strategy, "user"
        try:
            chosen, plugin = self.plugins.select_strategy(tool=tool, facts=facts,
                                                          policy=policy, context=context)
        except Exception as exc:
            self.failed(exc, "select_strategy", f"used {policy.strategy!r}", tool, notes)
            return policy.strategy, "default"
        if chosen is None:
            return policy.strategy, "default"
        if chosen not in self.plugins.strategies:
            notes.append(f"no plugin provides strategy {chosen!r}; used {policy.strategy!r}")
            return policy.strategy, "default"
        return chosen, "default" if plugin is None else f"plugin {plugin}"

    def open_artifact(self, info: ArtifactInfo, policy: Policy) -> SizeLimitedWriter | None:
        """A writer for a new artifact, through the ``store_artifact`` hook.

        Every path that keeps content (``process``, streams) opens its writer here. The
        writer keeps at most ``policy.max_artifact_size`` bytes: beyond that, the head and
        the tail, and the committed ref says the artifact is cut (see
        :mod:`truncation_core.artifacts.limit`). A plugin's bug in opening or using the writer
        becomes a :class:`~truncation_core.hooks.failures.WriterFailed` (a ``StoreError``).
        """
        from truncation_core.hooks.failures import NOT_KEPT, GuardedWriter, WriterFailed

        def failed(exc: Exception, writer: object = None) -> WriterFailed:
            return WriterFailed(self.failed(exc, "store_artifact", NOT_KEPT, info.tool,
                                            suspect=writer))

        try:
            writer = self.plugins.store_artifact(store=self._store(), info=info,
                                                 policy=policy)
        except (StoreError, OSError):
            raise
        except Exception as exc:
            raise failed(exc) from None
        if writer is None:
            return None
        from truncation_core.artifacts.limit import SizeLimitedWriter

        return SizeLimitedWriter(GuardedWriter(writer, failed), info=info,
                                 limit=policy.max_artifact_size, head_share=policy.head_ratio)

    def keep(self, content: str | bytes, facts: ContentFacts, policy: Policy, tool: str | None,
             context: Mapping[str, Any], notes: list[str], *, size: Utf8Size | None = None
             ) -> tuple[ArtifactRef | None, str | None]:
        """Keep the full content (the text, or the tool's bytes) as an artifact; on failure,
        say why instead of raising.

        Text is encoded as it is written, a piece at a time, and the size limiter holds only
        what its tail needs: no full-size copy of the content is made (an ASCII text's middle
        that the limit drops is not even encoded). Writing it tells *size* the UTF-8 size.
        """
        from truncation_core.pipeline.facts import artifact_info

        def write(writer: SizeLimitedWriter) -> None:
            if isinstance(content, str):
                written = writer.write_text(content, terminators=facts.terminators)
                if size is not None:
                    size.learn(written)
            else:
                writer.write(content)

        return self.store(artifact_info(tool, context, facts), write, policy, tool,
                          lambda: facts.bytes, notes)

    def store(self, info: ArtifactInfo, write: Callable[[SizeLimitedWriter], None],
              policy: Policy, tool: str | None, size: Callable[[], int], notes: list[str]
              ) -> tuple[ArtifactRef | None, str | None]:
        """Store what *write* writes as an artifact described by *info*: its ref, or why it
        could not be stored (logged, with the content's *size*; never raised)."""
        from truncation_core.hooks.failures import WriterFailed

        try:
            writer = self.open_artifact(info, policy)
            if writer is None:
                return None, "no storage backend accepted it"
            with writer:
                write(writer)
                ref = writer.commit()
        except StoreFull:
            log.warning("artifact not stored (tool=%s, %d bytes): store full", tool, size())
            return None, "the artifact store is full"
        except WriterFailed as exc:  # reported where it was caught
            notes.append(exc.note)
            return None, "the artifact store failed"
        except StoreRootRefused as exc:  # the user's to fix: its message names store.root
            log.warning("artifact not stored (tool=%s, %d bytes): %s", tool, size(), exc)
            return None, exc.reason
        except (StoreError, OSError) as exc:
            log.warning("artifact not stored (tool=%s, %d bytes): %s", tool, size(),
                        type(exc).__name__)
            return None, "the artifact store failed"
        log.debug("stored artifact %s backend=%s bytes=%d tool=%s", ref.id, ref.backend,
                  ref.bytes, tool)
        return ref, None

    # -- binary content ------------------------------------------------------------------------

    def binary(self, raw: bytes, policy: Policy, budget: Budget, tool: str | None,
               context: Mapping[str, Any]) -> TruncationResult:
        """``process()`` of bytes that are binary: kept whole (unless ``spill`` is off), and
        shown as a summary (see :mod:`truncation_core.pipeline.binary`)."""
        import hashlib

        from truncation_core.pipeline.binary import binary_content, binary_info, binary_lines
        from truncation_core.text.binary import SAMPLE_BYTES

        found = binary_content(raw[:SAMPLE_BYTES], len(raw), hashlib.sha256(raw).hexdigest())
        lines = binary_lines(raw)
        notes: list[str] = []
        artifact, error = (self.store(binary_info(tool, context, found, lines),
                                      lambda writer: writer.write(raw), policy, tool,
                                      raw.__len__, notes)
                           if policy.spill else (None, None))
        return self.binary_result(found, lines=lines, policy=policy, budget=budget, tool=tool,
                                  artifact=artifact, artifact_error=error, notes=notes)

    def binary_result(self, found: BinaryContent, *, lines: int, policy: Policy,
                      budget: Budget, tool: str | None, artifact: ArtifactRef | None,
                      artifact_error: str | None, notes: list[str], above: str = ""
                      ) -> TruncationResult:
        """The summary of binary content *found* (kept as *artifact*), counted as a
        truncation: what ``process()`` and a stream give for the same bytes."""
        from truncation_core.pipeline.binary import summary

        result = summary(found, lines=lines, policy=policy, budget=budget, tool=tool,
                         artifact=artifact, artifact_error=artifact_error, notes=notes,
                         tokenizer=_tokenizer_of(policy), above=above)
        self._stats.record_truncation(tool, chars_saved=found.bytes - len(result.content),
                                      artifact=artifact is not None)
        self.record_use(policy, measure(result.content), None, truncated=True)
        log.debug("binary content tool=%s kind=%s bytes=%d artifact=%s", tool, found.kind,
                  found.bytes, result.metadata.artifact_id)
        return result

    def stream_cutters(self, tool: str | None, policy: Policy) -> dict[str, IncrementalCut]:
        """Strategy name -> the incremental cutter its ``stream_cutter`` makes for a stream
        whose text outgrows its head (for the strategies that may be chosen for *policy*'s
        tool)."""
        cutters: dict[str, IncrementalCut] = {}
        for strategy in self.plugins.strategies.values():
            if strategy.stream_cutter is None:
                continue
            try:
                cutter = strategy.stream_cutter(policy)
                if cutter is not None and not (callable(getattr(cutter, "feed", None))
                                               and callable(getattr(cutter, "finish", None))):
                    raise TypeError(f"stream_cutter() of strategy {strategy.name!r} returned a "
                                    f"{type(cutter).__name__}, not an IncrementalCut")
            except Exception as exc:
                self.failed(exc, "stream_cutter", f"strategy {strategy.name!r} cuts the stream "
                            "as text", tool, suspect=strategy.stream_cutter)
                continue
            if cutter is not None:
                cutters[strategy.name] = cutter
        return cutters

    def matcher(self, tool: str | None, policy: Policy,
                notes: list[str] | None = None) -> Matcher:
        """The compiled highlights detectors of *tool* (from ``salient_detector``)."""
        matcher = self._matchers.get(tool)
        if matcher is None:
            from truncation_core.highlights.patterns import Matcher

            try:
                detectors, wrong = self.plugins.salient_detectors(tool=tool, policy=policy)
                if wrong is not None:
                    raise wrong
                matcher = Matcher([p for d in detectors for p in d.patterns],
                                  units=[u for d in detectors for u in d.units],
                                  records=[r for d in detectors for r in d.records])
            except Exception as exc:  # not cached: each result says why it has no highlights
                self.failed(exc, "salient_detector", "no highlights", tool, notes)
                return Matcher(())
            matcher = self._matchers.setdefault(tool, matcher)
        return matcher

    # -- text in memory: every step ------------------------------------------------------------

    def run(self, text: str, raw: bytes | None, policy: Policy, budget: Budget,
            tool: str | None, context: Mapping[str, Any], *, decoded_from: str | None = None,
            chars_per_token: float | None = None) -> TruncationResult:
        """Cut *text* (the tool's *raw* bytes, decoded, when it returned bytes) to *budget*,
        keeping it first when ``spill`` is on. *decoded_from*: the encoding of *raw* when it
        is not UTF-8 (a byte-order mark said so); the artifact keeps *raw*, and omissions get
        no byte offsets (they would be the text's, not the artifact's). *chars_per_token*:
        what counting a part of it found (:meth:`within_tokens`), for the first cut to
        ``max_tokens``."""
        from truncation_core.pipeline.call import Call
        from truncation_core.pipeline.facts import Utf8Size, content_facts

        # Facts parse JSON content on first use and hold the document: millions of small
        # objects, which every collection would traverse while they live (as long again as
        # the parse, for no cycles). So from the parse on, the collector waits, and the
        # facts, the only holder of the document, are gone before it resumes. Content that
        # is never parsed never pauses it.
        with contextlib.ExitStack() as document_alive:
            # Bytes are kept (or were given): their size is known from the tool's bytes, or
            # measured on first use (O(1) for ASCII), or learnt by encoding the artifact.
            # Byte offsets say where omitted parts lie in the stored bytes (or the tool's
            # own); for text that is not kept they would address nothing.
            bytes_known = raw is not None or policy.spill
            size = Utf8Size(text)
            if decoded_from is not None and raw is not None:
                facts = content_facts(text, from_bytes=True, byte_size=raw.__len__,
                                      byte_offsets=False, scope=document_alive)
            else:
                facts = content_facts(text, from_bytes=raw is not None, encoded=raw,
                                      byte_size=size if raw is None else None,
                                      byte_offsets=bytes_known, scope=document_alive)
            notes: list[str] = []
            strategy, chosen_by = self.select(tool, facts, policy, context, notes)
            artifact, artifact_error = (
                self.keep(raw if raw is not None else text, facts, policy, tool, context, notes,
                          size=size)
                if policy.spill else (None, None))
            call = Call(tool=tool, policy=policy, budget=budget, context=context, text=text,
                        facts=facts, strategy=strategy, strategy_chosen_by=chosen_by,
                        artifact=artifact, artifact_error=artifact_error,
                        byte_size_known=bytes_known, decoded_from=decoded_from,
                        chars_per_token=chars_per_token)
            del facts
            result = self.finish(call, notes)
            del call
        return result

    # -- after the content is kept: cut, markers, highlights, metadata -------------------------

    def finish(self, call: Call, notes: list[str]) -> TruncationResult:
        """What the model sees of *call*, and the metadata saying what was done."""
        call = self._with_salient(call, notes)
        # -- max_tokens: cut by characters, then count what is shown (pipeline/tokens.py) --
        tokens = self.call_tokens(call.policy, notes)
        if tokens is not None:
            shown, counted = self._fit_tokens(call, tokens)
            notes.extend(shown.notes)
            return self._result(call, shown, notes, tokens=tokens, counted=counted)
        return self._result(call, self._shown(call, notes), notes)

    def _with_salient(self, call: Call, notes: list[str]) -> Call:
        """*call* with a policy whose ``salient`` gives the tool's salient patterns, compiled
        on first use and once for the call: the strategy (``adaptive`` looks for where the
        failures are) and the highlights share them, and a plugin's failure to give them is
        reported once."""
        found: list[Matcher] = []
        tool, policy = call.tool, call.policy

        def salient() -> Matcher:
            if not found:
                found.append(self.matcher(tool, policy, notes))
            return found[0]

        return attrs.evolve(call, policy=attrs.evolve(policy, salient=salient))

    def _fit_tokens(self, call: Call, tokens: CallTokens) -> tuple[Shown, int | None]:
        from truncation_core.pipeline.tokens import fit_tokens

        # The salient lines are scanned once for every cut tried (a scan reads all the text).
        scanned: list[Any] = []

        def render(chars: int) -> Shown:
            tried: list[str] = []
            shown = self._shown(attrs.evolve(call, budget=call.budget.capped(chars)), tried,
                                scanned)
            return attrs.evolve(shown, notes=tuple(tried))

        shown, counted, _ = fit_tokens(render, cap=call.budget.chars, tokens=tokens,
                                       above=call.above, chars_per_token=call.chars_per_token)
        return shown, counted

    def _shown(self, call: Call, notes: list[str], scanned: list[Any] | None = None) -> Shown:
        """What the model sees of *call* within its budget (characters, bytes, lines).
        *scanned* keeps the scan of its salient lines for the next cut of the same call."""
        from truncation_core.pipeline.tokens import Shown
        from truncation_core.types.markers import MarkerRenderer

        policy, facts, artifact = call.policy, call.facts, call.artifact
        markers = MarkerRenderer(format=self._format_marker, policy=policy,
                                 strategy=call.strategy, tool=call.tool, facts=facts,
                                 artifact=artifact, artifact_error=call.artifact_error)
        budget, header = call.budget, ""
        inside = ("", "")
        if artifact is not None and facts.chars > policy.artifact_threshold:
            # The reference tier: a line naming the artifact above the same cut inline
            # content gets, in the rest of the budget (or above a short preview). A JSON,
            # JSON Lines or XML cut carries it inside instead, so that it stays valid alone
            # (see _placed_inside): room is kept for the larger of the two.
            structured = facts.looks_like_json or facts.looks_like_xml
            try:
                header = markers.reference()
                if structured:
                    inside = markers.reference_inside()
            except Exception as exc:
                self.failed(exc, "format_marker", "used the built-in markers", call.tool,
                            notes)
                markers = markers.without_plugins()
                header = markers.reference()
                if structured:
                    inside = markers.reference_inside()
            size = measure(header)
            if inside[0]:
                from truncation_core.structured.rest import rest_cost

                size = _larger(size, rest_cost(*inside))
            room = budget.minus(size)
            if room is not None and room.admits(size):  # it takes half the budget at most
                budget = (room.capped(policy.preview_limit)
                          if policy.reference_preview == "short" else room)
            else:
                header = ""  # the reference does not fit: inline truncation, whose markers
                notes.append("artifact reference does not fit the budget")  # name it

        def cut_within(room: Budget, cut_notes: list[str]) -> Cut:
            nonlocal markers
            try:
                return self._cut(call, room, markers, cut_notes)
            except Exception as exc:
                self.failed(exc, "truncate", "cut with head_tail and the built-in markers",
                            call.tool, cut_notes)
                markers = markers.without_plugins()
                return _head_tail(call, room, markers)

        shared: list[Any] = scanned if scanned is not None else []
        noted: list[bool] = []

        def pools_for() -> Callable[[Omission], Pools] | None:  # scanned once, when first asked
            if not shared:
                scan_notes: list[str] = []
                shared.extend((call.pools_for or self._scan(call, scan_notes), scan_notes))
            if not noted:  # each cut's notes say what the scan found wrong
                notes.extend(shared[1])
                noted.append(True)
            return shared[0]  # type: ignore[no-any-return]

        # Under a short preview (reference_preview: short), the preview is all the model
        # sees of the content: the highlights come first there, and may take more of it.
        preview = bool(header) and policy.reference_preview == "short"

        def view(room: Budget) -> tuple[Cut, list[str]]:
            cut_notes: list[str] = []
            cut = cut_within(room, cut_notes)
            if policy.highlights and (cut.omissions or cut.details.get("format") == "jsonl"):
                cut = self._lift_highlights(call, cut, room, pools_for,
                                            lambda again: cut_within(again, []),
                                            preview=preview)
            return cut, cut_notes

        from truncation_core.pipeline.plain import plain_view

        cut, removed = plain_view(call, budget, view, notes)
        if header and cut.details.get("format") in _DOCUMENTS:
            placed = self._placed_inside(call, cut, inside, markers, notes)
            if placed is not None:
                return Shown(content=placed.text, cut=placed, terminal_chars=removed)
        return Shown(content=header + cut.text, cut=cut, terminal_chars=removed)

    def _placed_inside(self, call: Call, cut: Cut, inside: tuple[str, str],
                       markers: MarkerRenderer, notes: list[str]) -> Cut | None:
        """*cut*, a JSON, JSON Lines or XML document, with the artifact reference inside it
        where the note on the rest goes (:mod:`truncation_core.structured.rest`): an array's
        last item, an object's last member, one more record, a comment after the root
        element, or the end of a string. None when it has no place for one, or the budget
        no room: then the reference stands above it, as above text."""
        from truncation_core.structured.rest import with_rest

        note, key = inside
        if not note:  # content that did not look structured, cut by a plugin as JSON
            try:
                note, key = markers.reference_inside()
            except Exception as exc:
                self.failed(exc, "format_marker", "the reference stands above the document",
                            call.tool, notes)
                return None
        if not note:
            return None
        placed = with_rest(cut, note, key, call.budget)
        return None if placed is cut else placed

    def _format_marker(self, **kwargs: Any) -> str | None:
        return self.plugins.format_marker(**kwargs)

    def _cut(self, call: Call, budget: Budget, markers: MarkerRenderer,
             notes: list[str]) -> Cut:
        """The strategy's cut within *budget*, or head_tail's when it has none that fits."""
        name, text = call.strategy, call.text
        strategy = self.plugins.strategies.get(name)
        if strategy is None:  # a policy made outside this Truncator names it
            notes.append(f"no plugin provides strategy {name!r}; cut with head_tail instead")
            return _head_tail(call, budget, markers)
        if not call.whole:
            cutter = call.cutters.get(name)
            if cutter is not None:
                cut = self._finish_cutter(cutter, call, budget, markers, notes)
                if cut is not None:
                    return cut
            if not strategy.streamable:
                notes.append(f"strategy {name!r} cannot cut a stream this long; cut "
                             "with head_tail instead")
                return _head_tail(call, budget, markers)
        # The plugin gets its own copy of the budget: one that mutates it (object.__setattr__
        # gets through frozen) changes nothing that is checked here, or in later calls.
        cut = self.plugins.truncate(strategy=strategy, text=text,  # type: ignore[arg-type]
                                    budget=attrs.evolve(budget), facts=call.facts,
                                    policy=call.policy, markers=markers)
        if cut is not None and budget.admits(measure(cut.text)) and _counts_are_sane(cut):
            return cut
        problem = ("returned nothing" if cut is None
                   else "returned output over the budget" if not budget.admits(measure(cut.text))
                   else "returned negative counts")
        notes.append(f"strategy {name!r} {problem}; cut with head_tail instead")
        return _head_tail(call, budget, markers)

    def _finish_cutter(self, cutter: IncrementalCut, call: Call, budget: Budget,
                       markers: MarkerRenderer, notes: list[str]) -> Cut | None:
        from truncation_core.types.cuts import Cut

        try:
            cut = cutter.finish(text=call.text, budget=attrs.evolve(budget),  # type: ignore[arg-type]
                                facts=call.facts, markers=markers)
        except Exception as exc:
            self.failed(exc, "stream_cutter", "the stream cuts as text", call.tool, notes,
                        suspect=cutter)
            return None
        if cut is None:
            return None
        if not isinstance(cut, Cut):
            self.failed(TypeError(f"IncrementalCut.finish returned a {type(cut).__name__}, "
                                  "not a Cut"), "stream_cutter", "the stream cuts as text",
                        call.tool, notes, suspect=cutter)
            return None
        if budget.admits(measure(cut.text)) and _counts_are_sane(cut):
            return cut
        return None

    def _scan(self, call: Call, notes: list[str]) -> Callable[[Omission], Pools] | None:
        """The salient lines of *call*'s text for any region, or None without patterns."""
        salient = call.policy.salient
        matcher = salient() if salient is not None else self.matcher(call.tool, call.policy,
                                                                      notes)
        return _scanned(matcher, call) if matcher else None

    def _lift_highlights(self, call: Call, cut: Cut, budget: Budget,
                         pools_for: Callable[[], Callable[[Omission], Pools] | None],
                         recut: Callable[[Budget], Cut], *, preview: bool = False) -> Cut:
        pools = pools_for()
        if pools is None:
            return cut
        from truncation_core.highlights.block import PREVIEW_SHARE, SHARE, lift_highlights
        from truncation_core.types.resume import artifact_line

        artifact = call.artifact
        if cut.details.get("format") == "jsonl":  # element's JSON Lines: records, as records
            from truncation_core.highlights.block import lift_records

            return lift_records(
                cut, text=call.text, budget=budget, limit=call.policy.highlights,
                templates=call.policy.marker,
                pools_for=pools, recut=recut,
                records=frozenset(r.name for r in (
                    call.policy.salient() if call.policy.salient is not None
                    else self.matcher(call.tool, call.policy)).records),
                artifact_line=lambda line: artifact_line(line, artifact),
                share=PREVIEW_SHARE if preview else SHARE)
        return lift_highlights(
            cut, text=call.text, budget=budget, limit=call.policy.highlights,
            templates=call.policy.marker, pools_for=pools,
            recut=recut, artifact_line=lambda line: artifact_line(line, artifact),
            share=PREVIEW_SHARE if preview else SHARE)

    def _result(self, call: Call, shown: Shown, notes: list[str], *,
                tokens: CallTokens | None = None, counted: int | None = None
                ) -> TruncationResult:
        content, cut = shown.content, shown.cut
        facts, artifact = call.facts, call.artifact
        omissions = cut.omissions
        if artifact is not None:  # the numbers the markers show, for programs
            from truncation_core.types.resume import located

            omissions = tuple(located(region, artifact) for region in omissions)
        if artifact is not None and artifact.cut is not None:
            notes.append(f"the artifact itself is cut: original lines {artifact.cut.first_line}"
                         f"-{artifact.cut.last_line} ({artifact.cut.omitted_bytes} bytes) are "
                         "over max_artifact_size and were not kept")
        metadata = TruncationMetadata(
            tool=call.tool,
            was_truncated=True,
            strategy_used=cut.strategy or call.strategy,
            strategy_chosen_by=call.strategy_chosen_by,
            original_size=facts.chars,
            truncated_size=len(content),
            original_lines=facts.lines,
            omitted_chars=cut.omitted_chars,
            omitted_lines=cut.omitted_lines,
            limits=call.budget,
            artifact_id=artifact.id if artifact else None,
            artifact_error=call.artifact_error,
            original_bytes=facts.bytes if call.byte_size_known else None,
            omissions=omissions,
            notes=(*notes, *cut.notes),
            details=cut.details,
            artifact_truncated=artifact is not None and artifact.truncated,
            **self._token_fields(call, content, tokens, counted),
            terminal_chars_removed=shown.terminal_chars,
            decoded_from=call.decoded_from,
        )
        self._stats.record_truncation(call.tool, chars_saved=facts.chars - len(content),
                                      artifact=artifact is not None)
        # Against the policy's limits: a command's header is out of its characters, bytes and
        # lines already, and counted in its tokens (which max_tokens holds whole).
        self.record_use(call.policy, measure(content), counted, truncated=True)
        log.debug("truncated tool=%s strategy=%s chars=%d->%d omitted_lines=%d artifact=%s",
                  call.tool, metadata.strategy_used, facts.chars, len(content),
                  cut.omitted_lines, metadata.artifact_id)
        return TruncationResult(content, artifact=artifact, metadata=metadata)


    @staticmethod
    def _token_fields(call: Call, content: str, tokens: CallTokens | None,
                      counted: int | None) -> dict[str, Any]:
        """The metadata's tokenizer, limit and token figures (counted when read)."""
        tokenizer = tokens.tokenizer if tokens is not None else _tokenizer_of(call.policy)
        # A stream keeps window_for(policy) characters at each end: process() samples the
        # same ones, so that both give the same figures.
        text, sample = call.text, min(ORIGINAL_SAMPLE_CHARS, window_for(call.policy))
        whole = isinstance(text, str) and len(text) <= 2 * sample
        figures = TokenFigures(
            tokenizer, shown=content, original_chars=call.facts.chars,
            shown_tokens=counted if not call.above else None,
            original=text if whole else None,  # type: ignore[arg-type]
            samples=() if whole else (text[:sample], text[len(text) - sample:]))
        return {"tokenizer": tokenizer.name, "max_tokens": call.policy.max_tokens,
                "tokens": figures}


def _tokenizer_of(policy: Policy) -> Tokenizer:
    """The policy's tokenizer; ``estimate`` for a policy made without a Truncator."""
    if policy.counter is not None:
        return policy.counter

    return EstimateTokenizer()


#: The formats of a cut (``details["format"]``) that carry the artifact reference inside.
_DOCUMENTS = frozenset({"json", "jsonl", "xml"})


def _larger(a: Size, b: Size) -> Size:
    """The larger of *a* and *b* in every unit."""
    return type(a)(chars=max(a.chars, b.chars), bytes=max(a.bytes, b.bytes),
                   lines=max(a.lines, b.lines))


def _counts_are_sane(cut: Cut) -> bool:
    return cut.omitted_chars >= 0 and cut.omitted_lines >= 0


def _scanned(matcher: Matcher, call: Call) -> Callable[[Omission], Pools]:
    """Salient lines of an in-memory text, scanned once, for any region a cut omits."""
    from truncation_core.highlights.bank import StreamHighlights

    text = call.text
    bank = StreamHighlights(matcher, keep=call.policy.highlights,
                            window=window_for(call.policy))
    bank.feed(text, final=True, terminators=call.facts.terminators)  # type: ignore[arg-type]
    bank.close()
    return lambda region: bank.pools(region, len(text))


def _head_tail(call: Call, budget: Budget, markers: MarkerRenderer) -> Cut:
    """The fallback cut: the built-in head_tail, whatever strategy was asked for."""
    from truncation_core.text.cut import cut_text

    return attrs.evolve(cut_text(call.text, budget=budget,  # type: ignore[arg-type]
                                 facts=call.facts, markers=markers,
                                 head_share=call.policy.head_ratio), strategy="head_tail")
