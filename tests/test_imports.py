"""``import truncation_core`` stays cheap: heavy dependencies load only when used."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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
#: streamed (ijson), no event loop, no importlib.metadata (plugins are found from their
#: dist-info files), no logging or secrets/hashlib until something is logged or stored, and
#: of the library: the converter, the other commands, retrieval's pages and grep, the JSON
#: fitter, ranked, the estimate tokenizer's rank table and the regex module (the tokenizer
#: itself is made with each tool's policy; its table loads on the first count), and the
#: highlights: nothing is cut, so no salient pattern is made, compiled or scanned for (the
#: built-in detector modules are registered, but make their patterns on the first call), and
#: numpy, which counts streams' large chunks once they have passed 64 MiB.
NOT_AT_START_UP = (
    "cattrs", "yaml", "rich", "ijson", "asyncio", "importlib.metadata", "email", "logging",
    "secrets", "hashlib", "difflib",
    "truncation_core.config.converter", "truncation_core.cli.artifacts",
    "truncation_core.cli.config", "truncation_core.cli.plugins",
    "truncation_core.retrieval.pages", "truncation_core.retrieval.grep",
    "truncation_core.structured.json_element", "truncation_core.structured.ranked",
    "truncation_core.tokens.table", "regex", "truncation_core.storage.memory",
    "truncation_core.highlights.patterns", "truncation_core.highlights.units",
    "truncation_core.highlights.records", "truncation_core.highlights.bank", "hyperscan",
    "numpy",
)
#: Not needed by ``trunc apply`` of an input that ends within its first chunk (1 MiB): it
#: goes to ``process()``, which returns content within its limits as it is, so no stream is
#: opened (nor its cutters made, nor ``trunc run``'s command machinery imported).
NOT_FOR_APPLY = ("truncation_core.cli.run", "truncation_core.streaming.command",
                 "truncation_core.streaming.stream", "truncation_core.structured.stream_cut",
                 "truncation_core.structured.dispatch")
#: What a highlighted cut needs, for the controls.
HIGHLIGHTS = {"truncation_core.highlights.patterns", "truncation_core.highlights.bank"}


def modules_of(code: str, cwd: Path, stdin: bytes = b"") -> set[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNCATION_CORE_")}
    env["TRUNCATION_CORE_PLUGINS"] = "example,mcp,redis,tiktoken"
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
        assert {"truncation_core.cli.apply", "click", "attr", "pluggy"} <= modules  # the probe
        assert {"truncation_core_example", "truncation_core_tiktoken"} <= modules  # plugins load
        assert sorted(modules & {*NOT_AT_START_UP, *NOT_FOR_APPLY}) == []


def test_the_apply_probe_sees_a_cut_and_a_stream(tmp_path: Path) -> None:
    """Control: a cut with highlights imports their modules, and an input larger than the
    first chunk is streamed (the probe would see either at start-up)."""
    log = b"".join(b"ERROR line %d failed\n" % i for i in range(2000))  # over 8,000 chars
    cut = modules_of(trunc("apply"), tmp_path, log)
    assert HIGHLIGHTS <= cut and "truncation_core.streaming.stream" not in cut
    streamed = modules_of(trunc("apply"), tmp_path, log * 60)  # over 1 MiB
    assert HIGHLIGHTS | {"truncation_core.streaming.stream"} <= streamed
    assert "numpy" not in streamed  # a stream of 2.4 MB is counted without it


def test_trunc_run_imports_only_what_it_uses(tmp_path: Path) -> None:
    modules = modules_of(trunc("run", "--", sys.executable, "-c", "pass"), tmp_path)
    assert {"truncation_core.streaming.command", "truncation_core.streaming.stream",
            "truncation_core_example"} <= modules  # the probe
    assert sorted(modules & set(NOT_AT_START_UP)) == []


def test_the_run_probe_sees_the_highlights_of_a_command_that_prints(tmp_path: Path) -> None:
    """Control: the first text a command prints makes the highlights' matcher."""
    modules = modules_of(trunc("run", "--", sys.executable, "-c", "print('hi')"), tmp_path)
    assert HIGHLIGHTS <= modules


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
