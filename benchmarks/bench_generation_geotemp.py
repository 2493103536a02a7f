"""GeoTemp generation throughput at paper size: the full l1 × l2 grid of each time template.

    python benchmarks/bench_generation_geotemp.py            # the four templates, full grid each
    python benchmarks/bench_generation_geotemp.py --variants # plus the two injection variants and the probe
    python benchmarks/bench_generation_geotemp.py --size 20000

Prints wall and CPU seconds per task and in total (goal: the four templates, ≈ 400k prompts, in < 30 s).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tasks.geotemp.locations import locations, pair_count  # noqa: E402
from tasks.registry import get_task  # noqa: E402

TEMPLATES = ["geotemp.verification", "geotemp.time_time", "geotemp.time_place", "geotemp.time_time_place"]
EXTRA = ["geotemp.time_time_place.inject_tz", "geotemp.time_time_place.replace_city", "geotemp.tz_probe"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=None, help="items per task (default: the full grid)")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--variants", action="store_true", help="also the injection variants and the probe")
    args = p.parse_args(argv)
    names = TEMPLATES + (EXTRA if args.variants else [])
    print(f"{len(locations())} locations, grid {pair_count()} pairs per template")
    total_n, total_wall, total_cpu = 0, 0.0, 0.0
    for name in names:
        task = get_task(name)
        size = min(args.size or task.paper_size, task.paper_size)
        w0, c0 = time.perf_counter(), time.process_time()
        samples = task.generate(args.seed, size)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        total_n, total_wall, total_cpu = total_n + len(samples), total_wall + wall, total_cpu + cpu
        print(f"{name:40s} {len(samples):>8d} samples  wall {wall:6.2f} s  cpu {cpu:6.2f} s  "
              f"{len(samples) / max(wall, 1e-9):>9.0f} samples/s")
        del samples
    print(f"{'total':40s} {total_n:>8d} samples  wall {total_wall:6.2f} s  cpu {total_cpu:6.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
