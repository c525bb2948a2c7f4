"""The Truncator: turns a tool result into what the model sees, keeping whatever is cut.

This is the facade. It holds one Truncator's configuration, plugins, store and counters,
answers content within its limits at almost no cost, and hands anything larger to the
pipeline (:mod:`truncation_core.pipeline.pipeline`), which a stream uses too.
"""

from __future__ import annotations

import copy
import functools
import itertools
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import attrs

from truncation_core.artifacts.sessions import Session, active_store
from truncation_core.config.model import Config
from truncation_core.errors import (
    ConfigError,
    PluginDisabledWarning,
    PluginLoadWarning,
    StoreError,
    did_you_mean,
    log,
)
from truncation_core.hooks.host import PluginHost
from truncation_core.pipeline.counters import BUCKETS, CallCounter, StatsRecorder, log_use
from truncation_core.pipeline.pipeline import Pipeline
from truncation_core.pipeline.results import TruncationMetadata, TruncationResult
from truncation_core.retrieval import reader_for
from truncation_core.storage.filesystem import NAME, FilesystemStore
from truncation_core.text.measure import measure
from truncation_core.types.ids import new_session_id
from truncation_core.types.models import Budget
from truncation_core.types.policy import Policy
from truncation_core.types.settings import ToolConfig
from truncation_core.types.storage import ArtifactStore, ArtifactWriter

if TYPE_CHECKING:
    from pathlib import Path

    # The SDKs' own types for a tool definition, so that a type checker accepts what
    # tool_schemas() returns where the SDK expects its tools. Only type checkers read these;
    # without the SDK installed, a checker takes them as Any.
    from anthropic.types import ToolParam as AnthropicToolParam
    from openai.types.chat import ChatCompletionToolParam
    from openai.types.responses import FunctionToolParam

    from truncation_core.pipeline.stats import Stats
    from truncation_core.retrieval import Retrieval
    from truncation_core.retrieval.asynchronous import AsyncRetrieval
    from truncation_core.streaming.stream import AsyncStream, Stream
    from truncation_core.tools.calls import ToolResult
    from truncation_core.types.artifacts import ArtifactInfo
    from truncation_core.types.tokenizer import Tokenizer

__all__ = ["Truncator"]

# Imported where first used, each what a Truncator that only processes content never needs
# (python -X importtime, fastest of 9, 2026-12; `python -c pass` takes about 12 ms): the
# cattrs converter for a mapping (47 ms), the config files' sources (only from_config), a
# plugin's failure (12 ms), the stats report (2 ms), streams (2 ms), the artifact tools (their
# schemas 14 ms, calls 45 ms, the decorator 3.5 ms), async reading (35 ms), asyncio (51 ms).

_F = TypeVar("_F", bound=Callable[..., Any])


#: A character is at most 4 bytes of UTF-8, and a byte-level token at least one byte.
_MAX_TOKENS_PER_CHAR = 4


