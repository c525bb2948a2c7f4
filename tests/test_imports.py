"""``import truncation_core`` stays cheap: heavy dependencies load only when used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

from distributions import SiteDir

HEAVY = ("cattrs", "yaml", "click", "rich", "ijson")


def imported_after(code: str) -> list[str]:
    probe = (f"import sys\n{code}\n"
             f"import json; print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=True)
    return json.loads(done.stdout)


def test_import_does_not_load_heavy_dependencies() -> None:
    assert imported_after("import truncation_core") == []


def test_processing_with_a_config_object_does_not_load_them_either() -> None:
    code = ("from truncation_core import Truncator, Config\n"
            "t = Truncator(Config(inline_limit=100))\n"
            "t.process('x\\n' * 1000, tool='read_file'); t.process('small')")
    assert imported_after(code) == []


def test_the_probe_sees_an_import() -> None:
    """Control: the probe does report a heavy module once something imports it."""
    assert imported_after("import truncation_core.config.converter") == ["cattrs"]


# -- what a start-up of ``trunc`` imports ----------------------------------------------------
#
# Each command runs as a new process, in an empty directory (no configuration file), with only
# the first-party plugins allowed (an entry point installed by something else could import
# anything), and reports ``sys.modules`` when it is done (``-X importtime`` does not list what
# ``importlib.import_module`` imports: the built-in plugins, the commands).

#: Not needed by ``trunc apply`` on a small input, nor by ``trunc run`` of a silent command:
#: configuration is not converted (cattrs), no YAML file, no table printed (rich), no JSON
#: streamed (ijson), no event loop, no logging or secrets/hashlib until something is logged
#: or stored, and of the library: the converter, the other commands, retrieval's pages and
#: grep, the JSON fitter, ranked, the estimate tokenizer's rank table and the regex module
#: (the tokenizer itself is made with each tool's policy; its table loads on the first
#: count), and the highlights: nothing is cut, so no salient pattern is made, compiled or
#: scanned for (the built-in detector is made on the first cut with highlights), and nothing
#: a cut uses: its value objects (types.cuts), the call, the facts, the marker renderer,
#: resume coordinates, the token fit, the text cutter, a plugin's failure; nothing stored, so
#: not the artifact model nor its metadata documents; no session listed or cleaned
#: (``types.reports``), no statistics reported, no JSON parsed, no salient regex made, no
#: JSON written or read (``json``); nor numpy, which counts streams' large chunks once they
#: have passed 64 MiB. (``importlib.metadata`` finds the installed plugins, and brings
#: ``pathlib``, ``email``, ``string``...: they are not listed.)
NOT_AT_START_UP = (
    "cattrs", "yaml", "rich", "ijson", "asyncio", "logging", "secrets", "hashlib", "difflib",
    "truncation_core.config.converter", "truncation_core.cli.artifacts",
    "truncation_core.cli.config", "truncation_core.cli.plugins",
    "truncation_core.retrieval.pages", "truncation_core.retrieval.searching",
    "truncation_core.structured.json_element", "truncation_core.structured.ranked",
    "truncation_core.tokens.table", "regex", "truncation_core.storage.memory",
    "truncation_core.highlights.patterns", "truncation_core.types.salient",
    "truncation_core.builtins.salient", "truncation_core.highlights.records",
    "truncation_core.highlights.bank", "hyperscan",
    "truncation_core.types.cuts", "truncation_core.hooks.failures",
    "truncation_core.pipeline.call", "truncation_core.pipeline.facts",
    "truncation_core.types.markers", "truncation_core.types.resume",
    "truncation_core.pipeline.tokens", "truncation_core.text.cut",
    "truncation_core.types.artifacts", "truncation_core.artifacts.documents",
    "truncation_core.types.reports", "truncation_core.pipeline.stats",
    "truncation_core.structured.sniff", "truncation_core.text.bounded_regex",
    "json", "numpy",
)
#: Not needed by ``trunc apply`` of an input that ends within its first chunk (1 MiB): it
#: goes to ``process()``, which returns content within its limits as it is, so no stream is
#: opened (nor its cutters made, nor ``trunc run``'s command machinery imported).
NOT_FOR_APPLY = ("truncation_core.cli.run", "truncation_core.streaming.command",
                 "truncation_core.streaming.stream", "truncation_core.structured.stream_cut",
                 "truncation_core.structured.dispatch", "truncation_core.text.offsets")
#: What a highlighted cut needs, for the controls.
HIGHLIGHTS = {"truncation_core.highlights.patterns", "truncation_core.highlights.bank",
              "truncation_core.text.bounded_regex"}
#: What a stream's cutters need (made once its text outgrows the head it keeps), for the
#: controls.
STREAM_CUTTERS = {"truncation_core.structured.stream_cut", "truncation_core.structured.dispatch"}
#: What any cut needs, for the controls (a cut keeps what it leaves out as an artifact).
CUT = {"truncation_core.types.cuts", "truncation_core.pipeline.call",
       "truncation_core.types.markers", "truncation_core.text.cut",
       "truncation_core.types.artifacts", "truncation_core.artifacts.documents"}


#: The first-party plugins installed in this environment, by entry-point name, and their
#: modules (the example plugin is installed by modules_of itself): they load in every probe.
INSTALLED_PLUGINS = {ep.name: ep.value.split(":")[0]
                     for ep in entry_points(group="truncation_core")
                     if ep.name in ("mcp", "redis", "tiktoken")}


def modules_of(code: str, cwd: Path, stdin: bytes = b"") -> set[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNCATION_CORE_")}
    env["TRUNCATION_CORE_PLUGINS"] = ",".join(["example", *sorted(INSTALLED_PLUGINS)])
    site = SiteDir(cwd / "site")
    if not site.root.exists():
        site.root.mkdir()
        site.first_party("truncation-core-example")
    env["PYTHONPATH"] = str(site.root)
    out = cwd / "modules.json"
    probe = (f"import sys\n{code}\nloaded = sorted(sys.modules)\n"
             f"import json\nwith open({str(out)!r}, 'w') as f: json.dump(loaded, f)\n")
    subprocess.run([sys.executable, "-c", probe], input=stdin, capture_output=True, cwd=cwd,
                   env=env, timeout=120, check=True)
    return set(json.loads(out.read_text()))


def trunc(*args: str) -> str:
    """Code that runs ``trunc ARGS`` as the console script does, up to its exit."""
    return (f"sys.argv = ['trunc', *{list(args)!r}]\n"
            "from truncation_core.cli import main\n"
            "try:\n    main()\nexcept SystemExit:\n    pass")


def test_trunc_apply_imports_only_what_it_uses(tmp_path: Path) -> None:
    for tool in ((), ("--tool", "read_file")):  # highlights on (no tool), and off
        modules = modules_of(trunc("apply", *tool), tmp_path, b"hi\n")
        assert {"truncation_core.cli.actions", "attr", "pluggy"} <= modules  # the probe
        assert {"truncation_core_example", *INSTALLED_PLUGINS.values()} <= modules  # plugins load
        assert sorted(modules & {*NOT_AT_START_UP, *NOT_FOR_APPLY}) == []


def test_the_apply_probe_sees_a_cut_and_a_stream(tmp_path: Path) -> None:
    """Control: a cut with highlights imports their modules, and an input larger than the
    first chunk is streamed (the probe would see either at start-up)."""
    log = b"".join(b"ERROR line %d failed\n" % i for i in range(2000))  # over 8,000 chars
    cut = modules_of(trunc("apply"), tmp_path, log)
    assert HIGHLIGHTS | CUT <= cut and "truncation_core.streaming.stream" not in cut
    streamed = modules_of(trunc("apply"), tmp_path, log * 60)  # over 1 MiB
    assert HIGHLIGHTS | {"truncation_core.streaming.stream"} <= streamed
    assert "numpy" not in streamed  # a stream of 2.4 MB is counted without it


def test_trunc_run_imports_only_what_it_uses(tmp_path: Path) -> None:
    modules = modules_of(trunc("run", "--", sys.executable, "-c", "pass"), tmp_path)
    assert {"truncation_core.streaming.command", "truncation_core.streaming.stream",
            "truncation_core_example"} <= modules  # the probe
    assert sorted(modules & set(NOT_AT_START_UP)) == []


def test_trunc_run_of_a_command_that_prints_little_makes_no_cutter(tmp_path: Path) -> None:
    """Output that stays within the head a stream keeps (far more than its limit) is cut from
    its whole text, as process() cuts it: no stream cutter is made (the structured cutters
    and their dispatch are not imported), nor the highlights' matcher."""
    modules = modules_of(trunc("run", "--", sys.executable, "-c", "print('hi')"), tmp_path)
    assert "truncation_core.streaming.stream" in modules  # the probe
    assert sorted(modules & {*NOT_AT_START_UP, *HIGHLIGHTS, *STREAM_CUTTERS}) == []


