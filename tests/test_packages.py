"""The guard against shadowed top-level packages (``geocore.packages``): another distribution's ``agents`` (as
``openai-agents`` installs) is named in one line before anything breaks."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from geocore.packages import PACKAGES, shadowed

ROOT = Path(__file__).resolve().parents[1]


def test_this_projects_packages_are_its_own() -> None:
    assert shadowed() is None


def _installed(where: Path, package: str, distribution: str) -> None:
    """A distribution on ``where`` providing the top-level package ``package``."""
    (where / package).mkdir()
    (where / package / "__init__.py").write_text("")
    info = where / f"{distribution.replace('-', '_')}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1\n")
    (info / "top_level.txt").write_text(f"{package}\n")


@pytest.mark.parametrize("package, distribution", [("agents", "openai-agents"), ("tasks", "tasks"),
                                                   ("tools", "tools")])
def test_a_shadowed_package_is_one_line_naming_its_distribution(package: str, distribution: str,
                                                                 tmp_path: Path) -> None:
    assert package in PACKAGES
    site = tmp_path / "site"
    site.mkdir()
    _installed(site, package, distribution)
    env = {**os.environ, "PYTHONPATH": f"{site}{os.pathsep}{ROOT}"}  # the other distribution comes first
    done = subprocess.run([sys.executable, "-m", "evals.compare", "--list"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (f"error: the package '{package}' resolves to {site / package} (installed by "
                           f"{distribution}), not to {ROOT / package}: pip uninstall {distribution}, or use another "
                           "environment\n")
    imported = subprocess.run([sys.executable, "-c", "import evals"], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=120)
    assert imported.returncode == 1 and f"ImportError: the package '{package}' resolves to" in imported.stderr
