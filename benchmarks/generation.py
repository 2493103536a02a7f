"""Benchmark 3: sample generation throughput of every task family at paper size.

Every registered task with a paper size is built at that size and generates all its items (every split) for
seed 42; per-family totals are reported, and the slowest tasks (longest time). The shared data each family loads
once (city tables, polygons, time-zone finder) is warmed by the first task of the family and counted in its time.
Tasks run in name order, so a variant (``.completion``, ``.styles``, ...) follows its base and reuses the items
the base drew (``tasks.base.shared_stream``): its time is rendering only, as in a suite that runs both. Wall and CPU
seconds are both reported: on a shared machine the CPU time of this process is the steadier figure.

Side by side with another checkout (``--baseline DIR``, e.g. a ``git worktree`` of an older commit): a second
process imports that checkout's tasks, and the two generate each task in turn (the baseline first), so both
see the same machine load; the table then gives both times and the speed-up.

    python benchmarks/generation.py [--families stbench,gtr] [--baseline ../geogap-before]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import IO, Any

from common import RESULT_PREFIX, report, table

COLUMNS = ("samples", "s", "cpu s")


def _paused() -> AbstractContextManager[Any]:
    """The collector paused as ``samples()`` builds (``tasks.base.gc_paused``; an older checkout has none)."""
    from tasks import base

    pause = getattr(base, "gc_paused", None)
    return pause() if pause else nullcontext()


def _generate(name: str) -> dict[str, Any]:
    """Task ``name`` at its paper size: every item for seed 42, timed."""
    from tasks.registry import get_task

    task: Any = get_task(name, size=get_task(name).paper_size)  # type: ignore[attr-defined]
    t0, c0 = time.perf_counter(), time.process_time()
    with _paused():
        count = len(task.generate(42, task.size))
    return {"samples": count, "s": time.perf_counter() - t0, "cpu s": time.process_time() - c0}


def _paper_tasks(families: tuple[str, ...]) -> dict[str, Any]:
    from tasks.registry import get_task, task_names

    out = {}
    for name in task_names():
        paper = getattr(get_task(name), "paper_size", None)
        if paper and (not families or name.split(".", 1)[0] in families):
            out[name] = get_task(name, size=paper)
    return out


def _all_at_once(families: tuple[str, ...]) -> None:
    """Every task at once through ``tasks.build.build_samples`` (all CPUs: forked workers beside this one), in this fresh
    process: one JSON line with wall and CPU seconds (this process and its workers)."""
    import resource

    from tasks.build import build_samples, usable_cpus

    tasks = _paper_tasks(families)
    t0, c0 = time.perf_counter(), time.process_time()
    built = build_samples(tasks, split=None, seed=42)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    report({"samples": sum(map(len, built.values())), "s": wall, "cpu s": cpu + children.ru_utime + children.ru_stime,
            "cpus": usable_cpus()})


def all_at_once(families: tuple[str, ...] = ()) -> dict[str, Any]:
    """Run :func:`_all_at_once` in a fresh process (cold caches, as the task-by-task pass started)."""
    cmd = [sys.executable, __file__, "--all-at-once", "--families", ",".join(families)]
    out = subprocess.run(cmd, cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True, check=True)
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith(RESULT_PREFIX))
    result: dict[str, Any] = json.loads(line[len(RESULT_PREFIX):])
    return result


def _worker() -> None:
    """The baseline side: generate each task named on stdin, answering one JSON line per task."""
    for line in sys.stdin:
        report(_generate(line.strip()))


class _Baseline:
    """A worker process on another checkout (its tasks first on the path, this file's code)."""

    def __init__(self, root: Path) -> None:
        env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{Path(__file__).parent}"}
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker"], cwd=root, env=env, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def generate(self, name: str) -> dict[str, Any]:
        stdin, stdout = self._pipes()
        stdin.write(name + "\n")
        stdin.flush()
        for line in stdout:  # anything else the tasks print is skipped
            if line.startswith(RESULT_PREFIX):
                result: dict[str, Any] = json.loads(line[len(RESULT_PREFIX):])
                return result
        raise RuntimeError(f"the baseline worker stopped at {name} (exit {self.proc.wait()})")

    def close(self) -> None:
        self._pipes()[0].close()
        self.proc.wait()

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        return self.proc.stdin, self.proc.stdout


def _rate(row: dict[str, Any], prefix: str = "") -> None:
    row[f"{prefix}samples/s"] = row[f"{prefix}samples"] / row[f"{prefix}s"]


def run(families: tuple[str, ...] = (), slowest: int = 5, baseline: Path | None = None) -> dict[str, Any]:
    from tasks.registry import get_task, task_names

    before = _Baseline(baseline) if baseline else None
    keys = COLUMNS if before is None else (*COLUMNS, *(f"before {c}" for c in COLUMNS))
    per_task: list[dict[str, Any]] = []
    try:
        for name in task_names():
            family = name.split(".", 1)[0]
            if families and family not in families:
                continue
            if not getattr(get_task(name), "paper_size", None):
                print(f"  {name}: no paper size (a loader of official files), skipped", flush=True)
                continue
            row: dict[str, Any] = {"task": name, "family": family}
            if before is not None:
                row.update({f"before {k}": v for k, v in before.generate(name).items()})
            row.update(_generate(name))
            per_task.append(row)
            line = f"  {name:<48} {row['samples']:>7} samples {row['s']:7.2f} s ({row['cpu s']:6.2f} s CPU)"
            if before is not None:
                line += f", before {row['before s']:7.2f} s ({row['before cpu s']:6.2f} s CPU)"
            print(line, flush=True)
    finally:
        if before is not None:
            before.close()
    fam: dict[str, dict[str, Any]] = defaultdict(lambda: dict.fromkeys(("tasks", *keys), 0))
    for r in per_task:
        fam[r["family"]]["tasks"] += 1
        for key in keys:
            fam[r["family"]][key] += r[key]
    rows = [{"family": k, **v} for k, v in fam.items()]
    rows.append({"family": "all", **{key: sum(r[key] for r in rows) for key in ("tasks", *keys)}})
    columns = ["family", "tasks", "samples", "s", "cpu s", "samples/s"]
    for row in [*rows, *per_task]:
        _rate(row)
        if before is not None:
            _rate(row, "before ")
            row["speed-up"] = row["before s"] / row["s"]
            row["cpu speed-up"] = row["before cpu s"] / row["cpu s"]
    if before is not None:
        columns = ["family", "tasks", "samples", "before s", "s", "before cpu s", "cpu s", "before samples/s",
                   "samples/s", "speed-up", "cpu speed-up"]
    print(table(rows, columns))
    slow = sorted(per_task, key=lambda r: -r["s"])[:slowest]
    print("slowest tasks (longest wall time):\n" + table(slow, ["task", *columns[2:]]))
    at_once = all_at_once(families)
    print(f"all at once (tasks.build.build_samples, {at_once['cpus']} CPUs, fresh process): {at_once['samples']} "
          f"samples in {at_once['s']:.1f} s ({at_once['cpu s']:.1f} s CPU with its workers); one task after "
          f"another above: {rows[-1]['s']:.1f} s")
    return {"families": rows, "tasks": per_task, "all_at_once": at_once}


if __name__ == "__main__":
    sys.path[:0] = [str(Path(__file__).resolve().parent.parent)] if "--worker" not in sys.argv else []
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--families", default="", help="comma-separated families (default: all)")
    p.add_argument("--baseline", type=Path, help="another checkout, measured side by side")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--all-at-once", action="store_true", help="only the all-at-once build, in this process")
    args = p.parse_args()
    families = tuple(f for f in args.families.split(",") if f)
    if args.worker:
        _worker()
    elif args.all_at_once:
        _all_at_once(families)
    else:
        run(families, baseline=args.baseline)
