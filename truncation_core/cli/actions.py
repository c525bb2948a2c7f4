"""What ``trunc apply`` and ``trunc run`` do once click has parsed their arguments
(:mod:`truncation_core.cli.apply`, :mod:`truncation_core.cli.run`): the configuration their
options override, reading the input, and printing the result.
"""

from __future__ import annotations

import contextlib
import errno
import signal
import sys
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, BinaryIO

import attrs

from truncation_core.cli.state import console, say

# `trunc apply` of content within its limits imports nothing more: json (1.6 ms) for --json,
# rich's progress bar for `trunc run` on a terminal (45 ms with rich's console), the artifact
# model (3.2 ms) for it, and the command machinery (2.3 ms, with subprocess) for `trunc run`
# are imported where used (python -X importtime, fastest of 9, 2026-12; `python -c pass`
# takes about 12 ms).

if TYPE_CHECKING:
    from truncation_core.cli.reading import InputReader
    from truncation_core.pipeline.results import TruncationResult
    from truncation_core.streaming.stream import Stream
    from truncation_core.truncator import Truncator


def overrides_for(tool: str | None, strategy: str | None, limit: int | None, *,
                  session: str | None = None, limits: Mapping[str, Any] | None = None
                  ) -> dict[str, Any]:
    """Config overrides for ``--strategy``, ``--limit`` and the other limits (*limits*:
    ``max_tokens``, ``max_bytes``, ``max_lines``, ``tokenizer``, each None when not given),
    scoped to ``--tool`` if given.

    ``--strategy`` is the user's word, whatever the content and whatever plugins say: it is
    the strategy of the tool processed (``tools.<tool>.strategy``; without ``--tool``, of
    results given without a tool name, whose per-tool settings are under the empty name), so
    that no plugin's ``select_strategy`` is asked and the structure sniff does not send JSON
    and XML to ``element``. ``--session`` names the store's session, so that another process
    (an agent reading the artifact back) can find it there.
    """
    settings: dict[str, Any] = {}
    if limit is not None:
        settings["inline_limit"] = limit
    settings.update({key: value for key, value in (limits or {}).items() if value is not None})
    overrides: dict[str, Any] = ({"tools": {tool: settings}} if tool else settings) if settings \
        else {}
    if strategy is not None:
        overrides.setdefault("tools", {}).setdefault(tool or "", {})["strategy"] = strategy
    if session is not None:
        overrides["store"] = {"session": session}
    return overrides


#: The options that set one limit each, as ``trunc apply`` and ``trunc run`` take them.
LIMIT_OPTIONS = {"max_tokens": "--max-tokens", "max_bytes": "--max-bytes",
                 "max_lines": "--max-lines", "tokenizer": "--tokenizer"}

_CHUNK = 1 << 20
#: A strategy that cannot cut a stream gets the input whole, up to this many bytes; a larger
#: input streams, and the stream cuts it with head_tail (the notes say so).
WHOLE_INPUT_BYTES = 64 << 20


def cuts_streams(truncator: Truncator, tool: str | None) -> bool:
    """Whether the strategy *tool*'s policy asks for can cut a stream as it cuts whole text:
    it is ``streamable``, or its ``stream_cutter`` makes a cutter for the policy."""
    policy = truncator.policy(tool)
    strategy = truncator.plugins.strategies.get(policy.strategy)
    if strategy is None:
        return False
    if strategy.streamable:
        return True
    try:
        return strategy.stream_cutter is not None and strategy.stream_cutter(policy) is not None
    except Exception:  # a plugin's bug: the stream reports it, and cuts as text
        return False


def cut_input(truncator: Truncator, tool: str | None, source: BinaryIO | InputReader
              ) -> TruncationResult:
    """What the model would see of *source*: an input that ends within the first chunk goes
    to process() whole (a stream of it gives the same result, but costs more to open: its
    cutters, its highlights' matcher); a longer one is streamed in chunks (memory bounded by
    the budget, the result the one process() gives for the whole content) when the strategy
    can cut a stream; otherwise read whole, so that the strategy itself cuts it, up to
    :data:`WHOLE_INPUT_BYTES`.

    Read through an :class:`~truncation_core.cli.reading.InputReader` that a signal stopped,
    what arrived is kept as a partial output (streamed, whatever its size: its artifact and
    metadata say ``interrupted``, and its content starts with a line saying so)."""
    from truncation_core.cli.reading import InputReader

    reader = source if isinstance(source, InputReader) else InputReader(source)

    def interrupted() -> bool:
        return reader.signal is not None

    first = min(_CHUNK, WHOLE_INPUT_BYTES)
    head = bytearray(reader.read(first))
    while len(head) < first:  # the end, or a short read
        more = reader.read(first - len(head))
        if not more:
            if interrupted():
                return _partial(truncator, tool, reader, bytes(head))
            return truncator.process(bytes(head), tool=tool)
        head += more
    if not cuts_streams(truncator, tool):
        while len(head) <= WHOLE_INPUT_BYTES and (
                more := reader.read(WHOLE_INPUT_BYTES + 1 - len(head))):
            head += more
        if interrupted():
            return _partial(truncator, tool, reader, bytes(head))
        if len(head) <= WHOLE_INPUT_BYTES:
            return truncator.process(bytes(head), tool=tool)
        say(f"note: the input is larger than {WHOLE_INPUT_BYTES >> 20} MiB and strategy "
            f"{truncator.policy(tool).strategy!r} cannot cut a stream: streamed, and cut with "
            "head_tail", dim=True)
    with truncator.stream(tool=tool) as stream:
        stream.write(head)
        del head
        while chunk := reader.read(_CHUNK):
            stream.write(chunk)
        if interrupted():
            return _finished_partial(stream, reader)
    return stream.result()


