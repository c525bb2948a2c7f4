"""tests/fastloop.py: the measurement that decides which tests ``make test-fast`` leaves out,
run on a small suite of its own (pytest in this process, in a temporary directory)."""

from __future__ import annotations

import json

import fastloop
import pytest

pytest_plugins = ["pytester"]

SUITE = '''
import subprocess
import sys
import time

import pytest


@pytest.fixture(scope="session")
def server():
    """Starts a process once; the tests that use it after the first start none."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    yield proc
    proc.kill()
    proc.wait()


@pytest.fixture(params=["plain", "spawning"])
def backend(request):
    if request.param == "spawning":
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    return request.param


def test_idle():
    pass


def test_busy():
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass


def test_waits():
    time.sleep(1.5)


def test_starts_a_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def test_first_on_the_server(server):
    pass


def test_second_on_the_server(server):
    pass


def test_on_a_backend(backend):
    pass


@pytest.fixture(scope="module")
def scored():
    """Costs CPU once (as a module's fixture that scores a corpus does)."""
    end = time.process_time() + 0.3
    while time.process_time() < end:
        pass


def test_first_on_the_score(scored):
    pass


def test_second_on_the_score(scored):
    pass
'''


@pytest.fixture
def measured(pytester: pytest.Pytester) -> dict[str, object]:
    """The suite run once with ``--record-durations``: the file it writes."""
    pytester.makepyfile(test_suite=SUITE)
    path = pytester.path / "durations.json"
    result = pytester.runpytest_inprocess("-p", "fastloop", "-p", "no:cacheprovider",
                                          f"--record-durations={path}")
    result.assert_outcomes(passed=10)
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_the_measurement_records_cpu_waits_and_processes(measured: dict[str, object]) -> None:
    tests = measured["tests"]
    assert isinstance(tests, dict)
    cpu = {name.split("::")[1]: value[0] for name, value in tests.items()}
    wall = {name.split("::")[1]: value[1] for name, value in tests.items()}
    spawned = {name.split("::")[1]: value[2] for name, value in tests.items()}
    assert cpu["test_busy"] >= 0.25 > cpu["test_idle"]
    assert wall["test_waits"] >= 1.5 > cpu["test_waits"]
    assert spawned == {"test_idle": False, "test_busy": False, "test_waits": False,
                       "test_starts_a_process": True,
                       "test_first_on_the_server": True,  # the fixture started it then
                       "test_second_on_the_server": False,
                       "test_on_a_backend[plain]": False, "test_on_a_backend[spawning]": True,
                       "test_first_on_the_score": False, "test_second_on_the_score": False}
    # The fixture that started a process, and the parameter that did.
    assert measured["spawning_fixtures"] == ["backend[1]", "server"]
    # The fixture whose set-up cost CPU: the first test that used it paid, the second not.
    assert measured["costly_fixtures"] == ["scored"]
    assert cpu["test_first_on_the_score"] >= 0.25 > cpu["test_second_on_the_score"]


def test_the_rule_leaves_out_what_was_measured_slow(
        measured: dict[str, object], pytester: pytest.Pytester,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the file in place, ``-m "not slow"`` runs the idle test alone: not the busy one,
    nor the one that waits, nor any that started a process or uses a fixture (with the
    parameter) that did, even the test on the server that was already running, nor the
    second test on a costly fixture, which was measured cheap because the first paid."""
    monkeypatch.setattr(fastloop, "DURATIONS", pytester.path / "durations.json")
    result = pytester.runpytest_inprocess("-p", "fastloop", "-p", "no:cacheprovider",
                                          "-m", "not slow", "-v")
    result.assert_outcomes(passed=2, deselected=8)
    result.stdout.fnmatch_lines(["*test_idle PASSED*", "*test_on_a_backend?plain? PASSED*"])


def test_a_test_the_file_does_not_know_is_judged_by_the_old_rule(
        measured: dict[str, object], pytester: pytest.Pytester,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A new test in a file the old rule calls slow stays out of the fast loop until it is
    measured; one elsewhere is in it; the summary says how many are not measured."""
    path = pytester.path / "durations.json"
    monkeypatch.setattr(fastloop, "DURATIONS", path)
    pytester.makepyfile(test_cli="def test_new(): pass\n", test_other="def test_new(): pass\n")
    result = pytester.runpytest_inprocess("-p", "fastloop", "-p", "no:cacheprovider",
                                          "-m", "not slow", "-v")
    result.assert_outcomes(passed=3, deselected=9)
    result.stdout.fnmatch_lines(["*test_other.py::test_new PASSED*",
                                 "2 tests are not in durations.json*"])


def test_the_committed_file_measures_the_suite() -> None:
    """tests/durations.json holds a measurement of this suite (``make test-durations``)."""
    data = json.loads(fastloop.DURATIONS.read_text(encoding="utf-8"))
    assert len(data["tests"]) > 1000
    assert "redis_server" in data["spawning_fixtures"]
    assert data["wall_per_cpu"] >= 1
