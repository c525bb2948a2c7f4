"""The plugin manager of one Truncator, seen through a typed method per hook.

:class:`PluginHost` is built by :func:`~truncation_core.hooks.loader.load_plugins` (which
plugins load, in which order) and answers what the pipeline asks: each hook called with
keyword arguments, and its result checked. A result of the wrong type is a plugin's bug like
an exception is: the facade raises :class:`HookResultError` naming the hook, and the caller's
guard reports the plugin and falls back (:mod:`truncation_core.hooks.failures`). It also
lists the plugins (``trunc plugins``) and finds which plugin's code raised an exception.
"""

from __future__ import annotations

import threading
import traceback
import types
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from truncation_core.hooks.loader import (
    DEFAULT_PLUGINS,
    ENTRY_POINT_GROUP,
    Loaded,
    PluginInfo,
    hook_names,
    load_plugins,
)
from truncation_core.types.tokenizer import Tokenizer

if TYPE_CHECKING:
    from pathlib import Path

    from truncation_core.config.model import PluginsConfig
    from truncation_core.types.artifacts import ArtifactInfo
    from truncation_core.types.cuts import ContentFacts, Cut, Marker
    from truncation_core.types.markers import MarkerRenderer
    from truncation_core.types.models import Budget
    from truncation_core.types.policy import Policy
    from truncation_core.types.salient import SalientDetector
    from truncation_core.types.storage import ArtifactStore, ArtifactWriter
    from truncation_core.types.strategy import Strategy
    from truncation_core.types.tokenizer import Tokenizer

__all__ = ["DEFAULT_PLUGINS", "ENTRY_POINT_GROUP", "HookResultError", "PluginHost",
           "PluginInfo"]


class HookResultError(TypeError):
    """A hook implementation returned something its specification does not allow."""

    def __init__(self, hook: str, got: str, expected: str, plugins: tuple[str, ...]) -> None:
        #: What was returned, said by type only (never content): ``returned a int from
        #: format_marker, not a str``.
        self.returned = f"returned a {got} from {hook}, not {expected}"
        super().__init__(self.returned)
        self.hook = hook
        #: The plugins (other than the built-ins) that implement the hook: one of them
        #: returned it.
        self.plugins = plugins


