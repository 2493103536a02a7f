"""Benchmark 1: framework overhead per sample, ours vs inspect_ai, on the same trivial work.

Both frameworks answer N synthetic "repeat the number" samples with a zero-latency mock model (ours: the
scripted echo model through the real runner, intrinsic condition, SQLite run store, results.json; inspect_ai:
``mockllm/model`` through ``eval()`` with ``match`` scoring and its default log), max 8 connections each, each
in a fresh child process. Runs alternate (ours, inspect, inspect, ours, ...) at two sizes; the per-sample
overhead is the marginal cost (T(N) − T(N0)) / (N − N0), which cancels each framework's fixed start-up, and
is reported as the median over repeats, for wall-clock and CPU time.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from common import HERE, child, median, ours, report, table


def echo_child(n: int, connections: int) -> None:
    """Child: our runner on ``n`` echo samples; reports wall and CPU seconds of the timed part."""
    from trivial import NAME, EchoTask, echo_model, synthetic_samples

    from evals.conditions import get_condition
    from evals.records import RunSpec
    from evals.report import build_report, write_results_json
    from evals.runner import run_all
    from evals.store import RunStore

    task = EchoTask()
    samples = synthetic_samples(n)
    work = [(s, task) for s in samples]
    cond = get_condition("intrinsic")
    with tempfile.TemporaryDirectory() as tmp:
        t0, c0 = time.perf_counter(), time.process_time()
        spec = RunSpec(model="scripted/echo", tasks=[NAME], conditions=["intrinsic"], max_connections=connections)
        store = RunStore(Path(tmp))
        store.write_spec("bench", spec)
        store.add_samples(samples)
        asyncio.run(run_all("bench", spec, store, work, [cond], echo_model()))
        results = list(store.results(with_trace=False))
        write_results_json(Path(tmp) / "results.json", build_report(results, ["intrinsic"], {"run_id": "bench"}))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        store.close()
    accuracy = sum(bool(r.score and r.score.correct) for r in results) / max(1, len(results))
    report({"framework": "geogap", "n": n, "wall_s": wall, "cpu_s": cpu, "status": "success", "accuracy": accuracy})


def run(n: int = 1000, base_n: int = 100, repeats: int = 3, connections: int = 8,
        inspect_python: str = "/work/venv-bench/bin/python") -> dict[str, Any]:
    cmds = {"geogap": lambda k: ours("_echo", "--n", str(k), "--connections", str(connections)),
            "inspect_ai": lambda k: [inspect_python, str(HERE / "inspect_echo.py"), "--n", str(k), "--connections",
                                     str(connections)]}
    runs: dict[tuple[str, int], list[dict[str, Any]]] = {}
    order = list(cmds)
    for r in range(repeats):
        for k in (base_n, n):
            for name in (order if r % 2 == 0 else order[::-1]):
                out = child(cmds[name](k))
                assert out["status"] == "success" and out["accuracy"] == 1.0, out
                runs.setdefault((name, k), []).append(out)
                print(f"  repeat {r + 1}: {name:<10} n={k:<6} wall {out['wall_s']:.2f} s  cpu {out['cpu_s']:.2f} s",
                      flush=True)
    rows = []
    for name in cmds:
        marg_wall = [1000 * (b["wall_s"] - a["wall_s"]) / (n - base_n) for a, b in zip(runs[(name, base_n)], runs[(name, n)], strict=True)]
        marg_cpu = [1000 * (b["cpu_s"] - a["cpu_s"]) / (n - base_n) for a, b in zip(runs[(name, base_n)], runs[(name, n)], strict=True)]
        rows.append({"framework": name, "ms/sample wall": median(marg_wall), "ms/sample cpu": median(marg_cpu),
                     f"wall s at n={n}": median([x["wall_s"] for x in runs[(name, n)]]),
                     f"wall s at n={base_n}": median([x["wall_s"] for x in runs[(name, base_n)]])})
    ratio_wall = rows[0]["ms/sample wall"] / rows[1]["ms/sample wall"]
    ratio_cpu = rows[0]["ms/sample cpu"] / rows[1]["ms/sample cpu"]
    print(table(rows, list(rows[0])))
    print(f"ratio geogap / inspect_ai per sample: wall {ratio_wall:.3f}, cpu {ratio_cpu:.3f} (goal ≤ 0.5)")
    return {"rows": rows, "ratio_wall": ratio_wall, "ratio_cpu": ratio_cpu, "n": n, "base_n": base_n,
            "repeats": repeats, "connections": connections}
