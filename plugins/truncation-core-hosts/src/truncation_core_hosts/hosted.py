"""What a host's model is told about the artifacts: the configuration a hook adds.

A host gives its model no artifact tools (unless ``trunc mcp serve`` is one of its MCP
servers), but it gives it a shell. So unless the project's configuration says which artifact
tools the model has (``artifact_tools.published``), a hook publishes none, and the markers'
tool-free forms say how to read an artifact back with ``trunc artifacts``. A key the
configuration sets itself is left as it is.

The store's root is made absolute (as the configuration found from the host's working
directory places it), so that a command that starts with ``cd DIR &&`` keeps its artifact
where ``trunc artifacts`` run from the project finds it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["HOST_SETTINGS", "host_environment", "host_overrides", "trunc_command"]

#: Dotted key -> value a hook sets when the configuration does not.
HOST_SETTINGS: Mapping[str, Any] = {
    "artifact_tools.published": [],
    "marker.hint_no_tool": ("; trunc artifacts show {artifact_id} --lines "
                            "{start_line}-{end_line} prints it"),
    "marker.reference_no_tool": ("[Artifact: {artifact_id}] {summary} ({size}), {lines:,} "
                                 "line{lines_s}: trunc artifacts grep {artifact_id} PATTERN "
                                 "searches it\n"),
    "marker.rest_no_tool": ("Omitted parts are kept: trunc artifacts show {artifact_id} "
                            "prints them ({size})"),
}


def _unset(cwd: Path | None) -> dict[str, Any]:
    from truncation_core.config.sources import load_config

    loaded = load_config(start=cwd)
    out = {key: value for key, value in HOST_SETTINGS.items() if key not in loaded.sources}
    if not loaded.sources.get("store.root", "").startswith("environment variable"):
        store = loaded.config.store.resolved(loaded.project_root or cwd)
        out["store.root"] = str(store.root)
    return out


def host_overrides(cwd: Path | None) -> dict[str, Any]:
    """The :data:`HOST_SETTINGS` the configuration found from *cwd* leaves unset, as
    ``Truncator.from_config(overrides=...)`` takes them."""
    out: dict[str, Any] = {}
    for key, value in _unset(cwd).items():
        section, name = key.split(".")
        out.setdefault(section, {})[name] = value
    return out


def host_environment(cwd: Path | None) -> dict[str, str]:
    """The same, as ``TRUNCATION_CORE_*`` variables for a ``trunc`` process (each value a
    YAML scalar, which JSON is)."""
    return {"TRUNCATION_CORE_" + key.upper().replace(".", "__"): json.dumps(value)
            for key, value in _unset(cwd).items()}


def trunc_command() -> list[str]:
    """How to start this ``trunc``: its script when it runs as one, else this Python."""
    script = Path(sys.argv[0])
    if script.name == "trunc" and script.is_file():
        return [str(script.absolute())]
    return [sys.executable, "-m", "truncation_core"]
