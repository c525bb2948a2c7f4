"""When a plugin raises: name it, log it without content, and fall back to the built-ins.

A tool call must not fail because a plugin is buggy, and nothing may be lost. When a hook
implementation, or an artifact writer a plugin returned, raises while a result is processed,
the :class:`~truncation_core.Truncator` falls back as follows, adds a note to
``metadata.notes``, and logs a WARNING on the ``truncation_core`` logger that names the plugin,
the hook and the exception's *type*; never its message or traceback, which may quote content.

=======================================  ===================================================
what raised                              what the processor does instead
=======================================  ===================================================
``select_strategy``                      uses the policy's strategy
``truncate``, or ``format_marker``       cuts with head_tail and the built-in markers (the
                                         configured templates, rendered without plugins)
``store_artifact``, or its writer        cuts inline, with markers saying that the full
                                         content could not be kept
``salient_detector``                     shows no highlights (and asks again next time)
a strategy's ``stream_cutter``, or its   the stream cuts as text
cutter
=======================================  ===================================================

With ``plugins.strict`` on, the exception propagates instead. Failures of the store itself
(:class:`~truncation_core.errors.StoreError`, :class:`OSError`: a full disk, a permission) are
not plugin bugs: they always degrade, as docs/artifacts.md describes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs

from truncation_core.errors import StoreError, log
from truncation_core.hooks.host import HookResultError
from truncation_core.types.artifacts import ArtifactInfo, ArtifactRef
from truncation_core.types.storage import ArtifactWriter

if TYPE_CHECKING:
    from truncation_core.hooks.host import PluginHost

__all__ = ["NOT_KEPT", "GuardedWriter", "PluginFailure", "WriterFailed", "report"]


#: What happens when keeping the content fails.
NOT_KEPT = "the full content is not kept"


@attrs.frozen(kw_only=True)
class PluginFailure:
    """One exception raised by plugin code, described without its message."""

    #: The plugin whose code raised, or None when no plugin code is on the traceback. When a
    #: hook's result was wrong and several plugins implement the hook: ``a or b``.
    plugin: str | None
    #: The hook whose implementation raised (or that was being called).
    hook: str
    #: The exception's type name.
    error: str
    #: For a result of the wrong type: what was returned (type names only, never content).
    returned: str | None = None

    @classmethod
    def of(cls, exc: BaseException, hook: str, plugins: PluginHost,
           suspect: object = None) -> PluginFailure:
        """The failure *exc*, raised in (or while calling) *hook*; *suspect* is the object
        that raised it when that is known but its code is not on the traceback."""
        plugin, found_hook = plugins.culprit(exc, suspect)
        returned = exc.returned if isinstance(exc, HookResultError) else None
        return cls(plugin=plugin, hook=found_hook or hook, error=type(exc).__name__,
                   returned=returned)

    def describe(self, instead: str) -> str:
        """``plugin 'x' raised ValueError in truncate; <instead>``: safe to log and to show."""
        who = ("plugin " + " or ".join(map(repr, self.plugin.split(" or "))) if self.plugin
               else "a plugin")
        if self.returned is not None:
            return f"{who} {self.returned}; {instead}"
        return f"{who} raised {self.error} in {self.hook}; {instead}"


def report(failure: PluginFailure, instead: str, *, tool: str | None,
           notes: list[str] | None = None) -> None:
    """Log *failure* at WARNING and add it to *notes*."""
    message = failure.describe(instead)
    log.warning("%s (tool=%s)", message, tool)
    if notes is not None:
        notes.append(message)


class WriterFailed(StoreError):
    """A plugin's artifact writer raised something other than a store error. Every path that
    keeps content treats it as a store that failed; the failure is already reported."""

    def __init__(self, failure: PluginFailure) -> None:
        self.failure = failure
        #: The failure, as ``metadata.notes`` gives it.
        self.note = failure.describe(NOT_KEPT)
        super().__init__(self.note)


class GuardedWriter:
    """The writer a ``store_artifact`` plugin returned, whose bugs become :class:`WriterFailed`.

    Store errors (:class:`StoreError`, :class:`OSError`) pass through unchanged. Anything else
    is handed to *on_failure* with the writer, which reports it (or, in strict mode,
    re-raises it) and returns the :class:`WriterFailed` raised in its place. ``abort()`` is
    cleanup after a failure, so a plugin bug there is reported and swallowed rather than
    raised over the first error.
    """

    def __init__(self, inner: ArtifactWriter,
                 on_failure: Callable[[Exception, object], WriterFailed]) -> None:
        self._inner = inner
        self._on_failure = on_failure

    @property
    def id(self) -> str | None:
        """The artifact's id when the backend knows it before commit."""
        return getattr(self._inner, "id", None)

    def write(self, data: bytes) -> None:
        self._call(self._inner.write, data)

    def commit(self, info: ArtifactInfo | None = None) -> ArtifactRef:
        ref = self._call(self._inner.commit, info)
        if not isinstance(ref, ArtifactRef):
            raise self._on_failure(TypeError(
                f"commit() returned a {type(ref).__name__}, not an ArtifactRef"), self._inner)
        return ref

    def abort(self) -> None:
        try:
            self._call(self._inner.abort)
        except WriterFailed:
            pass

    def __enter__(self) -> GuardedWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            self._call(self._inner.__exit__, *exc_info)
        except WriterFailed:
            pass

    def _call(self, method: Callable[..., Any], *args: object) -> Any:
        try:
            return method(*args)
        except (StoreError, OSError):
            raise
        except Exception as exc:
            raise self._on_failure(exc, self._inner) from None