@attrs.frozen
class _ToolSlot:
    """Everything the pass-through path needs for one tool, found with one dict lookup."""

    policy: Policy
    #: The policy's limits, held by the host: a hook cannot widen them.
    budget: Budget
    count_call: CallCounter
    #: A ``str`` this long or shorter is within every limit without measuring it: the inline
    #: limit (and a quarter of ``max_tokens`` under a byte-level tokenizer), or -1 when bytes
    #: or lines are limited too, or tokens under another tokenizer (then it is measured).
    unmeasured_chars: int
    #: The utilization histogram's counters (see :mod:`truncation_core.pipeline.stats`).
    use: list[itertools.count[int]]
    #: A result longer than this is over ``log_utilization_above`` of ``inline_limit``.
    log_chars: int

    @classmethod
    def of(cls, policy: Policy, count_call: CallCounter,
           use: list[itertools.count[int]]) -> _ToolSlot:
        unmeasured = (policy.inline_limit
                      if policy.max_bytes is None and policy.max_lines is None else -1)
        if policy.max_tokens is not None and unmeasured >= 0:
            byte_level = policy.counter is not None and policy.counter.byte_level
            unmeasured = (min(unmeasured, policy.max_tokens // _MAX_TOKENS_PER_CHAR)
                          if byte_level else -1)
        share = policy.log_utilization_above
        log_chars = sys.maxsize if share is None else int(share * policy.inline_limit)
        return cls(policy, policy.budget, count_call, unmeasured, use, log_chars)


class Truncator:
    """Decides what the model sees of each tool result, and keeps the rest.

    :param config: a :class:`~truncation_core.config.model.Config`, or a mapping with the config
        file's keys (``{"inline_limit": 2000, "default_strategy": "tail"}``). None uses the
        defaults. Nothing is read from the environment or from files; for that, use
        :meth:`from_config`.
    :param plugins: plugin objects (modules, or instances with ``@hookimpl`` methods) to
        register on top of the built-ins, installed plugins and configured project plugins.
        They are called first.
    :param store: the artifact store to use instead of the configured backend.
    :param load_entrypoints: discover installed plugins through entry points.
    :param project_root: where project plugins (``plugins.modules``) are imported from, and
        a relative ``store.root`` is taken from (default: the working directory).
    :param environ: the environment whose plugin switches (``TRUNCATION_CORE_PLUGINS``,
        ``TRUNCATION_CORE_DISABLE_PLUGINS`` ...) restrict which plugins load; default: the
        process environment. Nothing else is read from it (for that, use
        :meth:`from_config`).
    """

    def __init__(
        self,
        config: Config | Mapping[str, Any] | None = None,
        *,
        plugins: Iterable[object] = (),
        store: ArtifactStore | None = None,
        load_entrypoints: bool = True,
        project_root: Path | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        if config is None:
            config = Config()
        elif not isinstance(config, Config):
            from truncation_core.config.converter import config_from_mapping

            config = config_from_mapping(config)
        self.plugins = PluginHost.build(settings=config.plugins, plugins=plugins,
                                        load_entrypoints=load_entrypoints,
                                        project_root=project_root, environ=environ)
        self.config: Config = _checked_names(config, self.plugins, store)
        # The default store: artifacts outside any session() go here. A relative store root
        # is taken from the project (the config file's directory), else the working directory.
        self._store: ArtifactStore = store if store is not None else self._open_store(
            project_root)
        self._slots: dict[str | None, _ToolSlot] = {}
        # Whose sessions this Truncator's store follows: its own, or, for a copy made by
        # publishing(), the original's.
        self._owner: Truncator = self
        self._stats = StatsRecorder()
        self._pipeline = Pipeline(self.plugins, store=lambda: self.store, stats=self._stats)

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
        from truncation_core.config.sources import load_config

        loaded = load_config(path, start=start, environ=environ, overrides=overrides)
        return cls(loaded.config, plugins=plugins, store=store,
                   load_entrypoints=load_entrypoints, project_root=loaded.project_root,
                   environ=environ)

    def _open_store(self, project_root: Path | None) -> ArtifactStore:
        """The configured backend's store, through the factory its plugin provides.

        A plugin's factory that raises, or returns something that is not a store, is a
        plugin's bug like any other: a warning names the plugin, and the built-in
        filesystem backend keeps the artifacts instead (with ``plugins.strict``, it raises).
        """
        config = self.config.store
        if project_root is None and config.backend == "filesystem":
            # No config file: the store an earlier run made at or above the working
            # directory, if any (a relative root is taken from the workspace).
            from truncation_core.config.sources import find_store_workspace

            found = find_store_workspace(os.fspath(config.root))
            if found is not None:
                from pathlib import Path

                project_root = Path(found)
        config = config.resolved(project_root)
        factory = self.plugins.backends[config.backend]
        try:
            store = factory(config)
            if not isinstance(store, ArtifactStore):
                raise TypeError(f"the factory returned a {type(store).__name__}, not an "
                                "ArtifactStore")
        except (ConfigError, StoreError):
            raise
        except Exception as exc:
            if self.plugins.strict:
                raise
            from truncation_core.hooks.failures import PluginFailure

            if config.backend == NAME:  # the built-in itself: nothing to fall back to
                raise
            failure = attrs.evolve(PluginFailure.of(exc, "provides", self.plugins),
                                   plugin=self.plugins.backend_providers.get(config.backend))
            message = (f"store.backend: the {config.backend!r} backend could not be opened "
                       f"({failure.describe(f'the {NAME} backend keeps artifacts instead')})")
            log.warning("%s", message)
            warnings.warn(message, PluginLoadWarning, stacklevel=3)
            return FilesystemStore.from_config(attrs.evolve(config, backend=NAME))
        return store

    @property
    def store(self) -> ArtifactStore:
        """Where artifacts go now: the store of the session entered here, if any, else the
        default one (see :meth:`session`)."""
        return active_store(self._owner) or self._store

    # -- policies and stats ------------------------------------------------------------------

    def policy(self, tool: str | None = None) -> Policy:
        """The effective policy for *tool* (see :meth:`Config.policy_for`)."""
        return self._slot(tool).policy

    def _slot(self, tool: str | None) -> _ToolSlot:
        slot = self._slots.get(tool)
        if slot is None:
            policy = self.config.policy_for(tool)
            policy = attrs.evolve(policy, counter=self._tokenizer(policy))
            new = _ToolSlot.of(policy, self._stats.call_counter(tool),
                               self._stats.use_counters(tool))
            slot = self._slots.setdefault(tool, new)
        return slot

    def _tokenizer(self, policy: Policy) -> Tokenizer:
        """The tokenizer *policy* names, from its plugin; ``estimate`` if the plugin's
        factory fails (which is reported), unless ``plugins.strict``."""
        try:
            return self.plugins.tokenizer(policy.tokenizer)
        except Exception as exc:
            if self.plugins.strict:
                raise
            from truncation_core.hooks.failures import PluginFailure

            failure = PluginFailure.of(exc, "provides", self.plugins)
            log.warning("%s (tool=%s)", failure.describe(
                f"tokenizer {policy.tokenizer!r} could not be made; counting with estimate"),
                policy.tool)
            return self.plugins.tokenizer("estimate")

    def stats(self) -> Stats:
        """Per-tool calls, truncations, artifacts created, characters saved, and rates."""
        from truncation_core.pipeline.stats import Stats

        return Stats.of(self._stats)

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
            Bytes with a UTF-16 or UTF-32 byte-order mark are decoded by it. Binary bytes (a
            NUL, mostly not UTF-8, or a binary format's magic number in their first 8 KiB)
            are never shown: the model sees a one-line summary (format, size, sha256,
            artifact id), and the artifact keeps them (metadata ``binary``).
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
                next(slot.use[len(content) * (BUCKETS - 1) // slot.budget.chars])
                if len(content) > slot.log_chars:
                    log_use(tool, len(content) / slot.budget.chars, "inline_limit",
                            chars=len(content), truncated=False)
                return TruncationResult(content, policy=slot.policy)
            text, raw = content, None
        elif isinstance(content, bytes | bytearray | memoryview):
            return self._process_bytes(bytes(content), slot, tool, context)
        elif isinstance(content, TruncationResult):
            return content  # never truncate twice
        elif isinstance(content, str):  # a str subclass
            text, raw = str(content), None
        else:
            raise TypeError(f"content: expected str or bytes, got {type(content).__name__}")
        return self._process_text(text, raw, slot, tool, context)

    def _process_text(self, text: str, raw: bytes | None, slot: _ToolSlot, tool: str | None,
                      context: dict[str, Any], decoded_from: str | None = None
                      ) -> TruncationResult:
        policy = slot.policy
        if context.get("already_truncated"):
            self._pipeline.record_use(policy, measure(text), None, truncated=False)
            return TruncationResult(text, metadata=attrs.evolve(TruncationMetadata.unchanged(
                text, policy, opted_out=True), decoded_from=decoded_from))
        budget = slot.budget
        if len(text) <= budget.chars:
            # Bytes and lines are measured for the limits that need them, else only for
            # content on its way through: a long text over max_tokens is not measured here.
            size = (measure(text) if budget.bytes is not None or budget.lines is not None
                    else None)
            if size is None or budget.admits(size):
                within = self._pipeline.within_tokens(
                    policy, text, None if size is None else size.bytes)
                if within is None or within.fits:
                    self._pipeline.record_use(policy, size or measure(text),
                                              None if within is None else within.tokens,
                                              truncated=False)
                    if decoded_from is None:
                        return TruncationResult(text, policy=policy)
                    return TruncationResult(text, metadata=attrs.evolve(
                        TruncationMetadata.unchanged(text, policy), decoded_from=decoded_from))
                return self._pipeline.run(text, raw, policy, budget, tool, context,
                                          decoded_from=decoded_from,
                                          chars_per_token=within.chars_per_token)
        return self._pipeline.run(text, raw, policy, budget, tool, context,
                                  decoded_from=decoded_from)

    def _process_bytes(self, raw: bytes, slot: _ToolSlot, tool: str | None,
                       context: dict[str, Any]) -> TruncationResult:
        """Bytes: text by their byte-order mark (UTF-16, UTF-32), binary (summarised, see
        :mod:`truncation_core.text.binary`), or UTF-8, an invalid byte shown as U+FFFD."""
        from truncation_core.text.binary import byte_order_mark, decode_with_mark, is_binary

        mark = byte_order_mark(raw)
        if mark is not None:
            return self._process_text(decode_with_mark(raw, mark[0]), raw, slot, tool,
                                      context, decoded_from=mark[1])
        try:
            text: str | None = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if is_binary(raw, utf8=text is not None):
            return self._pipeline.binary(raw, slot.policy, slot.budget, tool, context)
        if text is None:
            text = raw.decode("utf-8", "replace")
        return self._process_text(text, raw, slot, tool, context)

    def stream(self, *, tool: str | None = None, **context: Any) -> Stream:
        """Start a tool result that arrives in chunks; see :mod:`truncation_core.streaming.stream`.

        ``with truncator.stream(tool=...) as s: s.write(chunk) ...``, then ``s.result()``.
        Memory is bounded by the budget whatever the size of the content, the full content
        goes to the artifact as it arrives, and the result equals what :meth:`process` gives
        for the same content. *context* is as for :meth:`process`, except that
        ``already_truncated`` (which would mean keeping everything) is refused.
        """
        from truncation_core.streaming.stream import Stream

        slot = self._slots.get(tool) or self._slot(tool)
        slot.count_call()
        if context.get("already_truncated"):
            raise ValueError("already_truncated: not supported by streams, which are always "
                             "cut to the budget; use process() for content the tool cut itself")
        policy = slot.policy
        # (made when the stream's text outgrows what it keeps of its head: see Stream)
        cutters = functools.partial(self._pipeline.stream_cutters, tool, policy)
        matcher = (functools.partial(self._pipeline.matcher, tool, policy) if policy.highlights
                   else None)
        return Stream(self._pipeline, tool=tool, policy=policy, budget=slot.budget,
                      context=context, cutters=cutters, matcher=matcher)

    def astream(self, *, tool: str | None = None, **context: Any) -> AsyncStream:
        """The async form of :meth:`stream`: ``async with truncator.astream(...) as s:
        await s.write(chunk)``, then ``await s.result()``."""
        from truncation_core.streaming.stream import AsyncStream

        return AsyncStream(self.stream(tool=tool, **context))

    def open_artifact(self, info: ArtifactInfo, policy: Policy) -> ArtifactWriter | None:
        """A writer for a new artifact in the current store, through the ``store_artifact``
        hook, keeping at most ``policy.max_artifact_size`` bytes (see
        :meth:`Pipeline.open_artifact <truncation_core.pipeline.pipeline.Pipeline.open_artifact>`).
        """
        return self._pipeline.open_artifact(info, policy)

    # -- artifacts: sessions, retrieval, tools ---------------------------------------------

    def session(self, session_id: str | None = None, *, keep: bool = False) -> Session:
        """A session: inside ``with truncator.session() as s:`` (or ``async with``), artifacts
        go to session *session_id* (a new one when None), and are deleted when the block
        ends unless *keep* (or ``s.keep = True``). See :mod:`truncation_core.artifacts.sessions`.
        """
        if session_id is None:
            session_id = new_session_id()
        return Session(self._owner, self._store.for_session(session_id), keep=keep)

    @property
    def artifacts(self) -> Retrieval:
        """Read artifacts of the current session back: ``read``, ``text``, ``lines``,
        ``head``, ``tail``, ``page``, ``grep``, ``stat``, ``checksum`` (see
        :class:`truncation_core.retrieval.Retrieval`); ``list`` and ``delete`` are on
        :attr:`store`."""
        return reader_for(self.store)

    # A literal format gets its SDK's type; any other string (``mcp``, or a format chosen at
    # run time) plain dicts. The literal overloads overlap the last by design.
    @overload
    def tool_schemas(  # type: ignore[overload-overlap]
            self, format: Literal["openai"] = ..., *, strict: bool = ...
                     ) -> list[ChatCompletionToolParam]: ...
    @overload
    def tool_schemas(  # type: ignore[overload-overlap]
            self, format: Literal["openai-responses"], *, strict: bool = ...
                     ) -> list[FunctionToolParam]: ...
    @overload
    def tool_schemas(  # type: ignore[overload-overlap]
            self, format: Literal["anthropic"], *, strict: bool = ...
                     ) -> list[AnthropicToolParam]: ...
    @overload
    def tool_schemas(self, format: str, *, strict: bool = ...) -> list[dict[str, Any]]: ...

    def tool_schemas(self, format: str = "openai", *, strict: bool = False
                     ) -> list[Any]:
        """JSON schemas of the artifact tools (``get_artifact``, ``artifact_head``,
        ``artifact_tail``, ``artifact_grep``, called as ``artifact_tools:`` says) in a
        function-calling *format*: ``openai``, ``openai-responses``, ``anthropic`` or ``mcp``.

        With *strict*, every property is required and optional ones are nullable
        (``null`` means not given), as OpenAI's strict mode demands.

        Typed for the SDKs: ``openai`` gives ``ChatCompletionToolParam`` entries,
        ``openai-responses`` ``FunctionToolParam`` and ``anthropic`` ``ToolParam``, so the
        list passes as ``tools=`` to those clients under a type checker; ``mcp`` gives
        plain dicts. Only the tools ``artifact_tools.published`` names are listed."""
        from truncation_core.tools.schemas import tool_schemas

        names = self.config.artifact_tools
        return tool_schemas(format, strict=strict, names=names.all(), tools=names.published)

    def publishing(self, tools: Iterable[str]) -> Truncator:
        """This Truncator, for a model that is given only the artifact *tools* (own names:
        ``get_artifact``, ``artifact_head``, ``artifact_tail``, ``artifact_grep``; none for a
        model without them): its markers name no other (see ``artifact_tools.published``),
        and :meth:`tool_schemas` lists only these. An adapter that leaves the artifact tools
        out uses it.

        It shares everything else with this one (plugins, store, sessions, statistics); a
        cheap copy, or this Truncator itself when *tools* are those it publishes already."""
        names = attrs.evolve(self.config.artifact_tools, published=tuple(tools))
        if names == self.config.artifact_tools:
            return self
        view = copy.copy(self)
        view.config = attrs.evolve(self.config, artifact_tools=names)
        view._slots = {}
        return view

    def call_tool(self, name: str, arguments: Mapping[str, Any] | str | None = None, *,
                  names: Mapping[str, str] | None = None) -> ToolResult:
        """Run one artifact tool call (*arguments* as a mapping or a JSON string; ``null``
        values are arguments not given). Never raises: errors come back in the result (400
        bad call, 404 unknown artifact).

        *name* is the name the model sees (``artifact_tools:``), or the tool's own name.
        *names* maps tool names to the names the model knows the tools by, for this call
        (``{"get_artifact": "trunc_get_artifact"}``): the calls the result suggests use them.
        """
        from truncation_core.tools.calls import call_tool

        return call_tool(self, name, arguments, names=names)

    async def acall_tool(self, name: str, arguments: Mapping[str, Any] | str | None = None,
                         *, names: Mapping[str, str] | None = None) -> ToolResult:
        """:meth:`call_tool` for async code: it runs in a worker thread, so the event loop
        is never blocked; cancelling the awaiting task raises at once."""
        from truncation_core.tools.calls import acall_tool

        return await acall_tool(self, name, arguments, names=names)

    @property
    def aartifacts(self) -> AsyncRetrieval:
        """:attr:`artifacts` for async code: each method runs in a worker thread
        (``await truncator.aartifacts.lines(id, 10, 20)``)."""
        from truncation_core.retrieval.asynchronous import AsyncRetrieval

        return AsyncRetrieval(self.artifacts)

    def tool(self, name: str | Callable[..., Any] | None = None) -> Any:
        """Decorator: the function's result goes through :meth:`process` as tool *name*
        (default: the function's name), and the wrapper returns what the model sees.

        ``@truncator.tool("read_file")``, ``@truncator.tool()`` or ``@truncator.tool``.
        Async functions stay async (and use :meth:`aprocess`).
        """
        from truncation_core.tools.decorator import wrap_tool

        if callable(name):
            return wrap_tool(self, name, getattr(name, "__name__", "tool"))

        def decorate(fn: _F) -> _F:
            tool_name = name if isinstance(name, str) else getattr(fn, "__name__", "tool")
            return wrap_tool(self, fn, tool_name)  # type: ignore[return-value]

        return decorate

    async def aprocess(self, content: str | bytes, *, tool: str | None = None,
                       **context: Any) -> TruncationResult:
        """:meth:`process` for async code: content over its limit is cut and stored in a
        worker thread, so the event loop is never blocked. Content within its
        limit is returned at once."""
        slot = self._slots.get(tool) or self._slot(tool)
        if type(content) is str and len(content) <= slot.unmeasured_chars:
            return self.process(content, tool=tool, **context)
        import asyncio

        return await asyncio.to_thread(self.process, content, tool=tool, **context)



def _checked_names(config: Config, plugins: PluginHost, store: ArtifactStore | None) -> Config:
    """*config*, once every strategy, backend and tokenizer it names is one the loaded
    plugins provide.

    An unknown name is a configuration error (a typo), unless a plugin that might provide it
    was disabled (by configuration or the operator's environment): then one warning says
    which plugin is disabled and which key names it, and the built-in default stands in.
    """
    disabled = plugins.disabled()
    problems: list[str] = []
    fallbacks: dict[str, Any] = {}
    for kind, names, available in (
            ("strategy", config.strategy_names(), plugins.strategies),
            ("tokenizer", config.tokenizer_names(), plugins.tokenizers)):
        known = sorted(available)
        for path, name in names.items():
            if name in available:
                continue
            if disabled:
                instead = {"default_strategy": "head_tail", "tokenizer": "estimate"}.get(
                    path, f"the default {kind}")
                _warn_disabled(plugins, path, name, instead)
                fallbacks[path] = name
                continue
            hint = did_you_mean(name, known)
            if not hint and kind == "tokenizer":
                elsewhere = (name if name in _PROVIDED_ELSEWHERE
                             else did_you_mean(name, _PROVIDED_ELSEWHERE)[16:-2])
                if elsewhere:
                    package = _PROVIDED_ELSEWHERE[elsewhere]
                    hint = (f"{'' if elsewhere == name else f'; did you mean {elsewhere!r}?'}"
                            f"; {elsewhere!r} is provided by the {package} plugin (pip "
                            f"install {package})")
            problems.append(f"{path}: unknown {kind} {name!r}{hint}"
                            f" (available: {', '.join(known)})")
    backend = config.store.backend
    if store is None and backend not in plugins.backends:
        if disabled:
            _warn_disabled(plugins, "store.backend", backend, "'filesystem'")
            fallbacks["store.backend"] = backend
        else:
            backends = sorted(plugins.backends)
            problems.append(f"store.backend: unknown backend {backend!r}"
                            f"{did_you_mean(backend, backends)} (available: "
                            f"{', '.join(backends)})")
    if problems:
        raise ConfigError(problems)
    if not fallbacks:
        return config
    defaults = Config()
    tools = {tool: _without(override, {key for key in ("strategy", "tokenizer")
                                       if f"tools.{tool}.{key}" in fallbacks})
             for tool, override in config.tools.items()}
    return attrs.evolve(
        config, tools=tools,
        default_strategy=(defaults.default_strategy if "default_strategy" in fallbacks
                          else config.default_strategy),
        tokenizer=defaults.tokenizer if "tokenizer" in fallbacks else config.tokenizer,
        store=(attrs.evolve(config.store, backend=defaults.store.backend)
               if "store.backend" in fallbacks else config.store))


#: Names first-party plugins provide, for the error when the plugin is not installed.
_PROVIDED_ELSEWHERE = {"cl100k_base": "truncation-core-tiktoken",
                       "o200k_base": "truncation-core-tiktoken"}


def _without(override: Any, keys: set[str]) -> Any:
    if not keys:
        return override

    return ToolConfig(**{k: v for k, v in override.overrides.items() if k not in keys})


def _warn_disabled(plugins: PluginHost, path: str, name: str, instead: str) -> None:
    warnings.warn(f"{path} names {name!r}, which no loaded plugin provides; "
                  f"{plugins.disabled_phrase()} may provide it: using {instead}",
                  PluginDisabledWarning, stacklevel=4)
