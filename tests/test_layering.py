"""The package layering (pyproject's [tool.importlinter] contracts) holds, and each contract catches a violation."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter", reason="import-linter is not installed (the dev and test extras have it)")

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("geocore", "tools", "tasks", "agents", "evals")
LINT_IMPORTS = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", LINT_IMPORTS, "--no-cache", "--no-logo"], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_the_tree_keeps_every_contract() -> None:
    out = lint_imports(ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "5 kept, 0 broken" in out.stdout, out.stdout


def test_each_contract_breaks_on_a_forbidden_import(tmp_path: Path) -> None:
    """A copy of the packages with one forbidden import per contract: all five contracts report it."""
    for name in PACKAGES:
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    violations = {"geocore": "evals", "tools": "tasks", "tasks": "agents", "agents": "tasks\nimport tools"}
    for source, target in violations.items():
        with (tmp_path / source / "__init__.py").open("a", encoding="utf-8") as f:
            f.write(f"\nimport {target}\n")
    out = lint_imports(tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "0 kept, 5 broken" in out.stdout, out.stdout
