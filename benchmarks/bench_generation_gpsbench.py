"""Generation throughput of the GPSBench family at paper size (17 tasks + the missing-data probe, 3,400 each).

Run from the repository root: ``python benchmarks/bench_generation_gpsbench.py [--size 3400] [--workers 1]``.
Prints per-task seconds, the one-off data loading, and the total wall time for all samples. Not run by CI.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

GPS_TASKS = (
    "format_conversion", "coordinate_transformation", "distance", "bearing", "interpolation", "polygon_area",
    "bounding_box", "route_geometry", "relative_position_pure", "place_association", "name_disambiguation",
    "relative_position_applied", "proximity", "route_analysis", "spatial_patterns", "boundary_analysis",
    "terrain_classification", "missing_data",
)


def _warm() -> float:
    """Load the shared data (cities, continent pools, name index) once; returns seconds."""
    t = time.perf_counter()
    from geocore.gazetteer import find_city
    from tasks.gpsbench.sampling import city_grid, city_vectors

    city_vectors()
    city_grid()
    find_city("Paris")
    return time.perf_counter() - t


def _run(names: list[str], size: int, seed: int) -> list[tuple[str, int, float]]:
    from tasks import get_task

    out = []
    for name in names:
        task = get_task(f"gpsbench.{name}", size=size)
        t = time.perf_counter()
        samples = task.generate(seed, size)  # type: ignore[attr-defined]
        out.append((name, len(samples), time.perf_counter() - t))
    return out


def _worker(names: list[str], size: int, seed: int) -> tuple[float, list[tuple[str, int, float]]]:
    return _warm(), _run(names, size, seed)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=3400)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--workers", type=int, default=1, help="processes (tasks are split between them)")
    args = p.parse_args()
    start = time.perf_counter()
    t_import = time.perf_counter()
    import tasks.gpsbench  # noqa: F401

    t_import = time.perf_counter() - t_import
    if args.workers <= 1:
        warm = _warm()
        rows = _run(list(GPS_TASKS), args.size, args.seed)
        warms = [warm]
    else:
        shares = [list(GPS_TASKS[i::args.workers]) for i in range(args.workers)]
        with ProcessPoolExecutor(args.workers) as pool:
            results = list(pool.map(_worker, shares, [args.size] * args.workers, [args.seed] * args.workers))
        warms = [w for w, _ in results]
        rows = [r for _, rs in results for r in rs]
    total = time.perf_counter() - start
    n = sum(r[1] for r in rows)
    for name, count, secs in rows:
        print(f"{name:28s} {count:6d} samples {secs:6.2f} s")
    print(f"imports {t_import:.2f} s; data loading {', '.join(f'{w:.2f}' for w in warms)} s")
    print(f"TOTAL {n} samples in {total:.2f} s wall ({args.workers} worker(s)), {n / total:,.0f} samples/s")


if __name__ == "__main__":
    main()
