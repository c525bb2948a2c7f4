"""Configuration: the global settings, the per-tool overrides, and the effective policy of a tool.

A :class:`Config` holds the global values of every setting (declared once, in
:mod:`truncation_core.config.settings`), ``default_strategy``, and the ``marker``, ``store``,
``plugins`` and ``tools`` sections. :meth:`Config.policy_for` merges, for one tool: the
global settings, then the built-in tool policy, then the tool's own overrides. The result is
the :class:`Policy` that hooks receive.

Where configuration comes from (code, environment, files) is
:mod:`truncation_core.config.sources`. The reference for every key is
docs/configuration.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import attrs

from truncation_core.config.checks import (
    DirectoryPath,
    NonNegativeInt,
    PositiveInt,
    SessionName,
    check_directory_path,
    check_non_negative_int,
    check_positive_int,
    check_session_name,
    validator,
)
from truncation_core.config.markers import MarkerConfig
from truncation_core.config.settings import SETTING_NAMES, Settings, ToolConfig
from truncation_core.config.tool_names import ArtifactToolNames
from truncation_core.hooks.models import Budget, frozen_mapping

if TYPE_CHECKING:
    from pathlib import Path

    from truncation_core.highlights.patterns import Matcher
    from truncation_core.tokens.contract import Tokenizer

__all__ = [
    "BUILTIN_TOOL_POLICIES",
    "ArtifactToolNames",
    "Config",
    "MarkerConfig",
    "PluginsConfig",
    "Policy",
    "StoreConfig",
    "ToolConfig",
    "limit_warnings",
    "raised_for_own_limits",
]


def _str_tuple(value: Any) -> tuple[str, ...]:
    return tuple(value)


def _optional_str_tuple(value: Any) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


#: Where the filesystem backend keeps artifacts, relative to the workspace (the directory of
#: the config file, or the working directory).
DEFAULT_STORE_ROOT = ".truncation/artifacts"
#: The backends built into the core: they take no settings beyond :class:`StoreConfig`'s own,
#: so any other key under ``store`` is an error when one of them is selected.
BUILTIN_BACKENDS = frozenset({"filesystem", "memory"})


def _check_options(instance: StoreConfig, _attribute: attrs.Attribute[Any],
                   value: Mapping[str, Any]) -> None:
    if value and instance.backend in BUILTIN_BACKENDS:
        from truncation_core.errors import ConfigError, did_you_mean

        known = [a.name for a in attrs.fields(StoreConfig) if a.name != "options"]
        raise ConfigError([f"{key}: unknown key{did_you_mean(str(key), known)} (the "
                           f"{instance.backend} backend has no such setting)"
                           for key in sorted(value, key=str)])


@attrs.frozen(kw_only=True)
class StoreConfig:
    """Where and how artifacts are kept. docs/artifacts.md describes each key."""

    #: Name of the storage backend: ``filesystem`` (the default), ``memory``, or one a plugin
    #: provides.
    backend: str = "filesystem"
    #: The filesystem backend's directory; sessions are subdirectories. A relative path is
    #: taken from the workspace.
    root: DirectoryPath = attrs.field(default=DirectoryPath(DEFAULT_STORE_ROOT),
                                      validator=validator(check_directory_path))
    #: The session artifacts go to outside ``Truncator.session()``; None starts a new one per
    #: Truncator. Name one to share artifacts between processes.
    session: SessionName | None = attrs.field(default=None, validator=validator(check_session_name))
    #: Sessions untouched for this many days are deleted, lazily, once per process (0: never).
    retention_days: NonNegativeInt = attrs.field(default=NonNegativeInt(7),
                                                 validator=validator(check_non_negative_int))
    #: fsync artifacts and their directory before reporting them stored (power-loss
    #: durability). Off by default: artifacts are ephemeral, and fsync costs milliseconds.
    fsync: bool = False
    #: Bytes one session may hold; storing more evicts its oldest artifacts. None: no quota.
    quota: PositiveInt | None = attrs.field(default=None, validator=validator(check_positive_int))
    #: The backend's own settings: every other key under ``store`` (``url`` and ``prefix``
    #: for ``redis``), as written. The backend's factory checks them and raises
    #: :class:`~truncation_core.errors.ConfigError` naming ``store.<key>``. The built-in
    #: backends take none.
    options: Mapping[str, Any] = attrs.field(factory=dict, converter=frozen_mapping,
                                             validator=_check_options)

    def resolved(self, workspace: Path | None = None) -> StoreConfig:
        """This config with ``root`` made absolute against *workspace* (default: the working
        directory), so that a later ``chdir`` does not move the store."""
        root = os.fspath(self.root)
        if root.startswith("~") or os.name == "nt":
            # A home directory, or Windows' drives: pathlib's rules.
            from pathlib import Path

            try:
                path = Path(root).expanduser()
            except RuntimeError:  # ~user of no such user, or no home directory at all
                from truncation_core.errors import ConfigError

                raise ConfigError([
                    f"store.root: {root!r} starts with the home directory of a user that "
                    "this system does not know (expected an absolute path, a path relative "
                    "to the workspace, or one under ~/)"]) from None
            if not path.is_absolute():
                path = (workspace if workspace is not None else Path.cwd()) / path
            root = os.fspath(path)
        elif not os.path.isabs(root):
            # The same, on a string: every Truncator resolves its store, and importing
            # pathlib imports urllib.parse and ipaddress.
            root = os.path.join(os.getcwd() if workspace is None else os.fspath(workspace),
                                root)
        return attrs.evolve(self, root=DirectoryPath(os.path.abspath(root)))


@attrs.frozen(kw_only=True)
class PluginsConfig:
    """Which plugins load. Entry-point plugins are named by their entry-point name."""

    #: Project-local plugins, as importable module paths (``myproject.truncation_hooks``).
    modules: tuple[str, ...] = attrs.field(default=(), converter=_str_tuple)
    #: Entry-point plugins that must not load.
    disable: tuple[str, ...] = attrs.field(default=(), converter=_str_tuple)
    #: If set, only these entry-point plugins load (an empty list loads none).
    enable: tuple[str, ...] | None = attrs.field(default=None, converter=_optional_str_tuple)
    #: Discover installed plugins through the ``truncation_core`` entry-point group.
    autoload: bool = True
    #: Raise instead of warning when a plugin fails to load, and let a plugin's exception
    #: propagate instead of falling back (see :mod:`truncation_core.hooks.failures`).
    strict: bool = False


#: The strategies (and settings) common agent tools get unless configuration says otherwise.
#: Configuration under ``tools`` overrides these key by key. A file's or a diff's contents get
#: no highlights: in source code, lines that look like failures (an error message in a
#: string, a test count in a docstring) are not, and the block would spend the budget on them.
BUILTIN_TOOL_POLICIES: Mapping[str, ToolConfig] = MappingProxyType(
    {
        "read_file": ToolConfig(strategy="outline", highlights=0),
        "execute_command": ToolConfig(strategy="adaptive"),
        "list_directory": ToolConfig(strategy="element"),
        "search_files": ToolConfig(strategy="element"),
        "git_diff": ToolConfig(strategy="head_tail", highlights=0),
    }
)


#: Built-in tool policies whose strategy is for the tool's text: JSON or XML that such a tool
#: prints (``curl ... | python -m json.tool``) still goes to ``element``, unless the user's
#: configuration names the tool's strategy. A file's or a diff's contents keep theirs: the
#: model edits them next, and needs their lines as they are.
TEXT_POLICIES: frozenset[str] = frozenset({"execute_command"})


def _unchecked(_cls: type, fields: list[attrs.Attribute[Any]]) -> list[attrs.Attribute[Any]]:
    # A policy is resolved from checked configuration; the processor derives narrower ones
    # from it (a stream's room left under a header) that need no second check.
    return [f.evolve(validator=None) for f in fields]


@attrs.frozen(kw_only=True, field_transformer=_unchecked)
class Policy(Settings):
    """The effective settings for one tool: what every hook sees as ``policy``. Besides the
    settings of :class:`~truncation_core.config.settings.Settings`:"""

    #: The tool, or None for results given without a tool name.
    tool: str | None = None
    #: The strategy configuration asks for: the tool's own, or ``default_strategy``.
    strategy: str = "head_tail"
    #: True when the strategy comes from the tool's own policy (a built-in tool policy or
    #: ``tools.<name>.strategy``) rather than ``default_strategy``: content that looks like
    #: JSON or XML then keeps it.
    tool_strategy: bool = False
    #: True when the user's configuration names this tool's strategy
    #: (``tools.<name>.strategy``), not only a built-in tool policy: then ``element`` never
    #: turns scored results over to ``ranked`` (see docs/structured.md).
    explicit_strategy: bool = False
    #: The marker templates.
    marker: MarkerConfig = attrs.field(factory=MarkerConfig)
    #: The tokenizer named by ``tokenizer``, as the Truncator resolved it from its plugins
    #: (None in a policy made from configuration alone, :meth:`Config.policy_for`).
    counter: Tokenizer | None = attrs.field(default=None, eq=False, repr=False)
    #: Gives the tool's salient-line patterns, compiled (``salient_patterns``,
    #: ``salient_units``, ``salient_records``), on first call: the pipeline sets it for each
    #: result it cuts, so that a strategy that looks for where the failures are
    #: (``adaptive``) and the highlights share one compilation. None in a policy made from
    #: configuration alone.
    salient: Callable[[], Matcher] | None = attrs.field(default=None, eq=False, repr=False)
    #: The names the model sees for the artifact tools (the hints name them).
    artifact_tools: ArtifactToolNames = attrs.field(factory=ArtifactToolNames)

    @property
    def sniffs_structure(self) -> bool:
        """Whether content that looks like JSON or XML goes to ``element`` under this policy:
        ``detect_structure`` is on, and no tool policy names a strategy, or only a built-in
        one meant for text (:data:`TEXT_POLICIES`)."""
        return self.detect_structure and (not self.tool_strategy or (
            not self.explicit_strategy and self.tool in TEXT_POLICIES))

    @property
    def budget(self) -> Budget:
        """The inline limits as a budget: chars, and optional bytes and lines. The token limit
        (``max_tokens``) is not part of it: the pipeline holds it, counting with the
        policy's ``tokenizer`` (strategies cut to this budget, and need not count tokens)."""
        return Budget(chars=self.inline_limit, bytes=self.max_bytes, lines=self.max_lines)


