"""Packaging: the library runs without the CLI's dependencies (click, rich: the `cli`
extra), `trunc` without them says what to install, and the sdist holds what its tests need,
with the license, classifiers and project URLs."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

#: Makes click and rich unimportable, as in an environment without the cli extra.
WITHOUT_CLI = "import sys; sys.modules['click'] = None; sys.modules['rich'] = None\n"


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT_CLI + textwrap.dedent(code)],
                          capture_output=True, text=True, cwd=cwd, timeout=120)


def test_the_library_needs_neither_click_nor_rich(tmp_path: Path) -> None:
    done = _python("""
        import asyncio, json
        from truncation_core import Truncator
        t = Truncator.from_config(overrides={"store": {"root": "store"}})
        r = t.process("".join(f"line {i}\\n" for i in range(5000)), tool="execute_command")
        assert r.artifact is not None
        doc = json.dumps({"items": list(range(5000))})
        assert json.loads(t.process(doc).content)["items"][0] == 0
        with t.stream(tool="read_file") as s:
            s.write("x\\n" * 50000)
        assert s.result().metadata.was_truncated
        assert t.tool_schemas("openai", strict=True)
        page = asyncio.run(t.acall_tool("get_artifact", {"artifact_id": r.artifact.id}))
        assert page.error is None, page.content
        assert "click" not in sys.modules or sys.modules["click"] is None
        print("ok")
    """, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_control_the_blocker_bites_and_trunc_says_what_to_install(tmp_path: Path) -> None:
    done = _python("import truncation_core.cli.group", tmp_path)  # the click group
    assert done.returncode != 0 and "ModuleNotFoundError" in done.stderr
    done = _python("from truncation_core.__main__ import main; main()", tmp_path)
    assert done.returncode == 1
    assert "pip install 'truncation-core[cli]'" in done.stderr
    assert "Traceback" not in done.stderr


def _sdist(tmp_path: Path) -> Path:
    from hatchling.builders.sdist import SdistBuilder

    builder = SdistBuilder(str(REPO))
    return Path(next(builder.build(directory=str(tmp_path), versions=["standard"])))


def test_the_sdist_holds_what_its_tests_need(tmp_path: Path) -> None:
    archive = _sdist(tmp_path)
    with tarfile.open(archive) as tar:
        top = tar.getnames()[0].split("/")[0]
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
        metadata = tar.extractfile(f"{top}/PKG-INFO").read().decode()  # type: ignore[union-attr]
    tracked = subprocess.run(
        ["git", "ls-files", "tests", "docs", "examples", "bench",
         "plugins/truncation-core-example", "README.md", "CHANGELOG.md", "LICENSE",
         "pyproject.toml", "Makefile"],
        capture_output=True, text=True, cwd=REPO, check=True).stdout.split()
    assert len(tracked) > 100
    missing = [path for path in tracked if path not in names]
    assert not missing, missing[:20]
    assert not [n for n in names if n.startswith((".venv/", ".ci/", ".git/"))]
    # the metadata a package index shows
    assert "License-Expression: MIT" in metadata
    assert "Classifier: Operating System :: POSIX" in metadata
    for label in ("Homepage", "Documentation", "Repository", "Issues", "Changelog"):
        assert f"Project-URL: {label}, https://github.com/" in metadata, label
    assert "Provides-Extra: cli" in metadata
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    cli = [line for line in requires if line.startswith(("Requires-Dist: click",
                                                          "Requires-Dist: rich"))]
    assert any(line.endswith("extra == 'cli'") for line in cli)
    assert all("; extra == " in line for line in cli)  # never a requirement of the library
