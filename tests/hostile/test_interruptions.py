"""Interrupting ``trunc run``, a command or a stream keeps what arrived.

On SIGINT, SIGTERM or SIGHUP, ``trunc run`` kills the command's process group as before, then
commits the artifact marked partial ("interrupted after N lines"), prints the view and exits
130, 143 or 129. A library stream interrupted (KeyboardInterrupt, task cancellation) does the
same. The negative controls run the same interruptions with the old behaviour (abort on any
exception): nothing is kept.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from truncation_core import Truncator
from truncation_core.storage.memory import MemoryStore
from truncation_core.streaming import command as command_module
from truncation_core.streaming import stream as stream_module
from truncation_core.streaming.command import arun_command, run_command

TRUNC = [sys.executable, "-m", "truncation_core"]


def make(**config: Any) -> Truncator:
    return Truncator({"inline_limit": 2000, **config}, load_entrypoints=False,
                     store=MemoryStore())


def producer(flag: Path, lines: int = 3000) -> list[str]:
    """A command that prints *lines* lines, says so through *flag*, then waits forever (with
    a child of its own, to check that the whole group is killed)."""
    code = textwrap.dedent(f"""
        import pathlib, subprocess, sys, time
        child = subprocess.Popen(["sleep", "300"])
        for i in range({lines}):
            print("line", i)
        sys.stdout.flush()
        pathlib.Path({str(flag)!r}).write_text(str(child.pid))
        time.sleep(300)
    """)
    return [sys.executable, "-c", code]


def wait_for(path: Path, seconds: float = 60) -> int:
    end = time.monotonic() + seconds
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.02)
    return int(path.read_text())


def default_sigint() -> None:
    """In the child, before ``trunc`` starts: SIGINT as a terminal gives it. A test run
    started with SIGINT ignored (a background job of a non-interactive shell) passes that on,
    and a Python started so never turns SIGINT into KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def gone(pid: int, seconds: float = 10) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.02)
    return False


# -- trunc run ----------------------------------------------------------------------------------


def interrupt_trunc_run(tmp_path: Path, sig: int, *, prelude: str = "") -> tuple[
        subprocess.CompletedProcess[str], int]:
    flag = tmp_path / "flag"
    argv = ([sys.executable, "-c", prelude + "from truncation_core.cli import main\nmain()"]
            if prelude else TRUNC)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNCATION_CORE_")}
    proc = subprocess.Popen([*argv, "run", "--session", "ci-job", "--json", "--",
                             *producer(flag)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tmp_path, env=env, preexec_fn=default_sigint)
    grandchild = wait_for(flag)
    time.sleep(0.3)  # the output reaches trunc
    proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(grandchild, signal.SIGKILL)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), grandchild


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143),
                                           (signal.SIGHUP, 129)])
def test_trunc_run_interrupted_keeps_the_output_and_says_so(tmp_path: Path, sig: int,
                                                            code: int) -> None:
    done, grandchild = interrupt_trunc_run(tmp_path, sig)
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr
    assert gone(grandchild)  # the command's group was killed, as before
    document = json.loads(done.stdout)
    name = signal.Signals(sig).name
    assert document["content"].startswith(f"Interrupted by {name} after 3,000 lines")
    assert document["content"].endswith("line 2999\n")
    assert document["metadata"]["interrupted"] == f"interrupted after 3,000 lines ({name})"
    assert document["metadata"]["command"]["interrupted"] == name
    artifact = document["artifact"]
    assert artifact["interrupted"] == f"interrupted after 3,000 lines ({name})"
    reader = Truncator.from_config(start=tmp_path, overrides={"store": {"session": "ci-job"}})
    assert reader.artifacts.read(artifact["id"]) == b"".join(
        b"line %d\n" % i for i in range(3000))
    listed = subprocess.run([*TRUNC, "artifacts", "list"], capture_output=True, text=True,
                            cwd=tmp_path, check=True)
    assert "(partial)" in listed.stdout


#: How the prelude below sends the signal from inside the write: to the process (the kernel
#: delivers it to the main thread), or to the thread that writes (when that is not the main
#: thread, nothing then wakes a main thread blocked in a plain wait to run the handler).
SENDERS = {"to the process": "os.kill(os.getpid(), signal.SIGTERM)",
           "to the writing thread": "signal.pthread_kill(threading.get_ident(), signal.SIGTERM)"}


