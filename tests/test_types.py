"""mypy (the settings in pyproject's [tool.mypy]: agents, tools, tasks, geocore, evals) reports no error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy", reason="mypy is not installed (the dev and test extras have it)")

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_passes() -> None:
    out = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stdout + out.stderr
