"""Wrapped commands, run for real: big output, failing tests, binary output, timeouts, \\r."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from terminal import run_with_stderr_on_a_terminal

from truncation_core import Truncator
from truncation_core.pipeline.results import TIMEOUT_EXIT
from truncation_core.storage.memory import MemoryStore
from truncation_core.streaming.command import (
    CommandResult,
    CommandStatus,
    arun_command,
    run_command,
)
from truncation_core.text.measure import measure


def make(config: Any = None, **kwargs: Any) -> Truncator:
    """A Truncator on the memory store, with only the built-in plugins (and *kwargs*')."""
    return Truncator(config, load_entrypoints=False, store=MemoryStore(), **kwargs)


PY = sys.executable
TRUNC = [PY, "-m", "truncation_core"]


def python(code: str) -> list[str]:
    return [PY, "-c", textwrap.dedent(code)]


def stored(truncator: Truncator, result: Any) -> bytes:
    with truncator.store.open(result.artifact.id) as f:
        return f.read()


def wait_gone(pid: int, seconds: float = 10.0) -> bool:
    """True once *pid* is dead: gone, or a zombie waiting for init to reap it."""
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


@pytest.mark.slow
def test_a_100_mb_output_streams_through_with_exact_totals() -> None:
    # An artifact limit above the output, so that the artifact can be checked byte for byte.
    truncator = make({"max_artifact_size": 128 * 1024 * 1024})
    line = b"2024-05-01 12:00:00 INFO worker-3 processed a batch of records\n"  # 64 bytes
    count = 100 * 1024 * 1024 // len(line)
    code = f"""
        import sys
        out = sys.stdout.buffer
        block = {line!r} * 16384
        for _ in range({count} // 16384):
            out.write(block)
        out.write({line!r} * ({count} % 16384))
        out.write(b"ERROR: disk quota exceeded\\n")
        sys.exit(0)
        """
    done = run_command(truncator, python(code))
    total = count * len(line) + len(b"ERROR: disk quota exceeded\n")
    meta = done.result.metadata
    assert (meta.original_bytes, meta.original_lines) == (total, count + 1)
    assert done.status.exit_code == 0 and done.text.startswith("Exit code: 0\n")
    assert done.result.content.endswith("ERROR: disk quota exceeded\n")
    assert len(done.result.content) <= 8000
    expected = hashlib.sha256(line * count + b"ERROR: disk quota exceeded\n").hexdigest()
    stored = hashlib.sha256()
    with truncator.store.open(done.result.artifact.id) as f:
        while block := f.read(1 << 20):
            stored.update(block)
    assert stored.hexdigest() == expected  # every byte reached the artifact


def test_a_failing_pytest_run(tmp_path: Path) -> None:
    tests = tmp_path / "test_generated.py"
    tests.write_text(textwrap.dedent("""
        import pytest

        @pytest.mark.parametrize("i", range(400))
        def test_many(i):
            for n in range(60):
                print(f"noise {n} " * 12)
            assert i != 37, "number 37 is cursed"
            assert i != 350

        def test_last():
            raise KeyError("missing-key")
        """))
    truncator = make()
    done = run_command(truncator, [PY, "-m", "pytest", "-v", "-rf", "-p", "no:cacheprovider",
                                   str(tests)], cwd=tmp_path)
    assert done.status.exit_code == 1
    content = done.result.content
    full = stored(truncator, done.result).decode()
    assert "3 failed, 398 passed" in full.splitlines()[-1]
    assert "3 failed, 398 passed" in content  # the summary is in the kept tail
    assert "FAILED" in content
    # The failures' details sit in the omitted middle: the highlights lift them.
    highlights = done.result.metadata.details["highlights"]
    lines = full.splitlines()
    for h in highlights:
        assert lines[h["line"] - 1].startswith(h["text"].rstrip("…"))
    texts = " ".join(h["text"] for h in highlights)
    assert "AssertionError: number 37 is cursed" in texts  # the first failure, far up
    assert "test_many[37] FAILED" in texts or "test_many[37]" in content


def test_binary_output_and_invalid_utf8_are_kept_byte_for_byte() -> None:
    """Binary output (here with NUL bytes) is summarised, and kept; text with invalid UTF-8
    here and there is shown with U+FFFD, and its omissions' byte offsets are the output's."""
    truncator = make({"inline_limit": 500})
    code = """
        import sys
        sys.stdout.buffer.write(bytes(range(256)) * 200)
        """
    done = run_command(truncator, python(code))
    assert stored(truncator, done.result) == bytes(range(256)) * 200
    assert done.result.metadata.binary is not None
    assert "[Binary content, not shown: binary data, 51.2 kB (51,200 bytes), sha256 " in \
        done.result.content
    code = """
        import sys
        data = b"line \\xff\\xfe ok\\n" * 5000 + b"\\xe2\\x82 broken \\xff\\xfe end\\n"
        sys.stdout.buffer.write(data)
        """
    done = run_command(truncator, python(code))
    expected = b"line \xff\xfe ok\n" * 5000 + b"\xe2\x82 broken \xff\xfe end\n"
    assert stored(truncator, done.result) == expected
    assert done.result.content.endswith("\ufffd broken \ufffd\ufffd end\n")
    region = done.result.metadata.omissions[0]
    assert expected[region.start_byte:region.end_byte].decode("utf-8", "replace") == \
        expected.decode("utf-8", "replace")[region.start:region.end]


def test_a_command_that_outlives_its_timeout_is_killed_with_its_process_group(
        tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    # The shell starts a grandchild that ignores nothing and would sleep for 5 minutes.
    argv = ["sh", "-c", f"sleep 300 & echo $! > {pidfile}; echo started; wait"]
    truncator = make()
    done = run_command(truncator, argv, timeout=0.5, kill_grace=0.5)
    assert done.status.timed_out and done.status.shell_exit_code == TIMEOUT_EXIT
    assert done.status.exit_code is None and done.status.signal == "SIGTERM"
    assert done.text.startswith("Timed out after 0.5 s: the command and its process group "
                                "were killed.\nExit code: killed by SIGTERM\n")
    assert done.result.content == "started\n"
    assert done.result.metadata.command.timed_out
    assert wait_gone(int(pidfile.read_text()))


def test_negative_control_killing_only_the_command_leaves_its_children(
        tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    proc = subprocess.Popen(["sh", "-c", f"sleep 300 & echo $! > {pidfile}; wait"],
                            start_new_session=True)
    try:
        end = time.monotonic() + 10
        while not pidfile.exists() or not pidfile.read_text().strip():
            assert time.monotonic() < end
            time.sleep(0.02)
        proc.kill()  # what a naive timeout does: only the direct child dies
        proc.wait()
        grandchild = int(pidfile.read_text())
        assert not wait_gone(grandchild, seconds=0.5)  # still sleeping
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
    assert wait_gone(grandchild)


def test_a_term_ignoring_command_is_killed_after_the_grace_period() -> None:
    code = """
        import signal, sys, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("ignoring TERM", flush=True)
        time.sleep(300)
        """
    done = run_command(make(), python(code), timeout=0.5,
                       kill_grace=0.3)
    assert done.status.timed_out and done.status.signal == "SIGKILL"


def test_progress_bars_with_carriage_returns() -> None:
    code = r"""
        import sys
        for i in range(2001):
            sys.stdout.write(f"\rdownloading {i / 20:5.1f}%")
        sys.stdout.write("\r\ndone\n")
        """
    truncator = make({"inline_limit": 340})
    done = run_command(truncator, python(code))
    raw = stored(truncator, done.result)
    assert raw.count(b"\r") == 2002 and raw.endswith(b"100.0%\r\ndone\n")
    # Each "\r" ends a line: an empty first line, 2001 progress lines, then "done".
    assert done.result.metadata.original_lines == 2003
    assert done.result.content.endswith("downloading 100.0%\r\ndone\n")


def test_a_background_process_holding_the_output_does_not_hang_the_caller() -> None:
    argv = ["sh", "-c", "sleep 30 & echo $!; echo bye"]
    start = time.monotonic()
    done = run_command(make(), argv, kill_grace=0.3)
    elapsed = time.monotonic() - start
    sleeper = int(done.result.content.split()[0])
    try:
        assert done.status.exit_code == 0
        assert any("still open" in note for note in done.status.notes)
        assert elapsed < 20  # a loose bound: without the guard this waits 30 s
    finally:
        os.kill(sleeper, signal.SIGKILL)


def test_async_run_command() -> None:
    truncator = make({"inline_limit": 400})
    code = """
        import sys
        for i in range(20000):
            print("row", i)
        sys.exit(4)
        """
    done = asyncio.run(arun_command(truncator, python(code)))
    assert done.status.exit_code == 4
    assert done.result.metadata.original_lines == 20000
    assert done.result.content.endswith("row 19999\n")
    assert done.text.startswith("Exit code: 4\n") and len(done.text) <= 400  # header counted
    assert "Total output lines: 20,000\n" in done.header

    timed = asyncio.run(arun_command(truncator, ["sleep", "30"], timeout=0.3, kill_grace=0.3))
    assert timed.status.timed_out and timed.status.shell_exit_code == TIMEOUT_EXIT


def test_frameworks_that_run_commands_themselves_get_the_same_result() -> None:
    truncator = make({"inline_limit": 400})
    code = "import sys\nfor i in range(3000): print('row', i)\nsys.exit(5)"
    ours = run_command(truncator, [PY, "-c", code])
    own = subprocess.run([PY, "-c", code], capture_output=True, check=False)  # their runner
    with truncator.stream(tool="execute_command", command=shlex.join([PY, "-c", code])) as s:
        s.write(own.stdout)
        done = CommandResult.of(s, CommandStatus(
            argv=[PY, "-c", code], exit_code=own.returncode, duration_seconds=0.5))
    assert done.status.shell_exit_code == 5
    assert done.result.metadata.command == done.status
    assert done.text.startswith("Exit code: 5\nWall time: 0.5 s\nTotal output lines: 3,000\n")
    assert len(done.text) <= 400
    strip = re.compile(r"art_\w+")
    assert strip.sub("ID", done.result.content) == strip.sub("ID", ours.result.content)
    # A result already cut cannot make room: the header goes above it as it is.
    late = CommandResult.of(ours.result, ours.status)
    assert late.text == ours.header + ours.result.content


@pytest.mark.parametrize("limits", [{"inline_limit": 400}, {"max_bytes": 300},
                                    {"max_lines": 12}])
def test_the_header_counts_against_the_budget(limits: dict[str, int]) -> None:
    truncator = make(limits)
    budget = truncator.policy("execute_command").budget
    for rows in (3000, 7, 60):  # far over; within the limit; within it without the header
        code = f"import sys\nfor i in range({rows}): print('row', i)\nsys.exit(2)"
        done = run_command(truncator, python(code), timeout=60)
        assert done.text.startswith("Exit code: 2\n")
        assert budget.admits(measure(done.text)), (limits, rows, measure(done.text))
        assert done.result.metadata.limits == budget
        if done.result.metadata.was_truncated:
            assert stored(truncator, done.result) == "".join(
                f"row {i}\n" for i in range(rows)).encode()  # nothing lost
    # Negative control: the same output cut by itself, with the header put above it after.
    code = "import sys\nfor i in range(3000): print('row', i)"
    with truncator.stream(tool="execute_command") as s:
        s.write(subprocess.run(python(code), capture_output=True, check=True).stdout)
    unreserved = CommandResult.of(s.result(), CommandStatus(argv=["x"], exit_code=0))
    assert not budget.admits(measure(unreserved.text))


def test_a_small_budget_gets_a_one_line_header_or_none() -> None:
    code = "import sys\nfor i in range(3000): print('row', i)\nsys.exit(1)"
    small = run_command(make({"inline_limit": 120}), python(code))
    assert re.fullmatch(r"\[exit code 1, \d+\.\d s, 3,000 lines\]\n", small.header)
    assert small.text.startswith(small.header) and len(small.text) <= 120
    tiny = run_command(make({"inline_limit": 40}), python(code))
    assert tiny.header == "" and len(tiny.text) <= 40
    assert tiny.result.metadata.command.exit_code == 1  # still in the metadata
    two_lines = run_command(make({"max_lines": 2}), python(code))
    assert two_lines.header.count("\n") == 1 and two_lines.text.count("\n") <= 2
    status = CommandStatus(argv=["x"], exit_code=None, signal="SIGKILL", timed_out=True,
                           timeout=5, duration_seconds=5.04)
    with make({"inline_limit": 160}).stream(tool="execute_command") as s:
        s.write("started\n" * 10)
        killed = CommandResult.of(s, status)
    assert killed.header == "[killed by SIGKILL, timed out, 5.0 s, 10 lines]\n"


def test_missing_command_and_empty_argv() -> None:
    truncator = make()
    with pytest.raises(FileNotFoundError):
        run_command(truncator, ["no-such-command-xyz"])
    with pytest.raises(PermissionError):  # a file that is not executable (even by root)
        run_command(truncator, [__file__])
    with pytest.raises(ValueError, match="argv: expected a command"):
        run_command(truncator, [])
    with pytest.raises(ValueError, match="already_truncated"):  # before anything is started
        run_command(truncator, ["sleep", "30"], already_truncated=True)


# -- the CLI ---------------------------------------------------------------------------------


def trunc(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run ``trunc`` in a scratch directory: whatever it stores stays out of the repository."""
    with tempfile.TemporaryDirectory() as scratch:
        return subprocess.run([*TRUNC, *args], capture_output=True, text=True, timeout=120,
                              cwd=scratch, **kwargs)


def test_cli_prints_what_the_model_sees_and_exits_with_the_command_code() -> None:
    code = "import sys\nfor i in range(5000): print('line', i)\nsys.exit(3)"
    done = trunc("run", "--limit", "2000", "--", PY, "-c", code)
    assert done.returncode == 3
    assert done.stdout.startswith("Exit code: 3\nWall time: ")
    assert "Total output lines: 5,000\nOutput:\n" in done.stdout
    assert done.stdout.endswith("line 4999\n")
    assert len(done.stdout) <= 2000  # the header counts against the limit
    assert "truncated with adaptive" in done.stderr
    assert "lines ·" not in done.stderr  # no progress display when stderr is not a terminal


def test_cli_json_and_signals_and_timeout() -> None:
    done = trunc("run", "--json", "--", "sh", "-c", "echo hi; kill -9 $$")
    assert done.returncode == 128 + 9
    document = json.loads(done.stdout)
    assert document["metadata"]["command"]["signal"] == "SIGKILL"
    assert document["content"].endswith("Output:\nhi\n")
    timed = trunc("run", "--timeout", "0.3", "--", "sleep", "30")
    assert timed.returncode == TIMEOUT_EXIT
    assert timed.stdout.startswith("Timed out after 0.3 s")
    missing = trunc("run", "--", "no-such-command-xyz")
    assert missing.returncode == 127 and "command not found" in missing.stderr
    bad = trunc("run", "--timeout", "-1", "--", "true")
    assert bad.returncode == 2 and "--timeout" in bad.stderr


def test_cli_session_lets_another_process_read_the_artifact_back(tmp_path: Path) -> None:
    """An agent that runs `trunc run` and reads the output back through its own Truncator
    names the session for both."""
    code = "for i in range(20000): print('line', i)"
    done = subprocess.run([*TRUNC, "run", "--session", "agent-7", "--json", "--", PY, "-c",
                           code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    artifact_id = json.loads(done.stdout)["artifact"]["id"]
    reader = Truncator.from_config(start=tmp_path, overrides={"store": {"session": "agent-7"}})
    answer = reader.call_tool("get_artifact", {"artifact_id": artifact_id, "start_line": 20000,
                                               "end_line": 20000})
    assert "line 19999" in answer.content and not answer.is_error
    other = Truncator.from_config(start=tmp_path).call_tool("get_artifact",
                                                           {"artifact_id": artifact_id})
    assert other.is_error  # another (new) session does not see it
    bad = subprocess.run([*TRUNC, "run", "--session", "Bad/x", "--", "true"],
                         capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert bad.returncode == 2 and "Invalid value for '--session'" in bad.stderr
    assert "(from code)" not in bad.stderr


def test_cli_killed_by_sigterm_takes_the_command_group_with_it(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    proc = subprocess.Popen([*TRUNC, "run", "--", "sh", "-c",
                             f"sleep 300 & echo $! > {pidfile}; wait"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    end = time.monotonic() + 30
    while not pidfile.exists() or not pidfile.read_text().strip():
        assert time.monotonic() < end and proc.poll() is None
        time.sleep(0.05)
    grandchild = int(pidfile.read_text())
    try:
        proc.send_signal(signal.SIGTERM)  # what an agent's own timeout does to trunc
        assert proc.wait(timeout=30) == 128 + signal.SIGTERM
        assert wait_gone(grandchild)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(grandchild, signal.SIGKILL)


def test_cli_shows_live_progress_on_a_terminal_only(tmp_path: Path) -> None:
    code = "import time\nfor i in range(8):\n    print('tick', i, flush=True)\n    time.sleep(0.1)"
    code, out, screen = run_with_stderr_on_a_terminal([*TRUNC, "run", "--", PY, "-c", code],
                                                      cwd=tmp_path)
    assert code == 0
    assert "tick 7" in out and "lines ·" not in out
    assert re.search(r"\d+ B · \d+ lines", screen), screen[-500:]


def test_cli_numbers_address_the_artifact_when_it_is_itself_cut(tmp_path: Path) -> None:
    """Output over max_artifact_size: the artifact keeps head and tail only. Every line
    number trunc run shows reads the artifact as stored, and the metadata gives the marker's
    numbers; a highlight from the part the artifact dropped is said not to be kept."""
    code = """
        import sys
        for i in range(1, 12001):
            if i == 6000:
                print("ValueError: lost in the middle")
            elif i == 11600:  # in the artifact's kept tail, not in the view's
                print("Traceback (most recent call last):")
            else:
                print(f"2024-05-01 INFO worker-3 processed batch {i}")
        sys.exit(1)
        """
    # Cut by tail: the view's kept part is the end, the artifact's too.
    env = {**os.environ, "TRUNCATION_CORE_MAX_ARTIFACT_SIZE": str(64 * 1024),
           "TRUNCATION_CORE_TOOLS__EXECUTE_COMMAND__STRATEGY": "tail"}
    done = subprocess.run([*TRUNC, "run", "--json", "--", *python(code)], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path, env=env)
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    content, meta = document["content"], document["metadata"]
    artifact_id = document["artifact"]["id"]
    assert meta["artifact_truncated"] and document["artifact"]["cut"] is not None

    def show(lines: str) -> list[str]:
        shown = subprocess.run([*TRUNC, "artifacts", "show", artifact_id, "--lines", lines],
                               capture_output=True, text=True, timeout=60, cwd=tmp_path)
        assert shown.returncode == 0, shown.stderr
        return shown.stdout.splitlines()

    # The marker's call and bytes are the metadata's, and read the artifact's lines.
    hint = re.search(r'get_artifact\(artifact_id="(art_\w+)", start_line=(\d+), '
                     r"end_line=(\d+)\); bytes (\d+):(\d+)", content)
    assert hint is not None and hint.group(1) == artifact_id
    region = meta["omissions"][0]
    first, last = int(hint.group(2)), int(hint.group(3))
    assert region["retrieve"] == {"artifact_id": artifact_id, "start_line": first,
                                  "end_line": last}
    assert (region["in_artifact"]["start_byte"], region["in_artifact"]["end_byte"]) == (
        int(hint.group(4)), int(hint.group(5)))
    shown_from = int(re.findall(r"batch (\d+)$", content, re.M)[0])
    assert region["last_line"] == shown_from - 1  # the original numbers stay as they were
    kept = show(f"{first}-{last}")
    assert len(kept) == last - first + 1
    assert kept[0] == "2024-05-01 INFO worker-3 processed batch 1"
    assert any("bytes not kept here" in line for line in kept)  # the artifact's own marker
    # Highlights: the traceback the artifact keeps is shown with its artifact line number.
    numbered = re.findall(r"^line (\d+): (.*)$", content, re.M)
    assert [text for _, text in numbered] == ["Traceback (most recent call last):"]
    assert int(numbered[0][0]) < 11600
    assert show(f"{numbered[0][0]}-{numbered[0][0]}") == ["Traceback (most recent call last):"]
    assert "not kept: ValueError: lost in the middle" in content


def test_an_interrupted_command_s_header_names_the_signal_that_killed_it() -> None:
    """The caller is interrupted (Ctrl-C); the command's group is killed with SIGKILL, and
    the header says so (it said ``Exit code: killed by None``)."""
    truncator = make()

    def progress(stream: Any, _elapsed: float) -> None:
        if stream.lines >= 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as caught:
        run_command(truncator, ["sh", "-c", "echo one; echo two; sleep 30"], progress=progress)
    partial = caught.value.command_result  # type: ignore[attr-defined]
    assert partial.status.interrupted == "SIGINT" and partial.status.shell_exit_code == 130
    assert partial.status.exit_code is None and partial.status.signal == "SIGKILL"
    assert "None" not in partial.text
    assert "\nExit code: killed by SIGKILL\n" in partial.text
    assert partial.result.content == "one\ntwo\n"


def test_the_header_of_a_command_ended_without_a_known_status_says_so() -> None:
    from truncation_core.streaming.command import _header_forms

    status = CommandStatus(argv=["sleep", "30"], exit_code=None, signal=None,
                           interrupted="SIGINT")
    full, short = _header_forms(status, 1)
    assert "None" not in full and "None" not in short
    assert "\nExit code: none (the command was killed)\n" in full
    assert short.startswith("[interrupted by SIGINT, ")
