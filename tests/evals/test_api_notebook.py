"""evals.api in a real Jupyter kernel (nbclient + ipykernel): a cell runs a comparison while the kernel's event
loop is running, with a LangChain chat model object (the scripted model: no real model runs) and with a
``provider/name`` string, and reads the run back as a DataFrame in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

ROOT = Path(__file__).resolve().parents[2]

CELLS = [
    f"import sys; sys.path.insert(0, {str(ROOT)!r})",
    """
import asyncio, json
from langchain_core.messages import AIMessage, ToolMessage
from agents.scripted import ScriptedChatModel
from evals import api

def policy(messages, tools):
    if "distance_km" in tools and not any(isinstance(m, ToolMessage) for m in messages):
        return AIMessage("", tool_calls=[{"name": "distance_km", "id": "c1",
                                          "args": {"lat1": 0.0, "lon1": 0.0, "lat2": 0.0, "lon2": 1.0}}])
    return "FINAL ANSWER: 111.2 km"

loop_running = asyncio.get_running_loop().is_running()  # the kernel's own loop: asyncio.run() would refuse
""",
    """
result = api.run(ScriptedChatModel(script=policy), tasks="gpsbench.distance", limit=2, epochs=2, output=OUT + "/obj")
df = api.read_run(result.run_dir)
gap = result.overall.gap["tools"]
print(json.dumps({"loop": loop_running, "model": result.spec.model, "cache": result.spec.cache,
                  "complete": result.complete, "rows": len(df), "columns": list(df.columns)[:8],
                  "conditions": sorted(set(df["condition"])), "statuses": sorted(set(df["status"])),
                  "tool_calls": int(df[df["condition"] == "tools"]["tool_calls"].sum()),
                  "n_paired": gap["n_paired"], "epochs": gap["epochs"], "table": "gpsbench.distance" in result.table,
                  "files": sorted(p.name for p in result.run_dir.iterdir())}))
""",
    """
named = api.run("scripted/tests.evals.test_compare_cli:tool_then_answer", tasks="gpsbench.distance", limit=1,
                conditions=["intrinsic"], output=OUT + "/named")
try:
    api.run(ScriptedChatModel(script=policy), tasks="gpsbench.nope", output=OUT + "/bad")
    bad = None
except api.RunError as exc:
    bad = [exc.code, str(exc)[:40]]
print(json.dumps({"named": named.spec.model, "rows": len(api.read_run(named.run_dir)), "bad": bad}))
""",
    """
MODELS = ["scripted/tests.evals.test_api:always_111_km", "scripted/tests.evals.test_compare_cli:tool_then_answer"]
quiet = api.run(MODELS, tasks="gpsbench.distance", limit=1, output=OUT + "/models")
""",
    """
loaded = api.load(OUT + "/models")
print(json.dumps({"models": list(quiet.models), "loaded": list(loaded.models), "rows": len(api.read_run(OUT + "/models")),
                  "board": [m["model"] for m in quiet.leaderboard["models"]]}))
""",
]


def printed(cell: dict) -> dict:
    """The JSON line a cell printed last."""
    text = "".join(o.get("text", "") for o in cell["outputs"] if o.get("name") == "stdout")
    return json.loads(next(line for line in reversed(text.splitlines()) if line.startswith("{")))


def test_api_runs_in_a_real_jupyter_kernel(tmp_path: Path) -> None:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(f"OUT = {str(tmp_path)!r}")] + [nbformat.v4.new_code_cell(c) for c in CELLS]
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    first = printed(nb.cells[3])
    assert first["loop"] is True and first["model"] == "python/ScriptedChatModel" and first["cache"] is False
    assert first["complete"] and first["rows"] == 8  # 2 samples × 2 conditions × 2 epochs
    assert first["columns"][:7] == ["run_id", "sample_id", "task", "condition", "epoch", "model", "status"]
    assert first["conditions"] == ["intrinsic", "tools"] and first["statuses"] == ["ok"]
    assert first["tool_calls"] == 4  # the tools condition called distance_km once per sample and epoch
    assert first["n_paired"] == 2 and first["epochs"] == 2  # items, each item's 2 epochs averaged
    assert first["table"] and {"results.json", "report.html", "results.csv", "run.sqlite"} <= set(first["files"])
    assert [o["output_type"] for o in nb.cells[3]["outputs"]] == ["stream"]  # the cell's own print, nothing else
    second = printed(nb.cells[4])
    assert second["named"] == "scripted/tests.evals.test_compare_cli:tool_then_answer" and second["rows"] == 1
    assert second["bad"][0] == 2 and second["bad"][1].startswith("unknown task 'gpsbench.nope'")
    assert nb.cells[5]["outputs"] == []  # two models run with show=False (the default): nothing on stdout or stderr
    models = ["scripted/tests.evals.test_api:always_111_km", "scripted/tests.evals.test_compare_cli:tool_then_answer"]
    third = printed(nb.cells[6])
    assert third["models"] == third["loaded"] == third["board"] == models and third["rows"] == 4  # 2 models × 2 conditions
