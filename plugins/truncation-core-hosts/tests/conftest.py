"""Fixtures of the host hook tests (the helpers are in host_testing.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from host_testing import TRUNC


@pytest.fixture
def host_env(tmp_path: Path) -> dict[str, str]:
    """The environment a host gives its hooks, with a home of its own (no user config)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNCATION_CORE_")}
    env["HOME"] = str(tmp_path / "home")
    (tmp_path / "home").mkdir()
    return env


@pytest.fixture
def run_hook(tmp_path: Path, host_env: dict[str, str]) -> Callable[..., Any]:
    """``trunc hook HOST ARGS`` with *payload* on stdin, in the project directory: the answer
    (None for no output)."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)

    def run(host: str, data: dict[str, Any] | None, *args: str) -> Any:
        if data is not None:
            data = {**data, "cwd": str(project)}
        done = subprocess.run([str(TRUNC), "hook", host, *args], cwd=project, env=host_env,
                              input=json.dumps(data).encode() if data is not None else b"",
                              capture_output=True, timeout=60, check=False)
        assert done.returncode == 0, done.stderr.decode()
        out = done.stdout.decode()
        return json.loads(out) if out.strip() else None

    return run
