"""What :meth:`Truncator.process <truncation_core.Truncator.process>` returns."""

from __future__ import annotations

import math
import signal
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

from truncation_core.errors import log
from truncation_core.text.measure import count_lines
from truncation_core.tokens.estimate import EstimateTokenizer
from truncation_core.types.converters import frozen_mapping, omissions, strings
from truncation_core.types.models import Budget

if TYPE_CHECKING:
    from truncation_core.types.artifacts import ArtifactRef
    from truncation_core.types.cuts import Omission
    from truncation_core.types.policy import Policy
    from truncation_core.types.tokenizer import Tokenizer

__all__ = ["TIMEOUT_EXIT", "BinaryContent", "CommandStatus", "TokenFigures", "TruncationMetadata",
           "TruncationResult"]

#: Exit status reported for a command killed by its timeout (as ``timeout(1)`` does).
TIMEOUT_EXIT = 124



class TokenFigures:
    """The token counts of one result under its tokenizer, each counted when first read.

    What the model sees is counted whole (its count is given when the pipeline counted it
    already, to fit ``max_tokens``). The original is counted whole when it is at hand
    (*original*); a large one is not kept, and its count is extrapolated from what is kept
    of it (*samples*: its first and last characters, as a stream keeps them) by their
    tokens per character: :attr:`original_counted` says which.

    Counting never raises: a plugin tokenizer that fails is replaced by ``estimate``, and
    a warning is logged.
    """

    __slots__ = ("_counted", "_lock", "_original", "_original_chars", "_samples", "_shown",
                 "_shown_tokens", "_tokenizer", "_values")

    def __init__(self, tokenizer: Tokenizer, *, shown: str, original_chars: int,
                 shown_tokens: int | None = None, original: str | None = None,
                 samples: tuple[str, ...] = ()) -> None:
        self._tokenizer = tokenizer
        self._shown = shown
        self._shown_tokens = shown_tokens
        self._original = original
        self._original_chars = original_chars
        self._samples = samples
        self._counted = original is not None
        self._values: tuple[int, int] | None = None
        self._lock = threading.Lock()

    @property
    def tokenizer(self) -> str:
        return self._tokenizer.name

    def _count(self, text: str) -> int:
        try:
            n = self._tokenizer.count(text)
            if type(n) is int and n >= 0:
                return n
            raise TypeError(f"count() returned a {type(n).__name__}, not a count")
        except Exception as exc:
            log.warning("tokenizer %r raised %s while counting a result's tokens; counted "
                        "with estimate", self._tokenizer.name, type(exc).__name__)

            self._tokenizer = EstimateTokenizer()
            return self._tokenizer.count(text)

    def values(self) -> tuple[int, int]:
        """``(tokens of what the model sees, tokens of the original)``."""
        if self._values is None:
            with self._lock:
                if self._values is None:
                    self._values = self._compute()
                    # Counted: the texts are no longer needed.
                    self._shown = self._original = None  # type: ignore[assignment]
                    self._samples = ()
        return self._values

    def _compute(self) -> tuple[int, int]:
        shown = self._shown_tokens if self._shown_tokens is not None else self._count(
            self._shown)
        if self._original is not None:
            original = shown if self._original is self._shown else self._count(self._original)
            return shown, original
        sampled = [s for s in self._samples if s]
        chars = sum(map(len, sampled))
        if not chars:  # nothing kept of it: what the model sees stands for it
            sampled, chars = [self._shown], len(self._shown)
        tokens = sum(map(self._count, sampled))
        return shown, math.ceil(self._original_chars * tokens / max(chars, 1))

    @property
    def original_counted(self) -> bool:
        return self._counted

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TokenFigures):
            return NotImplemented
        return (self.tokenizer, self.values(), self._counted) == (
            other.tokenizer, other.values(), other._counted)

    def __hash__(self) -> int:
        return hash((self.tokenizer, self.values(), self._counted))

    def __repr__(self) -> str:  # never the content, and no counting for a repr
        values = "not counted yet" if self._values is None else (
            f"shown={self._values[0]}, original={self._values[1]}")
        return f"TokenFigures(tokenizer={self.tokenizer!r}, {values})"


