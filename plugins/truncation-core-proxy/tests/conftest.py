"""Fixtures for the proxy's tests (the helpers are in proxy_testing.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from proxy_testing import proxy, upstream

__all__ = ["proxy", "upstream"]
