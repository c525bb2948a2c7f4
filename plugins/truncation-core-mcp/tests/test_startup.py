"""Installing the plugin costs other commands nothing: its module is loaded with every
Truncator, but the MCP SDK is imported only by ``trunc mcp`` commands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from mcp_testing import child_env

HEAVY = ("mcp", "mcp_types", "jsonschema", "uvicorn", "truncation_core_mcp.cli")


def _imported(args: list[str], cwd: Path) -> set[str]:
    """The modules of HEAVY that ``python -X importtime -m truncation_core ARGS`` imports."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "truncation_core", *args],
                          capture_output=True, text=True, cwd=cwd, env=child_env(),
                          timeout=120, input="x\n" * 50_000)
    assert done.returncode == 0, done.stderr[-2000:]
    modules = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
               if line.startswith("import time:")}
    return {m for m in modules if m in HEAVY}


def test_trunc_apply_loads_the_plugin_but_not_the_mcp_sdk(tmp_path: Path) -> None:
    (tmp_path / ".truncation.yaml").write_text(
        f"store:\n  root: {tmp_path / 'store'}\nplugins:\n  enable: [mcp]\n")
    assert _imported(["apply", "-", "--tool", "execute_command"], tmp_path) == set()


def test_control_trunc_mcp_imports_its_commands(tmp_path: Path) -> None:
    """The probe sees the imports when they happen."""
    assert "truncation_core_mcp.cli" in _imported(["mcp", "--help"], tmp_path)
