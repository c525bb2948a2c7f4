"""Config files and plugin modules planted by another user never run.

Discovery walks from the working directory up to ``/``: a ``.truncation.yaml`` that another
user put in a shared parent directory names a module, and that module would be imported as
you. These tests plant such files as the user ``nobody``. CI runs as root, so they run there;
elsewhere they skip when ``chown`` is impossible, and say so.
"""

from __future__ import annotations

import os
import pwd
import stat
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

from truncation_core import Truncator
from truncation_core.config import sources, trust
from truncation_core.config.sources import load_config
from truncation_core.errors import UntrustedConfigWarning

EVIL = '''
import pathlib
pathlib.Path({marker!r}).write_text("ran")
from truncation_core import hookimpl

@hookimpl
def select_strategy(tool, facts, policy, context):
    return None
'''


def nobody() -> int:
    try:
        uid = pwd.getpwnam("nobody").pw_uid
    except KeyError:
        pytest.skip("no user 'nobody' on this machine to plant files as")
    return uid


def chown_to_nobody(path: Path) -> None:
    uid = nobody()
    try:
        os.chown(path, uid, uid, follow_symlinks=False)
    except PermissionError:
        pytest.skip("planting a file owned by another user needs chown, which needs root "
                    "(CI runs as root, where this test runs)")


def plant(shared: Path, marker: Path, *, owner_nobody: bool = True) -> Path:
    """A shared parent directory with a config naming a module, both as another user
    would leave them; returns the project directory below it (the user's own)."""
    shared.mkdir(parents=True, exist_ok=True)
    config = shared / ".truncation.yaml"
    config.write_text("inline_limit: 77\nplugins:\n  modules: [evil_plugin]\n")
    module = shared / "evil_plugin.py"
    module.write_text(EVIL.format(marker=str(marker)))
    if owner_nobody:
        chown_to_nobody(config)
        chown_to_nobody(module)
    project = shared / "project"
    project.mkdir()
    return project


@pytest.fixture(autouse=True)
def _forget_the_module() -> None:
    import sys

    sys.modules.pop("evil_plugin", None)


