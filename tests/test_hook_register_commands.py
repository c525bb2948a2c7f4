"""The ``register_commands`` hook: plugins add commands to ``trunc``.

Each test runs the installed ``trunc`` console script in a subprocess, with real installed
distributions (a ``*.dist-info`` on ``PYTHONPATH``) or project plugins named in config.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

HELLO = '''
import click
from truncation_core import hookimpl

@hookimpl
def register_commands(cli):
    @cli.command("{name}")
    @click.argument("who")
    @click.pass_obj
    def hello(state, who):
        """Say hello."""
        state.truncator()  # loads the plugins again, as any command that processes does
        click.echo("hello " + who + " config=" + str(state.config_path))
'''

RAISES = '''
from truncation_core import hookimpl

@hookimpl
def register_commands(cli):
    raise RuntimeError("secret content that must not be printed")
'''

CLASHES = '''
import click
from truncation_core import hookimpl

@hookimpl
def register_commands(cli):
    @cli.command("apply")
    def apply():
        click.echo("plugin apply")
'''


@pytest.fixture
def run(trunc_exe: str, trunc_env: dict[str, str], site_dir: Any, tmp_path: Path) -> Any:
    work = tmp_path / "work"
    work.mkdir()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        env = {**trunc_env, "PYTHONPATH": str(site_dir.root)}
        return subprocess.run([trunc_exe, *args], capture_output=True, text=True, timeout=60,
                              env=env, cwd=work)

    run.work = work  # type: ignore[attr-defined]
    return run


def test_hook_register_commands_adds_a_command_from_an_installed_plugin(
        run: Any, site_dir: Any, unique_name: str) -> None:
    site_dir.distribution("tc-hello", entry_points={"hello": unique_name},
                          modules={unique_name: HELLO.format(name="hello")})
    done = run("hello", "world")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hello world config=None\n"
    assert "hello" in run("--help").stdout


def test_hook_register_commands_sees_the_config_given_to_trunc(
        run: Any, site_dir: Any, unique_name: str, tmp_path: Path) -> None:
    site_dir.distribution("tc-hello", entry_points={"hello": unique_name},
                          modules={unique_name: HELLO.format(name="hello")})
    config = tmp_path / "conf.yaml"
    config.write_text("inline_limit: 100\n")
    done = run("--config", str(config), "hello", "you")
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"hello you config={config}\n"


def test_hook_register_commands_respects_plugins_disable(
        run: Any, site_dir: Any, unique_name: str) -> None:
    site_dir.distribution("tc-hello", entry_points={"hello": unique_name},
                          modules={unique_name: HELLO.format(name="hello")})
    (run.work / ".truncation.yaml").write_text("plugins:\n  disable: [hello]\n")
    done = run("hello", "world")
    assert done.returncode == 2
    assert "No such command 'hello'" in done.stderr


def test_hook_register_commands_from_a_project_plugin(run: Any, unique_name: str) -> None:
    (run.work / f"{unique_name}.py").write_text(HELLO.format(name="greet"))
    (run.work / ".truncation.yaml").write_text(f"plugins:\n  modules: [{unique_name}]\n")
    done = run("greet", "project")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("hello project config=None")


def test_hook_register_commands_a_plugin_that_raises_is_named_and_trunc_goes_on(
        run: Any, site_dir: Any, unique_name: str) -> None:
    site_dir.distribution("tc-raises", entry_points={"raiser": f"{unique_name}_r"},
                          modules={f"{unique_name}_r": RAISES})
    site_dir.distribution("tc-hello", entry_points={"hello": unique_name},
                          modules={unique_name: HELLO.format(name="hello")})
    done = run("hello", "world")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hello world config=None\n"
    assert ("warning: plugin 'raiser' raised RuntimeError in register_commands; its commands "
            "are not available") in done.stderr
    assert "secret content" not in done.stderr
    assert "Traceback" not in done.stderr
    # Listing the commands survives it too.
    listed = run("--help")
    assert listed.returncode == 0 and "hello" in listed.stdout


def test_hook_register_commands_strict_mode_stops_with_the_plugin_named(
        run: Any, site_dir: Any, unique_name: str) -> None:
    site_dir.distribution("tc-raises", entry_points={"raiser": unique_name},
                          modules={unique_name: RAISES})
    (run.work / ".truncation.yaml").write_text("plugins:\n  strict: true\n")
    done = run("anything")
    assert done.returncode == 1
    assert "plugin 'raiser' raised RuntimeError in register_commands" in done.stderr
    assert "Traceback" not in done.stderr and "secret content" not in done.stderr


def test_hook_register_commands_cannot_replace_a_built_in_command(
        run: Any, site_dir: Any, unique_name: str) -> None:
    site_dir.distribution("tc-clash", entry_points={"clash": unique_name},
                          modules={unique_name: CLASHES})
    listed = run("--help")
    assert "plugin 'clash' adds command 'apply', which is already a built-in command" in \
        listed.stderr
    done = run("apply", "-")
    assert done.returncode == 0, done.stderr
    assert "plugin apply" not in done.stdout


def test_hook_register_commands_is_not_called_for_a_built_in_command(
        run: Any, site_dir: Any, unique_name: str) -> None:
    """A built-in command starts without loading plugins for commands: the raising plugin's
    warning does not appear (control: it does for a command that is not built in)."""
    site_dir.distribution("tc-raises", entry_points={"raiser": unique_name},
                          modules={unique_name: RAISES})
    assert "register_commands" not in run("config", "show").stderr
    assert "register_commands" in run("nothing-like-this").stderr


def test_hook_register_commands_a_plugin_that_fails_to_load_is_reported_once(
        run: Any, site_dir: Any, unique_name: str) -> None:
    site_dir.distribution("tc-broken", entry_points={"broken": unique_name},
                          modules={unique_name: "raise ImportError('nope')\n"})
    site_dir.distribution("tc-hello", entry_points={"hello": f"{unique_name}_h"},
                          modules={f"{unique_name}_h": HELLO.format(name="hello")})
    done = run("hello", "world")
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("'broken'") == 1, done.stderr