class PluginHost:
    """The pluggy manager of one Truncator, with a typed method per hook."""

    def __init__(self, loaded: Loaded) -> None:
        self.pm = loaded.pm
        self._loaded = loaded
        self._hook = loaded.pm.hook
        #: Strategy name -> the strategy, over every loaded plugin.
        self.strategies: Mapping[str, Strategy] = loaded.strategies
        #: Backend name -> store factory, over every loaded plugin.
        self.backends: Mapping[str, Callable[..., ArtifactStore]] = loaded.backends
        #: Backend name -> the plugin whose factory it is.
        self.backend_providers: Mapping[str, str] = loaded.backend_providers
        #: ``plugins.strict``: a plugin's exception propagates instead of falling back.
        self.strict = loaded.strict
        #: Tokenizer name -> factory, over every loaded plugin.
        self.tokenizers: Mapping[str, Callable[[], Tokenizer]] = loaded.tokenizers
        self._tokenizers: dict[str, Tokenizer] = {}
        self._tokenizers_lock = threading.Lock()
        #: ``select_strategy`` of each plugin on its own, in call order (made on first use).
        self._select_callers: list[tuple[str, Callable[..., Any]]] | None = None

    @classmethod
    def build(cls, *, settings: PluginsConfig, plugins: Iterable[object] = (),
              load_entrypoints: bool = True, project_root: Path | None = None,
              environ: Mapping[str, str] | None = None) -> PluginHost:
        """Load the plugins (see :mod:`truncation_core.hooks.loader`)."""
        return cls(load_plugins(settings=settings, plugins=plugins,
                                load_entrypoints=load_entrypoints, project_root=project_root,
                                environ=environ))

    # -- introspection ----------------------------------------------------------------------

    def hook_names(self) -> list[str]:
        return hook_names(self.pm)

    def list_plugins(self) -> list[PluginInfo]:
        """Every plugin considered, loaded or not, in registration order."""
        return list(self._loaded.records)

    def implementers(self, hook: str) -> tuple[str, ...]:
        """The plugins other than the built-ins that implement *hook*, last registered
        first (the order they are asked in)."""
        impls = getattr(self.pm.hook, hook).get_hookimpls()
        return tuple(impl.plugin_name for impl in reversed(impls)
                     if not impl.plugin_name.startswith("builtin."))

    def disabled(self) -> list[PluginInfo]:
        """The plugins that configuration or the environment kept from loading."""
        return [record for record in self._loaded.records if record.disabled]

    def disabled_phrase(self) -> str:
        """``disabled plugin 'example' (TRUNCATION_CORE_DISABLE_PLUGINS)``: the disabled
        plugins and what disabled each, for a message saying one may provide a name."""
        disabled = self.disabled()
        which = ", ".join(f"{record.name!r} ({record.disabled_by})" for record in disabled)
        return f"disabled plugin{'s' if len(disabled) > 1 else ''} {which}"

    def culprit(self, exc: BaseException,
                suspect: object = None) -> tuple[str | None, str | None]:
        """``(plugin, hook)``: which plugin's code raised *exc*, and in which hook.

        A :class:`HookResultError` names the hook, and the plugin when only one (besides the
        built-ins) implements it. Otherwise the innermost frame of the traceback that runs a
        hook implementation, or code from a registered plugin's module (a writer class, a
        helper), names the plugin; the hook is that of the innermost implementation of the
        same plugin. When no plugin code is on the traceback, the plugin whose module defines
        *suspect* (a function) or its class, if any. Only called after a failure, so it may be slow.
        """
        if isinstance(exc, HookResultError):
            if len(exc.plugins) == 1:
                return exc.plugins[0], exc.hook
            return " or ".join(exc.plugins) or None, exc.hook

        implementations: dict[types.CodeType, tuple[str, str]] = {}
        for hook_name in self.hook_names():
            for impl in getattr(self.pm.hook, hook_name).get_hookimpls():
                code = getattr(getattr(impl.function, "__func__", impl.function), "__code__",
                               None)
                if code is not None:
                    implementations[code] = (impl.plugin_name, hook_name)
        modules = {_module_of(plugin): name for name, plugin in self.pm.list_name_plugin()}
        plugin = hook = None
        for frame, _ in traceback.walk_tb(exc.__traceback__):
            if frame.f_code in implementations:
                plugin, hook = implementations[frame.f_code]
                continue
            owner = _owner(frame.f_globals.get("__name__"), modules)
            if owner is not None and owner != plugin:
                plugin, hook = owner, None
        if plugin is None and suspect is not None:  # an object, or a function, of a plugin
            plugin = _owner(getattr(suspect, "__module__", None) or type(suspect).__module__,
                            modules)
        return plugin, hook

    def tokenizer(self, name: str) -> Tokenizer:
        """The tokenizer named *name*, made by its plugin's factory on first use and shared
        from then on. Raises ``KeyError`` for a name no plugin provides, and
        :class:`HookResultError` when the factory returns something that is not a
        :class:`~truncation_core.types.tokenizer.Tokenizer` (what the factory raises
        propagates: the caller says which setting names it)."""
        tokenizer = self._tokenizers.get(name)
        if tokenizer is not None:
            return tokenizer

        factory = self.tokenizers[name]
        with self._tokenizers_lock:
            tokenizer = self._tokenizers.get(name)
            if tokenizer is None:
                made = factory()
                if not isinstance(made, Tokenizer):
                    raise self._wrong("provides", made, f"a Tokenizer (tokenizer {name!r})")
                tokenizer = self._tokenizers[name] = made
        return tokenizer

    def _wrong(self, hook: str, result: object, expected: str) -> HookResultError:
        return HookResultError(hook, type(result).__name__, expected, self.implementers(hook))

    # -- the typed facade: one method per hook ------------------------------------------------

    def select_strategy(self, *, tool: str | None, facts: ContentFacts, policy: Policy,
                        context: Mapping[str, Any]) -> tuple[str | None, str | None]:
        """``(name, plugin)``: the first strategy name an implementation returns, and the
        plugin that returned it (None for a built-in's answer).

        Each plugin's implementation is called on its own, through pluggy (so that tracing
        and hook call monitoring see it), in the order pluggy calls a firstresult hook (last
        registered first, ``tryfirst`` and ``trylast`` respected): the answer comes with who
        gave it, for the metadata (``select_strategy`` may have no wrapper; the loader
        refuses one)."""
        if self._select_callers is None:
            impls = self._hook.select_strategy.get_hookimpls()
            plugins = [impl.plugin for impl in impls]
            self._select_callers = [
                (impl.plugin_name, self.pm.subset_hook_caller(
                    "select_strategy", [p for p in plugins if p is not impl.plugin]))
                for impl in reversed(impls)]
        for plugin, caller in self._select_callers:
            chosen = caller(tool=tool, facts=facts, policy=policy, context=context)
            if chosen is None:
                continue
            if not isinstance(chosen, str):
                raise HookResultError("select_strategy", type(chosen).__name__,
                                      "a strategy name", (plugin,))
            return chosen, None if plugin.startswith("builtin.") else plugin
        return None, None

    def truncate(self, *, strategy: Strategy, text: str, budget: Budget,
                 facts: ContentFacts, policy: Policy, markers: MarkerRenderer) -> Cut | None:
        # a cut's value objects: 16 ms with the text cutter (see pipeline/pipeline.py)
        from truncation_core.types.cuts import Cut

        cut = self._hook.truncate(strategy=strategy, text=text, budget=budget, facts=facts,
                                  policy=policy, markers=markers)
        if cut is not None and not isinstance(cut, Cut):
            raise self._wrong("truncate", cut, "a Cut")
        return cut

    def format_marker(self, *, marker: Marker, policy: Policy) -> str | None:
        text = self._hook.format_marker(marker=marker, policy=policy)
        if text is not None and not isinstance(text, str):
            raise self._wrong("format_marker", text, "a str")
        return text

    def store_artifact(self, *, store: ArtifactStore, info: ArtifactInfo,
                       policy: Policy) -> ArtifactWriter | None:
        writer: ArtifactWriter | None = self._hook.store_artifact(store=store, info=info,
                                                                  policy=policy)
        if writer is not None and not all(callable(getattr(writer, name, None))
                                          for name in ("write", "commit", "abort")):
            raise self._wrong("store_artifact", writer, "an ArtifactWriter")
        return writer

    def salient_detectors(self, *, tool: str | None, policy: Policy
                          ) -> tuple[list[SalientDetector], HookResultError | None]:
        """Every plugin's detector, and the first wrong result, if any: the detectors of the
        plugins that returned one are kept."""
        # only for highlights: 4 ms (python -X importtime, fastest of 9, 2026-12)
        from truncation_core.types.salient import SalientDetector

        out = []
        wrong = None
        for detector in self._hook.salient_detector(tool=tool, policy=policy):
            if detector is None:
                continue
            if not isinstance(detector, SalientDetector):
                wrong = wrong or self._wrong("salient_detector", detector, "a SalientDetector")
                continue
            out.append(detector)
        return out, wrong


def _module_of(plugin: object) -> str:
    return plugin.__name__ if isinstance(plugin, types.ModuleType) else type(plugin).__module__


def _owner(module: str | None, modules: Mapping[str, str]) -> str | None:
    """The plugin registered as *module* or as a package holding it."""
    while module:
        if module in modules:
            return modules[module]
        module = module.rpartition(".")[0]
    return None

