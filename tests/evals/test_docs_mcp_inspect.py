"""docs/tools.md's "Bring your MCP server" and docs/viewer.md's "Open a run in inspect view", run as written: the config file
as given, each command of their code blocks, from the repository's root (where ``python -m tools.mcp_server``
is found). The compare runs get a scripted model (``--model``, ``--no-cache``, ``--output`` added) instead of the
embedded one; ``python`` is this interpreter; the config file is written to a temporary folder and ``runs/<run-dir>``
is the run the section before made; ``inspect view`` gets a free ``--port`` and is asked for its log list."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from evals import compare, export
from evals.store import RunStore
from tests.evals.test_mcp_runs import assert_same_answers

pytest.importorskip("mcp")
pytest.importorskip("inspect_ai")

ROOT = Path(__file__).resolve().parents[2]
POLICY = "scripted/tests.evals.test_mcp_runs:distance_policy"
PLACEHOLDER = "runs/<run-dir>"


def section(page: str, title: str) -> str:
    text = (ROOT / "docs" / page).read_text()
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def blocks(text: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, re.DOTALL)


def commands(text: str) -> list[list[str]]:
    return [shlex.split(line) for block in blocks(text, "bash") for line in block.splitlines() if line.strip()]


def test_the_mcp_and_inspect_sections_run_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    mcp = section("tools.md", "Bring your MCP server")
    (toml,) = blocks(mcp, "toml")
    name = re.match(r"# (\S+)\n", toml).group(1)
    (tmp_path / name).write_text(toml)
    listing, run_cmd = [[str(tmp_path / a) if a == name else a for a in c] for c in commands(mcp)]
    assert listing[:3] == ["python", "-m", "evals.compare"] and run_cmd[:3] == ["python", "-m", "evals.compare"]
    assert compare.main(listing[3:]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("  geogap-mcp: "))
    assert line.startswith("  geogap-mcp: MCP server geogap-tools ") and "distance_km, geodesic_distance_km" in line
    run_dir = tmp_path / "runs" / "mcp-run"
    assert compare.main([*run_cmd[3:], "--model", POLICY, "--no-cache", "--output", str(run_dir)]) == 0
    with RunStore(run_dir, create=False) as store:
        results = list(store.results())
        spec = store.read_spec()[1]
    assert len(results) == 9
    assert_same_answers(results, "tools[geogap-mcp]", "tools[geodesy]")  # the same tools through MCP
    assert spec.mcp["geogap-mcp"]["server_name"] == "geogap-tools" and spec.mcp["geogap-mcp"]["command"] == "python"

    exported, view = commands(section("viewer.md", "Open a run in inspect view"))
    assert exported[:3] == ["python", "-m", "evals.export"] and view[:2] == ["inspect", "view"]
    def run_arg(args: list[str]) -> list[str]:
        return [str(run_dir) + a[len(PLACEHOLDER):] if a.startswith(PLACEHOLDER) else a for a in args]

    assert export.main(run_arg(exported[3:])) == 0
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    inspect_cli = Path(sys.executable).parent / "inspect"
    proc = subprocess.Popen([str(inspect_cli), *run_arg(view[1:]), "--port", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        while True:  # until the viewer answers (if it dies, the test fails here with its stderr)
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/log-files") as reply:
                    listed = json.load(reply)["files"]
                break
            except OSError:
                time.sleep(0.5)
    finally:
        proc.terminate()
        proc.wait()
    assert sorted(f["task"] for f in listed) == ["intrinsic", "tools-geodesy", "tools-geogap-mcp"]
