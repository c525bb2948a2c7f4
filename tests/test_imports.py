"""``import truncation_core`` stays cheap: heavy dependencies load only when used."""

from __future__ import annotations

import json
import subprocess
import sys

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
