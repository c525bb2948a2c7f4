"""Meta-tests (datasette's): every hook is documented with its exact signature, in its
docstring and in docs/hooks.md, and has a ``test_hook_<name>`` test."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from truncation_core.hooks import specs as hookspecs

REPO = Path(__file__).resolve().parent.parent
HOOKS_DOC = REPO / "docs" / "hooks.md"
HEADING = re.compile(r"^## (\w+)\((.*)\)\s*$", re.M)


def hook_names() -> list[str]:
    """Every hook specification in truncation_core.hooks.specs."""
    marker = f"{hookspecs.PROJECT_NAME}_spec"
    return sorted(name for name, obj in vars(hookspecs).items()
                  if callable(obj) and hasattr(obj, marker))


def signature_heading(name: str) -> str:
    params = inspect.signature(getattr(hookspecs, name)).parameters
    return f"## {name}({', '.join(params)})"


def test_the_hooks_the_issue_names_exist() -> None:
    assert {"format_marker", "provides", "select_strategy", "store_artifact",
            "truncate"} <= set(hook_names())


@pytest.mark.parametrize("name", hook_names())
def test_hook_docstring_says_what_none_means(name: str) -> None:
    doc = inspect.getdoc(getattr(hookspecs, name)) or ""
    assert ":returns:" in doc, name
    assert "None" in doc.split(":returns:", 1)[1], name
    assert "versionadded" in doc, name
    for param in inspect.signature(getattr(hookspecs, name)).parameters:
        assert f":param {param}:" in doc, (name, param)


def hooks_doc() -> str:
    return HOOKS_DOC.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", hook_names())
def test_every_hook_is_a_heading_in_docs_hooks_md_with_its_exact_signature(name: str) -> None:
    headings = {m.group(0).strip() for m in HEADING.finditer(hooks_doc())}
    assert signature_heading(name) in headings, (
        f"docs/hooks.md needs the heading {signature_heading(name)!r}")


def test_docs_hooks_md_documents_no_hook_that_does_not_exist() -> None:
    documented = [m.group(1) for m in HEADING.finditer(hooks_doc())]
    assert sorted(documented) == hook_names()


def test_the_signature_heading_form() -> None:
    """The form the documentation must use, computed from the specs."""
    assert signature_heading("select_strategy") == \
        "## select_strategy(tool, facts, policy, context)"
    assert signature_heading("provides") == "## provides()"


@pytest.mark.parametrize("name", hook_names())
def test_every_hook_has_a_test_hook_module_with_tests(name: str) -> None:
    path = REPO / "tests" / f"test_hook_{name}.py"
    assert path.exists(), f"missing {path.relative_to(REPO)}"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tests = [node.name for node in ast.walk(tree)
             if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]
    assert tests, f"{path.name} defines no tests"
    assert any(t.startswith(f"test_hook_{name}") for t in tests), (
        f"{path.name} needs a test named test_hook_{name}...")


def _generator() -> object:
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_generate", REPO / "docs" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_hooks_at_a_glance_table_is_generated_from_the_specs() -> None:
    """The summary table (hook, first answer or all, when called, cost) says what the
    specifications say (regenerate with ``python docs/generate.py``)."""
    text = hooks_doc()
    assert _generator().generated("hooks.md", text) == text  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", hook_names())
def test_every_hook_says_when_it_is_called_and_what_it_costs(name: str) -> None:
    doc = inspect.getdoc(getattr(hookspecs, name)) or ""
    assert ":called:" in doc and ":cost:" in doc, name
    row = next(line for line in hooks_doc().splitlines() if line.startswith(f"| [`{name}`]"))
    firstresult = getattr(hookspecs, name).truncation_core_spec.get("firstresult")
    assert ("the first that is not None" in row) == bool(firstresult)