def _default_figures() -> TokenFigures:
    return TokenFigures(EstimateTokenizer(), shown="", original="", original_chars=0)


@attrs.frozen(kw_only=True)
class CommandStatus:
    """How a command ended (:mod:`truncation_core.streaming.command`). Recorded in the
    metadata as ``command``."""

    #: The command line that ran.
    argv: tuple[str, ...] = attrs.field(converter=strings)
    #: Its exit status, or None when a signal ended it.
    exit_code: int | None
    #: The signal that ended it (``SIGKILL`` ...), or None.
    signal: str | None = None
    #: True when it outlived its timeout and was killed with its process group.
    timed_out: bool = False
    #: The timeout, in seconds, or None.
    timeout: float | None = None
    #: Wall time from start to exit, in seconds.
    duration_seconds: float = 0.0
    #: Remarks, e.g. that a process kept the output open after the command exited.
    notes: tuple[str, ...] = attrs.field(default=(), converter=strings)
    #: What interrupted the caller while the command ran (``SIGINT``, ``SIGTERM``,
    #: ``cancelled`` ...), which then killed it: the output is partial. None otherwise.
    interrupted: str | None = None

    @property
    def shell_exit_code(self) -> int:
        """The status a shell would report: the exit code, 128 + the signal number, or 124
        for a timeout (as ``timeout(1)``); 128 + N when signal N interrupted the caller."""
        if self.interrupted is not None:
            number = getattr(signal.Signals, self.interrupted, None)
            return 128 + int(number) if number is not None else 130
        if self.timed_out:
            return TIMEOUT_EXIT
        if self.exit_code is not None:
            return self.exit_code
        number = getattr(signal.Signals, self.signal or "", None)
        return 128 + int(number) if number is not None else 1



