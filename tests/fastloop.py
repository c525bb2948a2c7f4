"""Which tests are ``slow`` (left out of ``make test-fast``), decided by measurement.

A pytest plugin, loaded by the repository's conftest.py for every test directory. It marks a
test ``slow`` when tests/durations.json, the measurement of the last ``make test-durations``,
says that the test:

- used more than :data:`CPU_THRESHOLD` seconds of CPU (its own process's and the processes it
  waited for: setup, call and teardown), or waited more than :data:`WAIT_THRESHOLD` seconds
  (a test that sleeps or waits costs the loop without using the CPU); or
- started a process (``subprocess``, ``os.fork``, ``os.posix_spawn``, ``os.system``: seen
  by an audit hook), itself or through a fixture: a test that uses a fixture which started
  one (a redis-server, an MCP server, a ``trunc`` command), with the same parameter, is
  slow even when the server was already running for an earlier test; or
- uses a fixture whose own set-up cost more than those thresholds (a module's fixture that
  scores a corpus): whichever test happened to set it up paid for it when it was measured,
  and another pays when that one is deselected.

CPU time is the measure because the machines are shared: a loaded machine stretches wall
time many times (eleven times, the day the file was first made), and CPU time much less. So
a test's wait is what its wall time holds beyond its CPU time stretched as the run's were:
``wall - wall_per_cpu * cpu``, where ``wall_per_cpu`` is the median ratio of the tests that
used some CPU and started no process, recorded in the file. A test the file does not know (new, or
renamed) is classified by the rule that stood before the measurement, which errs towards
slow: it starts a process through a known fixture, it lives in a file whose tests were
slow, it is a property test or a state machine. A test marked ``@pytest.mark.slow`` by
hand stays slow.

``pytest --record-durations=PATH`` measures every test it runs and writes PATH (with
pytest-xdist, the workers' measurements are gathered by the controller); ``make
test-durations`` runs the whole suite so and rewrites tests/durations.json.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

DURATIONS = Path(__file__).resolve().parent / "durations.json"

#: A test that uses more CPU than this (seconds) is slow. The tests within both thresholds,
#: 2,073 of 2,872, used 20 s of CPU and 26 s of wall time together (measured on a quiet
#: machine, 2026-11-28): on two workers, with collection, `make test-fast` fits in 30 s.
#: (At 0.1 s and 1 s: 2,175 tests, 38 s of wall time, a 35 s loop.)
CPU_THRESHOLD = 0.05
#: A test that waits longer than this (seconds), whatever its CPU, is slow.
WAIT_THRESHOLD = 0.25

#: The audit events of starting a process.
_SPAWN_EVENTS = frozenset({"subprocess.Popen", "os.fork", "os.forkpty", "os.posix_spawn",
                           "os.posix_spawnp", "os.spawn", "os.system", "os.exec", "pty.spawn"})

# -- the rule that stood before the measurement, for tests the file does not know ------------

#: Fixtures of tests that start processes (the ``trunc`` command, other interpreters).
_PROCESS_FIXTURES = {"trunc_exe", "trunc_env", "broken_env"}
#: Test files whose tests were slow as a whole: commands and the CLI in real processes, 100 MB
#: inputs, memory measured in child processes, exact tokenizers, the corpus.
_SLOW_FILES = {"test_command.py", "test_cli.py", "test_demo.py", "test_imports.py",
               "test_json_stream.py", "test_canary_structured_streams.py",
               "test_store_concurrency.py", "test_store_crash.py", "test_retrieval_memory.py",
               "test_corpus_recall.py", "test_tiktoken_plugin.py", "test_estimate.py",
               "test_fit.py", "test_strategies_properties.py", "test_jsonl_xml_select.py",
               "test_cli_artifacts.py",
               # tests/hostile: bombs in capped child processes, real signals, tmpfs mounts
               "test_patterns.py", "test_config_bombs.py", "test_long_lines.py",
               "test_import_limits.py", "test_interruptions.py", "test_cli_errors.py",
               "test_fuzz.py", "test_eviction_race.py"}


def _slow_by_the_old_rule(item: pytest.Item) -> bool:
    function = getattr(item, "obj", None)
    return bool(_PROCESS_FIXTURES & set(getattr(item, "fixturenames", ()))
                or item.path.name in _SLOW_FILES
                or getattr(function, "is_hypothesis_test", False)
                or "StateMachine" in item.nodeid or "TestCase" in item.nodeid)


# -- the rule ---------------------------------------------------------------------------------


class Measured:
    """What tests/durations.json says."""

    def __init__(self, path: Path) -> None:
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        #: nodeid -> [cpu seconds, wall seconds, whether it started a process itself]
        self.tests: dict[str, list[Any]] = data.get("tests", {})
        #: ``name`` or ``name[parameter index]`` of the fixtures that started a process.
        self.spawning_fixtures = set(data.get("spawning_fixtures", []))
        #: The same, of the fixtures whose set-up cost more than a slow test does.
        self.costly_fixtures = set(data.get("costly_fixtures", []))
        #: How much the measuring run's load stretched CPU time into wall time.
        self.wall_per_cpu = float(data.get("wall_per_cpu", 1.0))

    def uses_a_slow_fixture(self, item: pytest.Item) -> bool:
        slow = self.spawning_fixtures | self.costly_fixtures
        return any(key in slow for key in fixture_keys(item))

    def is_slow(self, item: pytest.Item) -> bool:
        if self.uses_a_slow_fixture(item):
            return True
        measured = self.tests.get(item.nodeid)
        if measured is None:
            return _slow_by_the_old_rule(item)
        cpu, wall, spawned = measured
        return bool(spawned or cpu > CPU_THRESHOLD
                    or wall - self.wall_per_cpu * cpu > WAIT_THRESHOLD)


def fixture_keys(item: pytest.Item) -> Iterator[str]:
    """The fixtures *item* uses, each as ``name``, and as ``name[i]`` when the test runs
    with the fixture's parameter number i."""
    callspec = getattr(item, "callspec", None)
    indices = callspec.indices if callspec is not None else {}
    for name in getattr(item, "fixturenames", ()):
        yield name
        if name in indices:
            yield f"{name}[{indices[name]}]"


