"""A suite across a three-node Ray cluster on this machine (a head and two worker nodes, each its own
``ray start`` process with its own temp dir and ports, 1 CPU each: tests/evals/ray_cluster.py), with an MCP tool
set that every worker starts itself and the model-call cache shared by every node: the same stored results as the
local executor, and a second run answered wholly from the shared cache.

Skipped when Ray or mcp is not installed, unless the environment variable CI is set.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from fault_server import FaultServer
from test_ray_executor import TASK, answer, scores

from evals.compare import main
from evals.store import RunStore

if not os.environ.get("CI"):
    pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]'); CI must have it")
    pytest.importorskip("mcp", reason="mcp is not installed; CI must have it")
from ray_cluster import LocalCluster  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def worker_logs(cluster: LocalCluster, node: str) -> str:
    """Every worker-process log of one node (Ray names an actor's class at the top of its log)."""
    return "".join(p.read_text(errors="replace") for p in (cluster.root / node).glob("session_*/logs/worker-*"))


def test_a_suite_across_three_nodes_with_mcp_and_a_shared_cache_matches_the_local_run(tmp_path, monkeypatch,
                                                                                        capsys) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    path = os.pathsep.join([str(ROOT), str(ROOT / "tests" / "evals"), os.environ.get("PYTHONPATH", "")])
    mcp = f"geo={sys.executable} -m tools.mcp_server --toolsets geodesy"
    with FaultServer(answer) as server, LocalCluster(workers=2, env={"PYTHONPATH": path}) as cluster:
        common = ["--model", "openai-compatible/fake", "--base-url", server.url, "--tasks", TASK, "--limit", "6",
                  "--condition", "intrinsic,tools[geo]", "--mcp", mcp]
        assert main([*common, "--no-cache", "--output", str(tmp_path / "local")]) == 0
        on_ray = [*common, "--cache", "--executor", "ray", "--ray-address", cluster.address]
        assert main([*on_ray, "--output", str(tmp_path / "ray")]) == 0
        calls = len(server.requests)
        assert main([*on_ray, "--output", str(tmp_path / "cached")]) == 0
        assert len(server.requests) == calls  # every call of the second run came from the shared cache
        logs = {node: worker_logs(cluster, node) for node in ("head", "w0", "w1")}
    capsys.readouterr()
    assert all("SampleWorker" in text for text in logs.values())  # a worker on each node (1 CPU each, 3 workers)
    assert sum("CacheActor" in text for text in logs.values()) == 1  # one cache, on the driver's node
    with RunStore(tmp_path / "local") as a, RunStore(tmp_path / "ray") as b, RunStore(tmp_path / "cached") as c:
        assert scores(a) == scores(b) == scores(c)
        assert len(scores(a)) == 12 and {v[1] for k, v in scores(b).items() if k[1] == "tools[geo]"} == {True}
        assert all(r.cache_hits == 0 for r in b.results(with_trace=False))
        assert all(r.cache_hits == r.model_calls > 0 for r in c.results(with_trace=False))
        traced = [e for r in b.results() if r.condition == "tools[geo]" for e in r.trace if e.kind == "tool_call"]
        assert traced and all(e.status == "ok" and e.tool == "distance_km" for e in traced)  # the MCP server's
        assert b.read_spec()[1].mcp["geo"]["server_name"] == "geogap-tools"