def test_the_run_probe_sees_the_cutters_and_highlights_of_a_long_output(tmp_path: Path
                                                                       ) -> None:
    """Control: output that outgrows the stream's head (8,000 characters a limit, eight
    times that and more kept at each end) makes the stream's cutters and its highlights'
    matcher, and a command that prints more than its limit is cut."""
    modules = modules_of(trunc("run", "--", sys.executable, "-c", "print('x\\n' * 40000)"),
                         tmp_path)
    assert HIGHLIGHTS | STREAM_CUTTERS | CUT <= modules
    modules = modules_of(trunc("run", "--", sys.executable, "-c", "print('x' * 9000)"),
                         tmp_path)
    assert CUT <= modules


def test_import_truncation_core_imports_none_of_the_libraries(tmp_path: Path) -> None:
    modules = modules_of("import truncation_core", tmp_path)
    assert "truncation_core" in modules
    assert sorted(modules & {"attr", "attrs", "pluggy", "click", *NOT_AT_START_UP}) == []


def test_the_start_up_probe_sees_what_a_configuration_file_needs(tmp_path: Path) -> None:
    """Control: with a configuration to convert, cattrs and YAML are imported (the probe
    would see a regression)."""
    (tmp_path / ".truncation.yaml").write_text("inline_limit: 5000\n", encoding="utf-8")
    modules = modules_of(trunc("apply"), tmp_path, b"hi\n")
    assert {"cattrs", "yaml", "truncation_core.config.converter"} <= modules