#: The collected tests that the file does not know, for the summary.
_UNKNOWN = pytest.StashKey[list[str]]()


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    measured = Measured(DURATIONS)
    config.stash[_UNKNOWN] = [item.nodeid for item in items if item.nodeid not in measured.tests]
    for item in items:
        if item.get_closest_marker("slow") is None and measured.is_slow(item):
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """With pytest-xdist the workers collect: the controller counts what the first found."""
    config = node.config
    if _UNKNOWN not in config.stash:
        known = Measured(DURATIONS).tests
        config.stash[_UNKNOWN] = [nodeid for nodeid in ids if nodeid not in known]


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    unknown = config.stash.get(_UNKNOWN, [])
    if unknown and not config.getoption("record_durations", None):
        terminalreporter.write_line(
            f"{len(unknown)} tests are not in {DURATIONS.name} (classified by the rule that "
            "stood before it; `make test-durations` measures them)")


# -- the measurement --------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--record-durations", metavar="PATH", default=None,
                     help="measure each test's CPU and wall time and whether it starts a "
                          "process, and write them to PATH (tests/durations.json's form)")


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("record_durations", None)
    if path:
        config.pluginmanager.register(Recorder(Path(path), config), "fastloop-recorder")


def _cpu() -> float:
    """CPU seconds of this process and of the processes it waited for."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


class Recorder:
    """Measures each test in the process that runs it (a worker, with pytest-xdist) and
    passes the figures on in the reports' ``user_properties``; the process that writes the
    reports (the controller) gathers them and writes the file."""

    def __init__(self, path: Path, config: pytest.Config) -> None:
        self.path = path
        self.is_worker = hasattr(config, "workerinput")
        self.spawns = 0
        #: Keys of the fixtures being set up, innermost last.
        self.setting_up: list[str] = []
        self.spawning_fixtures: set[str] = set()
        self.costly_fixtures: set[str] = set()
        self.tests: dict[str, list[Any]] = {}
        self.fixtures_reported: set[str] = set()
        sys.addaudithook(self._audit)

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event in _SPAWN_EVENTS:
            self.spawns += 1
            self.spawning_fixtures.update(self.setting_up)

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef: Any, request: Any) -> Generator[None, Any, Any]:
        index = getattr(request, "param_index", 0)
        key = (f"{fixturedef.argname}[{index}]" if getattr(fixturedef, "params", None)
               else fixturedef.argname)
        self.setting_up.append(key)
        cpu, wall = _cpu(), time.perf_counter()
        try:
            return (yield)
        finally:
            self.setting_up.pop()
            cpu, wall = _cpu() - cpu, time.perf_counter() - wall
            if cpu > CPU_THRESHOLD or wall - cpu > WAIT_THRESHOLD:
                self.costly_fixtures.add(key)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item,
                                nextitem: Any) -> Generator[None, Any, Any]:
        item.stash[_START] = (_cpu(), time.perf_counter(), self.spawns)
        return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item,
                                  call: Any) -> Generator[None, Any, Any]:
        report = yield
        if call.when == "teardown":
            cpu, wall, spawns = item.stash[_START]
            new = sorted(self.spawning_fixtures - self.fixtures_reported)
            costly = sorted(self.costly_fixtures - self.fixtures_reported)
            self.fixtures_reported.update(new, costly)
            report.user_properties.append(("fastloop", [
                round(_cpu() - cpu, 3), round(time.perf_counter() - wall, 3),
                self.spawns > spawns, new, costly]))
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        for name, value in report.user_properties:
            if name == "fastloop" and report.when == "teardown":
                cpu, wall, spawned, fixtures, costly = value
                self.tests[report.nodeid] = [cpu, wall, spawned]
                self.spawning_fixtures.update(fixtures)
                self.costly_fixtures.update(costly)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.is_worker:
            return
        write(self.path, self.tests, self.spawning_fixtures, self.costly_fixtures)


_START = pytest.StashKey[tuple[float, float, int]]()


def write(path: Path, tests: dict[str, list[Any]], spawning_fixtures: set[str],
          costly_fixtures: set[str]) -> None:
    """The file, one test a line, so that a change shows as lines in a diff."""
    # The median stretch of the tests that used some CPU and started no process: a test that
    # sleeps does not move it.
    stretches = sorted(wall / cpu for cpu, wall, spawned in tests.values()
                       if not spawned and cpu >= 0.02)
    wall_per_cpu = max(1.0, stretches[len(stretches) // 2]) if stretches else 1.0
    lines = ["{",
             '  "about": "what each test cost when `make test-durations` measured it; '
             'tests/fastloop.py marks the slow ones",',
             '  "form": "nodeid: [cpu seconds, wall seconds, started a process]",',
             f'  "wall_per_cpu": {round(wall_per_cpu, 2)},',
             f'  "spawning_fixtures": {json.dumps(sorted(spawning_fixtures))},',
             f'  "costly_fixtures": {json.dumps(sorted(costly_fixtures))},',
             '  "tests": {']
    entries = [f"    {json.dumps(nodeid)}: {json.dumps(tests[nodeid])}"
               for nodeid in sorted(tests)]
    lines.append(",\n".join(entries))
    lines += ["  }", "}", ""]
    path.write_text("\n".join(lines), encoding="utf-8")
