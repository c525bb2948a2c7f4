"""Running a command and truncating its output as it streams: ``trunc run`` as a Python API.

    from truncation_core import Truncator
    from truncation_core.streaming.command import run_command

    done = run_command(Truncator.from_config(), ["pytest", "-x"], timeout=600)
    done.text              # what the model sees: a short header, then the cut output
    done.status.exit_code  # the command's own exit code
    done.result.artifact   # the full output

Decisions, and why:

* **stdout and stderr are merged** into one pipe (``stderr=STDOUT``), as a terminal shows
  them and as agents' exec tools report them. The kernel keeps their relative order exactly
  (a traceback on stderr stays next to the log lines on stdout that led to it), there is one
  budget, one artifact, and line numbers in markers and highlights refer to that one text.
  Keeping them apart would need two budgets and two artifacts, and reading two pipes can
  only approximate the order.
* **The command runs in its own process group** (a new session), so that a timeout kills
  everything it started: ``SIGTERM`` to the group, then ``SIGKILL`` after *kill_grace*
  seconds. A process that escapes the group and keeps the output pipe open cannot hang the
  caller: once the command has exited, reading stops after *kill_grace* seconds more, and
  the metadata says so.
* **The header counts against the budget**, like everything the model sees: the output is
  cut when the command has ended (and the header is known) to leave room for it. It takes at
  most half the budget: a one-line header stands in when the full one would take more, and
  none when even that would (the status is in the metadata either way).
* **An interruption keeps what arrived.** When the caller is interrupted while the command
  runs (KeyboardInterrupt, SystemExit, :class:`Interrupted` for SIGTERM and SIGHUP, task
  cancellation for :func:`arun_command`), the command's process group is killed, the output
  so far is committed as a partial artifact, and the interruption goes on, carrying the
  partial :class:`CommandResult` as its ``command_result`` attribute (its header says the
  output is partial, and ``status.interrupted`` by what).
* **One implementation, in a worker thread.** Both :func:`run_command` and
  :func:`arun_command` read the output in a worker thread and stop it through a
  :class:`_Stop`. A signal handler's exception (KeyboardInterrupt, :class:`Interrupted`) is
  raised in the main thread between any two bytecodes: raised in the middle of
  ``stream.write``, it would leave a chunk counted but not stored (the metadata then claims
  lines the artifact lacks). In the worker, the chunk being written is always written whole:
  the interruption lands in the caller's wait, which asks the worker to stop and waits for
  it. For :func:`arun_command`, the event loop is never blocked either.
* **What the command wrote before it was killed is kept.** After an interruption kills the
  group, what is still in the pipe is read (for at most *kill_grace* seconds) before the
  partial artifact is committed.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any, Protocol

import attrs

from truncation_core.errors import log
from truncation_core.pipeline.results import CommandStatus, TruncationResult
from truncation_core.text.measure import measure

if TYPE_CHECKING:
    from truncation_core.pipeline.results import TruncationResult
    from truncation_core.streaming.stream import Stream
    from truncation_core.types.policy import Policy

__all__ = ["CommandResult", "CommandStatus", "Interrupted", "StreamOpener", "arun_command",
           "run_command"]


#: Bytes read from the pipe at a time.
CHUNK = 1024 * 1024
#: How often progress is reported, in seconds.
PROGRESS_INTERVAL = 0.1
#: The most of the budget (in every limited unit) the header may take.
HEADER_SHARE = 0.5

class StreamOpener(Protocol):
    """What a command's output needs of its :class:`~truncation_core.Truncator`."""

    def stream(self, *, tool: str | None = None, **context: Any) -> Stream: ...


#: Called with the stream (``chars``, ``bytes``, ``lines`` so far) and the seconds elapsed.
Progress = Callable[[Any, float], None]


