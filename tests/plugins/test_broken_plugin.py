"""A plug-in that fails to load: every registry names it in the same one line, and the rest keeps working."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINE = "plug-in 'broken' (broken_geogap_plugin) failed to load: RuntimeError: boom"


def installed_broken_plugin(where: Path) -> dict[str, str]:
    """An installed distribution whose ``geogap`` entry point names a module that raises on import."""
    (where / "broken_geogap_plugin.py").write_text("raise RuntimeError('boom')\n")
    info = where / "broken_geogap_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-geogap-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[geogap]\nbroken = broken_geogap_plugin\n")
    return {**os.environ, "PYTHONPATH": f"{where}{os.pathsep}{ROOT}"}


def test_every_registry_names_the_broken_plugin_in_one_line(tmp_path: Path) -> None:
    code = (
        "from evals.conditions import get_condition\n"
        "from tasks.registry import get_task\n"
        "from tools.registry import get_toolset, toolset_names\n"
        "assert get_task('gpsbench.distance') and get_toolset('geodesy') and 'network' in toolset_names()\n"
        "for lookup, name in ((get_task, 'warp.drive'), (get_toolset, 'warp'), (get_condition, 'warp')):\n"
        "    try:\n"
        "        lookup(name)\n"
        "    except KeyError as exc:\n"
        "        print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=installed_broken_plugin(tmp_path),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3 and all(line.endswith(f"({LINE})") for line in lines), lines
    assert lines[0].startswith("unknown task 'warp.drive'; valid tasks: ")


def test_the_cli_reports_it_without_a_traceback(tmp_path: Path) -> None:
    env = installed_broken_plugin(tmp_path)
    done = subprocess.run([sys.executable, "-m", "evals.compare", "--tasks", "warp.drive", "--output",
                           str(tmp_path / "run")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and LINE in done.stderr and "Traceback" not in done.stderr
    listed = subprocess.run([sys.executable, "-m", "evals.compare", "--list"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0 and f"not loaded: {LINE}" in listed.stdout.splitlines()