@attrs.frozen(kw_only=True)
class Config(Settings):
    """All of truncation-core's settings. Build it in code, or from a mapping with the same
    keys as the config file (:func:`config_from_mapping`). The global value of each setting
    of :class:`~truncation_core.config.settings.Settings`, and:"""

    #: Strategy for tools without a policy of their own.
    default_strategy: str = "head_tail"
    marker: MarkerConfig = attrs.field(factory=MarkerConfig)
    store: StoreConfig = attrs.field(factory=StoreConfig)
    plugins: PluginsConfig = attrs.field(factory=PluginsConfig)
    #: The names the model sees for the artifact tools: a ``prefix``, or ``names`` per tool.
    artifact_tools: ArtifactToolNames = attrs.field(factory=ArtifactToolNames)
    #: Per-tool overrides, keyed by tool name.
    tools: Mapping[str, ToolConfig] = attrs.field(factory=dict, converter=frozen_mapping)

    def policy_for(self, tool: str | None) -> Policy:
        """The effective policy for *tool*: globals, then built-in policy, then overrides,
        then the limits the tool's own ``max_bytes`` / ``max_lines`` need
        (:func:`raised_for_own_limits`)."""
        values: dict[str, Any] = {key: getattr(self, key) for key in SETTING_NAMES}
        values["strategy"] = self.default_strategy
        values["tool_strategy"] = False
        own = self.tools.get(tool or "")
        for layer in (BUILTIN_TOOL_POLICIES.get(tool or ""), own):
            if layer is not None:
                values.update(layer.overrides)
                values["tool_strategy"] |= layer.strategy is not None
        values["explicit_strategy"] = own is not None and own.strategy is not None
        if own is not None:
            values.update(raised_for_own_limits(own, values))
        return Policy(tool=tool, marker=self.marker, artifact_tools=self.artifact_tools,
                      **values)

    def tokenizer_names(self) -> dict[str, str]:
        """Every tokenizer name the configuration asks for, keyed by its config path."""
        names = {"tokenizer": str(self.tokenizer)}
        for tool, override in self.tools.items():
            if override.tokenizer is not None:
                names[f"tools.{tool}.tokenizer"] = override.tokenizer
        return names

    def strategy_names(self) -> dict[str, str]:
        """Every strategy name the configuration asks for, keyed by its config path."""
        names = {"default_strategy": self.default_strategy}
        for tool, override in self.tools.items():
            if override.strategy is not None:
                names[f"tools.{tool}.strategy"] = override.strategy
        return names


