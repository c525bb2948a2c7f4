"""Gemini CLI with truncation-core: `trunc hook gemini-cli`, as Gemini CLI runs it.

Runs offline, without Gemini CLI: it sends the hook the BeforeTool payload of a
run_shell_command call, merges the answer over the call's arguments as Gemini CLI does, runs
the command in a shell, prints what the model sees, and reads the error back with the command
the cut names. In a project, `trunc hook gemini-cli --install` adds the hook to
.gemini/settings.json (docs/integrations.md).

    pip install truncation-core-hosts
    python examples/gemini_cli_hook.py
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

TRUNC = str(Path(sys.executable).parent / "trunc")
#: A build whose log is about 1 MB, with one error in the middle, failing with status 2.
BUILD = ("for i in $(seq 0 14999); do if [ $i = 9000 ]; then "
         "echo \"[009000] error: undefined reference to \\`frobnicate'\"; "
         "else printf '[%06d] compiling module_%03d.c ... ok\\n' $i $((i % 900)); fi; done; "
         "exit 2")


def main() -> None:
    with tempfile.TemporaryDirectory() as project:
        arguments = {"command": BUILD, "description": "Build", "dir_path": "."}
        payload = {"hook_event_name": "BeforeTool", "tool_name": "run_shell_command",
                   "tool_input": arguments, "cwd": project, "session_id": "s1",
                   "transcript_path": f"{project}/t.json", "timestamp": "2026-11-28T10:00:00Z"}
        done = subprocess.run([TRUNC, "hook", "gemini-cli"], input=json.dumps(payload),
                              capture_output=True, text=True, cwd=project, check=True)
        merged = {**arguments, **json.loads(done.stdout)["hookSpecificOutput"]["tool_input"]}
        ran = subprocess.run(["bash", "-c", merged["command"]], capture_output=True, text=True,
                             cwd=project)
        print(f"--- what the model sees of 1 MB (exit status {ran.returncode}) ---")
        # Its first lines; the marker that says what was left out and how to read it back,
        # with the lines it lifted from there; its last lines.
        view = ran.stdout.splitlines()
        at = next(i for i, line in enumerate(view)
                  if line.startswith("... [") and "omitted" in line)
        lifted = view[at:at + 6]
        lifted = lifted[:next((i for i, line in enumerate(lifted[1:], 1)
                               if not line.startswith(("... [highlights", "line "))), 1)]
        print("\n".join([*view[:8], "...", *lifted, "...", *view[-3:]]) + "\n")
        artifact_id = re.search(r"art_\d+_[0-9a-f]{32}", ran.stdout).group()  # type: ignore[union-attr]
        found = subprocess.run([TRUNC, "artifacts", "grep", artifact_id, "error:", "-C", "1"],
                               capture_output=True, text=True, cwd=project)
        print("--- the model greps the artifact ---\n" + found.stdout)


if __name__ == "__main__":
    main()
