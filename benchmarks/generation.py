"""Benchmark 3: sample generation throughput of every task family at paper size.

Every registered task with a paper size is built at that size and generates all its items (every split) for
seed 42; per-family totals are reported, and the slowest tasks. The shared data each family loads once (city
tables, polygons, time-zone finder) is warmed by the first task of the family and counted in its time. Tasks run
in name order, so a variant (``.completion``, ``.styles``, ...) follows its base and reuses the items the base
drew (``tasks.base.shared_stream``): its time is rendering only, as in a suite that runs both. Wall and CPU
seconds are both reported: on a shared machine the CPU time of this process is the steadier figure.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

from common import table

from tasks.base import gc_paused


def _generate_all(task: Any) -> int:
    if hasattr(task, "generate") and getattr(task, "size", None):
        with gc_paused():  # as ``samples()`` builds them
            return len(task.generate(42, task.size))
    return sum(len(task.samples(split=split, seed=42)) for split in ("train", "dev", "test"))


def run(families: tuple[str, ...] = (), slowest: int = 5) -> dict[str, Any]:
    from tasks.registry import get_task, task_names

    per_task: list[dict[str, Any]] = []
    for name in task_names():
        family = name.split(".", 1)[0]
        if families and family not in families:
            continue
        paper = getattr(get_task(name), "paper_size", None)
        if not paper:
            print(f"  {name}: no paper size (a loader of official files), skipped", flush=True)
            continue
        task = get_task(name, size=paper)
        t0, c0 = time.perf_counter(), time.process_time()
        count = _generate_all(task)
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        per_task.append({"task": name, "family": family, "samples": count, "s": dt, "cpu s": cpu,
                         "samples/s": count / dt})
        print(f"  {name:<48} {count:>7} samples {dt:7.2f} s ({cpu:6.2f} s CPU) {count / dt:9.0f}/s", flush=True)
    fam: dict[str, dict[str, Any]] = defaultdict(lambda: {"tasks": 0, "samples": 0, "s": 0.0, "cpu s": 0.0})
    for r in per_task:
        f = fam[r["family"]]
        f["tasks"] += 1
        for key in ("samples", "s", "cpu s"):
            f[key] += r[key]
    rows = [{"family": k, **v, "samples/s": v["samples"] / v["s"]} for k, v in fam.items()]
    rows.append({"family": "all", **{key: sum(r[key] for r in rows) for key in ("tasks", "samples", "s", "cpu s")}})
    rows[-1]["samples/s"] = rows[-1]["samples"] / rows[-1]["s"]
    print(table(rows, ["family", "tasks", "samples", "s", "cpu s", "samples/s"]))
    slow = sorted(per_task, key=lambda r: r["samples/s"])[:slowest]
    print("slowest tasks:\n" + table(slow, ["task", "samples", "s", "cpu s", "samples/s"]))
    return {"families": rows, "tasks": per_task}
