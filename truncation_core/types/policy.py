"""The effective settings of one tool, :class:`Policy`, which every hook sees as ``policy``,
and where artifacts are kept, :class:`StoreConfig`, which a backend's factory is given.

A :class:`Policy` is resolved from configuration by
:meth:`Config.policy_for <truncation_core.config.model.Config.policy_for>`: the global
settings, then the built-in tool policy, then the tool's own overrides. Its settings are
declared once, in :mod:`truncation_core.types.settings`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from truncation_core.errors import ConfigError, did_you_mean
from truncation_core.types.checks import (
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
from truncation_core.types.converters import frozen_mapping
from truncation_core.types.models import Budget
from truncation_core.types.settings import Settings
from truncation_core.types.templates import MarkerConfig
from truncation_core.types.tool_names import ArtifactToolNames

if TYPE_CHECKING:
    from truncation_core.types.tokenizer import Tokenizer

__all__ = ["BUILTIN_BACKENDS", "DEFAULT_STORE_ROOT", "TEXT_POLICIES", "Policy", "StoreConfig"]

#: Where the filesystem backend keeps artifacts, relative to the workspace (the directory of
#: the config file; without one, the nearest directory at or above the working directory
#: holding the store: :func:`truncation_core.config.sources.find_store_workspace`).
DEFAULT_STORE_ROOT = ".truncation/artifacts"
#: The backends built into the core: they take no settings beyond :class:`StoreConfig`'s own,
#: so any other key under ``store`` is an error when one of them is selected.
BUILTIN_BACKENDS = frozenset({"filesystem", "memory"})


def _check_options(instance: StoreConfig, _attribute: attrs.Attribute[Any],
                   value: Mapping[str, Any]) -> None:
    if value and instance.backend in BUILTIN_BACKENDS:
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
        try:
            path = Path(root).expanduser()
        except RuntimeError:  # ~user of no such user, or no home directory at all
            raise ConfigError([
                f"store.root: {root!r} starts with the home directory of a user that "
                "this system does not know (expected an absolute path, a path relative "
                "to the workspace, or one under ~/)"]) from None
        if not path.is_absolute():
            path = (Path.cwd() if workspace is None else Path(workspace)) / path
        return attrs.evolve(self, root=DirectoryPath(os.path.abspath(path)))


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
    settings of :class:`~truncation_core.types.settings.Settings`:"""

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
    #: Gives the tool's salient-line patterns, compiled (from ``salient_detector``), on
    #: first call: the pipeline sets it for each result it cuts, so that a strategy that
    #: looks for where the failures are (``adaptive``) and the highlights share one
    #: compilation. None in a policy made from configuration alone. (It returns a
    #: :class:`truncation_core.highlights.patterns.Matcher`, typed ``Any`` here: this
    #: bottom layer imports nothing above it.)
    salient: Callable[[], Any] | None = attrs.field(default=None, eq=False, repr=False)
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
