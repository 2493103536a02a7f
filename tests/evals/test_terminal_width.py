"""The whole CLI output fits an 80-column terminal (the main table, the Tool use table, their captions and every
other line, on stdout and stderr alike); a pipe gets the full-width table."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

from rich.cells import cell_len

ROOT = Path(__file__).resolve().parents[2]
MODEL = "scripted/tests.evals.test_compare_cli:tool_then_answer"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def argv(out: Path) -> list[str]:
    # the quick suite's tasks (every family), one sample each, both conditions
    return [sys.executable, "-m", "evals.compare", "--model", MODEL, "--condition", "intrinsic,tools", "--limit", "1",
            "--no-cache", "--output", str(out)]


def env() -> dict[str, str]:
    return {**os.environ, "COLUMNS": "80", "LINES": "40", "PYTHONPATH": str(ROOT), "TERM": "xterm-256color"}


def run_in_terminal(out: Path) -> str:
    """The CLI's stdout and stderr as an 80-column terminal shows them (a pseudo-terminal)."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(argv(out), cwd=ROOT, env=env(), stdin=follower, stdout=follower, stderr=follower)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert proc.wait(timeout=300) == 0
    return b"".join(chunks).decode("utf-8", errors="replace")


def shown_lines(text: str) -> list[str]:
    """What stays on screen of each line: escape codes removed, a carriage return starting the line over."""
    return [ANSI.sub("", line).split("\r")[-1] for line in text.replace("\r\n", "\n").split("\n")]


def test_at_80_columns_no_printed_line_is_wider(tmp_path: Path) -> None:
    lines = shown_lines(run_in_terminal(tmp_path / "run"))
    text = "\n".join(lines)
    assert "Tool use" in text and "gap tools" in text and "wall " in text  # both tables and the summary printed
    assert "not shown at this width: status %" in " ".join(text.split())  # the caption says what was left out
    wide = [line for line in lines if cell_len(line) > 80]
    assert not wide, wide
    assert "…" not in text  # nothing cropped


def test_a_pipe_gets_the_full_width(tmp_path: Path) -> None:
    done = subprocess.run(argv(tmp_path / "run"), cwd=ROOT, env=env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "truncated" in done.stdout and "tool calls" in done.stdout  # the wide layout (at 80 they are left out)
    assert max(cell_len(line) for line in done.stdout.splitlines()) > 80
