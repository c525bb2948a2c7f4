"""The plugin manager: registration order, our entry-point loader, disabling, project plugins.

Installed plugins are real: each test writes ``*.dist-info`` directories (``METADATA`` and
``entry_points.txt``) and their modules into a directory on ``sys.path`` (the ``site_dir``
fixture), and discovery finds them (through importlib.metadata). Nothing patches
``entry_points``. The
command-line behaviour with a broken plugin runs ``trunc`` as a subprocess with that directory
on ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pluggy
import pytest
from distributions import SiteDir

from truncation_core import (
    ConfigError,
    PluginLoadError,
    PluginLoadWarning,
    Provides,
    Truncator,
    hookimpl,
)
from truncation_core.hooks.host import DEFAULT_PLUGINS
from truncation_core.plugin import Strategy

LOG = "".join(f"line {i}\n" for i in range(500))


def marker_plugin(tag: str) -> str:
    """Source of a plugin module whose format_marker renders omissions as ``[tag]``."""
    return (
        "from truncation_core import hookimpl\n\n"
        "@hookimpl\n"
        "def format_marker(marker):\n"
        f"    return None if marker.kind == 'reference' else '[{tag}]'\n"
    )


class Marker:
    def __init__(self, tag: str) -> None:
        self.__name__ = f"marker-{tag}"
        self.tag = tag

    @hookimpl
    def format_marker(self, marker: Any) -> str | None:
        return None if marker.kind == "reference" else f"[{self.tag}]"


def shown_marker(truncator: Truncator) -> str:
    content = truncator.process(LOG).content
    return content[content.index("line 1"):].split("\n")[-1] if "[" not in content else (
        content[content.index("["):content.index("]") + 1])


def make(config: dict[str, Any] | None = None, **kwargs: Any) -> Truncator:
    return Truncator({"inline_limit": 300, "spill": False, **(config or {})}, **kwargs)


# -- order ---------------------------------------------------------------------------------


def test_builtins_are_registered_first_and_are_all_trylast() -> None:
    truncator = make(load_entrypoints=False)
    names = [p.name for p in truncator.plugins.list_plugins()]
    assert names == ["builtin." + m.rsplit(".", 1)[1] for m in DEFAULT_PLUGINS]
    pm = truncator.plugins.pm
    for hook_name in truncator.plugins.hook_names():
        for impl in getattr(pm.hook, hook_name).get_hookimpls():
            assert impl.trylast, (hook_name, impl.plugin_name)


def test_a_registered_plugin_overrides_a_builtin() -> None:
    default = make(load_entrypoints=False).process(LOG).content
    assert "lines / " in default
    assert "[mine]" in make(plugins=[Marker("mine")], load_entrypoints=False).process(LOG).content


def test_later_explicit_plugins_are_called_first() -> None:
    truncator = make(plugins=[Marker("first"), Marker("second")], load_entrypoints=False)
    assert "[second]" in truncator.process(LOG).content


def test_order_is_explicit_then_project_then_entry_points_then_builtins(
        site_dir: Any, unique_name: str, tmp_path: Path) -> None:
    site_dir.distribution("tc-order-dist", entry_points={"order_ep": f"{unique_name}_ep"},
                          modules={f"{unique_name}_ep": marker_plugin("entrypoint")})
    project = tmp_path / "project"
    project.mkdir()
    (project / f"{unique_name}_proj.py").write_text(marker_plugin("project"))
    config_file = project / ".truncation.yaml"

    def content(project_plugin: bool, explicit: bool, entrypoints: bool = True) -> str:
        modules = [f"{unique_name}_proj"] if project_plugin else []
        config_file.write_text(
            f"inline_limit: 300\nspill: false\nplugins:\n  modules: {json.dumps(modules)}\n")
        truncator = Truncator.from_config(start=project, environ={},
                                          plugins=[Marker("explicit")] if explicit else [],
                                          load_entrypoints=entrypoints)
        return truncator.process(LOG).content

    assert "[explicit]" in content(project_plugin=True, explicit=True)
    assert "[project]" in content(project_plugin=True, explicit=False)
    assert "[entrypoint]" in content(project_plugin=False, explicit=False)
    assert "lines / " in content(project_plugin=False, explicit=False, entrypoints=False)


def test_entry_points_load_sorted_by_name(site_dir: Any, unique_name: str) -> None:
    # Distribution names sort the other way round, so only the entry-point name can explain
    # the order.
    site_dir.distribution("aaa-dist", entry_points={"zeta": f"{unique_name}_z"},
                          modules={f"{unique_name}_z": marker_plugin("zeta")})
    site_dir.distribution("zzz-dist", entry_points={"alpha": f"{unique_name}_a"},
                          modules={f"{unique_name}_a": marker_plugin("alpha")})
    truncator = make()
    entrypoints = [p.name for p in truncator.plugins.list_plugins() if p.kind == "entrypoint"]
    assert entrypoints == sorted(entrypoints)
    assert entrypoints.index("alpha") < entrypoints.index("zeta")
    assert "[zeta]" in truncator.process(LOG).content  # registered last, called first
    info = {p.name: p for p in truncator.plugins.list_plugins()}
    assert (info["alpha"].distribution, info["alpha"].version) == ("zzz-dist", "1.0")
    assert info["alpha"].hooks == ("format_marker",)
    assert info["alpha"].target == f"{unique_name}_a"


def test_no_global_state_between_truncators() -> None:
    restyled = make(plugins=[Marker("one")], load_entrypoints=False)
    plain = make(load_entrypoints=False)
    assert "[one]" in restyled.process(LOG).content
    assert "[one]" not in plain.process(LOG).content
    assert restyled.plugins.pm is not plain.plugins.pm
    assert restyled.store is not plain.store


# -- provides --------------------------------------------------------------------------------


def test_provides_collects_strategies_and_backends_with_their_plugin() -> None:
    class Extra:
        __name__ = "extra"

        @hookimpl
        def provides(self) -> Provides:
            return Provides(strategies=[Strategy(name="middle_only",
                                                 description="keeps the middle",
                                                 cut=lambda text, **_: None)],
                            backends={"null": lambda config: None})

    builtins = make(load_entrypoints=False).plugins
    assert {"head", "tail", "head_tail", "lines", "element"} <= set(builtins.strategies)
    assert "memory" in builtins.backends
    truncator = make(plugins=[Extra()], load_entrypoints=False)
    assert set(truncator.plugins.strategies) == {*builtins.strategies, "middle_only"}
    assert set(truncator.plugins.backends) == {*builtins.backends, "null"}
    info = {p.name: p for p in truncator.plugins.list_plugins()}
    assert info["explicit.extra"].strategies == ("middle_only",)
    assert info["explicit.extra"].backends == ("null",)
    assert info["builtin.memory_store"].backends == ("memory",)
    assert info["builtin.strategies"].strategies == (
        "adaptive", "head", "head_tail", "lines", "outline", "tail",
    )


def test_the_example_plugin_is_discovered_by_entry_point(example_plugin: SiteDir) -> None:
    truncator = Truncator({"default_strategy": "sample", "inline_limit": 2000})
    info = {p.name: p for p in truncator.plugins.list_plugins()}["example"]
    assert (info.kind, info.distribution, info.strategies) == (
        "entrypoint", "truncation-core-example", ("sample",))
    assert truncator.process(LOG * 5).metadata.strategy_used == "sample"


# -- broken plugins --------------------------------------------------------------------------


BROKEN = "raise ImportError('needs frobnicate, which is not installed')\n"


def test_a_broken_entry_point_warns_naming_it_and_its_distribution(
        example_plugin: SiteDir, site_dir: Any, unique_name: str) -> None:
    site_dir.distribution("tc-broken-dist", "2.3", entry_points={"broken": unique_name},
                          modules={unique_name: BROKEN})
    with pytest.warns(PluginLoadWarning) as caught:
        truncator = make()
    messages = [str(w.message) for w in caught]
    assert messages == ["plugin 'broken' from tc-broken-dist 2.3 failed to load: ImportError: "
                        "needs frobnicate, which is not installed"]
    info = {p.name: p for p in truncator.plugins.list_plugins()}
    assert info["broken"].status == "error"
    assert info["broken"].error == messages[0]
    assert info["example"].status == "loaded"  # the others still load
    assert truncator.process(LOG).metadata.was_truncated  # and the truncator works


@pytest.mark.parametrize(
    ("target", "source", "cause"),
    [
        ("{m}:missing", "x = 1\n", "AttributeError"),
        ("{m}", "def broken(:\n", "SyntaxError"),
        ("{m}_not_there", "", "ModuleNotFoundError"),
        ("{m}", "from truncation_core import hookimpl\n@hookimpl\ndef truncat(strategy):\n"
                "    pass\n", "PluginValidationError"),
        ("{m}", "from truncation_core import hookimpl\n@hookimpl\ndef truncate(strategy, txt):\n"
                "    pass\n", "PluginValidationError"),
    ],
    ids=["missing-attribute", "syntax-error", "missing-module", "misspelled-hook", "wrong-args"],
)
def test_every_kind_of_broken_entry_point_is_isolated(
        site_dir: Any, unique_name: str, target: str, source: str, cause: str) -> None:
    site_dir.distribution("tc-bad-dist", entry_points={"bad": target.format(m=unique_name)},
                          modules={unique_name: source})
    with pytest.warns(PluginLoadWarning, match=f"plugin 'bad' from tc-bad-dist 1.0 failed to "
                                               f"load: {cause}"):
        truncator = make()
    assert {p.name: p for p in truncator.plugins.list_plugins()}["bad"].status == "error"
    assert "truncat" not in truncator.plugins.hook_names()


def test_strict_mode_raises(site_dir: Any, unique_name: str) -> None:
    site_dir.distribution("tc-broken-dist", entry_points={"broken": unique_name},
                          modules={unique_name: BROKEN})
    with pytest.raises(PluginLoadError) as info:
        make({"plugins": {"strict": True}})
    assert str(info.value).startswith("plugin 'broken' from tc-broken-dist 1.0 failed to load")
    assert info.value.distribution == "tc-broken-dist"
    assert isinstance(info.value.cause, ImportError)


def test_a_misspelled_hook_in_an_explicit_plugin_is_reported() -> None:
    class Typo:
        @hookimpl
        def truncat(self, strategy: str) -> None:
            return None

    with pytest.warns(PluginLoadWarning) as caught:  # as the docs say: a warning
        truncator = make(plugins=[Typo()], load_entrypoints=False)
    message = str(caught[0].message)
    assert message.startswith("plugin 'explicit.Typo-0' failed to load: "
                              "PluginValidationError")
    assert "implements unknown hook(s) truncat" in message
    assert {p.name: p for p in truncator.plugins.list_plugins()}[
        "explicit.Typo-0"].status == "error"
    with pytest.raises(PluginLoadError):
        make({"plugins": {"strict": True}}, plugins=[Typo()], load_entrypoints=False)
    known = message.split("known hooks: ", 1)[1]
    assert known.split(", ") == ["format_marker", "provides", "register_commands",
                                 "salient_detector", "select_strategy", "store_artifact",
                                 "truncate"]


def test_hook_names_are_only_the_specified_hooks_after_a_rejected_plugin() -> None:
    class Typo:
        @hookimpl
        def formt_marker(self) -> None:
            return None

    from truncation_core.config.model import PluginsConfig
    from truncation_core.hooks.loader import _Loader, hook_names

    loader = _Loader(PluginsConfig(), {})
    loader.builtins()
    with pytest.raises(pluggy.PluginValidationError):
        loader.register(Typo(), name="typo", kind="explicit", target=None)
    assert hook_names(loader.pm) == ["format_marker", "provides", "register_commands",
                                     "salient_detector", "select_strategy", "store_artifact",
                                     "truncate"]


def test_two_entry_points_with_one_name_keep_the_first(site_dir: Any, unique_name: str) -> None:
    site_dir.distribution("tc-dup-a", entry_points={"dup": f"{unique_name}_a"},
                          modules={f"{unique_name}_a": marker_plugin("a")})
    site_dir.distribution("tc-dup-b", entry_points={"dup": f"{unique_name}_b"},
                          modules={f"{unique_name}_b": marker_plugin("b")})
    with pytest.warns(PluginLoadWarning, match="plugin 'dup' from tc-dup-. is registered twice"):
        truncator = make()
    assert sum(p.name == "dup" for p in truncator.plugins.list_plugins()) == 1


# -- disabling and allowlisting --------------------------------------------------------------


@pytest.fixture
def two_plugins(example_plugin: SiteDir, site_dir: Any, unique_name: str) -> Any:
    """Besides the example plugin: ``one`` (restyles markers) and ``two`` (fails to load)."""
    site_dir.distribution("tc-one", entry_points={"one": f"{unique_name}_1"},
                          modules={f"{unique_name}_1": marker_plugin("one")})
    site_dir.distribution("tc-two", entry_points={"two": f"{unique_name}_2"},
                          modules={f"{unique_name}_2": BROKEN})
    return site_dir


#: The entry points these tests control; others installed in the environment are ignored.
CONTROLLED = {"example", "one", "two"}


def statuses(truncator: Truncator) -> dict[str, str]:
    return {p.name: p.status for p in truncator.plugins.list_plugins()
            if p.kind == "entrypoint" and p.name in CONTROLLED}


def test_disable_by_entry_point_name_in_config(two_plugins: Any, recwarn: Any) -> None:
    truncator = make({"plugins": {"disable": ["two"]}})
    assert statuses(truncator) == {"example": "loaded", "one": "loaded", "two": "disabled"}
    assert not [w for w in recwarn if issubclass(w.category, PluginLoadWarning)]
    assert "[one]" in truncator.process(LOG).content


def test_allowlist_by_entry_point_name_in_config(two_plugins: Any, recwarn: Any) -> None:
    truncator = make({"plugins": {"enable": ["example"]}})
    assert statuses(truncator) == {"example": "loaded", "one": "disabled", "two": "disabled"}
    assert "[one]" not in truncator.process(LOG).content
    assert not [w for w in recwarn if issubclass(w.category, PluginLoadWarning)]
    assert statuses(make({"plugins": {"enable": []}})) == {
        "example": "disabled", "one": "disabled", "two": "disabled"}


def test_disable_and_allowlist_from_environment_variables(two_plugins: Any, tmp_path: Path,
                                                          recwarn: Any) -> None:
    def build(env: dict[str, str]) -> Truncator:
        return Truncator.from_config(start=tmp_path, environ=env)

    assert statuses(build({"TRUNCATION_CORE_DISABLE_PLUGINS": "two,example"})) == {
        "example": "disabled", "one": "loaded", "two": "disabled"}
    assert statuses(build({"TRUNCATION_CORE_PLUGINS": "one"})) == {
        "example": "disabled", "one": "loaded", "two": "disabled"}
    autoload_off = build({"TRUNCATION_CORE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert statuses(autoload_off) == {}
    assert "sample" not in autoload_off.plugins.strategies
    assert not [w for w in recwarn if issubclass(w.category, PluginLoadWarning)]
    with pytest.raises(PluginLoadError, match="plugin 'two' from tc-two"):
        build({"TRUNCATION_CORE_STRICT_PLUGINS": "1"})


# -- project plugins -------------------------------------------------------------------------


def test_a_project_restyles_markers_through_config_without_publishing(
        tmp_path: Path, unique_name: str) -> None:
    project = tmp_path / "project"
    (project / "tools").mkdir(parents=True)
    (project / "tools" / "__init__.py").write_text("")
    (project / "tools" / f"{unique_name}.py").write_text(
        "from truncation_core import hookimpl\n\n"
        "@hookimpl\n"
        "def format_marker(marker):\n"
        "    if marker.omission is None:\n"
        "        return None\n"
        "    return f'\\n>>> {marker.omission.lines} lines hidden <<<\\n'\n")
    (project / ".truncation.yaml").write_text(
        f"inline_limit: 300\nspill: false\nplugins:\n  modules: [tools.{unique_name}]\n")
    before = list(sys.path)
    try:
        truncator = Truncator.from_config(start=project / "tools", environ={},
                                          load_entrypoints=False)
        result = truncator.process(LOG)
    finally:
        sys.modules.pop(f"tools.{unique_name}", None)
        sys.modules.pop("tools", None)
    assert f"\n>>> {result.metadata.omitted_lines} lines hidden <<<\n" in result.content
    assert sys.path == before  # the project directory was on sys.path only while importing
    info = {p.name: p for p in truncator.plugins.list_plugins()}[f"tools.{unique_name}"]
    assert (info.kind, info.hooks, info.status) == ("project", ("format_marker",), "loaded")


def test_a_project_plugin_that_fails_to_import_warns(tmp_path: Path, unique_name: str) -> None:
    (tmp_path / ".truncation.yaml").write_text(f"plugins:\n  modules: [{unique_name}]\n")
    (tmp_path / f"{unique_name}.py").write_text(BROKEN)
    try:
        with pytest.warns(PluginLoadWarning, match=f"plugin '{unique_name}' failed to load: "
                                                   "ImportError: needs frobnicate"):
            Truncator.from_config(start=tmp_path, environ={}, load_entrypoints=False)
    finally:
        sys.modules.pop(unique_name, None)


# -- the command line with a broken plugin (real subprocesses) ---------------------------------


def run(trunc_exe: str, env: dict[str, str], cwd: Path, *args: str,
        stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([trunc_exe, *args], env=env, cwd=cwd, input=stdin, text=True,
                          capture_output=True, timeout=60, encoding="utf-8")


@pytest.fixture
def broken_env(tmp_path: Path, trunc_env: dict[str, str]) -> dict[str, str]:
    site = SiteDir(tmp_path / "site")
    site.root.mkdir()
    site.distribution("tc-broken-dist", "0.9", entry_points={"broken": "tc_cli_broken"},
                      modules={"tc_cli_broken": BROKEN})
    site.first_party("truncation-core-example")
    return {**trunc_env, "PYTHONPATH": str(site.root)}


def test_cli_plugins_lists_a_broken_plugin_with_its_error(
        trunc_exe: str, broken_env: dict[str, str], tmp_path: Path) -> None:
    done = run(trunc_exe, broken_env, tmp_path, "plugins", "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == ("warning: plugin 'broken' from tc-broken-dist 0.9 failed to "
                                   "load: ImportError: needs frobnicate, which is not installed")
    plugins = {p["name"]: p for p in json.loads(done.stdout)}
    assert plugins["broken"]["status"] == "error"
    assert "needs frobnicate" in plugins["broken"]["error"]
    assert plugins["broken"]["distribution"] == "tc-broken-dist"
    assert plugins["example"]["status"] == "loaded"
    table = run(trunc_exe, broken_env, tmp_path, "plugins")
    assert table.returncode == 0
    assert "broken" in table.stdout and "error: plugin 'broken'" in table.stdout


def test_cli_keeps_working_with_a_broken_plugin(
        trunc_exe: str, broken_env: dict[str, str], tmp_path: Path) -> None:
    done = run(trunc_exe, broken_env, tmp_path, "apply", "--limit", "300", stdin=LOG)
    assert done.returncode == 0, done.stderr
    assert "warning: plugin 'broken' from tc-broken-dist 0.9 failed to load" in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout.startswith("line 0\n") and len(done.stdout) <= 300


def test_cli_strict_mode_is_a_clean_error(
        trunc_exe: str, broken_env: dict[str, str], tmp_path: Path) -> None:
    env = {**broken_env, "TRUNCATION_CORE_STRICT_PLUGINS": "1"}
    done = run(trunc_exe, env, tmp_path, "apply", stdin=LOG)
    assert done.returncode == 1
    assert done.stderr.startswith("Error: plugin 'broken' from tc-broken-dist 0.9 failed to load")
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_cli_disabled_broken_plugin_is_silent(
        trunc_exe: str, broken_env: dict[str, str], tmp_path: Path) -> None:
    env = {**broken_env, "TRUNCATION_CORE_DISABLE_PLUGINS": "broken"}
    done = run(trunc_exe, env, tmp_path, "plugins", "--json")
    assert done.returncode == 0 and done.stderr == ""
    assert {p["name"]: p["status"] for p in json.loads(done.stdout)}["broken"] == "disabled"


def test_cli_plugins_loads_project_plugins_from_the_config_directory(
        trunc_exe: str, trunc_env: dict[str, str], tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / "tc_cli_project_markers.py").write_text(marker_plugin("project"))
    (project / ".truncation.yaml").write_text(
        "inline_limit: 300\nplugins:\n  modules: [tc_cli_project_markers]\n")
    listed = run(trunc_exe, trunc_env, project / "sub", "plugins", "--json")
    assert listed.returncode == 0, listed.stderr
    assert listed.stderr == ""
    info = {p["name"]: p for p in json.loads(listed.stdout)}["tc_cli_project_markers"]
    assert (info["kind"], info["status"], info["hooks"]) == ("project", "loaded",
                                                            ["format_marker"])
    applied = run(trunc_exe, trunc_env, project / "sub", "apply", stdin=LOG)
    assert applied.returncode == 0 and "[project]" in applied.stdout


# -- the operator's switches reach every way the library is built ----------------------------


def test_environment_switches_reach_a_truncator_built_from_a_mapping(
        two_plugins: Any, monkeypatch: pytest.MonkeyPatch, recwarn: Any) -> None:
    """``Truncator(config={...})`` reads no configuration from the environment, but the
    operator's plugin switches restrict it as they restrict the CLI."""
    monkeypatch.setenv("TRUNCATION_CORE_DISABLE_PLUGINS", "one")
    truncator = make({"plugins": {"disable": ["two"]}})
    assert statuses(truncator) == {"example": "loaded", "one": "disabled", "two": "disabled"}
    records = {p.name: p for p in truncator.plugins.list_plugins()}
    assert records["one"].disabled_by == "TRUNCATION_CORE_DISABLE_PLUGINS"
    assert records["two"].disabled_by == "plugins.disable"
    assert "[one]" not in truncator.process(LOG).content
    monkeypatch.setenv("TRUNCATION_CORE_PLUGINS", "example,two")
    # The allowlist narrows what configuration enables; it never loads what it left out.
    assert statuses(make({"plugins": {"enable": ["example"]}})) == {
        "example": "loaded", "one": "disabled", "two": "disabled"}
    monkeypatch.delenv("TRUNCATION_CORE_PLUGINS")
    monkeypatch.delenv("TRUNCATION_CORE_DISABLE_PLUGINS")
    monkeypatch.setenv("TRUNCATION_CORE_DISABLE_PLUGIN_AUTOLOAD", "1")
    assert statuses(make()) == {}
    monkeypatch.delenv("TRUNCATION_CORE_DISABLE_PLUGIN_AUTOLOAD")
    monkeypatch.setenv("TRUNCATION_CORE_STRICT_PLUGINS", "1")
    with pytest.raises(PluginLoadError, match="plugin 'two' from tc-two"):
        make()