def _tuples_as_lists(_inst: object, _field: object, value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


@attrs.frozen(kw_only=True)
class BinaryContent:
    """Bytes that are not text (see :mod:`truncation_core.text.binary`): the model sees a
    summary of them instead. Recorded in the metadata as ``binary``."""

    #: The format, from its magic number (``PNG image``, ``ELF executable``), or
    #: ``binary data``.
    kind: str
    #: Its media type (``image/png``; ``application/octet-stream`` when unknown).
    media_type: str
    #: Its size in bytes.
    bytes: int
    #: The sha256 of all of its bytes, lowercase hex (the artifact's own ``sha256`` is that
    #: of what it stores, which differs when it is cut over ``max_artifact_size``).
    sha256: str


@attrs.frozen(kw_only=True)
class TruncationMetadata:
    """What was done to one tool result, in numbers a program (or a model) can act on.

    Sizes are in characters unless the name says otherwise.
    """

    #: The tool the result came from, if given.
    tool: str | None
    #: True when the model sees less than the full content.
    was_truncated: bool
    #: The strategy that produced the content, or None when nothing was cut.
    strategy_used: str | None
    #: Size of the original content.
    original_size: int
    #: Size of what the model sees, markers included.
    truncated_size: int
    #: Lines in the original content.
    original_lines: int
    #: Characters of the original that the model does not see.
    omitted_chars: int
    #: Lines of the original that the model does not see at all.
    omitted_lines: int
    #: The limits that were applied (in characters, bytes and lines; ``max_tokens`` is the
    #: limit in tokens).
    limits: Budget
    #: Who chose the strategy asked for (``strategy_used`` may differ when it could not
    #: cut: the notes say why): ``user`` when the user named the tool's strategy
    #: (``tools.<name>.strategy``, ``--strategy``), ``plugin NAME`` when a plugin's
    #: ``select_strategy`` did, ``default`` for the built-in choice (the policy's strategy,
    #: or ``element`` for structured content); None when nothing was cut.
    strategy_chosen_by: str | None = None
    #: The artifact holding the full content, or None.
    artifact_id: str | None = None
    #: Why the full content could not be kept, when spilling was on but failed.
    artifact_error: str | None = None
    #: Size of the original in UTF-8 bytes, when it was measured (always when spilled).
    original_bytes: int | None = None
    #: The omitted regions: their lines and bytes in the original, and in ``in_artifact``
    #: the numbers the marker shows, which read them back from the artifact (see
    #: :meth:`retrieve`).
    omissions: tuple[Omission, ...] = attrs.field(default=(), converter=omissions)
    #: Remarks, e.g. which fallback was taken and why.
    notes: tuple[str, ...] = attrs.field(default=(), converter=strings)
    #: Strategy-specific, machine-readable details. They may quote content (a highlighted
    #: line, a JSON key in a cut's path), so they are left out of the repr, which ends up in
    #: logs; ``to_dict`` and ``to_json`` include them.
    details: Mapping[str, Any] = attrs.field(factory=dict, converter=frozen_mapping,
                                             repr=False)
    #: True when the tool marked its result as already truncated, so it was left alone.
    opted_out: bool = False
    #: True when the artifact itself keeps only the head and tail of the original (content
    #: beyond ``max_artifact_size``); ``artifact.cut`` says what it lacks.
    artifact_truncated: bool = False
    #: How the command ended, for output of a command run by truncation-core (``trunc run``,
    #: :func:`truncation_core.streaming.command.run_command`): exit code, signal, timeout,
    #: wall time.
    command: CommandStatus | None = None
    #: Set when the content is partial: its stream (or command) was interrupted, and this is
    #: what had arrived (``interrupted after 1,234 lines (KeyboardInterrupt)``).
    interrupted: str | None = None
    #: Characters of the cut's output that the model does not see because they are terminal
    #: control: escape sequences (colours, cursor moves, titles, links) and progress frames
    #: that a later one on the same line, after a ``"\r"``, draws over. They are kept in the
    #: artifact, and lie outside the omitted regions (``omitted_chars`` does not count them).
    terminal_chars_removed: int = 0
    #: Set when the content is binary: the model sees a summary instead (``original_size``
    #: and ``omitted_chars`` then count its bytes, and ``strategy_used`` is None).
    binary: BinaryContent | None = None
    #: The encoding the content's bytes were decoded from by their byte-order mark
    #: (``UTF-16LE``, ``UTF-16BE``, ``UTF-32LE``, ``UTF-32BE``); None for UTF-8 (or text).
    #: The artifact keeps the bytes as they came.
    decoded_from: str | None = None
    #: The tokenizer the token figures are counted with (the policy's ``tokenizer``, or
    #: ``estimate`` when a plugin's tokenizer failed).
    tokenizer: str = "estimate"
    #: The limit in tokens that was applied, or None.
    max_tokens: int | None = None
    #: The token figures, counted when first read (see :attr:`estimated_tokens`).
    _tokens: TokenFigures = attrs.field(factory=_default_figures, alias="tokens", repr=False)

    #: The names of the fields and figures :meth:`to_dict` gives, in its order.
    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        names = [a.name for a in attrs.fields(cls) if not a.name.startswith("_")]
        return (*names, *_TOKEN_FIGURES)

    @property
    def estimated_tokens(self) -> int:
        """Tokens of what the model sees, under :attr:`tokenizer`: exact under a named
        tokenizer; under ``estimate``, never fewer than cl100k_base or o200k_base count.
        Within ``max_tokens`` when one applies. Counted when first read."""
        return self._tokens.values()[0]

    @property
    def original_tokens(self) -> int:
        """Tokens of the original content under :attr:`tokenizer`: counted whole when
        :attr:`original_tokens_counted`, else extrapolated from the parts that were kept
        (its first and last characters) by their tokens per character."""
        return self._tokens.values()[1]

    @property
    def original_tokens_counted(self) -> bool:
        """True when :attr:`original_tokens` is a count of the whole original; False when it
        is extrapolated (large content, which is not held in memory to be counted)."""
        return self._tokens.original_counted

    def retrieve(self, omission: Omission) -> dict[str, Any] | None:
        """The arguments of the ``get_artifact`` call that reads *omission* back (one of
        :attr:`omissions`), as its marker gives them: ``{"artifact_id": ..., "start_line":
        ..., "end_line": ...}`` for :meth:`Truncator.call_tool
        <truncation_core.Truncator.call_tool>`. None when nothing of it is stored."""
        span = omission.in_artifact
        if self.artifact_id is None or span is None:
            return None
        return {"artifact_id": self.artifact_id, "start_line": span.start_line,
                "end_line": span.end_line}

    def to_dict(self) -> dict[str, Any]:
        """A plain dict of JSON-compatible values. Each omission also gives ``chars`` and
        ``retrieve`` (see :meth:`retrieve`)."""
        # attrs.asdict keeps tuples; a plain dict has lists, as its JSON does.
        data = attrs.asdict(self, recurse=True, value_serializer=_tuples_as_lists)
        del data["_tokens"]
        data.update({name: getattr(self, name) for name in _TOKEN_FIGURES})
        data["details"] = dict(self.details)
        for region, omission in zip(data["omissions"], self.omissions, strict=True):
            region["chars"] = omission.chars
            region["retrieve"] = self.retrieve(omission)
        return data

    def to_json(self, **kwargs: Any) -> str:
        """The metadata as a JSON document (keyword arguments go to :func:`json.dumps`)."""
        import json  # not at start-up: only a caller that asks for JSON needs it

        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def unchanged(cls, content: str, policy: Policy, *,
                  opted_out: bool = False) -> TruncationMetadata:
        """Metadata for content passed through untouched."""
        chars = len(content)
        tokenizer = policy.counter
        if tokenizer is None:
            tokenizer = EstimateTokenizer()
        return cls(
            tool=policy.tool,
            was_truncated=False,
            strategy_used=None,
            original_size=chars,
            truncated_size=chars,
            original_lines=count_lines(content),
            omitted_chars=0,
            omitted_lines=0,
            limits=policy.budget,
            notes=("the tool marked its result as already truncated",) if opted_out else (),
            opted_out=opted_out,
            tokenizer=tokenizer.name,
            max_tokens=policy.max_tokens,
            tokens=TokenFigures(tokenizer, shown=content, original=content,
                                original_chars=chars),
        )


#: The token figures :meth:`TruncationMetadata.to_dict` gives besides the fields.
_TOKEN_FIGURES = ("estimated_tokens", "original_tokens", "original_tokens_counted")


@attrs.frozen(repr=False)
class TruncationResult:
    """What the model sees, what was done, and where the full content is kept.

    For content within its limits this object is all the processor builds: its metadata is
    computed only if you ask for it.
    """

    #: What the model sees.
    content: str
    #: The stored full content, or None when nothing was stored.
    artifact: ArtifactRef | None = None
    _metadata: TruncationMetadata | None = attrs.field(default=None, alias="metadata", eq=False)
    _policy: Policy | None = attrs.field(default=None, alias="policy", eq=False)

    @property
    def metadata(self) -> TruncationMetadata:
        """What was done (see :class:`TruncationMetadata`)."""
        if self._metadata is None:
            if self._policy is None:
                raise ValueError("TruncationResult needs metadata or a policy")
            # Computed on first access only: the pass-through path must stay cheap.
            object.__setattr__(self, "_metadata", TruncationMetadata.unchanged(
                self.content, self._policy))
        return self._metadata  # type: ignore[return-value]

    @property
    def was_truncated(self) -> bool:
        return self._metadata is not None and self._metadata.was_truncated

    def __repr__(self) -> str:  # never the content: results end up in logs
        artifact = self.artifact.id if self.artifact else None
        return (
            f"TruncationResult(chars={len(self.content)}, "
            f"was_truncated={self.was_truncated}, artifact={artifact!r})"
        )