def _partial(truncator: Truncator, tool: str | None, reader: InputReader,
             head: bytes) -> TruncationResult:
    """*head*, all that arrived before a signal stopped the reading, kept as partial."""
    with truncator.stream(tool=tool) as stream:
        stream.write(head)
        return _finished_partial(stream, reader)


def _finished_partial(stream: Stream, reader: InputReader) -> TruncationResult:
    result = stream.finish_interrupted(reader.signal_name or "interrupted")
    if result is None:  # it could not be kept (logged): say so, and stop as the signal says
        say("trunc apply: the input so far could not be kept", fg="red")
        sys.exit(128 + (reader.signal or signal.SIGINT))
    return result


def result_document(result: TruncationResult) -> dict[str, Any]:
    return {
        "content": result.content,
        "metadata": result.metadata.to_dict(),
        "artifact": attrs.asdict(result.artifact) if result.artifact else None,
    }


def _count(number: int, unit: str) -> str:
    """``12,340 lines``, ``1 line``."""
    return f"{number:,} {unit if number != 1 else unit[:-1]}"


def describe(result: TruncationResult) -> list[str]:
    """Human-readable metadata lines for stderr."""
    m = result.metadata
    if not m.was_truncated:
        return [f"unchanged: {_count(m.original_size, 'chars')}, "
                f"{_count(m.original_lines, 'lines')}"
                + (" (the tool marked it as already truncated)" if m.opted_out else "")
                + (f", decoded from {m.decoded_from}" if m.decoded_from else "")]
    tokens = (f"{_count(m.estimated_tokens, 'tokens')} by {m.tokenizer}"
              + (f", limit {m.max_tokens:,}" if m.max_tokens is not None else ""))
    if m.binary is not None:
        lines = [f"binary content, summarised: {m.binary.kind} ({m.binary.media_type}), "
                 f"{_count(m.binary.bytes, 'bytes')}, sha256 {m.binary.sha256} -> "
                 f"{_count(m.truncated_size, 'chars')} ({tokens})"]
    else:
        lines = [
            f"truncated with {m.strategy_used}: {_count(m.original_size, 'chars')}, "
            f"{_count(m.original_lines, 'lines')} -> {_count(m.truncated_size, 'chars')} "
            f"({tokens})",
            f"omitted: {_count(m.omitted_lines, 'lines')} / {_count(m.omitted_chars, 'chars')}",
        ]
    if m.decoded_from is not None:
        lines.append(f"decoded from {m.decoded_from} (a byte-order mark); the artifact keeps "
                     "the bytes as they came")
    for region in m.omissions:
        lines.append(f"  {region.position}: lines {region.first_line:,}-{region.last_line:,}, "
                     f"chars {region.start:,}-{region.end:,}")
    if result.artifact is not None:
        a = result.artifact
        lines.append(f"artifact: {a.id} ({a.size}, {a.backend} store)")
    elif m.artifact_error:
        lines.append(f"artifact: not kept ({m.artifact_error})")
    lines.extend(f"note: {note}" for note in m.notes)
    return lines