@attrs.frozen(kw_only=True)
class CommandResult:
    """A command's status, and its output as the model sees it."""

    status: CommandStatus
    #: The truncated output (its metadata carries ``command``; its artifact, everything).
    result: TruncationResult = attrs.field(repr=False)
    #: The lines above the output: timeout, exit code, wall time, total lines.
    header: str = attrs.field(
        default=attrs.Factory(lambda self: _full_header(self.status, self.result),
                              takes_self=True), repr=False)

    @classmethod
    def of(cls, output: Stream | TruncationResult, status: CommandStatus) -> CommandResult:
        """For frameworks that run commands their own way: the output they streamed, with how
        the command ended in its header and in its metadata.

            with truncator.stream(tool="execute_command", command=line) as s:
                for chunk in output:
                    s.write(chunk)
                done = CommandResult.of(s, CommandStatus(argv=argv, exit_code=code,
                                                         duration_seconds=seconds))
            done.text   # the header, then the cut output: within the budget

        Pass the stream before it is finished (inside the ``with`` block): its output is
        then cut to leave room for the header. A result already cut (a finished stream's,
        or ``process()``'s) cannot make room: the full header is put above it as it is.
        """
        if isinstance(output, TruncationResult):
            result, header = output, _full_header(status, output)
        else:
            header = _header_for(status, lines=output.lines, policy=output.policy)
            result = output.result(reserve=header)
        return cls._made(result, status, header)

    @classmethod
    def _made(cls, result: TruncationResult, status: CommandStatus,
              header: str) -> CommandResult:
        metadata = attrs.evolve(result.metadata, command=status)
        return cls(status=status, header=header, result=TruncationResult(
            result.content, artifact=result.artifact, metadata=metadata))

    @property
    def text(self) -> str:
        """What the model sees: the header, then the (truncated) output."""
        return self.header + self.result.content

    def to_dict(self) -> dict[str, Any]:
        return {
            "content": self.text,
            "metadata": self.result.metadata.to_dict(),
            "artifact": attrs.asdict(self.result.artifact) if self.result.artifact else None,
        }


def _header_for(status: CommandStatus, *, lines: int, policy: Policy) -> str:
    """The header above a command's output of *lines* lines: the full one, else the
    one-line one, else none, whichever first takes at most :data:`HEADER_SHARE` of the
    policy's budget in every limited unit, tokens included."""
    share = policy.budget.scaled(HEADER_SHARE)

    def fits(header: str) -> bool:
        if not share.admits(measure(header)):
            return False
        if policy.max_tokens is None or policy.counter is None:
            return True
        room = policy.max_tokens * HEADER_SHARE
        if policy.counter.byte_level and len(header.encode("utf-8", "surrogatepass")) <= room:
            return True
        try:
            return policy.counter.count(header) <= room
        except Exception:  # a plugin tokenizer's bug: the pipeline reports it; no header
            return False

    return next((h for h in _header_forms(status, lines) if fits(h)), "")


def _full_header(status: CommandStatus, result: TruncationResult) -> str:
    return _header_forms(status, result.metadata.original_lines)[0]


def _header_forms(status: CommandStatus, lines: int) -> tuple[str, str]:
    """The full header, and the one-line one."""
    code = (str(status.exit_code) if status.exit_code is not None
            else f"killed by {status.signal}" if status.signal is not None
            else "none (the command was killed)")
    full = []
    if status.interrupted is not None:
        full.append(f"Interrupted by {status.interrupted} after {lines:,} "
                    f"line{'' if lines == 1 else 's'}: the command and its process group were "
                    "killed; the output so far is kept.")
    if status.timed_out:
        full.append(f"Timed out after {status.timeout:g} s: the command and its process "
                    "group were killed.")
    full += [f"Exit code: {code}", f"Wall time: {status.duration_seconds:.1f} s",
             f"Total output lines: {lines:,}", "Output:"]
    ended = f"exit code {code}" if status.exit_code is not None else code
    if status.interrupted is not None:
        ended = f"interrupted by {status.interrupted}"
    timed_out = ", timed out" if status.timed_out else ""
    short = f"[{ended}{timed_out}, {status.duration_seconds:.1f} s, {lines:,} lines]"
    return "\n".join(full) + "\n", short + "\n"


def _signal_name(returncode: int) -> str | None:
    if returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


def _kill_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


