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


# -- what Python would run instead of the checked source -----------------------------------------
#
# The trust check reads ``h.py`` (or ``h/__init__.py``). Python's path finder, given the
# project's directory on sys.path, prefers an extension module beside it, runs a
# ``__pycache__`` file whose header matches the source instead of the source, and finds a
# sourceless ``.pyc`` for any module the plugin imports. Each negative control below imports
# the same planted files with a plain ``import`` and the directory on sys.path, in a fresh
# interpreter: the planted code runs (or, for a file named as an extension module, Python
# tries to load it). The project's loader runs only the checked source.

import importlib.machinery  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import py_compile  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

#: The user's own plugin: it says it ran, and implements a hook.
BENIGN = '''
import pathlib
pathlib.Path({marker!r}).with_suffix(".benign").write_text("benign")
from truncation_core import hookimpl

@hookimpl
def format_marker(marker):
    return None
'''


def planted_project(directory: Path, marker: Path, *, name: str = "h",
                    source: str = BENIGN) -> Path:
    """A project directory whose config names module *name*, with the user's own source."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / ".truncation.yaml").write_text(f"plugins:\n  modules: [{name}]\n")
    (directory / f"{name}.py").write_text(source.format(marker=str(marker)))
    return directory


def plant_bytecode(source: Path, evil: str, mode: str) -> Path:
    """A ``__pycache__`` file for *source* that Python takes for it, holding *evil*: an
    unchecked hash-based one (never compared with the source), or a timestamp one whose
    header matches the source's size and modification time."""
    benign = source.read_bytes()
    evil_bytes = evil.encode()
    cache = Path(importlib.util.cache_from_source(str(source)))
    if mode == "unchecked-hash":
        source.write_bytes(evil_bytes)
        py_compile.compile(str(source), cfile=str(cache), doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
        source.write_bytes(benign)
        return cache
    # Same size: the evil source padded (or the benign one) with a comment.
    width = max(len(benign), len(evil_bytes)) + 2
    source.write_bytes(evil_bytes + b"\n#" + b"x" * (width - len(evil_bytes) - 2))
    py_compile.compile(str(source), cfile=str(cache), doraise=True,
                       invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
    stamp = source.stat()
    source.write_bytes(benign + b"\n#" + b"x" * (width - len(benign) - 2))
    os.utime(source, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    return cache


def plain_import(directory: Path, name: str) -> subprocess.CompletedProcess[str]:
    """``import name`` in a fresh interpreter with *directory* first on sys.path: what the
    old loader did (it prepended the project directory while importing)."""
    return subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, "
                           f"{str(directory)!r}); import {name}"],
                          capture_output=True, text=True, timeout=60, cwd=directory)


def load_in_child(project: Path, *, cwd_on_path: bool = False) -> dict[str, str]:
    """``Truncator.from_config()`` in a fresh interpreter started in *project* (which is not
    on its sys.path, as for ``trunc``, unless *cwd_on_path*, as for ``python -c``): each
    plugin's status, and its error."""
    code = ("import json, warnings\nwarnings.simplefilter('ignore')\n"
            "from truncation_core import Truncator\n"
            "t = Truncator.from_config(load_entrypoints=False)\n"
            "print(json.dumps({p.name: p.error or p.status for p in t.plugins.list_plugins() "
            "if p.kind == 'project'}))")
    # Bytecode may be written (as it is by default): the loader must not write any.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("TRUNCATION_CORE_") and k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, *([] if cwd_on_path else ["-P"]), "-c", code],
                          capture_output=True, text=True, timeout=60, cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    loaded: dict[str, str] = json.loads(done.stdout)
    return loaded


def trunc_in(project: Path, trunc_exe: str, trunc_env: dict[str, str],
             *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([trunc_exe, *args], input="x\n" * 5000, capture_output=True,
                          text=True, timeout=60, cwd=project, env=trunc_env)


@pytest.mark.parametrize("mode", ["unchecked-hash", "timestamp"])
def test_negative_control_planted_bytecode_runs_under_a_plain_import(
        tmp_path: Path, mode: str) -> None:
    marker = tmp_path / "ran"
    project = planted_project(tmp_path / "project", marker)
    plant_bytecode(project / "h.py", EVIL.format(marker=str(marker)), mode)
    done = plain_import(project, "h")
    assert done.returncode == 0, done.stderr
    assert marker.read_text() == "ran"  # the planted code ran, the checked source did not
    assert not marker.with_suffix(".benign").exists()


@pytest.mark.parametrize("mode", ["unchecked-hash", "timestamp"])
def test_planted_bytecode_beside_the_checked_source_never_runs(
        tmp_path: Path, mode: str, trunc_exe: str, trunc_env: dict[str, str]) -> None:
    marker = tmp_path / "ran"
    project = planted_project(tmp_path / "project", marker)
    cache = plant_bytecode(project / "h.py", EVIL.format(marker=str(marker)), mode)
    planted = cache.read_bytes()
    assert load_in_child(project) == {"h": "loaded"}
    assert marker.with_suffix(".benign").read_text() == "benign"  # the source ran
    marker.with_suffix(".benign").unlink()
    listed = trunc_in(project, trunc_exe, trunc_env, "plugins", "--json")
    assert listed.returncode == 0, listed.stderr
    (record,) = [p for p in json.loads(listed.stdout) if p["name"] == "h"]
    assert record["status"] == "loaded" and record["hooks"] == ["format_marker"]
    applied = trunc_in(project, trunc_exe, trunc_env, "apply", "-")
    assert applied.returncode == 0, applied.stderr
    assert not marker.exists()
    assert cache.read_bytes() == planted  # nothing was written over it either


def test_the_loader_writes_no_bytecode(tmp_path: Path) -> None:
    project = planted_project(tmp_path / "project", tmp_path / "ran")
    assert load_in_child(project) == {"h": "loaded"}
    assert not (project / "__pycache__").exists()


def test_planted_bytecode_in_a_sticky_shared_directory_never_runs(tmp_path: Path) -> None:
    """The attack as it happens: the user's config and module in a sticky shared directory
    (which the trust rule allows), and another user's ``__pycache__`` beside them."""
    marker = tmp_path / "ran"
    shared = planted_project(tmp_path / "shared", marker)
    shared.chmod(0o1777)
    cache = plant_bytecode(shared / "h.py", EVIL.format(marker=str(marker)), "unchecked-hash")
    chown_to_nobody(cache.parent)
    chown_to_nobody(cache)
    assert load_in_child(shared) == {"h": "loaded"}
    assert not marker.exists()
    assert plain_import(shared, "h").returncode == 0 and marker.read_text() == "ran"


def extension_beside(source: Path) -> Path:
    """A file named as the extension module the path finder looks for first (not a valid
    shared object: Python fails to load it, which shows it tried)."""
    planted = source.with_name(source.stem + importlib.machinery.EXTENSION_SUFFIXES[0])
    planted.write_bytes(b"not an ELF file\n")
    return planted


def test_negative_control_a_plain_import_prefers_an_extension_module(tmp_path: Path) -> None:
    project = planted_project(tmp_path / "project", tmp_path / "ran")
    planted = extension_beside(project / "h.py")
    done = plain_import(project, "h")
    assert done.returncode == 1
    assert "ImportError" in done.stderr and str(planted) in done.stderr


def test_an_extension_module_beside_the_checked_source_is_never_loaded(
        tmp_path: Path, trunc_exe: str, trunc_env: dict[str, str]) -> None:
    project = planted_project(tmp_path / "project", tmp_path / "ran")
    planted = extension_beside(project / "h.py")
    assert load_in_child(project) == {"h": "loaded"}
    done = trunc_in(project, trunc_exe, trunc_env, "apply", "-")
    assert done.returncode == 0, done.stderr
    assert "h" not in done.stderr.split()
    # In a process that has the project's directory on sys.path (python -c started there),
    # ``import h`` anywhere would load the planted file: the name is refused, naming it.
    (refused,) = load_in_child(project, cwd_on_path=True).values()
    assert f"'h' also resolves to {planted}" in refused


def test_a_package_submodule_is_loaded_from_its_source_only(tmp_path: Path) -> None:
    """``pkg.sub`` named in config, and a module the package imports itself: each from its
    ``.py``; the extension module and bytecode beside them are ignored, and a submodule with
    no source is not found (a plain import would load what is there)."""
    marker = tmp_path / "ran"
    project = tmp_path / "project"
    package = project / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from . import helpers\n")
    (package / "helpers.py").write_text("VALUE = 'source'\n")
    (package / "sub.py").write_text(BENIGN.format(marker=str(marker)) +
                                    "from pkg.helpers import VALUE\nassert VALUE == 'source'\n")
    plant_bytecode(package / "helpers.py", EVIL.format(marker=str(marker)), "unchecked-hash")
    extension_beside(package / "sub.py")
    (project / ".truncation.yaml").write_text("plugins:\n  modules: [pkg.sub, pkg.gone]\n")
    py_compile.compile(str(package / "helpers.py"), cfile=str(package / "gone.pyc"))
    loaded = load_in_child(project)
    assert loaded["pkg.sub"] == "loaded"
    assert "No module named 'pkg.gone'" in loaded["pkg.gone"]
    assert ".py source" in loaded["pkg.gone"]
    assert not marker.exists() and marker.with_suffix(".benign").exists()
    done = plain_import(project, "pkg.gone")  # negative control: the sourceless file runs
    assert done.returncode == 0 and marker.read_text() == "ran"


def test_a_namespace_package_submodule_is_loaded_from_its_source(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    project = tmp_path / "project"
    (project / "space").mkdir(parents=True)
    (project / "space" / "hooks.py").write_text(BENIGN.format(marker=str(marker)))
    (project / ".truncation.yaml").write_text("plugins:\n  modules: [space.hooks]\n")
    assert load_in_child(project) == {"space.hooks": "loaded"}


SHADOW = '''
import pathlib
pathlib.Path({marker!r}).write_text("ran")
'''


def sourceless(directory: Path, name: str, code: str) -> Path:
    """A sourceless ``name.pyc`` in *directory*, as the path finder finds one beside sources."""
    source = directory / f"{name}_src.py"
    source.write_text(code)
    planted = directory / f"{name}.pyc"
    py_compile.compile(str(source), cfile=str(planted), doraise=True)
    source.unlink()
    return planted


def test_negative_control_a_sourceless_pyc_shadows_the_standard_library(
        tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    project = planted_project(tmp_path / "project", marker,
                              source=BENIGN + "import colorsys\n")
    sourceless(project, "colorsys", SHADOW.format(marker=str(marker)))
    done = plain_import(project, "h")
    assert done.returncode == 0, done.stderr
    assert marker.read_text() == "ran"


@pytest.mark.parametrize("named", ["h", "colorsys"])
def test_a_sourceless_pyc_in_the_project_never_shadows_a_module(
        tmp_path: Path, named: str, trunc_exe: str, trunc_env: dict[str, str]) -> None:
    """The user's plugin imports ``colorsys`` (or the config names ``colorsys`` itself):
    the standard library's is imported, never the project's ``colorsys.pyc``."""
    marker = tmp_path / "ran"
    project = planted_project(tmp_path / "project", marker, name="h",
                              source=BENIGN + "import colorsys\nassert colorsys.__file__."
                                              "endswith('colorsys.py')\n")
    if named == "colorsys":
        (project / ".truncation.yaml").write_text("plugins:\n  modules: [colorsys]\n")
    sourceless(project, "colorsys", SHADOW.format(marker=str(marker)))
    assert load_in_child(project) == {named: "loaded"}
    for command in (["plugins"], ["apply", "-"]):
        done = trunc_in(project, trunc_exe, trunc_env, *command)
        assert done.returncode == 0, done.stderr
    assert not marker.exists()


def test_a_project_module_named_as_an_installed_one_is_refused(tmp_path: Path) -> None:
    """Loaded, the project's ``colorsys.py`` would be every later ``import colorsys`` in the
    process; the configuration may have meant the standard library's."""
    marker = tmp_path / "ran"
    project = planted_project(tmp_path / "project", marker, name="colorsys")
    (loaded,) = load_in_child(project).values()
    assert "colorsys.py is not imported for plugins.modules 'colorsys'" in loaded
    assert "'colorsys' also resolves to" in loaded and "a name of its own" in loaded
    assert not marker.with_suffix(".benign").exists()


def test_a_submodule_another_user_planted_in_the_users_package_is_refused(
        tmp_path: Path) -> None:
    """The package is the user's; a module it imports at run time was written by another
    user. The old check read only the files the configured name led to."""
    marker = tmp_path / "ran"
    project = tmp_path / "project"
    package = project / "pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(BENIGN.format(marker=str(marker)) +
                                         "from . import helpers\n")
    (package / "helpers.py").write_text(SHADOW.format(marker=str(marker)))
    chown_to_nobody(package / "helpers.py")
    (project / ".truncation.yaml").write_text("plugins:\n  modules: [pkg]\n")
    (loaded,) = load_in_child(project).values()
    assert "helpers.py is not run: it is owned by nobody" in loaded
    assert not marker.exists()


def test_a_name_that_is_not_a_module_name_is_refused(tmp_path: Path) -> None:
    project = planted_project(tmp_path / "project", tmp_path / "ran")
    (project / ".truncation.yaml").write_text("plugins:\n  modules: ['../h', 'h..x']\n")
    loaded = load_in_child(project)
    assert "'../h' is not a module name" in loaded["../h"]
    assert "'h..x' is not a module name" in loaded["h..x"]