def print_json(document: Mapping[str, Any]) -> None:
    """*document* as one line of JSON on stdout."""
    import json  # only for --json: not at every start-up (it compiles six regexes)

    sys.stdout.write(json.dumps(document, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def print_content(text: str, *, view: bool = False) -> None:
    """What the model sees, on stdout as it is (a newline added only for a terminal, or
    after *view*: ``trunc run``'s header and output, which a host reads with the summary on
    stderr after it, where an output without a final newline ran into the summary:
    ``{"ok":true}unchanged: 11 chars``)."""
    out = sys.stdout
    out.write(text)
    if (view or out.isatty()) and not text.endswith("\n"):
        out.write("\n")
    out.flush()


def apply_to(truncator: Truncator, source: BinaryIO, *, tool: str | None,
             as_json: bool) -> None:
    """``trunc apply``: print what the model would see of *source* (content on stdout and
    the metadata on stderr, or both on stdout as JSON).

    SIGINT, SIGTERM or SIGHUP while it runs (:mod:`truncation_core.cli.reading`): what arrived
    is kept and shown as partial, as ``trunc run`` shows an interrupted command's output, and
    the exit status is 128 + the signal's number (130, 143, 129).

    On a terminal with nothing piped in, it says on stderr that it reads standard input:
    otherwise ``trunc apply`` seems to hang."""
    from truncation_core.cli.reading import InputReader

    if _is_terminal(source):
        say("trunc apply: reading stdin (Ctrl-D to end)…", dim=True)
    with InputReader(source) as reader:
        result = cut_input(truncator, tool, reader)
        if as_json:
            print_json(result_document(result))
        else:
            print_content(result.content)
            for line in describe(result):  # the notes say it is partial
                say(line, dim=True)
    if reader.signal is not None:
        sys.exit(128 + reader.signal)


def _is_terminal(source: BinaryIO) -> bool:
    try:
        return bool(source.isatty())
    except (AttributeError, ValueError, OSError):  # closed, or not a file
        return False


@contextlib.contextmanager
def live_progress() -> Iterator[Any]:
    """A progress callback drawing bytes, lines and elapsed time on stderr, when stderr is a
    terminal; None otherwise (nothing is drawn when output is piped or captured)."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from truncation_core.types.artifacts import human_size

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(),
                  console=console(stderr=True), transient=True) as bar:
        task = bar.add_task("starting", total=None)

        def report(stream: Any, _elapsed: float) -> None:
            bar.update(task, description=f"{human_size(stream.bytes)} · {stream.lines:,} lines")

        yield report


@contextlib.contextmanager
def termination_as_exit() -> Iterator[None]:
    """Turn SIGTERM and SIGHUP into :class:`~truncation_core.streaming.command.Interrupted`
    while the command runs (SIGINT raises KeyboardInterrupt already).

    The command runs in its own session, so a signal that ends ``trunc`` would not reach it:
    raising instead lets ``run_command`` kill the command's process group on the way out, and
    keep what arrived as a partial artifact.
    """
    from truncation_core.streaming.command import Interrupted

    def stop(number: int, _frame: object) -> None:
        raise Interrupted(number)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run_and_show(truncator: Truncator, command: list[str], *, tool: str,
                 timeout: float | None, as_json: bool) -> None:
    """``trunc run``: run *command*, print what the model would see of its output, and exit
    with the command's own exit code (124 after *timeout*, 128+N when killed by signal N;
    127 and 126 when it cannot be found or run)."""
    from truncation_core.streaming.command import run_command

    try:
        with termination_as_exit(), live_progress() as progress:
            done = run_command(truncator, command, tool=tool, timeout=timeout, stdin=None,
                               progress=progress)
    except KeyboardInterrupt as exc:  # SIGINT, SIGTERM, SIGHUP: the group was killed
        partial = getattr(exc, "command_result", None)
        if partial is None:
            sys.exit(128 + getattr(exc, "signum", signal.SIGINT))
        done = partial  # what arrived, kept as a partial artifact: shown as any result
    except FileNotFoundError:
        say(f"trunc run: command not found: {command[0]}", fg="red")
        sys.exit(127)
    except PermissionError:
        say(f"trunc run: permission denied: {command[0]}", fg="red")
        sys.exit(126)
    except OSError as exc:  # found and permitted, but not runnable
        why = ("not an executable format (a script without a '#!' line?)"
               if exc.errno == errno.ENOEXEC else exc.strerror or type(exc).__name__)
        say(f"trunc run: cannot execute {command[0]}: {why}", fg="red")
        sys.exit(126)
    if as_json:
        print_json(done.to_dict())
    else:
        print_content(done.text, view=True)
        for line in describe(done.result):
            say(line, dim=True)
        for note in done.status.notes:  # (the result's notes say when it is partial)
            say(f"note: {note}", dim=True)
    sys.exit(done.status.shell_exit_code)


def limits_of(max_tokens: int | None, max_bytes: int | None, max_lines: int | None,
              tokenizer: str | None) -> dict[str, Any]:
    """The limit options by setting name, each None when not given."""
    return {"max_tokens": max_tokens, "max_bytes": max_bytes, "max_lines": max_lines,
            "tokenizer": tokenizer}


__all__ = ["apply_to", "cut_input", "describe", "limits_of", "overrides_for",
           "result_document", "run_and_show"]
