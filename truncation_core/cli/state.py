"""What every ``trunc`` command shares: loading configuration and building a Truncator."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
import click

from truncation_core.errors import PluginLoadWarning

if TYPE_CHECKING:
    from truncation_core.config.sources import LoadedConfig
    from truncation_core.truncator import Truncator


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
                click.secho(f"warning: {warning.message}", fg="yellow", err=True)
        else:
            warnings.showwarning(warning.message, warning.category, warning.filename,
                                 warning.lineno)


@attrs.define
class AppState:
    config_path: Path | None = None
    #: Whether skipped config files were announced already.
    announced: bool = False

    def load(self, overrides: Mapping[str, Any] | None = None) -> LoadedConfig:
        """The configuration; a config file skipped because another user could have written
        it is announced on stderr, once per command."""
        from truncation_core.config.sources import load_config
        from truncation_core.errors import UntrustedConfigWarning

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UntrustedConfigWarning)  # said below instead
            loaded = load_config(self.config_path, overrides=overrides)
        if not self.announced:
            self.announced = True
            for message in loaded.skipped:
                click.secho(f"warning: {message}", fg="yellow", err=True)
        return loaded

    def truncator(self, overrides: Mapping[str, Any] | None = None, *,
                  loaded: LoadedConfig | None = None) -> Truncator:
        """A Truncator for the configuration (*loaded* already, or loaded with *overrides*),
        as :meth:`Truncator.from_config <truncation_core.Truncator.from_config>` builds it."""
        from truncation_core.truncator import Truncator

        if loaded is None:
            loaded = self.load(overrides)
        with plugin_warnings_to_stderr():
            truncator = Truncator(loaded.config, project_root=loaded.project_root)
        global on_start_up_done
        done, on_start_up_done = on_start_up_done, None
        if done is not None:
            done()
        return truncator


def pass_state(f: Any) -> Any:
    return click.pass_obj(f)


def console(*, stderr: bool = False) -> Any:
    """A rich console for stdout (or stderr); wide when piped, so tables are not squeezed to
    80 columns.

    Markup and emoji codes are off: what we print holds data (summaries, command lines,
    config values), and a ``[/x]`` or ``:smile:`` in it must print as it is, not be read as
    styling (an unmatched closing tag would even raise).
    """
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    return Console(stderr=stderr, markup=False, emoji=False,
                   width=None if stream.isatty() else 200)