def test_a_strategy_of_a_disabled_plugin_warns_once_and_falls_back(
        example_plugin: SiteDir, monkeypatch: pytest.MonkeyPatch) -> None:
    """Disabling a plugin whose strategy the configuration names is not an error: one
    warning names the plugin, what disabled it and the key, and the default stands in."""
    monkeypatch.setenv("TRUNCATION_CORE_DISABLE_PLUGINS", "example")
    with pytest.warns(PluginLoadWarning) as caught:
        truncator = make({"default_strategy": "sample", "tools": {"t": {"strategy": "sample",
                                                                        "inline_limit": 300}}})
    messages = [str(w.message) for w in caught]
    assert messages == [
        "default_strategy names 'sample', which no loaded plugin provides; disabled plugin "
        "'example' (TRUNCATION_CORE_DISABLE_PLUGINS) may provide it: using head_tail",
        "tools.t.strategy names 'sample', which no loaded plugin provides; disabled plugin "
        "'example' (TRUNCATION_CORE_DISABLE_PLUGINS) may provide it: using the default "
        "strategy"]
    assert truncator.policy("t").strategy == "head_tail"
    assert truncator.policy("t").inline_limit == 300  # the rest of the override stays
    assert truncator.process(LOG, tool="t").metadata.strategy_used == "head_tail"


def test_an_unknown_strategy_with_no_plugin_disabled_is_still_an_error() -> None:
    """Negative control: without a disabled plugin, an unknown name is a typo."""
    with pytest.raises(ConfigError, match="default_strategy: unknown strategy 'sampel'"):
        make({"default_strategy": "sampel"})


def test_cli_goes_on_when_a_configured_plugin_is_disabled(
        trunc_exe: str, trunc_env: dict[str, str], tmp_path: Path,
        example_plugin: SiteDir) -> None:
    (tmp_path / ".truncation.yaml").write_text("default_strategy: sample\n")
    env = {**trunc_env, "TRUNCATION_CORE_DISABLE_PLUGINS": "example",
           "PYTHONPATH": str(example_plugin.root)}
    for args in (("apply", "--limit", "300"), ("config", "validate"), ("artifacts", "list")):
        done = run(trunc_exe, env, tmp_path, *args, stdin=LOG)
        assert done.returncode == 0, (args, done.stderr)
        warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
        assert warnings == [
            "warning: default_strategy names 'sample', which no loaded plugin provides; "
            "disabled plugin 'example' (TRUNCATION_CORE_DISABLE_PLUGINS) may provide it: "
            "using head_tail"], args