class _Watch:
    """When to escalate against a command that runs too long, and when to stop reading.

    Past the deadline: ``SIGTERM`` to the process group, then ``SIGKILL`` *grace* seconds
    later. Once the command has exited, reading stops *grace* seconds later even if something
    else (a background process) still holds the output open.

    (Mutable state of one run, made by ``trunc run`` at every start: a plain class, which
    costs nothing to define, where an attrs class compiles its methods when it is made.)
    """

    __slots__ = ("deadline", "exited_at", "grace", "kill_at", "pid", "timed_out")

    def __init__(self, pid: int, deadline: float | None, grace: float) -> None:
        self.pid = pid
        self.deadline = deadline
        self.grace = grace
        self.timed_out = False
        self.kill_at: float | None = None
        self.exited_at: float | None = None

    def wait(self, now: float, longest: float | None) -> float | None:
        """Seconds until something is due (at most *longest*; None: nothing is due)."""
        due = [t - now for t in (None if self.timed_out else self.deadline, self.kill_at,
                                 None if self.exited_at is None else self.exited_at + self.grace)
               if t is not None]
        if longest is not None:
            due.append(longest)
        return max(0.0, min(due)) if due else None

    def tick(self, now: float, *, exited: bool) -> bool:
        """Escalate what is due; True when reading must stop."""
        if self.deadline is not None and not self.timed_out and now >= self.deadline:
            self.timed_out = True
            _kill_group(self.pid, signal.SIGTERM)
            self.kill_at = now + self.grace
        elif self.kill_at is not None and now >= self.kill_at:
            _kill_group(self.pid, signal.SIGKILL)
            self.kill_at = None
        if exited and self.exited_at is None:
            self.exited_at = now
        return self.exited_at is not None and now >= self.exited_at + self.grace


#: Why reading stopped before the end of the output.
_STILL_OPEN = ("the output was still open after the command exited (a background process?); "
               "stopped reading")


class Interrupted(KeyboardInterrupt):
    """Raised by a signal handler for a signal that ends the caller (SIGTERM, SIGHUP), so
    that the command is killed and its output kept as for Ctrl-C (which raises
    KeyboardInterrupt). ``trunc run`` installs such handlers."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _interruption_name(exc: BaseException) -> str:
    """What interrupted the caller: a signal name when known."""
    if isinstance(exc, Interrupted):
        return signal.Signals(exc.signum).name
    if isinstance(exc, KeyboardInterrupt):
        return "SIGINT"
    # (asyncio is imported only by callers that run an event loop: without it, nothing was
    # cancelled.)
    cancelled = getattr(sys.modules.get("asyncio"), "CancelledError", None)
    if cancelled is not None and isinstance(exc, cancelled):
        return "cancelled"
    return type(exc).__name__


def _checked(argv: Sequence[str | os.PathLike[str]]) -> list[str]:
    checked = [os.fspath(a) for a in argv]
    if not checked:
        raise ValueError("argv: expected a command and its arguments, got an empty list")
    return checked


def _status(*, argv: list[str], returncode: int | None, timed_out: bool,
            timeout: float | None, seconds: float, notes: list[str],
            interrupted: str | None = None) -> CommandStatus:
    return CommandStatus(
        argv=argv, exit_code=returncode if returncode is not None and returncode >= 0 else None,
        signal=_signal_name(returncode) if returncode is not None else None,
        timed_out=timed_out, timeout=timeout, duration_seconds=round(seconds, 3), notes=notes,
        interrupted=interrupted)


class _Stop:
    """How :func:`arun_command` stops the worker running the command: an event, and a pipe
    that wakes the worker's select at once."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)

    @property
    def fd(self) -> int:
        return self._read

    def set(self, reason: str) -> None:
        self.reason = reason
        with contextlib.suppress(OSError):
            os.write(self._write, b"x")

    def close(self) -> None:
        for fd in (self._read, self._write):
            with contextlib.suppress(OSError):
                os.close(fd)


class _Stopped(BaseException):
    """The worker was asked to stop (its task was cancelled)."""