@pytest.mark.parametrize("send", SENDERS)
def test_trunc_run_interrupted_in_the_middle_of_a_write_keeps_every_line_it_counted(
        tmp_path: Path, send: str) -> None:
    """The signal arrives while ``trunc`` writes the last chunk to the stream: after it was
    counted, before it was stored (where the highlights scan a long output, the slow part
    under load; this output is held whole, and the signal comes as the chunk is kept).
    A handler raising there used to leave the artifact without that chunk while the metadata
    counted it ("interrupted after 3,000 lines", an artifact of some 300)."""
    flag = tmp_path / "flag"
    prelude = textwrap.dedent(f"""
        import os, pathlib, signal, threading, time
        from truncation_core.streaming import stream
        flag = pathlib.Path({str(flag)!r})
        keep = stream.Stream._keep
        def signalled_before_keeping(self, chunk, data):
            if self.lines >= 3000:  # the last chunk is counted, not stored yet
                while not (flag.exists() and flag.read_text()):  # the command is done
                    time.sleep(0.01)
                {SENDERS[send]}
                time.sleep(0.05)  # a handler in this thread runs now
            keep(self, chunk, data)
        stream.Stream._keep = signalled_before_keeping
    """)
    argv = [sys.executable, "-c", prelude + "from truncation_core.cli import main\nmain()"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNCATION_CORE_")}
    try:
        done = subprocess.run([*argv, "run", "--session", "ci-job", "--json", "--",
                               *producer(flag)], capture_output=True, text=True, cwd=tmp_path,
                              env=env, timeout=30)
    finally:
        if flag.exists() and flag.read_text():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(os.getpgid(int(flag.read_text())), signal.SIGKILL)
    assert done.returncode == 143, done.stderr
    document = json.loads(done.stdout)
    assert document["metadata"]["interrupted"] == "interrupted after 3,000 lines (SIGTERM)"
    artifact = document["artifact"]
    reader = Truncator.from_config(start=tmp_path, overrides={"store": {"session": "ci-job"}})
    kept = reader.artifacts.read(artifact["id"])
    assert kept == b"".join(b"line %d\n" % i for i in range(3000))
    assert artifact["bytes"] == len(kept) and artifact["lines"] == 3000


def test_trunc_run_interrupted_prints_the_view_as_text(tmp_path: Path) -> None:
    flag = tmp_path / "flag"
    proc = subprocess.Popen([*TRUNC, "run", "--limit", "3000", "--", *producer(flag)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path, preexec_fn=default_sigint)
    grandchild = wait_for(flag)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    os.kill(grandchild, signal.SIGKILL)
    assert proc.returncode == 130
    assert out.startswith("Interrupted by SIGINT after 3,000 lines") and len(out) <= 3000
    assert "the output is partial" in err and "Traceback" not in err


def test_trunc_run_interrupted_notes_it_once(tmp_path: Path) -> None:
    """The note that the output is partial comes once on stderr (issue 27: it came twice,
    from the result's notes and again from trunc run's own line)."""
    flag = tmp_path / "flag"
    proc = subprocess.Popen([*TRUNC, "run", "--limit", "3000", "--", *producer(flag)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=tmp_path, preexec_fn=default_sigint)
    grandchild = wait_for(flag)
    time.sleep(0.3)  # the output reaches trunc
    proc.send_signal(signal.SIGINT)
    try:
        _out, err = proc.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(grandchild, signal.SIGKILL)
    assert proc.returncode == 130, err
    note = "note: interrupted after 3,000 lines (SIGINT): the output is partial"
    assert err.splitlines().count(note) == 1, err
    assert err.count("interrupted") == 1 and "Traceback" not in err, err


def test_negative_control_without_keeping_it_an_interrupted_run_leaves_nothing(
        tmp_path: Path) -> None:
    """The old behaviour: the stream aborted on the way out, nothing printed or kept."""
    done, _ = interrupt_trunc_run(tmp_path, signal.SIGTERM, prelude=(
        "from truncation_core.streaming import command\n"
        "command._partial = lambda stream, **kw: stream.abort()\n"))
    assert done.returncode == 143
    assert done.stdout == ""
    listed = subprocess.run([*TRUNC, "artifacts", "list", "--json"], capture_output=True,
                            text=True, cwd=tmp_path, check=True)
    assert json.loads(listed.stdout) == []


# -- trunc apply - -----------------------------------------------------------------------------


#: The two parsers: the plain fast path (``trunc apply -``), and click (a global option
#: before the command sends the command line to click).
APPLY_FORMS = {"plain": ["apply"], "click": ["--config", "empty.yaml", "apply"]}


def interrupt_trunc_apply(tmp_path: Path, sig: int, *args: str, lines: int = 3000,
                          prelude: str = "", form: str = "plain"
                          ) -> subprocess.CompletedProcess[str]:
    """``trunc apply ... -`` given *lines* lines on a pipe that stays open, then *sig* once
    it has read them all."""
    (tmp_path / "empty.yaml").write_text("")
    argv = ([sys.executable, "-c", prelude + "from truncation_core.cli import main\nmain()"]
            if prelude else TRUNC)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNCATION_CORE_")}
    proc = subprocess.Popen([*argv, *APPLY_FORMS[form], *args, "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
                            env=env, preexec_fn=default_sigint)
    assert proc.stdin is not None
    proc.stdin.write(b"".join(b"line %d\n" % i for i in range(lines)))
    proc.stdin.flush()
    # Until trunc has read it all: what waits in its input pipe (FIONREAD on the pipe,
    # through /proc), then a little more for the last chunk to be written to the stream.
    import array
    import fcntl
    import termios

    pipe = os.open(f"/proc/{proc.pid}/fd/0", os.O_RDONLY | os.O_NONBLOCK)
    try:
        end = time.monotonic() + 60
        while True:
            waiting = array.array("i", [0])
            fcntl.ioctl(pipe, termios.FIONREAD, waiting, True)
            if not waiting[0] or proc.poll() is not None:
                break
            assert time.monotonic() < end, "trunc never read its input"
            time.sleep(0.02)
    finally:
        os.close(pipe)
    time.sleep(0.3)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out.decode(), err.decode())


@pytest.mark.parametrize("form", list(APPLY_FORMS))
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143),
                                           (signal.SIGHUP, 129)])