#: Characters a line may take when a tool's own ``max_lines`` (without ``max_bytes``) raises
#: its ``inline_limit``: the limit becomes ``max_lines`` times this.
LINE_ALLOWANCE_CHARS = 200
#: A line of ordinary tool output is about this long: a line limit that needs shorter lines
#: to bind is reported by :func:`limit_warnings`.
_TYPICAL_LINE_CHARS = 80


def raised_for_own_limits(own: ToolConfig, values: Mapping[str, Any]) -> dict[str, int]:
    """What a tool's own ``max_bytes`` or ``max_lines`` raises, so that it is what the tool
    gets.

    A limit set under ``tools.<name>`` is the one the user expects to bind; the global
    ``inline_limit`` (8,000 characters) and ``preview_limit`` (2,000, under the artifact
    reference of content over ``artifact_threshold``) would otherwise win without a word
    (``max_lines: 2000`` giving a 46-line preview). So, unless the tool sets them itself: its
    ``inline_limit`` rises to ``max_bytes`` (a character is at least one byte), or else to
    ``max_lines`` x :data:`LINE_ALLOWANCE_CHARS`; and its ``preview_limit`` rises to that
    inline limit, so that content over ``artifact_threshold`` gets the artifact reference
    and, under it, a preview cut to the tool's own limits (``preview_limit`` binds only with
    ``reference_preview: short``; the default shows the full cut under the reference). Limits
    the tool sets itself are kept as set (``trunc config validate`` says which one wins).
    """
    if own.max_bytes is None and own.max_lines is None:
        return {}
    raised: dict[str, int] = {}
    inline = values["inline_limit"]
    if own.inline_limit is None:
        wanted = (own.max_bytes if own.max_bytes is not None
                  else own.max_lines * LINE_ALLOWANCE_CHARS)
        if wanted > inline:
            raised["inline_limit"] = inline = wanted
    if own.preview_limit is None and inline > values["preview_limit"]:
        raised["preview_limit"] = inline
    return raised


