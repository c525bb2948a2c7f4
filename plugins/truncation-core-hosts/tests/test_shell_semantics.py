"""The rewritten shell command does what the command did: each command below is run in a real
bash as written and as the hook rewrites it (through the real ``trunc run``), and the exit
status, the output (stdout and stderr merged, as the host's tool shows them) and the directory
the host's shell is left in must be the same. A command the rewrite cannot keep the same must
be left alone; the commands marked so must be rewritten (else this test could prove
nothing)."""

from __future__ import annotations

import re
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from host_testing import TRUNC
from truncation_core_hosts.hosted import host_environment
from truncation_core_hosts.shell import wrapped

#: Each command starts `trunc`: left out of `make test-fast`.
pytestmark = pytest.mark.slow

#: (command, whether the hook must rewrite it). The project holds a directory ``sub`` and no
#: ``nowhere``.
COMMANDS = [
    ("printf '%s\\n' \"a b\" 'c\"d' $'e\\tf'", True),
    ("echo $((6 * 7)) 2>&1 | tr 4 X", True),
    ("for i in 1 2 3; do echo \"$i\"; done\necho last", True),
    ("cat <<'EOF'\n$HOME is not expanded\nEOF", True),
    ("cat <<EOF\nexpanded: $((1 + 1))\n  indented   \nEOF\n", True),
    ("false || echo 'recovered'; (exit 5)", True),
    ("FOO='a b' bash -c 'echo \"$FOO\"'; BAR=1; echo ${BAR:-unset}", True),
    ("x=$(echo sub) && echo \"[$x]\" && test -d \"$x\"", True),
    ("ls nowhere 2>&1 | head -1; exit ${PIPESTATUS[0]}", True),
    ("set -o pipefail; false | true; echo $?", True),
    ("echo 'it'\\''s' \"q\\\"uote\"", True),
    ("{ echo out; echo err >&2; } | sort", True),
    ("echo -n no-newline", True),
    ("test -e nowhere && echo yes || echo no", True),
    # The settings the hook gives trunc are trunc's: the command sees the environment it had.
    ("printenv | grep -c '^TRUNCATION_CORE_'; printenv HOME", True),
    # A leading `cd DIR &&` stays in the host's shell; the rest is one and-list.
    ("cd sub && pwd && ls -a | head -1", True),
    ("cd 'sub' && cd . && printf '%s\\n' \"$PWD\"", True),
    ("cd nowhere && echo unreachable", True),
    # After a `cd` that fails, `||`, `;` and a new line run the rest in the host's directory:
    # a child shell behind `cd DIR &&` would not run it at all.
    ("cd nowhere && echo ok || echo fail", False),
    ("cd nowhere && echo ok; echo after", False),
    ("cd nowhere && echo one\necho two", False),
    ("cd sub && false || pwd", False),
]
#: What trunc run says on stderr of an output it left whole.
_SUMMARY = re.compile(r"unchanged: [0-9,]+ chars?, [0-9,]+ lines?\n\Z")


def _run(command: str, cwd: Path, env: dict[str, str]) -> tuple[int, str, str]:
    """Exit status, output (stderr merged, as the host shows it) and the directory the shell
    ended in (relative to *cwd*), of *command* run as a host runs it: ``bash -c``, nothing on
    stdin. Of a command that went through ``trunc run``, the output is what its view shows of
    it; paths in it are made relative to *cwd* too."""
    with tempfile.NamedTemporaryFile("r", dir=cwd.parent) as where:
        done = subprocess.run(
            ["bash", "-c", f"trap 'pwd > {where.name}' EXIT\nexec 2>&1\n{command}"],
            cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, timeout=120, check=False)
        ended = where.read()
    out = done.stdout
    if out.startswith("Exit code:"):  # trunc run's header, the output, its own summary
        out = _SUMMARY.sub("", out.split("Output:\n", 1)[1])
    return done.returncode, out.replace(str(cwd), "."), ended.replace(str(cwd), ".")


def test_rewritten_commands_keep_their_status_output_and_directory(
        tmp_path: Path, host_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", host_env["HOME"])  # no configuration of the user's
    settings = host_environment(tmp_path)  # what the hook gives trunc

    def check(n: int, command: str, rewrites: bool) -> str | None:
        rewritten = wrapped(command, [str(TRUNC)], timeout=60, env=settings)
        if rewritten is None:
            return "left alone" if rewrites else None
        plain, through = tmp_path / f"{n}" / "plain", tmp_path / f"{n}" / "rewritten"
        for project in (plain, through):  # each its own: the runs overlap
            (project / "sub").mkdir(parents=True)
        expected, got = _run(command, plain, host_env), _run(rewritten, through, host_env)
        if expected[1] and not expected[1].endswith("\n"):  # trunc run's view ends a line
            expected = (expected[0], expected[1] + "\n", expected[2])
        return None if got == expected else f"{got} != {expected}"

    with ThreadPoolExecutor(4) as pool:  # a trunc start mostly waits, on a busy machine
        found = pool.map(check, range(len(COMMANDS)), *zip(*COMMANDS, strict=True))
        wrong = [(command, why) for (command, _), why in zip(COMMANDS, found, strict=True)
                 if why is not None]
    assert not wrong, "\n".join(f"{c!r}: {why}" for c, why in wrong)
