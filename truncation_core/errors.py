"""Every exception truncation-core raises, and the logger for what it recovers from.

Messages never contain tool output: they name fields, ids and sizes only. An id that fails
validation is described by its length and a short hash, never echoed, because it came from a
model and may carry anything (including newlines that would forge log lines).
"""

from __future__ import annotations

import errno
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

# Every start-up imports this module; what only an error or a warning uses is imported then:
# hashlib (2.9 ms), difflib (1.2 ms) and logging (2.7 ms; ``log`` is made on first use)
# (python -X importtime, fastest of 9, 2026-12).

if TYPE_CHECKING:
    import logging


class TruncationCoreError(Exception):
    """Base class for all errors raised by truncation-core."""


class ConfigError(TruncationCoreError, ValueError):
    """The configuration is invalid. One message per problem, each starting with its path."""

    def __init__(self, problems: Sequence[str], *, source: str | None = None) -> None:
        self.problems = tuple(problems)
        self.source = source
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f" ({self.source})" if self.source else ""
        return f"invalid configuration{where}:\n" + "\n".join(f"  {p}" for p in self.problems)


class PluginLoadError(TruncationCoreError):
    """An installed or project plugin could not be loaded."""

    def __init__(
        self,
        name: str,
        *,
        distribution: str | None = None,
        version: str | None = None,
        cause: BaseException | None = None,
    ) -> None:
        self.name = name
        self.distribution = distribution
        self.version = version
        self.cause = cause
        super().__init__(str(self))

    def __str__(self) -> str:
        dist = (f" from {self.distribution} {self.version or ''}".rstrip()
                if self.distribution else "")
        why = f": {type(self.cause).__name__}: {self.cause}" if self.cause else ""
        return f"plugin {self.name!r}{dist} failed to load{why}"


class PluginLoadWarning(UserWarning):
    """Issued instead of :class:`PluginLoadError` when plugin loading is not strict."""


class UntrustedConfigWarning(UserWarning):
    """A config file found by searching was skipped: another user could have written it
    (see :mod:`truncation_core.config.trust`)."""


class PluginDisabledWarning(PluginLoadWarning):
    """Configuration names a strategy or backend that no loaded plugin provides, while a
    plugin that may provide it is disabled: the default stands in. Not a configuration
    error: the operator (or the configuration) chose to disable the plugin."""


class ArtifactError(TruncationCoreError):
    """Base class for artifact storage and retrieval errors."""


class InvalidArtifactId(ArtifactError, ValueError):
    """An artifact id does not have the form ``art_<timestamp>_<32 hex digits>`` (nor, where
    a tool call id is accepted too, that of a tool call id)."""

    def __init__(self, value: object, *, handles: bool = False) -> None:
        self.description = describe_untrusted(value)
        expected = ("an artifact id (art_<unix timestamp>_<32 lowercase hex digits>) or a tool "
                    "call id (1 to 128 ASCII letters, digits, '_', '.', ':' or '-', starting "
                    "with a letter or digit, not with art_)" if handles
                    else "the form art_<unix timestamp>_<32 lowercase hex digits>")
        super().__init__(f"artifact_id: expected {expected}, got {self.description}")


class InvalidSessionId(ArtifactError, ValueError):
    """A session id is not 1 to 64 lowercase ASCII letters, digits, ``-`` or ``_``."""

    def __init__(self, value: object) -> None:
        self.description = describe_untrusted(value)
        super().__init__(
            "session: expected 1 to 64 lowercase ASCII letters, digits, '-' or '_', starting "
            f"with a letter or digit, got {self.description}"
        )


class ArtifactNotFound(ArtifactError, LookupError):
    """No artifact with this id exists (or it was evicted or deleted)."""

    def __init__(self, artifact_id: str, *, reason: str | None = None) -> None:
        self.artifact_id = artifact_id
        self.reason = reason
        suffix = f" ({reason})" if reason else ""
        super().__init__(f"artifact {artifact_id} not found{suffix}")

    def __str__(self) -> str:  # LookupError would otherwise quote the message
        return str(self.args[0])

    @classmethod
    def for_tool_call(cls, tool_call_id: str) -> ArtifactNotFound:
        """No artifact is stored for *tool_call_id*. The id is described, not repeated: it
        comes from a model's tool call, and may be copied from anything."""
        error = cls(tool_call_id)
        error.args = (f"no artifact is stored for the tool call id given "
                      f"({describe_untrusted(tool_call_id)})",)
        return error


class StoreError(ArtifactError, OSError):
    """The artifact store could not keep or read an artifact."""


class StoreFull(StoreError):
    """The artifact store is out of space (ENOSPC, EDQUOT or EFBIG) or over its quota."""


class StoreRootRefused(StoreError):
    """``store.root`` names a directory the store did not make: it exists, is not empty, and
    holds no store marker (docs/artifacts.md, "Where artifacts live"). Nothing in it was
    written or deleted.

    The message names ``store.root``, the path and what is expected, never what the directory
    holds, so it may be shown and logged as it is.
    """

    #: What the result says instead of an artifact id (the warning logged has the message).
    reason = "store.root is not an artifact store"

    def __init__(self, path: str, why: str) -> None:
        super().__init__(
            errno.EPERM,
            f"store.root: {path} is not an artifact store: {why}. Nothing in it was changed. "
            "Expected a directory that does not exist yet (the store makes it), an empty "
            "one, or one the store made (it holds .truncation-core-store): set store.root "
            "(or TRUNCATION_CORE_STORE__ROOT) to such a directory, for example a new "
            "subdirectory of this one")
        self.path = path

    def __str__(self) -> str:  # OSError would prefix "[Errno 1]"
        return str(self.strerror)


class PatternError(ArtifactError, ValueError):
    """A grep pattern is invalid, or too slow to run (catastrophic backtracking)."""


def describe_untrusted(value: object) -> str:
    """Describe a value from an untrusted source without repeating it."""
    if isinstance(value, str):
        import hashlib

        digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        return f"a string of {len(value)} characters (sha256 {digest}…)"
    return f"a value of type {type(value).__name__}"


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """``; did you mean 'x'?`` for the closest candidate, or the empty string."""
    import difflib  # only for an error message

    close = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


class _Logger:
    """The ``truncation_core`` logger, looked up on each use: importing :mod:`logging` costs
    milliseconds at start-up (with what it imports), and most runs never log."""

    def __getattr__(self, name: str) -> Any:
        import logging

        return getattr(logging.getLogger("truncation_core"), name)


#: Where the library reports what it recovered from (a plugin's failure, a store error):
#: types, names and sizes, never content.
log = cast("logging.Logger", _Logger())
