"""Loading the plugins of one Truncator, in a deterministic order, naming any that fails.

Registration order decides call order (pluggy calls the last registered first):

1. built-ins, :data:`DEFAULT_PLUGINS`, imported and registered (their impls are ``trylast``);
2. installed plugins from the ``truncation_core`` entry-point group, **sorted by name**;
3. project plugins named in config (``plugins.modules``);
4. plugins passed to ``Truncator(plugins=[...])``.

So an explicitly passed plugin runs first, and the built-ins last. Entry points (found by
:mod:`truncation_core.hooks.entrypoints`, which answers as :mod:`importlib.metadata` does in
a fraction of its start-up) are loaded by this module rather than
:meth:`pluggy.PluginManager.load_setuptools_entrypoints`, so that order is deterministic and
a plugin that fails to load (an import error, a hook that does not exist, a ``provides`` that
returns the wrong thing, even ``sys.exit``) is reported by name (a warning, or an error in
strict mode) instead of crashing the host. Plugins passed in code
are checked the same way.

Which plugins load is decided by configuration and code, and restricted further by the
operator's environment, whatever way the Truncator is built (:func:`effective_settings`):
``TRUNCATION_CORE_DISABLE_PLUGINS`` adds to ``plugins.disable``, ``TRUNCATION_CORE_PLUGINS``
narrows ``plugins.enable``, ``TRUNCATION_CORE_DISABLE_PLUGIN_AUTOLOAD`` turns discovery off
and ``TRUNCATION_CORE_STRICT_PLUGINS`` turns strict mode on. The environment never loads a
plugin that code or configuration left out.
"""

from __future__ import annotations

import functools
import importlib
import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

import attrs
import pluggy

from truncation_core.errors import PluginLoadError, PluginLoadWarning, did_you_mean
from truncation_core.hooks import specs
from truncation_core.hooks.entrypoints import entry_points
from truncation_core.text.trusted import trust_salient
from truncation_core.types.models import Provides

if TYPE_CHECKING:
    from pathlib import Path

    from truncation_core.config.model import PluginsConfig
    from truncation_core.types.models import Provides
    from truncation_core.types.storage import ArtifactStore
    from truncation_core.types.strategy import Strategy
    from truncation_core.types.tokenizer import Tokenizer

__all__ = [
    "DEFAULT_PLUGINS",
    "ENTRY_POINT_GROUP",
    "ENV_SWITCHES",
    "Loaded",
    "PluginInfo",
    "effective_settings",
    "load_plugins",
]

ENTRY_POINT_GROUP = "truncation_core"

#: Built-in plugin modules, registered by import under the name ``builtin.<module>``.
DEFAULT_PLUGINS = (
    "truncation_core.builtins.pipeline",
    "truncation_core.builtins.strategies",
    "truncation_core.builtins.element",
    "truncation_core.builtins.ranked",
    "truncation_core.builtins.memory_store",
    "truncation_core.builtins.filesystem_store",
    "truncation_core.builtins.highlights",
    "truncation_core.builtins.estimate_tokenizer",
)

#: The operator's plugin switches: environment variable -> the setting it restricts.
ENV_SWITCHES: Mapping[str, str] = {
    "TRUNCATION_CORE_PLUGINS": "plugins.enable",
    "TRUNCATION_CORE_DISABLE_PLUGINS": "plugins.disable",
    "TRUNCATION_CORE_DISABLE_PLUGIN_AUTOLOAD": "plugins.autoload",
    "TRUNCATION_CORE_STRICT_PLUGINS": "plugins.strict",
}

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
    tokenizers: tuple[str, ...] = ()
    #: Why it is not loaded: the load error, or None.
    error: str | None = None
    #: Skipped because config or the environment disabled it (or it is not allowlisted).
    disabled: bool = False
    #: What disabled it: ``plugins.disable``, ``TRUNCATION_CORE_DISABLE_PLUGINS`` ...
    disabled_by: str | None = None

    @property
    def status(self) -> str:
        if self.disabled:
            return "disabled"
        return "error" if self.error else "loaded"


