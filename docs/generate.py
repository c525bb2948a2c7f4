"""Regenerate the parts of the docs that are derived from the code.

    python docs/generate.py          # rewrite them in place
    python docs/generate.py --check  # exit 1 if any is out of date (the docs tests do this too)

Each generated part sits between a ``<!-- generated from ... -->`` line and a
``<!-- end of generated ... -->`` line in its page.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

DOCS = Path(__file__).resolve().parent


def _settings_table() -> str:
    from truncation_core.types.settings import settings_table

    return settings_table()


def _hooks_table() -> str:
    """One row per hook: whether it stops at the first answer, when it is called, its cost,
    all read from the specifications."""
    import inspect
    import re

    from truncation_core.hooks import specs

    marker = f"{specs.PROJECT_NAME}_spec"
    rows = ["| hook | answers | when it is called | cost |", "| --- | --- | --- | --- |"]
    for name, function in sorted(vars(specs).items()):
        options = getattr(function, marker, None)
        if not callable(function) or options is None:
            continue
        doc = inspect.getdoc(function) or ""
        called = re.search(r":called: (.*?)\n(?=\s*:|\s*\n|$)", doc, re.S)
        cost = re.search(r":cost: (.*?)\n(?=\s*:|\s*\n|$)", doc, re.S)
        if called is None or cost is None:
            raise SystemExit(f"hook {name}: its docstring needs :called: and :cost: lines")
        answers = "the first that is not None" if options.get("firstresult") else "all"
        params = ", ".join(inspect.signature(function).parameters)
        anchor = re.sub(r"[^\w\- ]", "", f"{name}({params})").replace(" ", "-")
        when, spent = (" ".join(m.group(1).split()).replace("``", "`") for m in (called, cost))
        rows.append(f"| [`{name}`](#{anchor}) | {answers} | {when} | {spent} |")
    return "\n".join(rows) + "\n"


#: page -> what the generated part is made from -> how to render it.
PARTS: dict[str, tuple[str, Callable[[], str]]] = {
    "configuration.md": ("truncation_core/types/settings.py", _settings_table),
    "hooks.md": ("truncation_core/hooks/specs.py", _hooks_table),
}


def generated(page: str, text: str) -> str:
    """*text* with its generated part rendered again."""
    source, render = PARTS[page]
    pattern = re.compile(rf"(<!-- generated from {re.escape(source)} [^\n]*-->\n)(.*?)"
                         r"(<!-- end of generated [^\n]*-->)", re.S)
    if not pattern.search(text):
        raise SystemExit(f"docs/{page}: no generated part from {source}")
    return pattern.sub(lambda m: m.group(1) + render() + m.group(3), text, count=1)


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for page in PARTS:
        path = DOCS / page
        text = path.read_text(encoding="utf-8")
        new = generated(page, text)
        if new != text:
            stale.append(page)
            if not check:
                path.write_text(new, encoding="utf-8")
    if stale:
        print(("out of date: " if check else "rewrote: ") + ", ".join(stale))
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
