"""``make demo`` (examples/demo.py), one of the two README commands a newcomer runs first, run
for real in a subprocess: it succeeds, says what it claims, and leaves nothing behind."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from truncation_core import Truncator

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "examples" / "demo.py"


def demo_module() -> ModuleType:
    """examples/demo.py as a module, for the content it generates."""
    spec = importlib.util.spec_from_file_location("truncation_demo", DEMO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sections(out: str, title: str) -> list[str]:
    """The text under each ``--- title ---...`` line, up to the next such line or banner (a
    line of 78 ``=``; the build log's last line starts with ``=`` too)."""
    return re.findall(rf"^--- {re.escape(title)} -+\n(.*?)(?=^--- .* -+$|^={{78}}$|\Z)", out,
                      flags=re.M | re.S)


def test_the_demo_runs_and_shows_that_nothing_is_lost(tmp_path: Path) -> None:
    cwd, scratch = tmp_path / "cwd", tmp_path / "tmp"
    cwd.mkdir()
    scratch.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRUNCATION_CORE_")}
    env["TMPDIR"] = str(scratch)  # the demo's throwaway workspace goes here
    repo_before = sorted(os.listdir(REPO))
    done = subprocess.run([sys.executable, str(DEMO)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    out = done.stdout
    demo = demo_module()
    originals = {"execute_command": demo.build_log(), "search_files": demo.search_results()}
    defaults = Truncator(load_entrypoints=False)

    # What the model sees: an artifact reference above a preview, within the default limit.
    seen = [text.removesuffix("\n") for text in sections(out, "what the model sees")]  # print's
    metadata = [json.loads(text) for text in sections(out, "metadata")]
    kept = sections(out, "nothing is lost")
    assert len(seen) == len(metadata) == len(kept) == 2
    for content, meta, proof in zip(seen, metadata, kept, strict=True):
        original = originals[meta["tool"]]
        reference = f"[Artifact: {meta['artifact_id']}] {meta['tool']}: "
        if meta["tool"] == "search_files":  # JSON: the reference is a member of the document
            assert json.loads(content)["[truncated]"].startswith(reference)
        else:
            assert content.startswith(reference)
        assert meta["original_size"] == len(original)
        assert meta["original_lines"] == len(original.splitlines())
        limit = defaults.policy(meta["tool"]).budget.chars  # the demo uses the defaults
        assert 0 < meta["truncated_size"] <= limit < meta["original_size"]
        assert len(content) == meta["truncated_size"]
        # The full content is kept: the artifact is byte for byte the original.
        assert proof.strip() == (f"artifact {meta['artifact_id']} (filesystem store): "
                                 f"{len(original.encode()):,} bytes, sha256 matches the original")
    log_meta, json_meta = metadata
    # The log fails at its end: adaptive keeps its tail, verbatim (under the outline of the
    # omitted part).
    assert log_meta["strategy_used"] == "adaptive"
    assert log_meta["details"]["split"]["head_share"] == 0.0
    assert seen[0].endswith(originals["execute_command"][-4000:])
    # The results carry a score: ranked, the best first (the demo's scores fall with i).
    assert json_meta["strategy_used"] == "ranked"
    assert json_meta["details"]["results_path"] == "$.results"
    assert json_meta["details"]["score_key"] == "score"
    assert json_meta["details"]["returned"][:3] == [0, 1, 2]
    assert "json.loads() of what the model sees works, the artifact reference inside" in out

    # The agent reads the omitted warning back through the artifact tools.
    assert "tools offered to the model: get_artifact, artifact_head, artifact_tail, " \
           "artifact_grep" in out
    assert re.search(r"^ 30001:\t\[030000\] warning: deprecated call", out, flags=re.M)
    assert re.search(r"^ 30001\t\[030000\] warning: deprecated call", out, flags=re.M)
    assert out.rstrip().endswith("characters kept out of the model's context.")
    assert "\n2 calls, 2 truncated, 2 artifacts, " in out

    # Nothing left behind: not in the working directory, the temporary directory or the repo.
    assert os.listdir(cwd) == [] and os.listdir(scratch) == []
    assert sorted(os.listdir(REPO)) == repo_before
