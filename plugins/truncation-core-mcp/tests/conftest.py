"""Fixtures for the MCP proxy's tests (the helpers are in mcp_testing.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mcp_testing import (
    anyio_backend,
    everything_server,
    filesystem_server,
    raw_wire,
    trunc_exe,
    workspace,
)

__all__ = ["anyio_backend", "everything_server", "filesystem_server", "raw_wire", "trunc_exe",
           "workspace"]