def run_command(
    truncator: StreamOpener,
    argv: Sequence[str],
    *,
    tool: str = "execute_command",
    timeout: float | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    stdin: int | IO[Any] | None = subprocess.DEVNULL,
    kill_grace: float = 2.0,
    progress: Progress | None = None,
    **context: Any,
) -> CommandResult:
    """Run *argv*, stream its output through *truncator*, and report how it ended.

    :param tool: the tool name whose policy applies (``execute_command``: the tail, with
        highlights of errors from the omitted part).
    :param timeout: seconds; a command still running then is killed with its process group.
    :param stdin: what the command reads: nothing by default (an agent cannot type); None
        inherits this process's standard input.
    :param kill_grace: seconds between ``SIGTERM`` and ``SIGKILL``, and how long to keep
        reading after the command exited while something else holds the output open.
    :param progress: called about every 0.1 s with the stream (``chars``, ``bytes``,
        ``lines``) and the seconds elapsed, from the thread that reads the output.
    :param context: passed to :meth:`Truncator.stream` (``tool_call_id`` ...).
    :raises FileNotFoundError: the command does not exist. ``PermissionError``: it is not
        executable. Another ``OSError`` (``ENOEXEC``: a script without a ``#!`` line) when
        it cannot be run.

    Interrupted (KeyboardInterrupt, SystemExit, :class:`Interrupted`), it kills the
    command's group, keeps the output so far as a partial artifact, and re-raises, with the
    partial :class:`CommandResult` as the exception's ``command_result``.
    """
    stop = _Stop()
    outcome: list[CommandResult | BaseException] = []
    # Not Thread.join: interrupted, it may mark the thread stopped while it still runs.
    finished = threading.Lock()
    finished.acquire()

    def work() -> None:
        try:
            outcome.append(_run(truncator, argv, tool=tool, timeout=timeout, cwd=cwd, env=env,
                                stdin=stdin, kill_grace=kill_grace, progress=progress,
                                stop=stop, context=context))
        except BaseException as exc:  # raised on the caller's thread below
            outcome.append(exc)
        finally:
            finished.release()

    try:
        threading.Thread(target=work, name="truncation-core run_command", daemon=True).start()
    except BaseException:
        # Interrupted while starting it: nothing arrived yet. A worker that did start kills
        # its command at once (its stop pipe stays open for it).
        stop.set("not started")
        raise
    try:
        _wait_on(finished)
    except BaseException as exc:
        # A signal handler raised here (its exceptions reach the main thread only): the worker
        # finishes the chunk it is writing, kills the command and keeps what arrived.
        stop.set(_interruption_name(exc))
        _wait_for(finished)
        done = outcome[0] if outcome else None
        if isinstance(done, CommandResult):
            with contextlib.suppress(AttributeError):
                exc.command_result = done  # type: ignore[attr-defined]
        raise
    finally:
        stop.close()
    done = outcome[0]
    if isinstance(done, BaseException):
        raise done
    return done


#: How often the caller's thread wakes while the worker runs, to run signal handlers.
_WAKE_INTERVAL = 0.05


def _wait_on(finished: threading.Lock) -> None:
    """Wait until the worker releases *finished*. Not in one blocking acquire: the kernel
    may deliver a signal to the worker's thread, and then nothing wakes this one to run the
    handler (the command would run on, and ``trunc`` would ignore Ctrl-C). Waking now and
    then runs it within :data:`_WAKE_INTERVAL`."""
    while not finished.acquire(timeout=_WAKE_INTERVAL):
        pass


def _wait_for(finished: threading.Lock) -> None:
    """Wait for the worker to keep what arrived, however often the caller is interrupted
    meanwhile: it takes at most a kill, *kill_grace* seconds of draining, and a commit."""
    while True:
        with contextlib.suppress(BaseException):
            _wait_on(finished)
            return


def _run(truncator: StreamOpener, argv: Sequence[str], *, tool: str, timeout: float | None,
         cwd: str | os.PathLike[str] | None, env: Mapping[str, str] | None,
         stdin: int | IO[Any] | None, kill_grace: float, progress: Progress | None,
         stop: _Stop | None, context: Mapping[str, Any]) -> CommandResult:
    """The one implementation behind :func:`run_command` and :func:`arun_command`."""
    argv = _checked(argv)
    stream = truncator.stream(tool=tool, command=shlex.join(argv), **context)  # checks context
    start = time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=stdin, cwd=cwd,
                                env=dict(env) if env is not None else None,
                                start_new_session=True)
    except BaseException:
        stream.abort()
        raise
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    deadline = start + timeout if timeout is not None else None
    watch = _Watch(proc.pid, deadline, kill_grace)
    notes: list[str] = []
    next_report = start
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            if stop is not None:
                selector.register(stop.fd, selectors.EVENT_READ)
            while True:
                now = time.monotonic()
                ready = selector.select(watch.wait(now, PROGRESS_INTERVAL if progress else 1.0))
                if stop is not None and stop.reason is not None:
                    raise _Stopped
                if ready:
                    data = os.read(fd, CHUNK)
                    if not data:
                        break
                    stream.write(data)
                now = time.monotonic()
                if watch.tick(now, exited=proc.poll() is not None):
                    notes.append(_STILL_OPEN)
                    break
                if progress is not None and now >= next_report:
                    progress(stream, now - start)
                    next_report = now + PROGRESS_INTERVAL
        proc.stdout.close()
        returncode = _wait(proc, deadline, kill_grace)
        timed_out = watch.timed_out
        if returncode is None:  # it closed its output but outlived the timeout
            timed_out = True
            returncode = proc.wait()
    except BaseException as exc:
        _kill_group(proc.pid, signal.SIGKILL)
        proc.wait()
        if isinstance(exc, Exception):
            stream.abort()
            raise
        # Interrupted: kill it as above, and keep what arrived, including what it wrote
        # before it died and nobody read yet.
        _drain(proc.stdout, stream, kill_grace)
        reason = (stop.reason if isinstance(exc, _Stopped) and stop is not None
                  and stop.reason else _interruption_name(exc))
        partial = _partial(stream, argv=argv, reason=reason, timeout=timeout,
                           seconds=time.monotonic() - start, notes=notes,
                           returncode=proc.returncode)
        if isinstance(exc, _Stopped) and partial is not None:
            return partial  # the async face re-raises its cancellation with it
        if partial is not None:
            with contextlib.suppress(AttributeError):
                exc.command_result = partial  # type: ignore[attr-defined]
        raise
    finally:
        proc.stdout.close()
    status = _status(argv=argv, returncode=returncode, timed_out=timed_out, timeout=timeout,
                     seconds=time.monotonic() - start, notes=notes)
    return CommandResult.of(stream, status)


