"""Discovery of installed plugins: :mod:`truncation_core.hooks.entrypoints` finds what
:mod:`importlib.metadata` finds, without importing it where it can read the files itself.

The distributions are real ``*.dist-info`` and ``*.egg-info`` directories written into a
directory on ``sys.path`` (the ``site_dir`` fixture); nothing patches ``entry_points``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest


def _listed(eps: Any) -> list[tuple[str, str, str | None, str | None]]:
    return [(ep.name, ep.value, ep.distribution, ep.version) for ep in eps]


def _from_importlib(group: str) -> list[tuple[str, str, str | None, str | None]]:
    from importlib.metadata import entry_points

    return [(ep.name, ep.value, ep.dist.metadata["Name"] if ep.dist else None,
             ep.dist.version if ep.dist else None) for ep in entry_points(group=group)]


@pytest.mark.parametrize("group", ["truncation_core", "console_scripts", "pytest11"])
def test_discovery_finds_what_importlib_metadata_finds(site_dir: Any, unique_name: str,
                                                       group: str) -> None:
    """In this environment (the installed plugins, pytest's), plus distributions written for
    the test: one shadowed by an earlier one of the same normalized name on sys.path, one
    with a comment, blank lines and a section of another group, one whose metadata header
    is folded, one whose METADATA is missing (PKG-INFO instead), an egg-info directory."""
    from truncation_core.hooks.entrypoints import _readable_layout, entry_points

    site_dir.distribution("tc-zeta", entry_points={"zeta": f"{unique_name}_z:attr"},
                          modules={})
    shadow = site_dir.root.parent / "later"
    shadow.mkdir()
    info = shadow / "TC_Zeta-9.0.dist-info"  # another spelling of tc-zeta: shadowed
    info.mkdir()
    (info / "METADATA").write_text("Name: TC_Zeta\nVersion: 9.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[truncation_core]\nshadowed = x\n",
                                           encoding="utf-8")
    sys.path.append(str(shadow))
    try:
        odd = site_dir.root / "tc_odd-2.0.dist-info"
        odd.mkdir()
        (odd / "METADATA").write_text(
            "Metadata-Version: 2.1\nName: tc-odd\nSummary: one\n  folded\nVersion: 2.0\n\n"
            "Name: not-a-header\n", encoding="utf-8")
        (odd / "entry_points.txt").write_text(
            "# comment\n\n[console_scripts]\ntc-odd = tc_odd:main\n\n"
            f"[truncation_core]\n  odd =  {unique_name}_o : attr . sub  \n", encoding="utf-8")
        egg = site_dir.root / "tc_egg-0.1.egg-info"
        egg.mkdir()
        (egg / "PKG-INFO").write_text("Name: tc-egg\nVersion: 0.1\n", encoding="utf-8")
        (egg / "entry_points.txt").write_text(f"[truncation_core]\negg = {unique_name}_e\n"
                                              "[pytest11]\negg = tc_egg\n", encoding="utf-8")
        assert _readable_layout()  # the fast reader answers, not its fallback
        ours = _listed(entry_points(group))
        assert ours == _from_importlib(group)
        if group == "truncation_core":
            names = [name for name, *_ in ours]
            assert {"zeta", "odd", "egg"} <= set(names) and "shadowed" not in names
    finally:
        sys.path.remove(str(shadow))


#: METADATA whose Name or Version importlib.metadata reads in ways a line-by-line reader can
#: miss: a folded value (dedented by importlib.metadata's ``_adapters.Message``), a line
#: break str.splitlines knows and the ``email`` parser does not, a line that is no header
#: (it ends the headers), a header name with a blank before its colon (no header either).
ODD_METADATA = {
    "folded name": "Metadata-Version: 2.1\nName: tc-fold\n  ed\nVersion: 1.0\n",
    "folded version": "Name: tc-fold\nVersion: 1.0\n\tpost1\n",
    "line separator": "Name: tc-sep\nSummary: one\u2028Version: 9.9\nVersion: 1.0\n",
    "form feed": "Name: tc-ff\nSummary: one\x0c\nVersion: 1.0\n",
    "no header": "Name: tc-none\nnot a header\nVersion: 1.0\n",
    "blank before colon": "Name : tc-blank\nVersion: 1.0\n",
    "envelope line": "From nobody\nName: tc-from\nVersion: 1.0\n",
}


@pytest.mark.parametrize("metadata", list(ODD_METADATA.values()), ids=list(ODD_METADATA))
def test_name_and_version_are_importlib_metadata_s(site_dir: Any, unique_name: str,
                                                    metadata: str) -> None:
    """The distribution's Name and Version, from metadata written oddly, are what
    importlib.metadata says (the reader split lines at \\u2028 and \\x0c, read on past
    a line that ends the headers, and kept a folded value's first-line indent)."""
    from truncation_core.hooks.entrypoints import _readable_layout, entry_points

    info = site_dir.root / "tc_odd_meta-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(metadata, encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[{unique_name}]\nodd = tc_odd_meta\n",
                                           encoding="utf-8")
    assert _readable_layout()
    ours = _listed(entry_points(unique_name))
    assert len(ours) == 1 and ours == _from_importlib(unique_name)


def test_discovery_asks_importlib_metadata_where_it_cannot_read_the_layout(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A finder on sys.meta_path that finds distributions of its own (an import hook
    serving packages from elsewhere): its entry points are found, through importlib.metadata
    (negative control: the file reader alone does not see them)."""
    import importlib.metadata as metadata

    from truncation_core.hooks import entrypoints

    class Dist(metadata.Distribution):
        def read_text(self, filename: str) -> str | None:
            return {"METADATA": "Name: tc-virtual\nVersion: 3.1\n",
                    "entry_points.txt": "[truncation_core]\nvirtual = tc_virtual\n"}.get(
                        filename)

        def locate_file(self, path: Any) -> Any:
            return tmp_path / str(path)

    class Finder:
        @staticmethod
        def find_spec(*args: Any) -> None:
            return None

        @staticmethod
        def find_distributions(context: Any = None) -> list[Dist]:
            return [Dist()]

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder])
    found = _listed(entrypoints.entry_points("truncation_core"))
    assert ("virtual", "tc_virtual", "tc-virtual", "3.1") in found
    monkeypatch.setattr(entrypoints, "_readable_layout", lambda: True)
    assert "virtual" not in [name for name, *_ in
                             _listed(entrypoints.entry_points("truncation_core"))]




def test_discovery_does_not_import_importlib_metadata(tmp_path: Any) -> None:
    """The reason the reader exists (bench/bench_startup.py prints its figure): a Truncator
    that looks for installed plugins in the standard layout leaves importlib.metadata
    unimported. None is loaded (``TRUNCATION_CORE_PLUGINS`` allows none), so no plugin's
    own imports count; the control asks importlib.metadata's ``entry_points``: the same
    names, and the module imported."""
    probe = ("import json, sys; from truncation_core import Truncator; t = Truncator(); "
             "names = sorted(p.name for p in t.plugins.list_plugins() if p.kind == 'entrypoint'); "
             "{control}print(json.dumps(['importlib.metadata' in sys.modules, names]))")
    control = ("from importlib.metadata import entry_points; "
               "names = sorted(e.name for e in entry_points(group='truncation_core')); ")
    env = {"TRUNCATION_CORE_PLUGINS": "", "PATH": "/usr/bin:/bin"}
    (imported, seen), (control_imported, control_seen) = [
        json.loads(subprocess.run([sys.executable, "-c", probe.format(control=extra)],
                                  capture_output=True, text=True, cwd=tmp_path, env=env,
                                  check=True).stdout)
        for extra in ("", control)]
    assert not imported
    assert control_imported and seen == control_seen