@attrs.frozen(kw_only=True)
class Loaded:
    """What loading gave: the manager, and what its plugins make available."""

    pm: pluggy.PluginManager
    #: Every plugin considered, loaded or not, in registration order.
    records: tuple[PluginInfo, ...]
    #: Strategy name -> the strategy, over every loaded plugin.
    strategies: Mapping[str, Strategy]
    #: Backend name -> store factory, over every loaded plugin.
    backends: Mapping[str, Callable[..., ArtifactStore]]
    #: Backend name -> the plugin whose factory it is.
    backend_providers: Mapping[str, str]
    strict: bool
    #: Tokenizer name -> factory, over every loaded plugin.
    tokenizers: Mapping[str, Callable[[], Tokenizer]] = attrs.field(factory=dict)


def _env_list(raw: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in raw.split(",") if part.strip())


def _env_flag(raw: str) -> bool:
    return raw.strip().lower() in ("1", "true", "yes", "on")


def effective_settings(settings: PluginsConfig,
                       environ: Mapping[str, str] | None = None) -> PluginsConfig:
    """*settings* restricted by the operator's switches in *environ* (default: the process
    environment): they only ever disable, narrow or make strict."""
    environ = os.environ if environ is None else environ
    changes: dict[str, Any] = {}
    disabled = environ.get("TRUNCATION_CORE_DISABLE_PLUGINS")
    if disabled:
        changes["disable"] = (*settings.disable,
                              *(n for n in _env_list(disabled) if n not in settings.disable))
    allowed = environ.get("TRUNCATION_CORE_PLUGINS")
    if allowed is not None:
        names = _env_list(allowed)
        changes["enable"] = (names if settings.enable is None
                             else tuple(n for n in settings.enable if n in names))
    if _env_flag(environ.get("TRUNCATION_CORE_DISABLE_PLUGIN_AUTOLOAD", "")):
        changes["autoload"] = False
    if _env_flag(environ.get("TRUNCATION_CORE_STRICT_PLUGINS", "")):
        changes["strict"] = True
    return attrs.evolve(settings, **changes) if changes else settings