def test_a_config_owned_by_another_user_is_skipped_and_its_module_never_runs(
        tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    project = plant(tmp_path / "shared", marker)
    with pytest.warns(UntrustedConfigWarning) as caught:
        loaded = load_config(start=project, environ={})
    assert loaded.path is None
    assert loaded.config.inline_limit == 8000
    (message,) = loaded.skipped
    assert "owned by nobody, not by you or root" in message
    assert "--config" in message and "TRUNCATION_CORE_CONFIG" in message
    assert str(caught[0].message) == message
    with pytest.warns(UntrustedConfigWarning):
        Truncator.from_config(start=project, environ={}, load_entrypoints=False)
    assert not marker.exists()


def test_negative_control_without_the_check_the_planted_module_runs_as_you(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same planted files, with discovery trusting every file (as it did): the other
    user's module is imported, and runs."""
    marker = tmp_path / "ran"
    project = plant(tmp_path / "shared", marker)
    monkeypatch.setattr(trust, "untrusted_reason", lambda path: None)
    truncator = Truncator.from_config(start=project, environ={}, load_entrypoints=False)
    assert truncator.config.inline_limit == 77
    assert marker.read_text() == "ran"


def test_an_explicit_config_is_the_users_choice(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    project = plant(tmp_path / "shared", marker)
    config = tmp_path / "shared" / ".truncation.yaml"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = load_config(start=project, environ={"TRUNCATION_CORE_CONFIG": str(config)})
        assert loaded.path == config and loaded.config.inline_limit == 77
        assert load_config(config, environ={}).config.inline_limit == 77


def test_a_planted_module_next_to_the_users_own_config_is_not_imported(
        tmp_path: Path) -> None:
    """The config is the user's; the module it names was replaced by another user."""
    marker = tmp_path / "ran"
    project = tmp_path / "project"
    project.mkdir()
    (project / ".truncation.yaml").write_text("plugins:\n  modules: [evil_plugin]\n")
    module = project / "evil_plugin.py"
    module.write_text(EVIL.format(marker=str(marker)))
    chown_to_nobody(module)
    with pytest.warns(UserWarning, match=r"evil_plugin.*owned by nobody"):
        truncator = Truncator.from_config(start=project, environ={}, load_entrypoints=False)
    assert not marker.exists()
    (record,) = [p for p in truncator.plugins.list_plugins() if p.name == "evil_plugin"]
    assert record.status == "error"


def test_the_users_own_file_in_a_directory_others_can_write_is_skipped(
        tmp_path: Path) -> None:
    """Owned by the user, but anyone could have replaced it: the directory is world-writable
    without the sticky bit."""
    shared = tmp_path / "shared"
    project = plant(shared, tmp_path / "ran", owner_nobody=False)
    shared.chmod(0o777)
    with pytest.warns(UntrustedConfigWarning, match="other users can write to its directory"):
        loaded = load_config(start=project, environ={})
    assert loaded.path is None
    shared.chmod(0o1777)  # the sticky bit: nobody can replace a file they do not own
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_config(start=project, environ={}).path == shared / ".truncation.yaml"


def test_the_users_own_file_in_a_directory_another_user_owns_is_skipped(
        tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    project = plant(shared, tmp_path / "ran", owner_nobody=False)
    chown_to_nobody(shared)  # mode 0755: only its owner can write to it
    with pytest.warns(UntrustedConfigWarning,
                      match=f"its directory {shared} is owned by nobody"):
        assert load_config(start=project, environ={}).path is None


def test_negative_control_the_directorys_owner_swaps_the_users_own_files(
        tmp_path: Path) -> None:
    """The owner of a directory renames files in it, the user's own included: the file
    found as the config is still the user's, with the user's mode, but its owner chose it.
    A check of the file alone cannot tell."""
    shared = tmp_path / "shared"
    project = plant(shared, tmp_path / "ran", owner_nobody=False)
    (shared / ".truncation.yaml").write_text("inline_limit: 77\n")
    (shared / "old-plugins.yaml").write_text("plugins:\n  modules: [evil_plugin]\n")
    chown_to_nobody(shared)
    uid = nobody()
    directory = os.open(shared, os.O_RDONLY | os.O_DIRECTORY)
    child = os.fork()
    if child == 0:  # as the directory's owner, through an open descriptor of it
        try:
            os.setgid(uid)
            os.setuid(uid)
            os.replace("old-plugins.yaml", ".truncation.yaml", src_dir_fd=directory,
                       dst_dir_fd=directory)
            os._exit(0)
        except BaseException:
            os._exit(1)
    os.close(directory)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    config = shared / ".truncation.yaml"
    assert config.stat().st_uid == os.geteuid() and "evil_plugin" in config.read_text()
    swapped = config.stat()
    assert not swapped.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    with pytest.warns(UntrustedConfigWarning, match="is owned by nobody"):
        assert load_config(start=project, environ={}).path is None


def test_a_file_others_can_write_is_skipped(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    project = plant(shared, tmp_path / "ran", owner_nobody=False)
    (shared / ".truncation.yaml").chmod(0o646)
    with pytest.warns(UntrustedConfigWarning, match="other users can write to it"):
        assert load_config(start=project, environ={}).path is None


def test_the_search_goes_on_above_a_skipped_file(tmp_path: Path) -> None:
    (tmp_path / ".truncation.yaml").write_text("inline_limit: 1234\n")
    project = plant(tmp_path / "shared", tmp_path / "ran")
    with pytest.warns(UntrustedConfigWarning):
        loaded = load_config(start=project, environ={})
    assert loaded.path == tmp_path / ".truncation.yaml"
    assert loaded.config.inline_limit == 1234


def test_a_pyproject_owned_by_another_user_is_skipped(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    pyproject = shared / "pyproject.toml"
    pyproject.write_text("[tool.truncation_core]\ninline_limit = 55\n")
    chown_to_nobody(pyproject)
    (shared / "project").mkdir()
    with pytest.warns(UntrustedConfigWarning, match="pyproject.toml skipped"):
        assert load_config(start=shared / "project", environ={}).path is None


def test_a_symlink_planted_by_another_user_is_skipped(tmp_path: Path) -> None:
    mine = tmp_path / "mine.yaml"
    mine.write_text("inline_limit: 99\n")
    shared = tmp_path / "shared"
    (shared / "project").mkdir(parents=True)
    link = shared / ".truncation.yaml"
    link.symlink_to(mine)
    chown_to_nobody(link)
    with pytest.warns(UntrustedConfigWarning, match="the symlink is owned by nobody"):
        assert load_config(start=shared / "project", environ={}).path is None


def test_the_cli_announces_the_skipped_file_on_stderr(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from truncation_core.cli import cli

    marker = tmp_path / "ran"
    project = plant(tmp_path / "shared", marker)
    monkeypatch.chdir(project)
    result = CliRunner().invoke(cli, ["config", "show"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    assert result.stderr.count("warning: config file") == 1
    assert "owned by nobody" in result.stderr
    assert not marker.exists()


def test_discovery_uses_the_trust_check(monkeypatch: pytest.MonkeyPatch,
                                        tmp_path: Path) -> None:
    """Control for the tests above: the check is what decides (a file it calls untrusted is
    skipped even when it is the user's own)."""
    (tmp_path / ".truncation.yaml").write_text("inline_limit: 5\n")
    monkeypatch.setattr(trust, "untrusted_reason", lambda path: "a test says so")
    found: list[str] = []
    assert sources.find_config_file(tmp_path, found) is None
    assert "a test says so" in found[0]
    assert stat.S_IMODE((tmp_path / ".truncation.yaml").stat().st_mode) & 0o022 == 0
