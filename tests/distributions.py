"""Real installed distributions for plugin-discovery tests (no patched entry points)."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

#: The repository's first-party plugins, each a distribution of its own.
PLUGINS = Path(__file__).resolve().parent.parent / "plugins"


class SiteDir:
    """A directory of real installed distributions: ``*.dist-info`` with ``METADATA`` and
    ``entry_points.txt``, next to their modules. Put it on ``sys.path`` (in-process) or on
    ``PYTHONPATH`` (subprocesses) and ``importlib.metadata`` discovers it for real."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.modules: list[str] = []

    def distribution(self, name: str, version: str = "1.0", *,
                     entry_points: dict[str, str], modules: dict[str, str]) -> None:
        info = self.root / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")
        (info / "entry_points.txt").write_text(
            "[truncation_core]\n" + "".join(f"{ep} = {target}\n"
                                            for ep, target in entry_points.items()),
            encoding="utf-8")
        for module, source in modules.items():
            (self.root / f"{module}.py").write_text(source, encoding="utf-8")
            self.modules.append(module)

    def first_party(self, project: str, *, code: bool = True) -> None:
        """Install the repository's plugin ``plugins/<project>`` here as pip installs it: its
        distribution's name, version and ``truncation_core`` entry points, read from its
        pyproject.toml, and with *code* its packages, copied from its ``src/``. A test that
        needs a first-party plugin installs it so, for itself: the core's tests pass in an
        environment without the plugins, and with them (this copy, first on ``sys.path``,
        then shadows the installed one, as pip's first distribution of a name does).
        Without *code*, the plugin is installed but cannot be imported: enough for a test
        that disables it."""
        root = PLUGINS / project
        project_table = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
        meta = project_table["project"]
        self.distribution(meta["name"], meta["version"],
                          entry_points=meta["entry-points"]["truncation_core"], modules={})
        if code:
            for package in sorted((root / "src").iterdir()):
                if (package / "__init__.py").exists():
                    shutil.copytree(package, self.root / package.name,
                                    ignore=shutil.ignore_patterns("__pycache__"))
                    self.modules.append(package.name)