def limit_warnings(config: Config) -> list[str]:
    """Limits in *config* that never bind, each naming the key that wins instead."""
    warnings = []

    def check(prefix: str, chars: int, max_bytes: int | None, max_lines: int | None,
              chars_key: str) -> None:
        if max_bytes is not None and max_bytes > chars * 4:
            warnings.append(f"{prefix}max_bytes ({max_bytes:,}) never binds: {chars_key} "
                            f"({chars:,} characters, at most {chars * 4:,} bytes) wins")
        elif max_bytes is not None and max_bytes > chars:
            warnings.append(f"{prefix}max_bytes ({max_bytes:,}) binds only for text of more "
                            f"than {max_bytes / chars:.1f} bytes a character; {chars_key} "
                            f"({chars:,} characters) wins for ASCII")
        if max_lines is not None and chars // max_lines < _TYPICAL_LINE_CHARS:
            warnings.append(f"{prefix}max_lines ({max_lines:,}) binds only for lines "
                            f"averaging under {chars // max_lines:,} characters; {chars_key} "
                            f"({chars:,} characters) wins for longer ones")

    check("", config.inline_limit, config.max_bytes, config.max_lines, "inline_limit")
    for tool, own in config.tools.items():
        if own.max_bytes is None and own.max_lines is None:
            continue
        policy = config.policy_for(tool)
        if own.inline_limit is not None:
            check(f"tools.{tool}.", policy.inline_limit, own.max_bytes, own.max_lines,
                  f"tools.{tool}.inline_limit")
        if policy.reference_preview == "short" and policy.preview_limit < policy.inline_limit:
            key = (f"tools.{tool}.preview_limit" if own.preview_limit is not None
                   else "preview_limit")
            warnings.append(
                f"tools.{tool}: content over artifact_threshold "
                f"({policy.artifact_threshold:,} characters) shows a preview of "
                f"{policy.preview_limit:,} characters under its artifact reference, not the "
                f"tool's limits: {key} wins")
    return warnings
