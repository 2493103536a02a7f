"""A plug-in that registers a built-in's name: one line naming both sides, whatever was imported first; the
built-in keeps its name and every command (``--list`` included) still works."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINE = ("plug-in 'clash' (clash_geogap_plugin) failed to load: tool set 'geodesy' of plug-in 'clash' "
        "(clash_geogap_plugin) clashes with the tool set 'geodesy' of built-in tools.geodesy, which keeps the name; "
        "rename one of them")


def installed_clashing_plugin(where: Path) -> dict[str, str]:
    """An installed distribution whose ``geogap`` entry point registers a tool set called ``geodesy``."""
    (where / "clash_geogap_plugin.py").write_text(
        "from tools.registry import toolset\n\n"
        "@toolset('geodesy')\n"
        "def mine() -> list:\n"
        "    '''Not the built-in geodesy tools.'''\n"
        "    return []\n")
    info = where / "clash_geogap_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: clash-geogap-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[geogap]\nclash = clash_geogap_plugin\n")
    return {**os.environ, "PYTHONPATH": f"{where}{os.pathsep}{ROOT}"}


@pytest.mark.parametrize("first", [
    "from tools.registry import toolset_names; toolset_names()",  # the tool sets' registry loads plug-ins
    "from tasks.registry import get_task; get_task('gpsbench.distance')",  # the tasks' registry does, first
    "import clash_geogap_plugin",  # the plug-in imported by hand before any registry lookup
])
def test_the_clash_is_one_line_naming_both_sides_in_any_import_order(first: str, tmp_path: Path) -> None:
    code = (f"{first}\n"
            "from tools.registry import TOOLSETS, get_toolset\n"
            "names = [t.name for t in get_toolset('geodesy')]\n"
            "assert 'distance_km' in names, names  # the built-in kept its name\n"
            "print(TOOLSETS.errors())\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=installed_clashing_plugin(tmp_path),
                          capture_output=True, text=True, timeout=120)
    if first.startswith("import clash"):  # imported by hand, not as a plug-in: named by its module
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == repr([LINE.split(" failed to load: ")[1].replace(
            "plug-in 'clash' (clash_geogap_plugin)", "clash_geogap_plugin")])
        return
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == repr([LINE])


def test_every_command_still_works_and_names_the_clash(tmp_path: Path) -> None:
    env = installed_clashing_plugin(tmp_path)
    listed = subprocess.run([sys.executable, "-m", "evals.compare", "--list"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert "Traceback" not in listed.stderr and f"not loaded: {LINE}" in listed.stdout.splitlines()
    unknown = subprocess.run([sys.executable, "-m", "evals.compare", "--condition", "tools[warp]", "--tasks",
                              "gpsbench.distance", "--output", str(tmp_path / "run")], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=120)
    assert unknown.returncode == 2 and "Traceback" not in unknown.stderr
    assert unknown.stderr.strip().splitlines()[-1].endswith(f"({LINE})")