class _Loader:
    """Registers plugins on one manager and keeps what each one is."""

    def __init__(self, settings: PluginsConfig, environ: Mapping[str, str]) -> None:
        self.settings = settings
        self.env_disabled = _env_list(environ.get("TRUNCATION_CORE_DISABLE_PLUGINS", ""))
        allowed = environ.get("TRUNCATION_CORE_PLUGINS")
        self.env_allowed = None if allowed is None else _env_list(allowed)
        self.pm = pluggy.PluginManager(specs.PROJECT_NAME)
        self.pm.add_hookspecs(specs)
        self.records: dict[str, PluginInfo] = {}

    # -- registering --------------------------------------------------------------------------

    def register(self, plugin: object, *, name: str, kind: PluginKind, target: str | None,
                 distribution: str | None = None, version: str | None = None) -> None:
        self.pm.register(plugin, name=name)
        unknown = [hc.name for hc in self.pm.get_hookcallers(plugin) or () if hc.spec is None]
        if unknown:
            self.pm.unregister(plugin)
            raise pluggy.PluginValidationError(
                plugin, f"implements unknown hook(s) {', '.join(sorted(unknown))}; "
                        f"known hooks: {', '.join(hook_names(self.pm))}")
        if any(impl.plugin is plugin and (impl.wrapper or impl.hookwrapper)
               for impl in self.pm.hook.select_strategy.get_hookimpls()):
            self.pm.unregister(plugin)
            raise pluggy.PluginValidationError(
                plugin, "select_strategy must be a plain implementation, not a wrapper: the "
                        "metadata names the plugin whose answer is used")
        self.records[name] = PluginInfo(
            name=name, kind=kind, target=target, distribution=distribution, version=version,
            hooks=tuple(sorted(hc.name for hc in self.pm.get_hookcallers(plugin) or ())))

    def load_guarded(self, name: str, kind: PluginKind, *, target: str | None,
                     load: Callable[[], object], distribution: str | None = None,
                     version: str | None = None) -> None:
        try:
            plugin = load()
            self.register(plugin, name=name, kind=kind, target=target,
                          distribution=distribution, version=version)
        except (Exception, SystemExit) as exc:  # a plugin calling sys.exit() on import too
            self.records[name] = PluginInfo(name=name, kind=kind, target=target,
                                            distribution=distribution, version=version)
            self.failed(name, exc)

    def failed(self, name: str, exc: BaseException) -> None:
        """Skip plugin *name* with a warning that names it (an error when strict)."""
        record = self.records[name]
        error = PluginLoadError(name, distribution=record.distribution,
                                version=record.version, cause=exc)
        if self.settings.strict:
            raise error from exc
        warnings.warn(str(error), PluginLoadWarning, stacklevel=6)
        if self.pm.get_plugin(name) is not None:
            self.pm.unregister(name=name)
        self.records[name] = attrs.evolve(record, hooks=(), error=str(error))

    def disabled_by(self, name: str) -> str | None:
        """What keeps entry point (or project module) *name* from loading, if anything."""
        # The operator's switch is named first: configuration read by from_config() holds
        # the environment's values too.
        if name in self.env_disabled:
            return "TRUNCATION_CORE_DISABLE_PLUGINS"
        if name in self.settings.disable:
            return "plugins.disable"
        if self.env_allowed is not None and name not in self.env_allowed:
            return "TRUNCATION_CORE_PLUGINS"
        if self.settings.enable is not None and name not in self.settings.enable:
            return "plugins.enable"
        return None

    # -- the sources, in order ----------------------------------------------------------------

    def builtins(self) -> None:
        for module_path in DEFAULT_PLUGINS:
            module = importlib.import_module(module_path)
            # The built-in detectors' patterns are reviewed and tested over hostile lines:
            # they are searched on re, without the deadline a plugin's patterns get.
            if hasattr(module, "salient_detector"):
                trust_salient(module.salient_detector)
            self.register(module, name="builtin." + module_path.rsplit(".", 1)[1],
                          kind="builtin", target=module_path)

    def entrypoints(self) -> None:
        for ep in sorted(entry_points(ENTRY_POINT_GROUP), key=lambda e: e.name):
            dist_name, version = ep.distribution, ep.version
            if ep.name in self.records:
                warnings.warn(f"plugin {ep.name!r} from {dist_name} is registered twice; "
                              "keeping the first", PluginLoadWarning, stacklevel=5)
                continue
            why = self.disabled_by(ep.name)
            if why is not None:
                self.records[ep.name] = PluginInfo(
                    name=ep.name, kind="entrypoint", target=ep.value, distribution=dist_name,
                    version=version, disabled=True, disabled_by=why)
                continue
            self.load_guarded(ep.name, "entrypoint", target=ep.value, load=ep.load,
                              distribution=dist_name, version=version)
        self.check_named()

    def check_named(self) -> None:
        """Report entry-point names in ``plugins.enable`` / ``disable`` that nothing
        installed has: a typo there would silently load nothing, or keep loading the plugin
        it meant to disable."""
        installed = {name for name, r in self.records.items() if r.kind == "entrypoint"}
        for field, names in (("enable", self.settings.enable or ()),
                             ("disable", self.settings.disable)):
            for name in names:
                if name in installed or name in self.settings.modules:
                    continue
                message = (f"plugins.{field} names {name!r}, but no installed plugin has that "
                           f"entry-point name{did_you_mean(name, installed)}")
                if self.settings.strict:
                    raise PluginLoadError(name, cause=LookupError(message))
                warnings.warn(message, PluginLoadWarning, stacklevel=5)

    def project(self, project_root: Path | None) -> None:
        for module_path in self.settings.modules:
            if module_path in self.settings.disable:
                self.records[module_path] = PluginInfo(
                    name=module_path, kind="project", target=module_path, disabled=True,
                    disabled_by=self.disabled_by(module_path))
                continue
            self.load_guarded(module_path, "project", target=module_path,
                              load=functools.partial(_import_project_module, module_path,
                                                     project_root))

    def explicit(self, plugins: Iterable[object]) -> None:
        # Checked as every other plugin: one that cannot be registered (a hook name that
        # does not exist, wrong arguments) fails to load with a warning naming it.
        for index, plugin in enumerate(plugins):
            name = getattr(plugin, "__name__", None) or f"{type(plugin).__name__}-{index}"
            self.load_guarded(f"explicit.{name}", "explicit",
                              target=getattr(plugin, "__module__", None) or name,
                              load=functools.partial(lambda p: p, plugin))

    # -- what they provide ---------------------------------------------------------------------

    def provides(self) -> Loaded:
        """Ask each plugin's ``provides`` on its own, so that listing can say who provides
        what, and check each answer as any hook's result is checked. A plugin whose answer is
        not a well-formed :class:`~truncation_core.types.models.Provides` has failed to load:
        what it provides is unknown."""
        strategies: dict[str, Strategy] = {}
        backends: dict[str, Callable[..., ArtifactStore]] = {}
        backend_providers: dict[str, str] = {}
        tokenizers: dict[str, Callable[[], Tokenizer]] = {}
        providers: dict[str, str] = {}  # strategy -> the non-built-in plugin providing it
        # get_hookimpls() lists them in registration order, built-ins (trylast) first, so a
        # later plugin's entry for a name (a backend factory, a tokenizer, a strategy) wins.
        for impl in self.pm.hook.provides.get_hookimpls():
            try:
                if impl.wrapper or impl.hookwrapper:
                    raise TypeError("provides() must be a plain implementation, not a wrapper")
                provided = impl.function()
                if provided is not None and not isinstance(provided, Provides):
                    raise TypeError(f"provides() returned a {type(provided).__name__}, "
                                    "not a Provides")
                problems = provided.problems() if provided is not None else []
                if problems:
                    raise TypeError(f"provides() returned a malformed Provides: {problems[0]}")
            except (Exception, SystemExit) as exc:
                self.failed(impl.plugin_name, exc)
                continue
            if provided is None:
                continue
            self._note_duplicates(impl.plugin_name, provided, providers)
            strategies.update((strategy.name, strategy) for strategy in provided.strategies)
            backends.update(provided.backends)
            backend_providers.update(dict.fromkeys(provided.backends, impl.plugin_name))
            tokenizers.update(provided.tokenizers)
            record = self.records.get(impl.plugin_name)
            if record is not None:
                self.records[impl.plugin_name] = attrs.evolve(
                    record,
                    strategies=(*record.strategies,
                                *sorted(strategy.name for strategy in provided.strategies)),
                    backends=(*record.backends, *sorted(provided.backends)),
                    tokenizers=(*record.tokenizers, *sorted(provided.tokenizers)))
        return Loaded(pm=self.pm, records=tuple(self.records.values()),
                      strategies=strategies, backends=backends,
                      backend_providers=backend_providers, strict=self.settings.strict,
                      tokenizers=tokenizers)

    @staticmethod
    def _note_duplicates(plugin: str, provided: Provides, providers: dict[str, str]) -> None:
        if plugin.startswith("builtin."):
            return
        for name in sorted(strategy.name for strategy in provided.strategies):
            # Overriding a built-in is what plugins are for; two plugins claiming one name
            # is most likely an accident: the strategy of the one loaded later is used.
            if name in providers:
                warnings.warn(f"strategy {name!r} is provided by both plugin "
                              f"{providers[name]!r} and {plugin!r}; the strategy of "
                              f"{plugin!r}, loaded later, is used", PluginLoadWarning,
                              stacklevel=5)
            providers[name] = plugin