def test_trunc_apply_interrupted_keeps_the_input_and_says_so(tmp_path: Path, sig: int,
                                                             code: int, form: str) -> None:
    done = interrupt_trunc_apply(tmp_path, sig, "--session", "ci-job", "--json", form=form)
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr and "Aborted" not in done.stderr
    document = json.loads(done.stdout)
    name = signal.Signals(sig).name
    reason = f"interrupted after 3,000 lines ({name})"
    assert document["content"].startswith(f"[{reason}: the output is partial]\n")
    assert document["content"].endswith("line 2999\n")
    assert document["metadata"]["interrupted"] == reason
    artifact = document["artifact"]
    assert artifact["interrupted"] == reason
    reader = Truncator.from_config(start=tmp_path, overrides={"store": {"session": "ci-job"}})
    assert reader.artifacts.read(artifact["id"]) == b"".join(
        b"line %d\n" % i for i in range(3000))
    listed = subprocess.run([*TRUNC, "artifacts", "list"], capture_output=True, text=True,
                            cwd=tmp_path, check=True)
    assert "(partial)" in listed.stdout


@pytest.mark.parametrize("form", list(APPLY_FORMS))
def test_trunc_apply_interrupted_prints_the_view_as_text(tmp_path: Path, form: str) -> None:
    done = interrupt_trunc_apply(tmp_path, signal.SIGTERM, "--limit", "3000", form=form)
    assert done.returncode == 143, done.stderr
    reason = "interrupted after 3,000 lines (SIGTERM)"
    assert done.stdout.startswith(f"[{reason}: the output is partial]\n")
    assert len(done.stdout) <= 3000 and done.stdout.endswith("line 2999\n")
    assert f"note: {reason}: the output is partial" in done.stderr
    assert done.stderr.count("the output is partial") == 1
    assert "artifact: art_" in done.stderr and "Traceback" not in done.stderr


def test_trunc_apply_interrupted_within_its_limit_shows_all_that_arrived(
        tmp_path: Path) -> None:
    done = interrupt_trunc_apply(tmp_path, signal.SIGINT, "--json", lines=2)
    assert done.returncode == 130, done.stderr
    document = json.loads(done.stdout)
    assert document["content"] == ("[interrupted after 2 lines (SIGINT): the output is "
                                   "partial]\nline 0\nline 1\n")
    assert document["metadata"]["interrupted"] == "interrupted after 2 lines (SIGINT)"


