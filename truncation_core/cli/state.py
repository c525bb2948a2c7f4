"""What every ``trunc`` command shares: loading configuration, building a Truncator, and
writing a line to stderr.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click

from truncation_core.config.sources import LoadedConfig, load_config
from truncation_core.errors import ConfigError, PluginLoadWarning, UntrustedConfigWarning
from truncation_core.truncator import Truncator

if TYPE_CHECKING:
    from pathlib import Path


#: Called once, when the first Truncator is built: ``trunc`` (the script, see
#: :mod:`truncation_core.__main__`) sets it to end its start-up; None when the command line
#: runs inside another program.
on_start_up_done: Callable[[], None] | None = None


@contextmanager
def plugin_warnings_to_stderr() -> Iterator[None]:
    """Show plugin load warnings as one ``warning:`` line each, without Python's noise.

    A warning already shown in this run of ``trunc`` is not shown again: plugins may load
    twice, for the commands they add and for the Truncator that a command builds.
    """
    ctx = click.get_current_context(silent=True)
    shown: set[str] = (set() if ctx is None else
                       ctx.find_root().meta.setdefault("truncation_core.warnings_shown", set()))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PluginLoadWarning)
        yield
    for warning in caught:
        if issubclass(warning.category, PluginLoadWarning):
            if str(warning.message) not in shown:
                shown.add(str(warning.message))
                say(f"warning: {warning.message}", fg="yellow")
        else:
            warnings.showwarning(warning.message, warning.category, warning.filename,
                                 warning.lineno)


class AppState:
    """What the commands of one ``trunc`` run share: the ``--config`` file, if given.

    Mutable state, not a value: a plain class, which costs nothing to define at start-up (an
    attrs class compiles its methods when it is made, about a millisecond).
    """

    __slots__ = ("announced", "config_path")

    def __init__(self, config_path: Path | None = None, announced: bool = False) -> None:
        self.config_path = config_path
        #: Whether skipped config files were announced already.
        self.announced = announced

    def __repr__(self) -> str:
        return f"AppState(config_path={self.config_path!r}, announced={self.announced!r})"

    def load(self, overrides: Mapping[str, Any] | None = None) -> LoadedConfig:
        """The configuration; a config file skipped because another user could have written
        it is announced on stderr, once per command."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UntrustedConfigWarning)  # said below instead
            loaded = load_config(self.config_path, overrides=overrides)
        if not self.announced:
            self.announced = True
            for message in loaded.skipped:
                say(f"warning: {message}", fg="yellow")
        return loaded

    def truncator(self, overrides: Mapping[str, Any] | None = None, *,
                  loaded: LoadedConfig | None = None) -> Truncator:
        """A Truncator for the configuration (*loaded* already, or loaded with *overrides*),
        as :meth:`Truncator.from_config <truncation_core.Truncator.from_config>` builds it."""
        if loaded is None:
            loaded = self.load(overrides)
        with plugin_warnings_to_stderr():
            truncator = Truncator(loaded.config, project_root=loaded.project_root)
            # Raised here, the warning that a default stands in is not shown.
            _refuse_unloaded_names(truncator, overrides or {})
        global on_start_up_done
        done, on_start_up_done = on_start_up_done, None
        if done is not None:
            done()
        return truncator


def _refuse_unloaded_names(truncator: Truncator, overrides: Mapping[str, Any]) -> None:
    """A strategy or tokenizer that the command line names (``--strategy``, ``--tokenizer``)
    and that no loaded plugin provides is an error, though a disabled plugin may provide it:
    a configuration's name then gets a default in its place, with a warning, but the user's
    explicit word is not replaced."""
    given = [(key, overrides.get(key)) for key in ("default_strategy", "tokenizer")]
    for tool, settings in (overrides.get("tools") or {}).items():
        given += [(f"tools.{tool}.{key}", settings.get(key)) for key in ("strategy", "tokenizer")]
    plugins = truncator.plugins
    for path, name in given:
        kind = "tokenizer" if path.endswith("tokenizer") else "strategy"
        available = plugins.tokenizers if kind == "tokenizer" else plugins.strategies
        if name is None or name in available:
            continue
        raise ConfigError([f"{path}: {kind} {name!r} is not loaded; "
                           f"{plugins.disabled_phrase()} may provide it "
                           f"(available: {', '.join(sorted(available))})"])


def describe_os_error(exc: OSError) -> str:
    """``<file>: <what the system says>``, without a traceback."""
    what = exc.strerror or type(exc).__name__
    return f"{exc.filename}: {what}" if exc.filename is not None else what


pass_state = click.pass_obj


def say(message: str, *, fg: str | None = None, dim: bool = False) -> None:
    """One line on stderr, styled (*fg*: ``red`` or ``yellow``; *dim*) on a terminal only."""
    if sys.stderr is None:  # started with descriptor 2 closed
        return
    click.secho(message, err=True, fg=fg, dim=dim)


def console(*, stderr: bool = False) -> Any:
    """A rich console for stdout (or stderr); wide when piped, so tables are not squeezed to
    80 columns.

    Markup and emoji codes are off: what we print holds data (summaries, command lines,
    config values), and a ``[/x]`` or ``:smile:`` in it must print as it is, not be read as
    styling (an unmatched closing tag would even raise).
    """
    # rich is imported only where a table or a progress bar is printed: 45 ms with its
    # console (python -X importtime, the fastest of 5 runs, 2026-12), three times
    # `python -c pass`, which `trunc apply` and `trunc run` do not pay.
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr, markup=False, emoji=False,
                   width=None if stream.isatty() else 200)