def test_the_probe_sees_json_printed(tmp_path: Path) -> None:
    """Control: ``--json`` prints the result as JSON, with ``json``."""
    assert "json" in modules_of(trunc("apply", "--json"), tmp_path, b"hi\n")
    assert "json" in modules_of(trunc("run", "--json", "--", "true"), tmp_path)


# -- the cyclic collector during start-up ------------------------------------------------------

GC_PROBE = """
import gc, json, sys
collections = []
gc.callbacks.append(lambda phase, info: phase == "stop" and collections.append(where[0]))
where = ["start-up"]
from truncation_core import truncator
process = truncator.Truncator.process
def probe(self, *args, **kwargs):
    where[0] = "command"
    enabled.append(gc.isenabled())
    return process(self, *args, **kwargs)
enabled = []
truncator.Truncator.process = probe
sys.argv = ["trunc", "apply"]
from truncation_core.{module} import main
gc.collect()
collections.clear()
try:
    main()
except SystemExit:
    pass
with open({out!r}, "w") as f:
    json.dump({{"collections": collections, "enabled": enabled, "after": gc.isenabled(),
               "frozen": gc.get_freeze_count()}}, f)
"""


def gc_during(module: str, cwd: Path) -> dict[str, object]:
    out = cwd / "gc.json"
    code = GC_PROBE.format(module=module, out=str(out))
    subprocess.run([sys.executable, "-c", code], input=b"hi\n", capture_output=True, cwd=cwd,
                   env={k: v for k, v in os.environ.items()
                        if not k.startswith("TRUNCATION_CORE_")},
                   timeout=120, check=True)
    result: dict[str, object] = json.loads(out.read_text())
    return result


def test_trunc_starts_without_a_cyclic_collection(tmp_path: Path) -> None:
    """``trunc`` (the script) keeps the collector waiting until its Truncator is built, then
    freezes what start-up made; the command itself runs with the collector on."""
    seen = gc_during("__main__", tmp_path)
    assert "start-up" not in seen["collections"]  # type: ignore[operator]
    assert seen["enabled"] == [True] and seen["after"] is True
    assert seen["frozen"] > 10_000  # type: ignore[operator]


def test_the_collector_probe_sees_collections_during_start_up(tmp_path: Path) -> None:
    """Control: the command line run without the script's hand-off (as a host program runs
    it) collects during start-up, and freezes nothing."""
    seen = gc_during("cli", tmp_path)
    assert "start-up" in seen["collections"]  # type: ignore[operator]
    assert seen["frozen"] == 0
