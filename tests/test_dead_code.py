"""vulture (``[tool.vulture]`` in pyproject: the packages at confidence 60, with tests/vulture_whitelist.py) finds
no unused code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("vulture", reason="vulture is not installed (the dev and test extras have it)")

ROOT = Path(__file__).resolve().parents[1]


def test_vulture_finds_no_dead_code() -> None:
    out = subprocess.run([sys.executable, "-m", "vulture"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
