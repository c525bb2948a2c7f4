"""Claude Code with truncation-core: `trunc hook claude-code`, as Claude Code runs it.

Runs offline, without Claude Code: it sends the hook the payloads Claude Code sends (a Bash
call before it runs, an MCP tool's result after), runs the rewritten command in a shell as
Claude Code's Bash tool would, prints what the model sees, and reads the error back with the
command the cut names. In a project, `trunc hook claude-code --install` adds the hook to
.claude/settings.json (docs/integrations.md).

    pip install truncation-core-hosts
    python examples/claude_code_hook.py
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

TRUNC = str(Path(sys.executable).parent / "trunc")
#: A build whose log is about 1 MB, with one error in the middle, failing with status 2.
BUILD = ("for i in $(seq 0 14999); do if [ $i = 9000 ]; then "
         "echo \"[009000] error: undefined reference to \\`frobnicate'\"; "
         "else printf '[%06d] compiling module_%03d.c ... ok\\n' $i $((i % 900)); fi; done; "
         "exit 2")


def hook(payload: dict[str, Any], cwd: str) -> Any:
    """What `trunc hook claude-code` answers Claude Code."""
    done = subprocess.run([TRUNC, "hook", "claude-code", "--permission", "allow"],
                          input=json.dumps(payload), capture_output=True, text=True,
                          cwd=cwd, check=True)
    return json.loads(done.stdout) if done.stdout.strip() else None


def main() -> None:
    with tempfile.TemporaryDirectory() as project:
        answer = hook({"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": project,
                       "session_id": "s1", "transcript_path": f"{project}/t.jsonl",
                       "tool_use_id": "toolu_01", "tool_input": {
                           "command": BUILD, "description": "Build", "timeout": 120000}},
                      project)
        command = answer["hookSpecificOutput"]["updatedInput"]["command"]
        ran = subprocess.run(["bash", "-c", command], capture_output=True, text=True,
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
