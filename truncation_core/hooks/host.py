"""Building the plugin manager of one Truncator, and listing what it loaded.

Registration order decides call order (pluggy calls the last registered first):

1. built-ins, :data:`DEFAULT_PLUGINS`, imported and registered (their impls are ``trylast``);
2. installed plugins from the ``truncation_core`` entry-point group, **sorted by name**;
3. project plugins named in config (``plugins.modules``);
4. plugins passed to ``Truncator(plugins=[...])``.

So an explicitly passed plugin runs first, and the built-ins last. Entry points are loaded by
our own loader rather than :meth:`pluggy.PluginManager.load_setuptools_entrypoints`, so that
order is deterministic and a plugin that fails to load is reported by name (a warning, or an
error in strict mode) instead of crashing the host. The same holds for a plugin that
implements a hook that does not exist (a misspelled name).
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import traceback
import types
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import attrs
import pluggy

from truncation_core.errors import PluginLoadError, PluginLoadWarning, did_you_mean
from truncation_core.hooks import specs as hookspecs

if TYPE_CHECKING:
    from truncation_core.artifacts.model import ArtifactInfo
    from truncation_core.config.model import PluginsConfig, Policy
    from truncation_core.highlights.patterns import SalientPattern
    from truncation_core.hooks.models import Budget, ContentFacts, Cut, Marker, Provides
    from truncation_core.pipeline.markers import MarkerRenderer
    from truncation_core.storage.protocol import ArtifactStore, ArtifactWriter
    from truncation_core.streaming.incremental import IncrementalCut

__all__ = ["DEFAULT_PLUGINS", "ENTRY_POINT_GROUP", "PluginHost", "PluginInfo"]

ENTRY_POINT_GROUP = "truncation_core"

#: Built-in plugin modules, registered by import under the name ``builtin.<module>``.
DEFAULT_PLUGINS = (
    "truncation_core.builtins.select",
    "truncation_core.builtins.head",
    "truncation_core.builtins.tail",
    "truncation_core.builtins.head_tail",
    "truncation_core.builtins.lines",
    "truncation_core.builtins.element",
    "truncation_core.builtins.markers",
    "truncation_core.builtins.store",
    "truncation_core.builtins.memory_store",
    "truncation_core.builtins.filesystem_store",
    "truncation_core.builtins.ranked",
    "truncation_core.builtins.salient",
)

PluginKind = Literal["builtin", "entrypoint", "project", "explicit"]


@attrs.frozen(kw_only=True)
class PluginInfo:
    """One plugin, as ``trunc plugins`` lists it."""

    #: Registration name: ``builtin.<module>``, the entry-point name, or the module path.
    name: str
    kind: PluginKind
    #: The module (or object) that was registered, as ``module`` or ``module:attr``.
    target: str | None = None
    distribution: str | None = None
    version: str | None = None
    #: Hooks it implements.
    hooks: tuple[str, ...] = ()
    strategies: tuple[str, ...] = ()
    backends: tuple[str, ...] = ()
    #: Why it is not loaded: the load error, or None.
    error: str | None = None
    #: Skipped because config or the environment disabled it (or it is not allowlisted).
    disabled: bool = False

    @property
    def status(self) -> str:
        if self.disabled:
            return "disabled"
        return "error" if self.error else "loaded"


def _hooks_of(pm: pluggy.PluginManager, plugin: object) -> tuple[str, ...]:
    return tuple(sorted(hc.name for hc in pm.get_hookcallers(plugin) or ()))


class PluginHost:
    """The pluggy manager of one Truncator, with a typed method per hook."""

    def __init__(self, pm: pluggy.PluginManager) -> None:
        self.pm = pm
        self._records: dict[str, PluginInfo] = {}
        self._hook = pm.hook
        #: Strategy name -> description, over every loaded plugin.
        self.strategies: dict[str, str] = {}
        #: Backend name -> store factory, over every loaded plugin.
        self.backends: dict[str, Callable[..., ArtifactStore]] = {}

    # -- building ---------------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        *,
        settings: PluginsConfig,
        plugins: Iterable[object] = (),
        load_entrypoints: bool = True,
        project_root: Path | None = None,
    ) -> PluginHost:
        pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        pm.add_hookspecs(hookspecs)
        host = cls(pm)
        for module_path in DEFAULT_PLUGINS:
            host._register(importlib.import_module(module_path),
                           name="builtin." + module_path.rsplit(".", 1)[1],
                           kind="builtin", target=module_path)
        if load_entrypoints and settings.autoload:
            host._load_entrypoints(settings)
        for module_path in settings.modules:
            host._load_guarded(module_path, "project", settings.strict, target=module_path,
                               load=lambda m=module_path: _import_project_module(m, project_root))
        for index, plugin in enumerate(plugins):
            name = getattr(plugin, "__name__", None) or f"{type(plugin).__name__}-{index}"
            host._register(plugin, name=f"explicit.{name}", kind="explicit",
                           target=getattr(plugin, "__module__", None) or name)
        host._collect_provides(strict=settings.strict)
        return host

    def _register(self, plugin: object, *, name: str, kind: PluginKind, target: str | None,
                  distribution: str | None = None, version: str | None = None) -> None:
        self.pm.register(plugin, name=name)
        unknown = [hc.name for hc in self.pm.get_hookcallers(plugin) or () if hc.spec is None]
        if unknown:
            self.pm.unregister(plugin)
            raise pluggy.PluginValidationError(
                plugin, f"implements unknown hook(s) {', '.join(sorted(unknown))}; "
                        f"known hooks: {', '.join(sorted(self.hook_names()))}")
        self._records[name] = PluginInfo(
            name=name, kind=kind, target=target, distribution=distribution, version=version,
            hooks=_hooks_of(self.pm, plugin))

    def _load_guarded(self, name: str, kind: PluginKind, strict: bool, *, target: str | None,
                      load: Callable[[], object], distribution: str | None = None,
                      version: str | None = None) -> None:
        try:
            plugin = load()
            self._register(plugin, name=name, kind=kind, target=target,
                           distribution=distribution, version=version)
        except Exception as exc:
            self._records[name] = PluginInfo(name=name, kind=kind, target=target,
                                             distribution=distribution, version=version)
            self._load_failed(name, exc, strict)

    def _load_failed(self, name: str, exc: Exception, strict: bool) -> None:
        """Skip plugin *name* with a warning that names it (an error when *strict*)."""
        record = self._records[name]
        error = PluginLoadError(name, distribution=record.distribution, version=record.version,
                                cause=exc)
        if strict:
            raise error from exc
        warnings.warn(str(error), PluginLoadWarning, stacklevel=5)
        if self.pm.get_plugin(name) is not None:
            self.pm.unregister(name=name)
        self._records[name] = attrs.evolve(record, hooks=(), error=str(error))

    def _load_entrypoints(self, settings: PluginsConfig) -> None:
        from importlib.metadata import entry_points  # slow to import: only when loading

        for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
            dist = ep.dist
            dist_name = dist.metadata["Name"] if dist is not None else None
            version = dist.version if dist is not None else None
            if ep.name in self._records:
                warnings.warn(f"plugin {ep.name!r} from {dist_name} is registered twice; "
                              "keeping the first", PluginLoadWarning, stacklevel=3)
                continue
            if ep.name in settings.disable or (
                settings.enable is not None and ep.name not in settings.enable
            ):
                self._records[ep.name] = PluginInfo(
                    name=ep.name, kind="entrypoint", target=ep.value, distribution=dist_name,
                    version=version, disabled=True)
                continue
            self._load_guarded(ep.name, "entrypoint", settings.strict, target=ep.value,
                               load=ep.load, distribution=dist_name, version=version)
        self._check_named(settings)

    def _check_named(self, settings: PluginsConfig) -> None:
        """Report entry-point names in ``plugins.enable`` / ``disable`` that nothing installed
        has: a typo there would silently load nothing, or keep loading the plugin it meant
        to disable."""
        installed = {name for name, r in self._records.items() if r.kind == "entrypoint"}
        for field, names in (("enable", settings.enable or ()), ("disable", settings.disable)):
            for name in names:
                if name in installed:
                    continue
                message = (f"plugins.{field} names {name!r}, but no installed plugin has that "
                           f"entry-point name{did_you_mean(name, installed)}")
                if settings.strict:
                    raise PluginLoadError(name, cause=LookupError(message))
                warnings.warn(message, PluginLoadWarning, stacklevel=4)

    def _collect_provides(self, *, strict: bool) -> None:
        # Call each implementation on its own so that listing can say who provides what.
        # get_hookimpls() lists them in registration order, built-ins (trylast) first, so a
        # later plugin's entry for a name it overrides (a backend factory) wins. A plugin
        # whose provides() raises has failed to load: what it provides is unknown.
        providers: dict[str, str] = {}  # strategy -> the non-built-in plugin providing it
        for impl in self.pm.hook.provides.get_hookimpls():
            try:
                provided: Provides | None = impl.function()
            except Exception as exc:
                self._load_failed(impl.plugin_name, exc, strict)
                continue
            if provided is None:
                continue
            if not impl.plugin_name.startswith("builtin."):
                for name in sorted(provided.strategies):
                    # Overriding a built-in is what plugins are for; two plugins claiming
                    # one name is most likely an accident: the later one's truncate runs.
                    if name in providers:
                        warnings.warn(f"strategy {name!r} is provided by both plugin "
                                      f"{providers[name]!r} and {impl.plugin_name!r}; the "
                                      "truncate implementation asked first cuts with it "
                                      "(the one loaded later, unless tryfirst or trylast "
                                      "says otherwise)", PluginLoadWarning, stacklevel=4)
                    providers[name] = impl.plugin_name
            self.strategies.update(provided.strategies)
            self.backends.update(provided.backends)
            record = self._records.get(impl.plugin_name)
            if record is not None:
                self._records[impl.plugin_name] = attrs.evolve(
                    record,
                    strategies=(*record.strategies, *sorted(provided.strategies)),
                    backends=(*record.backends, *sorted(provided.backends)))

    # -- introspection ----------------------------------------------------------------------

    def hook_names(self) -> list[str]:
        # Only specified hooks: registering an impl of an unknown name (then rejected) leaves
        # a spec-less caller behind on pm.hook.
        return [name for name in dir(self.pm.hook) if not name.startswith("_")
                and getattr(self.pm.hook, name).spec is not None]

    def list_plugins(self) -> list[PluginInfo]:
        """Every plugin considered, loaded or not, in registration order."""
        return list(self._records.values())

    def culprit(self, exc: BaseException,
                suspect: object = None) -> tuple[str | None, str | None]:
        """``(plugin, hook)``: which plugin's code raised *exc*, and in which hook.

        The innermost frame of the traceback that runs a hook implementation, or code from a
        registered plugin's module (a writer class, a helper), names the plugin; the hook is
        that of the innermost implementation of the same plugin. When no plugin code is on
        the traceback, the plugin whose module defines *suspect*'s class, if any. Only
        called after a failure, so it may be slow.
        """
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
        if plugin is None and suspect is not None:
            plugin = _owner(type(suspect).__module__, modules)
        return plugin, hook

    # -- the typed facade: one method per hook ------------------------------------------------

    def select_strategy(self, *, tool: str | None, facts: ContentFacts, policy: Policy,
                        context: Mapping[str, Any]) -> str | None:
        return self._hook.select_strategy(tool=tool, facts=facts, policy=policy,
                                          context=context)

    def truncate(self, *, strategy: str, text: str, budget: Budget, facts: ContentFacts,
                 policy: Policy, markers: MarkerRenderer) -> Cut | None:
        return self._hook.truncate(strategy=strategy, text=text, budget=budget, facts=facts,
                                   policy=policy, markers=markers)

    def format_marker(self, *, marker: Marker, policy: Policy) -> str | None:
        return self._hook.format_marker(marker=marker, policy=policy)

    def store_artifact(self, *, store: ArtifactStore, info: ArtifactInfo,
                       policy: Policy) -> ArtifactWriter | None:
        return self._hook.store_artifact(store=store, info=info, policy=policy)

    def salient_patterns(self, *, tool: str | None, policy: Policy) -> list[SalientPattern]:
        results = self._hook.salient_patterns(tool=tool, policy=policy)
        return [pattern for patterns in results if patterns for pattern in patterns]

    def stream_cutters(self, *, tool: str | None, policy: Policy,
                       context: Mapping[str, Any]) -> list[IncrementalCut]:
        results = self._hook.stream_cutter(tool=tool, policy=policy, context=context)
        return [cutter for cutter in results if cutter is not None]


def _module_of(plugin: object) -> str:
    return plugin.__name__ if isinstance(plugin, types.ModuleType) else type(plugin).__module__


def _owner(module: str | None, modules: Mapping[str, str]) -> str | None:
    """The plugin registered as *module* or as a package holding it."""
    while module:
        if module in modules:
            return modules[module]
        module = module.rpartition(".")[0]
    return None


def _import_project_module(module_path: str, project_root: Path | None) -> object:
    """Import a project plugin, looking in the project's directory first."""
    with _prepended_to_sys_path(project_root):
        return importlib.import_module(module_path)


@contextlib.contextmanager
def _prepended_to_sys_path(directory: Path | None) -> Iterator[None]:
    if directory is None or str(directory) in sys.path:
        yield
        return
    sys.path.insert(0, str(directory))
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(directory))
