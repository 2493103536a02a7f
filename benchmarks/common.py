"""Helpers shared by the benchmarks: child processes that report one JSON line, medians, RSS."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
RESULT_PREFIX = "BENCH-RESULT "


def report(data: dict[str, Any]) -> None:
    """Print a child's result as the one line its parent reads."""
    print(RESULT_PREFIX + json.dumps(data), flush=True)


def child(cmd: list[str], timeout: float = 1800, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run a child process from the repository root and return the JSON it reported."""
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{HERE}", **(env or {})})
    for line in reversed(out.stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            return json.loads(line[len(RESULT_PREFIX):])
    raise RuntimeError(f"{' '.join(cmd)} reported nothing (exit {out.returncode}):\n{out.stderr[-3000:]}")


def ours(*args: str) -> list[str]:
    """Command line of a hidden child sub-command of ``benchmarks/run.py`` in this interpreter."""
    return [sys.executable, str(HERE / "run.py"), *args]


def alternate(rounds: int, key: str, choices: tuple[str, ...],
              trial: Callable[[str], dict[str, Any]]) -> list[dict[str, Any]]:
    """``trial`` of each choice in turn, over ``rounds`` rounds (so drift on a shared machine shows), each row with
    the load average before it; rows are printed as they come."""
    rows = []
    for r in range(1, rounds + 1):
        for choice in choices:
            row = {"round": r, key: choice, "load_before": round(os.getloadavg()[0], 2), **trial(choice)}
            print(row, flush=True)
            rows.append(row)
    return rows


def median(values: list[float]) -> float:
    return float(statistics.median(values))


def rss_mb() -> float:
    """Resident memory of this process in MiB (Linux /proc)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    """A plain Markdown table of ``rows``."""
    def cell(v: Any) -> str:
        return f"{v:.3g}" if isinstance(v, float) else str(v)

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(r.get(c, "")) for c in columns) + " |" for r in rows]
    return "\n".join(lines)
