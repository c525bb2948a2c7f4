"""The reference pages keep up with the code, as test_hookspecs_meta.py does for hooks:
docs/configuration.md lists every configuration key with its true default, and every marker
template with its placeholders; docs/architecture.md names every module."""

from __future__ import annotations

import importlib.util
import re
import types
from pathlib import Path
from typing import Any

import attrs
import pytest
import yaml

from truncation_core.config.model import Config, PluginsConfig
from truncation_core.types.policy import StoreConfig
from truncation_core.types.settings import OVERRIDE_NAMES, SETTING_NAMES, Settings
from truncation_core.types.templates import (
    COUNT_PLACEHOLDERS,
    MARKER_PLACEHOLDERS,
    MarkerConfig,
)

REPO = Path(__file__).resolve().parent.parent
DOC = (REPO / "docs" / "configuration.md").read_text(encoding="utf-8")
ARCHITECTURE = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
PACKAGE = REPO / "truncation_core"


def _load_generator() -> Any:
    spec = importlib.util.spec_from_file_location("docs_generate", REPO / "docs" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generate = _load_generator()


def section(title: str) -> str:
    """The text of the ``## title`` section."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", DOC, re.M | re.S)
    assert match is not None, f"docs/configuration.md has no section '## {title}'"
    return match.group(1)


def rows(text: str) -> dict[str, list[str]]:
    """Table rows keyed by their first cell's code span: ``| `key` | a | b |``."""
    found = {}
    for line in text.splitlines():
        match = re.match(r"\| `([^`]+)` \|(.*)\|$", line)
        if match:
            found[match.group(1)] = [cell.strip() for cell in match.group(2).split(" | ")]
    return found


def documented_default(value: Any) -> str:
    """How the reference writes a default: ``none`` for None, YAML spelling otherwise."""
    if value is None:
        return "none"
    if isinstance(value, attrs.Factory):  # type: ignore[arg-type]
        return documented_default(value.factory())
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def fields(cls: type) -> list[attrs.Attribute[Any]]:
    return list(attrs.fields(cls))


#: Top-level keys that are not settings (their own rows in "Global settings").
TOP_LEVEL_ONLY = [a for a in fields(Config) if a.name not in SETTING_NAMES]


def test_rows_are_found() -> None:
    """Negative control: the parser sees the table rows it checks."""
    assert {"inline_limit", "highlights"} <= set(rows(section("Settings")))
    assert {"default_strategy", "tools"} <= set(rows(section("Global settings")))
    assert rows("| `a` | `1` | meaning |\n")["a"] == ["`1`", "meaning"]
    assert "b" not in rows("| b | `1` | meaning |\n")


def test_the_settings_table_is_the_one_generated_from_the_declaration() -> None:
    """docs/configuration.md shows each setting as truncation_core/types/settings.py
    declares it (regenerate with ``python docs/generate.py``)."""
    assert generate.generated("configuration.md", DOC) == DOC


def test_the_settings_table_check_fails_on_a_stale_page() -> None:
    """Negative control: a default changed in the page (or the code) is caught."""
    stale = DOC.replace("| `inline_limit` | `8000` |", "| `inline_limit` | `9000` |")
    assert stale != DOC and generate.generated("configuration.md", stale) != stale


@pytest.mark.parametrize("name", SETTING_NAMES)
def test_every_setting_is_in_the_table_with_its_default(name: str) -> None:
    row = rows(section("Settings")).get(name)
    assert row is not None, f"{name} is not in the settings table"
    attribute = next(a for a in fields(Settings) if a.name == name)
    assert row[0].startswith(documented_default(attribute.default)), row[0]


@pytest.mark.parametrize("attribute", TOP_LEVEL_ONLY, ids=lambda a: a.name)
def test_every_other_global_key_is_documented(attribute: attrs.Attribute[Any]) -> None:
    assert attribute.name in rows(section("Global settings"))


def test_the_default_strategy_default_is_the_real_one() -> None:
    default = rows(section("Global settings"))["default_strategy"][0]
    assert default == documented_default(Config().default_strategy)


@pytest.mark.parametrize("name", OVERRIDE_NAMES)
def test_every_per_tool_key_is_documented(name: str) -> None:
    assert name in rows(section("Settings")) or f"`{name}`" in section("Per-tool settings")


@pytest.mark.parametrize("attribute", fields(StoreConfig), ids=lambda a: a.name)
def test_every_store_key_is_documented_with_its_default(
        attribute: attrs.Attribute[Any]) -> None:
    row = rows(section("Store")).get(f"store.{attribute.name}")
    assert row is not None, f"store.{attribute.name} is not in the Store table"
    assert row[0].startswith(documented_default(attribute.default)), row[0]


@pytest.mark.parametrize("attribute", fields(PluginsConfig), ids=lambda a: a.name)
def test_every_plugins_key_is_documented(attribute: attrs.Attribute[Any]) -> None:
    assert f"plugins.{attribute.name}" in rows(section("Plugins"))


@pytest.mark.parametrize("name", sorted(MARKER_PLACEHOLDERS))
def test_every_marker_template_is_documented_with_its_placeholders(name: str) -> None:
    row = rows(section("Markers")).get(name)
    assert row is not None, f"marker.{name} is not in the Markers table"
    placeholders = row[-1]
    # A count's "_s" companion ({lines_s}) is documented once, below the table.
    missing = [p for p in MARKER_PLACEHOLDERS[name]
               if f"`{{{p}}}`" not in placeholders
               and not (p.endswith("_s") and p[:-2] in COUNT_PLACEHOLDERS)]
    assert not missing, f"marker.{name}: placeholders not documented: {missing}"


def test_every_count_s_companion_is_documented() -> None:
    text = section("Markers")
    assert "with `_s` appended" in text
    assert all(f"`{{{name}}}`" in text for name in COUNT_PLACEHOLDERS)


def test_every_marker_template_has_placeholders_declared() -> None:
    assert {a.name for a in fields(MarkerConfig)} == set(MARKER_PLACEHOLDERS)


def test_the_documented_marker_defaults_are_the_real_ones() -> None:
    block = re.search(r"^```yaml\n(marker:\n.*?)^```", section("Markers"), re.M | re.S)
    assert block is not None, "no yaml block of marker defaults"
    assert yaml.safe_load(block.group(1))["marker"] == attrs.asdict(MarkerConfig())


def modules() -> list[str]:
    return sorted(str(p.relative_to(REPO)) for p in PACKAGE.rglob("*.py")
                  if p.name != "__init__.py" or p.parent == PACKAGE)


def test_modules_are_found() -> None:
    """Negative control: the walk sees the modules it checks."""
    assert {"truncation_core/truncator.py", "truncation_core/builtins/strategies.py",
            "truncation_core/cli/apply.py"} <= set(modules())


@pytest.mark.parametrize("module", modules())
def test_every_module_is_in_the_architecture_page(module: str) -> None:
    """Top-level modules by path; built-in plugins by file name in their table; the modules
    of the other subpackages through their package (their ``__init__`` maps them)."""
    parts = Path(module).parts
    if len(parts) == 2:
        assert f"`{module}`" in ARCHITECTURE
    elif parts[1] == "builtins":
        assert f"`{parts[2]}`" in ARCHITECTURE
    else:
        assert f"`truncation_core/{parts[1]}/`" in ARCHITECTURE


# -- the plugin tutorial shows the example plugin as it is ----------------------------------

TUTORIAL = (REPO / "docs" / "writing-plugins.md").read_text(encoding="utf-8")
EXAMPLE = REPO / "plugins" / "truncation-core-example"


@pytest.mark.parametrize("path", ["pyproject.toml", "src/truncation_core_example/__init__.py"])
def test_the_plugin_tutorial_quotes_the_example_plugin_whole(path: str) -> None:
    """A newcomer builds the plugin from the page alone: each file appears in it verbatim
    (a change to the plugin without the page fails here)."""
    text = (EXAMPLE / path).read_text(encoding="utf-8")
    blocks = re.findall(r"^```(?:toml|python)\n(.*?)^```$", TUTORIAL, re.M | re.S)
    assert text in blocks


# -- docs/results.md lists every metadata, omission and stats field -------------------------

RESULTS = (REPO / "docs" / "results.md").read_text(encoding="utf-8")


def _documented_names() -> set[str]:
    names: set[str] = set()
    for line in RESULTS.splitlines():
        match = re.match(r"\| ((?:`[a-z_]+`(?:, )?)+) \|", line)
        if match:
            names.update(re.findall(r"`([a-z_]+)`", match.group(1)))
    return names


def test_documented_names_are_found() -> None:
    """Negative control: the table reader sees the rows it checks."""
    assert {"was_truncated", "first_line", "truncation_rate"} <= _documented_names()


def _result_fields() -> list[str]:
    from truncation_core.pipeline.results import TruncationMetadata
    from truncation_core.pipeline.stats import ToolStats
    from truncation_core.types.cuts import Omission

    return sorted({*TruncationMetadata.field_names(),
                   *(a.name for a in attrs.fields(Omission)), "chars",
                   *(a.name for a in attrs.fields(ToolStats)), "truncation_rate",
                   "utilization_quantiles"})


@pytest.mark.parametrize("name", _result_fields())
def test_every_result_field_is_documented(name: str) -> None:
    assert name in _documented_names()


# -- docs/hooks.md: the reference is generated from the hook specifications ------------------

HOOKS = REPO / "docs" / "hooks.md"


def test_every_generated_part_is_up_to_date() -> None:
    """What ``python docs/generate.py --check`` says (regenerate with ``python
    docs/generate.py``): every generated part of every page is what the code renders."""
    assert generate.main(["--check"]) == 0


def test_the_check_fails_on_a_stale_hook_section(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative control: a hook's section edited by hand in the page is caught, and
    rewriting the page puts the docstring's text back."""
    text = HOOKS.read_text(encoding="utf-8")
    sentence = "Choose the strategy that cuts one tool result."
    assert text.count(sentence) == 1
    stale = text.replace(sentence, "Choose any strategy.")
    (tmp_path / "hooks.md").write_text(stale, encoding="utf-8")
    (tmp_path / "configuration.md").write_text(DOC, encoding="utf-8")
    monkeypatch.setattr(generate, "DOCS", tmp_path)
    assert generate.main(["--check"]) == 1
    assert (tmp_path / "hooks.md").read_text(encoding="utf-8") == stale
    assert generate.main([]) == 0
    assert (tmp_path / "hooks.md").read_text(encoding="utf-8") == text


def test_a_docstring_change_changes_the_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """Negative control: the reference follows the docstrings, so the page is stale as soon
    as a hook's docstring changes."""
    from truncation_core.hooks import specs

    text = HOOKS.read_text(encoding="utf-8")
    doc = specs.truncate.__doc__
    assert doc is not None
    monkeypatch.setattr(specs.truncate, "__doc__",
                        doc.replace(":cost: the cut itself", ":cost: the very cut itself"))
    regenerated = generate.generated("hooks.md", text)
    assert regenerated != text
    assert "**Cost:** the very cut itself" in regenerated
    assert "| the very cut itself" in regenerated  # the table too


def test_the_reference_covers_whatever_hooks_the_specs_define(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The generator knows no hook by name: a specification added to the module gets its
    section (signature, parameters, fields, prose) and its row; one removed loses them."""
    from truncation_core.hooks import specs

    def shape_result(result: str, width: int = 80) -> str | None:
        """Reshape one result before it is cut.

        All results are collected.

        :param result: the text, as given to ``process``.
        :param width: the widest line, in characters.
        :returns: the new text, or None to leave it to :class:`~a.b.Other` plugins.

        :called: for each result.
        :cost: one call per result.

        .. versionadded:: 9.9

        Implementing this hook: keep it pure.
        """
        return None

    monkeypatch.setattr(specs, "shape_result", specs.hookspec(shape_result), raising=False)
    monkeypatch.delattr(specs, "register_commands")
    section = generate.generated("hooks.md", HOOKS.read_text(encoding="utf-8")).split(
        "## shape_result(result, width)\n", 1)[1]
    assert section.startswith("\n```python\n@hookspec\n"
                              "def shape_result(result: str, width: int = 80) -> str | None: "
                              "...\n```\n\nReshape one result before it is cut.\n\n"
                              "All results are collected.\n\nParameters:\n\n"
                              "- `result` (`str`): the text, as given to `process`.\n"
                              "- `width` (`int`): the widest line, in characters.\n\n"
                              "**Returns:** the new text, or None to leave it to `Other` "
                              "plugins.\n\n**Called:** for each result.\n\n"
                              "**Cost:** one call per result.\n\n*Added in 9.9.*\n\n"
                              "Implementing this hook: keep it pure.\n")
    regenerated = generate.generated("hooks.md", HOOKS.read_text(encoding="utf-8"))
    assert "| [`shape_result`](#shape_resultresult-width) | all |" in regenerated
    assert "## register_commands(" not in regenerated


def test_lists_sub_headings_and_links_in_a_docstring_become_markdown(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The richer reST a hook's docstring may use: bullet lists, nested by indentation, in
    the prose and in a field's body (with a paragraph after them); a rubric as a
    sub-heading; links, whose relative targets are taken from the repository's root."""
    from truncation_core.hooks import specs

    def shape_result(result: str) -> str | None:
        """Reshape one result.

        Read `the tokens page <docs/tokens.md#units>`_ and
        `the specs <truncation_core/hooks/specs.py>`_.

        - one
        - two:

          - two a
          - two b
        - three

        :param result: the text, by kind:

            - ``a``: the first
            - ``b``: the second

            A paragraph after the list.
        :returns: None.

        :called: once.
        :cost: nothing.

        .. versionadded:: 9.9

        .. rubric:: A part of its own

        The prose under it.
        """
        return None

    monkeypatch.setattr(specs, "shape_result", specs.hookspec(shape_result), raising=False)
    section = generate.generated("hooks.md", HOOKS.read_text(encoding="utf-8")).split(
        "## shape_result(result)\n", 1)[1].split("<!-- end of generated", 1)[0]
    assert section.split("```\n\n", 1)[1] == (
        "Reshape one result.\n\n"
        "Read [the tokens page](tokens.md#units) and "
        "[the specs](../truncation_core/hooks/specs.py).\n\n"
        "- one\n- two:\n\n  - two a\n  - two b\n- three\n\n"
        "Parameters:\n\n"
        "- `result` (`str`): the text, by kind:\n\n  - `a`: the first\n  - `b`: the second\n\n"
        "  A paragraph after the list.\n\n"
        "**Returns:** None.\n\n**Called:** once.\n\n**Cost:** nothing.\n\n*Added in 9.9.*\n\n"
        "### A part of its own\n\nThe prose under it.\n")


def test_a_long_list_item_wraps_under_its_text() -> None:
    lines = generate._markdown_lines([f"- {'word ' * 30}".rstrip()])
    assert lines[0].startswith("- word") and len(lines) > 1
    assert all(line.startswith("  word") for line in lines[1:])
    assert all(len(line) <= generate.WIDTH for line in lines)


@pytest.mark.parametrize(("rest", "markdown"), [
    ("``a.b``", "`a.b`"),
    (":class:`~truncation_core.hooks.models.Cut`", "`Cut`"),
    (":mod:`truncation_core.text.cut`", "`truncation_core.text.cut`"),
    (":meth:`Truncator.stream <truncation_core.Truncator.stream>`", "`Truncator.stream`"),
    (":py:func:`~x.y`, *text*", "`y`, *text*"),
    ("`the page <docs/tokens.md#units>`_", "[the page](tokens.md#units)"),
    ("`code <truncation_core/plugin.py>`_", "[code](../truncation_core/plugin.py)"),
    ("`pluggy <https://pluggy.readthedocs.io/>`_", "[pluggy](https://pluggy.readthedocs.io/)"),
    ("``<not a link>``", "`<not a link>`"),
])
def test_rest_markup_becomes_markdown(rest: str, markdown: str) -> None:
    assert generate.markdown(rest) == markdown


def test_wrapped_lines_never_open_a_markdown_block() -> None:
    """A line of the page that started with ``-`` or ``1.`` would be read as a list."""
    words = ["word"] * 20 + ["-", "after"] + ["word"] * 20 + ["1.", "x"]
    lines = generate._wrap(words, 20)
    assert all(not re_block(line) for line in lines[1:])
    assert generate._wrap(["aa", "bb"], 4) == ["aa", "bb"]  # negative control: it wraps


def re_block(line: str) -> bool:
    return bool(re.match(r"(-|\d+\.) ", line))


# -- docs/hooks.md: every example runs, against a real Truncator ----------------------------

#: The headings of docs/hooks.md whose Python examples the tests below run.
HOOK_EXAMPLES = ["Writing an implementation", "A strategy of your own",
                 "A strategy that cuts long streams as they arrive",
                 "Taking over the cut of a strategy", "Markers of your own",
                 "Wrapping the artifact writer", "A highlights detector", "A command",
                 "Respecting the user's word"]


def hooks_page_blocks() -> dict[str, list[tuple[str, str]]]:
    """The fenced blocks of docs/hooks.md outside its generated parts, as (language, code),
    by the heading above them."""
    text = re.sub(r"<!-- generated from .*?<!-- end of generated \w+ -->", "",
                  HOOKS.read_text(encoding="utf-8"), flags=re.S)
    found: dict[str, list[tuple[str, str]]] = {}
    heading = ""
    for match in re.finditer(r"^(#{2,3}) ([^\n]+)$|^```(\w*)\n(.*?)^```$", text, re.M | re.S):
        if match.group(1):
            heading = match.group(2).strip()
        else:
            found.setdefault(heading, []).append((match.group(3), match.group(4)))
    return found


def hook_example(heading: str) -> tuple[str, list[str]]:
    """The Python example under *heading*, and the text blocks after it (what it prints)."""
    blocks = hooks_page_blocks()[heading]
    python = [code for language, code in blocks if language == "python"]
    assert len(python) == 1, f"docs/hooks.md, {heading}: expected one Python example"
    return python[0], [code for language, code in blocks if language == "text"]


def example_module(heading: str) -> types.ModuleType:
    """The example under *heading*, run as a module of its own."""
    module = types.ModuleType("hooks_md_" + re.sub(r"\W+", "_", heading.lower()))
    code, _ = hook_example(heading)
    exec(compile(code, f"docs/hooks.md ({heading})", "exec"), module.__dict__)
    return module


def example_truncator(heading: str, config: dict[str, Any] | None = None) -> Any:
    """A real Truncator with the built-ins and the example only (strict: a plugin that fails
    to load is an error), on the memory store."""
    from truncation_core.testing import make_truncator

    return make_truncator(example_module(heading),
                          config={"plugins": {"strict": True}, **(config or {})})


LOG = "".join(f"line {i}: step ok\n" for i in range(5000))
#: No artifact reference above the cut: the tests read the cut itself.
NO_REFERENCE = {"artifact_threshold": 10**9}


def test_every_example_of_the_hooks_page_is_run() -> None:
    """A Python block added to the page (outside the generated reference) needs a test here;
    negative control: the reader finds the blocks."""
    pages = hooks_page_blocks()
    with_python = [heading for heading, blocks in pages.items()
                   if any(language == "python" for language, _ in blocks)]
    assert sorted(with_python) == sorted(HOOK_EXAMPLES)
    assert "provides()" not in pages  # the reference's signatures are not examples


def test_the_example_of_an_implementation_chooses_tail_for_logs() -> None:
    truncator = example_truncator("Writing an implementation", {"inline_limit": 500})
    chosen = truncator.process(LOG, tool="build_log").metadata
    assert (chosen.strategy_used, chosen.strategy_chosen_by[:7]) == ("tail", "plugin ")
    assert truncator.process(LOG, tool="read").metadata.strategy_chosen_by == "default"


def test_the_example_strategy_cuts_results_and_long_streams() -> None:
    from truncation_core.testing import check_result

    truncator = example_truncator("A strategy of your own", {
        "inline_limit": 1000, "tools": {"build": {"strategy": "mostly_tail"}},
        **NO_REFERENCE})
    result = truncator.process(LOG, tool="build")
    check_result(truncator, LOG, result)
    assert result.metadata.strategy_used == "mostly_tail"
    head, tail = result.content.split("omitted", 1)
    assert head.startswith("line 0:") and result.content.endswith("line 4999: step ok\n")
    assert len(head) < len(tail) / 3  # a tenth of the budget to the head
    with truncator.stream(tool="build") as stream:
        for i in range(0, len(LOG), 4096):
            stream.write(LOG[i:i + 4096])
    streamed = stream.result()
    assert streamed.metadata.strategy_used == "mostly_tail"  # streamable: no fallback
    assert re.sub(r"art_\w+", "ID", streamed.content) == re.sub(r"art_\w+", "ID", result.content)


def test_the_example_incremental_cut_keeps_the_last_records_of_a_long_stream() -> None:
    truncator = example_truncator("A strategy that cuts long streams as they arrive",
                                  {"inline_limit": 2000, **NO_REFERENCE})
    records = [f'{{"seq": {i}, "event": "tick"}}' for i in range(50_000)]
    jsonl = "\n".join(records) + "\n"
    with truncator.stream(tool="events") as stream:
        for i in range(0, len(jsonl), 8192):
            stream.write(jsonl[i:i + 8192])
    streamed = stream.result()
    assert streamed.metadata.strategy_used == "jsonl-tail"
    assert not streamed.metadata.notes, streamed.metadata.notes  # no fallback taken
    assert streamed.content.splitlines() == records[-20:]
    for text in (jsonl, jsonl.rstrip("\n")):  # the last record ended by a newline or not
        processed = truncator.process(text, tool="events")
        assert processed.metadata.strategy_used == "jsonl-tail"
        assert processed.content.splitlines() == records[-20:]
        with truncator.stream(tool="events") as stream:
            stream.write(text)
        assert stream.result().content == processed.content
    # Another tool's stream gets no cutter from it, and its strategy is not chosen.
    assert truncator.process(jsonl, tool="other").metadata.strategy_used != "jsonl-tail"


def test_the_example_truncate_gives_tail_a_head() -> None:
    from truncation_core.testing import make_truncator

    config = {"inline_limit": 1000, "tools": {"build": {"strategy": "tail"}}, **NO_REFERENCE}
    result = example_truncator("Taking over the cut of a strategy", config).process(
        LOG, tool="build")
    assert result.content.startswith("line 0:")
    assert result.content.endswith("line 4999: step ok\n")
    # Negative control: the built-in tail keeps no head.
    plain = make_truncator(config=config).process(LOG, tool="build")
    assert not plain.content.startswith("line 0:")


def test_the_example_markers_say_where_to_read_the_region_back() -> None:
    result = example_truncator("Markers of your own", {"inline_limit": 1000}).process(
        LOG, tool="build")
    (region,) = result.metadata.omissions
    span = region.in_artifact
    assert result.artifact is not None and span is not None
    assert (f'\n<omitted lines="{region.lines}" chars="{region.chars}" '
            f'artifact="{result.artifact.id}" start_line="{span.start_line}" '
            f'end_line="{span.end_line}"/>\n') in result.content


def test_the_example_writer_wrapper_counts_what_is_kept() -> None:
    from truncation_core.testing import check_result

    truncator = example_truncator("Wrapping the artifact writer", {"inline_limit": 1000})
    counted = next(plugin.KEPT_BYTES for plugin in truncator.plugins.pm.get_plugins()
                   if hasattr(plugin, "KEPT_BYTES"))  # the example's, as registered
    result = truncator.process(LOG, tool="build")
    check_result(truncator, LOG, result)  # the artifact holds the content, byte for byte
    assert result.artifact is not None
    assert counted == {"build": len(LOG.encode())} and result.artifact.bytes == len(LOG)


def test_the_example_detector_lifts_a_failed_step_its_reason_and_a_denied_record() -> None:
    lines = [f"step s{i} ok" for i in range(3000)]
    lines[1500:1500] = ["step migrate FAILED", "    reason: disk full", "    hint: free space",
                        '{"outcome": "denied", "user": "ci"}']
    log = "\n".join(lines) + "\n"
    truncator = example_truncator("A highlights detector", {"inline_limit": 3000})
    shown = truncator.process(log, tool="deploy").content
    for line in lines[1500:1504]:
        assert line.strip() in shown, line
    # Negative control: another tool's output gets the built-in highlights only (which
    # know FAILED, but not the report's lines under it, nor the audit records).
    shown = truncator.process(log, tool="build").content
    assert not any(line.strip() in shown for line in lines[1501:1504])


def test_the_example_command_prints_what_the_page_shows(
        trunc_exe: str, trunc_env: dict[str, str], tmp_path: Path) -> None:
    import subprocess

    code, outputs = hook_example("A command")
    (tmp_path / "hello_command.py").write_text(code, encoding="utf-8")
    (tmp_path / ".truncation.yaml").write_text("plugins:\n  modules: [hello_command]\n")
    command, *shown = outputs[0].splitlines()
    assert command.startswith("$ trunc ")
    done = subprocess.run([trunc_exe, *command.split()[2:]], capture_output=True, text=True,
                          timeout=60, env=trunc_env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == shown


def test_the_example_of_the_users_word_prints_what_the_page_shows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run as a script, with no installed plugin (the operator's switch), in a directory of
    its own (the default store is there)."""
    import contextlib
    import io
    import os

    for name in [name for name in os.environ if name.startswith("TRUNCATION_CORE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("TRUNCATION_CORE_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.chdir(tmp_path)
    code, outputs = hook_example("Respecting the user's word")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "docs/hooks.md (Respecting the user's word)", "exec"), {})
    assert printed.getvalue() == outputs[0]