#: The reader as it was: no handlers, the signal acts as it would.
UNGUARDED = ("from truncation_core.cli import reading\n"
             "reading.InputReader.__enter__ = lambda self: self\n")


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 1), (signal.SIGTERM, -15)])
def test_negative_control_without_the_handlers_an_interrupted_apply_loses_the_input(
        tmp_path: Path, sig: int, code: int) -> None:
    """What ``trunc apply -`` did: SIGTERM ended it with nothing kept or shown; SIGINT raised
    KeyboardInterrupt, which printed ``Aborted!`` and exited 1, with no view and no id."""
    done = interrupt_trunc_apply(tmp_path, sig, "--json", prelude=UNGUARDED)
    assert done.returncode == code
    assert done.stdout == ""
    if sig == signal.SIGINT:
        assert done.stderr.strip().endswith("Aborted!")


def test_the_reader_keeps_what_waited_in_the_pipe_when_the_signal_came() -> None:
    """Stopped, the reader still reads what had arrived in the pipe (and no more): the
    writer wrote it before the signal."""
    from truncation_core.cli.reading import InputReader

    read_end, write_end = os.pipe()
    with os.fdopen(read_end, "rb", buffering=0) as source, InputReader(source) as reader:
        os.write(write_end, b"first\n")
        assert reader.read(100) == b"first\n"
        os.write(write_end, b"second\nthird\n")
        reader.signal = signal.SIGTERM  # as the handler notes it
        assert reader.read(8) == b"second\nt"
        assert reader.read(100) == b"hird\n"
        os.write(write_end, b"after\n")
        assert reader.read(100) == b""
    os.close(write_end)


# -- the library: run_command, arun_command ------------------------------------------------------


def test_run_command_interrupted_keeps_the_partial_result(tmp_path: Path) -> None:
    truncator = make()
    flag = tmp_path / "flag"

    def progress(stream: Any, _elapsed: float) -> None:
        if flag.exists() and flag.read_text() and stream.lines >= 3000:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as caught:
        run_command(truncator, producer(flag), progress=progress)
    grandchild = int(flag.read_text())
    assert gone(grandchild)
    partial = caught.value.command_result  # type: ignore[attr-defined]
    assert partial.status.interrupted == "SIGINT" and partial.status.shell_exit_code == 130
    assert partial.result.artifact.interrupted == "interrupted after 3,000 lines (SIGINT)"
    assert truncator.artifacts.read(partial.result.artifact.id).count(b"\n") == 3000
    assert partial.text.startswith("Interrupted by SIGINT after 3,000 lines")
    assert len(partial.text) <= 2000