def load_plugins(*, settings: PluginsConfig, plugins: Iterable[object] = (),
                 load_entrypoints: bool = True, project_root: Path | None = None,
                 environ: Mapping[str, str] | None = None) -> Loaded:
    """Build a plugin manager with every plugin that *settings* (restricted by the
    operator's environment, see :func:`effective_settings`) and *plugins* ask for."""
    environ = os.environ if environ is None else environ
    effective = effective_settings(settings, environ)
    loader = _Loader(effective, environ)
    loader.builtins()
    if load_entrypoints and effective.autoload:
        loader.entrypoints()
    loader.project(project_root)
    loader.explicit(plugins)
    return loader.provides()


def hook_names(pm: pluggy.PluginManager) -> list[str]:
    """The specified hooks, sorted (registering an impl of an unknown name, then rejected,
    leaves a spec-less caller behind on ``pm.hook``)."""
    return sorted(name for name in dir(pm.hook) if not name.startswith("_")
                  and getattr(pm.hook, name).spec is not None)


def _import_project_module(module_path: str, project_root: Path | None) -> object:
    """Import a project plugin: from the project's directory, from the source files that
    pass the trust check and nothing else there (:mod:`truncation_core.hooks.project`);
    without a project directory, from ``sys.path``."""
    if project_root is None:
        return importlib.import_module(module_path)
    from truncation_core.hooks.project import import_project_module

    return import_project_module(module_path, project_root)
