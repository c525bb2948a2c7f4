"""The reference pages keep up with the code, as test_hookspecs_meta.py does for hooks:
docs/configuration.md lists every configuration key with its true default, and every marker
template with its placeholders; docs/architecture.md names every module."""

from __future__ import annotations

import importlib.util
import re
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


@pytest.mark.parametrize(("rest", "markdown"), [
    ("``a.b``", "`a.b`"),
    (":class:`~truncation_core.hooks.models.Cut`", "`Cut`"),
    (":mod:`truncation_core.text.cut`", "`truncation_core.text.cut`"),
    (":meth:`Truncator.stream <truncation_core.Truncator.stream>`", "`Truncator.stream`"),
    (":py:func:`~x.y`, *text*", "`y`, *text*"),
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
