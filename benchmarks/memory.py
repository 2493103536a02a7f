"""Benchmark 5: memory of a long run with the scripted model (goal: flat, not growing with the number of samples).

Each size runs in a fresh child process: synthetic echo samples are built and stored first (what any run holds:
the sample list), then the runner answers them all (intrinsic condition, max 8 connections, SQLite store) while
a thread samples RSS every 50 ms. "growth" is the peak RSS during the run minus the RSS just before it. The
``--runner gather`` variant reproduces the runner before this benchmark's fix (one coroutine per item started
with ``asyncio.gather`` and throttled by a semaphore) for comparison.
"""

from __future__ import annotations

import asyncio
import gc
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from common import child, ours, report, rss_mb, table


async def _gather_runner(run_id: str, spec: Any, store: Any, work: list[Any], cond: Any, model: Any) -> int:
    """The runner's loop before the fix: every pending item becomes a coroutine at once."""
    from evals.runner import answer_sample

    sem = asyncio.Semaphore(spec.max_connections)

    async def one(sample: Any, task: Any) -> None:
        async with sem:
            result = await answer_sample(run_id, spec, sample, task, cond, model)
        store.add_result(result)

    await asyncio.gather(*(one(s, t) for s, t in work))
    return len(work)


def memory_child(n: int, runner: str) -> None:
    from trivial import NAME, EchoTask, echo_model, synthetic_samples

    from evals.conditions import get_condition
    from evals.records import RunSpec
    from evals.runner import run_all
    from evals.store import RunStore

    task = EchoTask()
    before_samples = rss_mb()
    samples = synthetic_samples(n)
    work = [(s, task) for s in samples]
    cond = get_condition("intrinsic")
    with tempfile.TemporaryDirectory() as tmp:
        spec = RunSpec(model="scripted/echo", tasks=[NAME], conditions=["intrinsic"], max_connections=8)
        store = RunStore(Path(tmp))
        store.write_spec("bench", spec)
        store.add_samples(samples)
        gc.collect()
        base = rss_mb()
        peak = [base]
        stop = threading.Event()

        def sample_rss() -> None:
            while not stop.is_set():
                peak[0] = max(peak[0], rss_mb())
                time.sleep(0.05)

        sampler = threading.Thread(target=sample_rss, daemon=True)
        sampler.start()
        t0 = time.perf_counter()
        if runner == "gather":
            written = asyncio.run(_gather_runner("bench", spec, store, work, cond, echo_model()))
        else:
            written = asyncio.run(run_all("bench", spec, store, work, [cond], echo_model()))
        wall = time.perf_counter() - t0
        stop.set()
        sampler.join()
        count = store.count()
        store.close()
    assert written == count == n
    report({"n": n, "runner": runner, "samples_mb": base - before_samples, "rss_before_run_mb": base,
            "peak_mb": peak[0], "growth_mb": peak[0] - base, "wall_s": wall, "ms_per_sample": 1000 * wall / n})


def run(sizes: tuple[int, ...] = (10_000, 30_000, 100_000), gather_sizes: tuple[int, ...] = (10_000, 30_000)) -> dict[str, Any]:
    rows = []
    for runner, ns in (("pool", sizes), ("gather", gather_sizes)):
        for n in ns:
            out = child(ours("_memory", "--n", str(n), "--runner", runner), timeout=3600)
            out["growth KiB/1k samples"] = 1024 * out["growth_mb"] / (n / 1000)
            rows.append(out)
            print(f"  {runner:<6} n={n:<7} growth {out['growth_mb']:.1f} MiB, {out['ms_per_sample']:.2f} ms/sample",
                  flush=True)
    cols = ["runner", "n", "samples_mb", "rss_before_run_mb", "peak_mb", "growth_mb", "growth KiB/1k samples",
            "ms_per_sample"]
    print(table(rows, cols))
    return {"rows": rows}
