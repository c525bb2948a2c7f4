"""Real installed distributions for plugin-discovery tests (no patched entry points)."""

from __future__ import annotations

from pathlib import Path


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