def _drain(output: IO[bytes], stream: Stream, seconds: float) -> None:
    """Write to *stream* what is left in the killed command's *output* pipe: everything,
    unless a process that escaped the group keeps writing (then for at most *seconds*)."""
    if output.closed:
        return
    fd = output.fileno()
    end = time.monotonic() + seconds
    try:
        os.set_blocking(fd, False)
        while time.monotonic() < end:
            data = os.read(fd, CHUNK)
            if not data:
                return
            stream.write(data)
    except OSError:  # BlockingIOError: the pipe is empty (and still open)
        return


def _partial(stream: Stream, *, argv: list[str], reason: str, timeout: float | None,
             seconds: float, notes: list[str], returncode: int | None = None
             ) -> CommandResult | None:
    """The output so far, kept as a partial artifact, with a header saying so; None if even
    that fails (logged: the interruption must go on). *returncode*: how the command ended
    once killed (by ``SIGKILL``, or its own exit if it was done already)."""
    status = _status(argv=argv, returncode=returncode, timed_out=False, timeout=timeout,
                     seconds=seconds, notes=notes, interrupted=reason)
    why = f"interrupted after {stream.lines:,} line{'' if stream.lines == 1 else 's'} " \
          f"({reason})"
    try:
        header = _header_for(status, lines=stream.lines, policy=stream.policy)
        return CommandResult._made(stream.interrupt(why, reserve=header), status, header)
    except Exception as exc:
        log.warning("interrupted command's output could not be kept: %s", type(exc).__name__)
        stream.abort()
        return None


def _wait(proc: subprocess.Popen[bytes], deadline: float | None, grace: float) -> int | None:
    """Wait for the command; kill its group if it outlives the deadline (None then)."""
    remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
    try:
        return proc.wait(timeout=remaining)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            _kill_group(proc.pid, signal.SIGKILL)
        return None


async def arun_command(
    truncator: StreamOpener,
    argv: Sequence[str],
    *,
    tool: str = "execute_command",
    timeout: float | None = None,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    kill_grace: float = 2.0,
    progress: Progress | None = None,
    **context: Any,
) -> CommandResult:
    """The async form of :func:`run_command` (the command's standard input is empty): the
    same implementation, run in a worker thread.

    When its task is cancelled, the command's group is killed, the output so far is kept as
    a partial artifact, and the cancellation goes on, with the partial
    :class:`CommandResult` as its ``command_result``.
    """
    import asyncio  # loaded already by whoever runs the event loop

    stop = _Stop()
    worker = asyncio.ensure_future(asyncio.to_thread(
        _run, truncator, argv, tool=tool, timeout=timeout, cwd=cwd, env=env,
        stdin=subprocess.DEVNULL, kill_grace=kill_grace, progress=progress, stop=stop,
        context=context))
    try:
        return await asyncio.shield(worker)
    except asyncio.CancelledError as exc:
        stop.set("cancelled")
        try:
            partial = await worker  # stops within a select, then keeps what arrived
        except (Exception, _Stopped):
            raise exc from None
        exc.command_result = partial  # type: ignore[attr-defined]
        raise
    finally:
        if worker.done():
            stop.close()
        else:
            worker.add_done_callback(lambda _: stop.close())