@pytest.mark.parametrize("naive", [False, True])
def test_run_command_interrupted_keeps_what_was_still_in_the_pipe(
        tmp_path: Path, naive: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The caller is interrupted before it read all the command wrote: what is left in the
    pipe once the command is killed is kept too. Negative control: without the drain, only
    what was read before is kept."""
    if naive:
        monkeypatch.setattr(command_module, "_drain", lambda *args: None)
    truncator = make()
    flag = tmp_path / "flag"

    def progress(stream: Any, _elapsed: float) -> None:
        wait_for(flag)  # meanwhile nothing reads: the output stays in the pipe
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as caught:
        run_command(truncator, producer(flag), progress=progress)
    assert gone(int(flag.read_text()))
    partial = caught.value.command_result  # type: ignore[attr-defined]
    if naive:  # only the first read (often within the limit: no artifact at all)
        assert partial.result.metadata.original_lines < 3000
        return
    kept = truncator.artifacts.read(partial.result.artifact.id)
    assert kept == b"".join(b"line %d\n" % i for i in range(3000))
    assert partial.result.artifact.interrupted == "interrupted after 3,000 lines (SIGINT)"


def test_arun_command_cancelled_keeps_the_partial_result(tmp_path: Path) -> None:
    truncator = make()
    flag = tmp_path / "flag"

    async def main() -> Any:
        task = asyncio.ensure_future(arun_command(truncator, producer(flag)))
        while not (flag.exists() and flag.read_text()):
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.3)
        task.cancel()
        with pytest.raises(asyncio.CancelledError) as caught:
            await task
        return caught.value

    cancelled = asyncio.run(main())
    assert gone(int(flag.read_text()))
    partial = cancelled.command_result
    assert partial.status.interrupted == "cancelled"
    assert partial.result.metadata.interrupted == "interrupted after 3,000 lines (cancelled)"
    assert truncator.artifacts.read(partial.result.artifact.id).count(b"\n") == 3000


# -- the library: streams -----------------------------------------------------------------------


def old_exit(self: Any, exc_type: Any, *rest: Any) -> None:
    """Stream.__exit__ as it was: any exception aborts the stream."""
    if exc_type is not None:
        self.abort()
    elif not self._aborted:
        self.result()


@pytest.mark.parametrize("naive", [False, True])
def test_a_stream_interrupted_by_keyboard_interrupt(naive: bool,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    if naive:
        monkeypatch.setattr(stream_module.Stream, "__exit__", old_exit)
    truncator = make()
    s = truncator.stream(tool="execute_command")
    with pytest.raises(KeyboardInterrupt), s:
        for i in range(5000):
            s.write(f"line {i}\n")
        raise KeyboardInterrupt
    if naive:  # negative control: nothing kept, no result
        assert truncator.store.list() == []
        with pytest.raises(ValueError, match="aborted"):
            s.result()
        return
    result = s.result()
    reason = "interrupted after 5,000 lines (KeyboardInterrupt)"
    assert result.content.startswith(f"[{reason}: the output is partial]\n")
    assert len(result.content) <= 2000 and result.content.endswith("line 4999\n")
    assert result.metadata.interrupted == reason
    assert result.artifact is not None and result.artifact.interrupted == reason
    assert truncator.artifacts.read(result.artifact.id).count(b"\n") == 5000


def test_a_stream_interrupted_in_the_middle_of_a_write_says_the_artifact_may_lack_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A KeyboardInterrupt inside ``write`` (after the chunk was counted, before it was
    stored) cannot be undone: the metadata says the artifact may lack part of that chunk."""
    truncator = make()
    feed = stream_module.Stream._feed

    def interrupted_while_feeding(self: Any, text: str, raw: Any = None) -> None:
        feed(self, text, raw)
        if self.lines >= 5000:
            raise KeyboardInterrupt

    monkeypatch.setattr(stream_module.Stream, "_feed", interrupted_while_feeding)
    s = truncator.stream(tool="execute_command")
    with pytest.raises(KeyboardInterrupt), s:
        s.write("".join(f"line {i}\n" for i in range(4000)))
        s.write("".join(f"line {i}\n" for i in range(4000, 5000)))
    result = s.result()
    assert result.metadata.interrupted == (
        "interrupted after 5,000 lines (KeyboardInterrupt); a chunk was cut short while it "
        "was written: the artifact may lack part of it")
    assert result.artifact is not None
    assert result.artifact.interrupted == result.metadata.interrupted
    assert truncator.artifacts.read(result.artifact.id).count(b"\n") == 4000  # as it says


@pytest.mark.parametrize("naive", [False, True])
def test_an_async_stream_whose_task_is_cancelled(naive: bool,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    if naive:
        async def old_aexit(self: Any, exc_type: Any, *rest: Any) -> None:
            if exc_type is not None:
                self.abort()
            else:
                await self.result()

        monkeypatch.setattr(stream_module.AsyncStream, "__aexit__", old_aexit)
    truncator = make()
    holder: list[Any] = []

    async def produce() -> None:
        async with truncator.astream(tool="execute_command") as s:
            holder.append(s)
            for i in range(100_000):
                await s.write(f"line {i}\n")
                if i >= 20_000:
                    await asyncio.sleep(0.01)

    async def main() -> None:
        task = asyncio.ensure_future(produce())
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    if naive:
        assert truncator.store.list() == []
        return
    result = holder[0].stream.result()
    assert result.metadata.interrupted is not None
    assert "(CancelledError)" in result.metadata.interrupted
    assert result.artifact is not None
    kept = truncator.artifacts.read(result.artifact.id)
    assert kept.count(b"\n") == holder[0].stream.lines >= 20_000  # every line written is kept


def test_an_ordinary_exception_still_aborts_the_stream() -> None:
    truncator = make()
    s = truncator.stream(tool="execute_command")
    with pytest.raises(RuntimeError), s:
        s.write("line\n" * 5000)
        raise RuntimeError("a bug in the caller")
    assert truncator.store.list() == []
