"""Benchmark 2: concurrency scaling against a local fixed-latency OpenAI-compatible endpoint, 1 → 64 connections.

The endpoint (``latency_server.py``, its own process) answers every chat completion after a fixed latency.
Our full stack runs N echo samples through it: the compare CLI's endpoint factory (``openai-compatible/``
provider → ChatOpenAI → httpx), the runner, the intrinsic condition, the SQLite run store. Throughput is
compared with the ideal ``connections / latency``; efficiency = measured / ideal. The "single pool" rows
replay the two highest counts with one httpx connection pool (what the clients used before
``agents.http_pool.ShardedAsyncTransport``), alternating with the sharded runs. With ``ray``, the same run
goes through the Ray executor (2 local workers) at the highest connection count.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import HERE, median, table


def _endpoint(latency: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, str(HERE / "latency_server.py"), "--latency", str(latency)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    port = int(proc.stdout.readline().split()[1])
    return proc, f"http://127.0.0.1:{port}/v1"


def _single_pool() -> Any:
    import httpx

    from agents.models import POOL_LIMITS

    return httpx.AsyncHTTPTransport(limits=POOL_LIMITS)


def _one(url: str, n: int, connections: int, executor: str = "local", pool: str = "sharded") -> dict[str, Any]:
    from trivial import NAME, EchoTask, synthetic_samples

    import agents.models
    from evals.conditions import get_condition
    from evals.endpoints import SpecEndpointFactory
    from evals.records import RunSpec
    from evals.runner import run_all
    from evals.store import RunStore

    task = EchoTask()
    samples = synthetic_samples(n)
    spec = RunSpec(model="openai-compatible/bench", base_url=url, tasks=[NAME], conditions=["intrinsic"],
                   max_connections=connections, cache=False)
    factory = SpecEndpointFactory(spec, url)
    sharded = agents.models.ShardedAsyncTransport
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore(Path(tmp))
        store.write_spec("bench", spec)
        store.add_samples(samples)
        work = [(s, task) for s in samples]
        if pool == "single":  # the clients as they were before the sharded transport
            agents.models.ShardedAsyncTransport = _single_pool  # type: ignore[assignment,misc]
        try:
            t0 = time.perf_counter()
            if executor == "ray":
                from evals.ray_executor import run_ray

                run_ray("bench", spec, store, work, [get_condition("intrinsic")], factory, workers=2)
            else:
                asyncio.run(run_all("bench", spec, store, work, [get_condition("intrinsic")], factory))
            wall = time.perf_counter() - t0
        finally:
            agents.models.ShardedAsyncTransport = sharded  # type: ignore[misc]
        results = list(store.results(with_trace=False))
        store.close()
    ok = sum(bool(r.score and r.score.correct) for r in results)
    assert ok == n, f"{ok}/{n} correct: {[r.error for r in results if r.status != 'ok'][:3]}"
    return {"wall_s": wall}


def run(n: int = 256, latency: float = 0.05, connections: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64),
        ray: bool = False, ray_samples: int = 1024) -> dict[str, Any]:
    proc, url = _endpoint(latency)
    rows = []
    try:
        _one(url, 16, 8)  # warm-up: imports, first connections
        for c in connections:
            wall = _one(url, n, c)["wall_s"]
            ideal = min(c, n) / latency
            rows.append({"executor": "local", "connections": c, "wall s": wall, "samples/s": n / wall,
                         "ideal samples/s": ideal, "efficiency": n / wall / ideal,
                         "speed-up vs 1": None})
            print(f"  {c:>3} connections: {wall:.2f} s, {n / wall:.1f} samples/s", flush=True)
        for c in sorted(connections)[-2:]:
            walls = {"sharded": [], "single": []}
            for _ in range(2):
                for pool in ("single", "sharded"):
                    walls[pool].append(_one(url, n, c, pool=pool)["wall_s"])
            for pool in ("single", "sharded"):
                wall = median(walls[pool])
                rows.append({"executor": f"local, {pool} pool (median of 2, alternating)", "connections": c,
                             "wall s": wall, "samples/s": n / wall, "ideal samples/s": min(c, n) / latency,
                             "efficiency": n / wall / (min(c, n) / latency), "speed-up vs 1": None})
        if ray:
            import ray as ray_module

            from evals.ray_executor import local_runtime_env

            ray_module.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                            runtime_env=local_runtime_env((str(HERE),)))
            c = max(connections)
            for executor in ("local", "ray"):
                wall = _one(url, ray_samples, c, executor=executor)["wall_s"]
                label = "ray (2 local workers, start included)" if executor == "ray" else "local (same run as ray)"
                rows.append({"executor": f"{label}, {ray_samples} samples", "connections": c, "wall s": wall,
                             "samples/s": ray_samples / wall, "ideal samples/s": c / latency,
                             "efficiency": ray_samples / wall / (c / latency), "speed-up vs 1": None})
            ray_module.shutdown()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    base = rows[0]["samples/s"]
    for r in rows:
        r["speed-up vs 1"] = r["samples/s"] / base
    print(table(rows, list(rows[0])))
    return {"n": n, "latency_s": latency, "rows": rows}
