"""ruff (the rules in pyproject's [tool.ruff]) passes on the whole repository."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ruff", reason="ruff is not installed (the dev and test extras have it)")

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_check_passes() -> None:
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
