"""Viewer speed on a large synthetic run (not run by CI).

Writes a run of N samples × 2 conditions (default 100,000 samples: 200,000 results with traces) through the
run store, then times the viewer's pages through ``Viewer.handle`` (no HTTP, no browser): the first sample
list (builds the in-memory index), warm list pages, filters, sorts, text search, a sample page, and the run
page's background summary (``evals.analysis``). Optionally exports a smaller run to static files.

    python benchmarks/bench_viewer.py                      # 100k samples in /tmp/geogap-bench-viewer
    python benchmarks/bench_viewer.py --samples 20000 --export-samples 2000
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agents.trace import TraceEvent
from evals.records import RunSpec, SampleResult
from evals.store import RunStore
from evals.view.app import Viewer
from evals.view.export import export
from tasks.records import Message, Parsed, Sample, Score

TASKS = [f"gpsbench.task{i:02d}" for i in range(17)]
CONTINENTS = ["AF", "AS", "EU", "NA", "SA", "OC"]


def make_run(run_dir: Path, n: int, seed: int = 0) -> float:
    """Write ``n`` samples answered in both conditions; returns the seconds it took."""
    t0 = time.perf_counter()
    rng = random.Random(seed)
    store = RunStore(run_dir)
    store.db.execute("PRAGMA synchronous=OFF")  # a throwaway benchmark store
    store.write_spec("bench", RunSpec(model="bench/synthetic", tasks=TASKS, conditions=["intrinsic", "tools"]))
    samples = []
    for i in range(n):
        task = TASKS[i % len(TASKS)]
        a, b = (rng.uniform(-60, 70), rng.uniform(-180, 180)), (rng.uniform(-60, 70), rng.uniform(-180, 180))
        prompt = (f"Point A is at ({a[0]:.4f}, {a[1]:.4f}) and point B is at ({b[0]:.4f}, {b[1]:.4f}) (latitude, "
                  "longitude in decimal degrees). What is the great-circle distance between them in kilometres? "
                  "Treat the Earth as a sphere of radius 6371 km.\nEnd your reply with the line FINAL ANSWER: X km.")
        samples.append(Sample(id=f"{task}/test/{i:06d}", task=task, messages=(
            Message(role="system", content="You are a careful geospatial analyst."), Message(role="user", content=prompt)),
            target={"km": round(rng.uniform(50, 19000), 3)}, payload={"points": [list(a), list(b)]},
            meta={"continent": rng.choice(CONTINENTS), "difficulty": rng.choice(["easy", "medium", "hard"])}))
    store.add_samples(samples)
    for s in samples:
        gold = s.target["km"]
        for cond, p_right in (("intrinsic", 0.3), ("tools", 0.8)):
            roll = rng.random()
            status = "error" if roll < 0.005 else "ok"
            parse_failed = status == "ok" and roll < 0.035
            right = status == "ok" and not parse_failed and rng.random() < p_right
            answer = gold if right else gold * rng.uniform(0.3, 1.7)
            text = ("Let me work this out step by step using the haversine formula. " * rng.randint(1, 4)
                    + ("I am not sure." if parse_failed else f"\nFINAL ANSWER: {answer:.1f} km"))
            start = time.time()
            trace = [TraceEvent(kind="model_call", start=start, latency_s=0.8, raw_text=text, input_tokens=180,
                                output_tokens=60, messages_in=[m.model_dump() for m in s.messages])]
            if cond == "tools":
                trace = [TraceEvent(kind="model_call", start=start, latency_s=0.4, raw_text="", input_tokens=420,
                                    output_tokens=30, tools_offered=["distance_km", "initial_bearing"]),
                         TraceEvent(kind="tool_call", start=start + 0.4, latency_s=0.001, tool="distance_km",
                                    args={"lat1": 1.0, "lon1": 2.0, "lat2": 3.0, "lon2": 4.0},
                                    result=f'{{"distance_km": {gold}}}', status="ok"),
                         trace[0]]
            store.add_result(SampleResult(
                run_id="bench", sample_id=s.id, task=s.task, condition=cond, model="bench/synthetic",
                final_text=text, parsed=Parsed.failure(text, "no number") if parse_failed else Parsed.success(text, answer),
                score=Score(correct=right, value=float(right), error=None if parse_failed else abs(answer - gold),
                            error_unit="km", parse_failed=parse_failed),
                trace=trace if status == "ok" else [], status=status, error="RuntimeError: 503" if status == "error" else None,
                latency_s=rng.uniform(0.5, 3.0), tool_calls=int(cond == "tools"), meta=dict(s.meta)))
    store.close()
    return time.perf_counter() - t0


def timed(fn: Callable[[], object], repeat: int = 1) -> float:
    """Median seconds of ``repeat`` calls."""
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "geogap-bench-viewer")
    ap.add_argument("--export-samples", type=int, default=0, help="also export a run of this many samples")
    ap.add_argument("--no-summary", action="store_true", help="skip waiting for the run summary")
    args = ap.parse_args()
    run_dir = args.dir / f"run-{args.samples}"
    if not (run_dir / "run.sqlite").exists():
        print(f"writing {args.samples:,} samples × 2 conditions to {run_dir} …", flush=True)
        print(f"  written in {make_run(run_dir, args.samples):.1f} s")
    size_mb = sum(p.stat().st_size for p in run_dir.iterdir()) / 1e6
    viewer = Viewer([run_dir], wait_s=0)
    rid = next(iter(viewer.runs))

    def get(path: str) -> Callable[[], object]:
        def call() -> object:
            r = viewer.handle(path)
            assert r.status == 200, (path, r.status, r.body[:300])
            return r
        return call

    base = f"/runs/{rid}/"
    sid = f"{TASKS[3]}/test/{3:06d}"
    rows = [
        ("first sample list (builds the index)", timed(get(base + "samples"))),
        ("sample list page 1 (warm)", timed(get(base + "samples"), 5)),
        ("sample list page 500 (warm)", timed(get(base + "samples?page=500"), 5)),
        ("filter gained with tools (first)", timed(get(base + "samples?outcome=gained"))),
        ("filter gained with tools (warm)", timed(get(base + "samples?outcome=gained&page=7"), 5)),
        ("filter task + lost (first)", timed(get(base + f"samples?task={TASKS[5]}&outcome=lost"))),
        ("sort by latency, descending (first)", timed(get(base + "samples?sort=-latency"))),
        ("sort by latency, page 40 (warm)", timed(get(base + "samples?sort=-latency&page=40"), 5)),
        ("text search 'I am not sure' (first)", timed(get(base + "samples?q=I+am+not+sure"))),
        ("text search, page 3 (cached)", timed(get(base + "samples?q=I+am+not+sure&page=3"), 5)),
        ("sample page with traces", timed(get(base + f"sample?id={sid}"), 5)),
        ("sample page with list position (gained)", timed(get(base + f"sample?id={sid}&l.outcome=gained"), 5)),
        ("run page, first response (summary in background)", timed(get(base))),
    ]
    if not args.no_summary:
        t0 = time.perf_counter()
        run = viewer.runs[rid]
        table_at = None
        while True:
            summary, busy, error = run.summary(wait_s=0.2)
            if summary is not None and table_at is None:
                table_at = time.perf_counter() - t0
            if not busy or error:
                break
        rows.append(("run summary: comparison table ready", table_at or 0.0))
        rows.append(("run summary: breakdowns and pooled row ready", time.perf_counter() - t0))
        rows.append(("run page (summary cached)", timed(get(base), 3)))
    print(f"\nviewer on {args.samples:,} samples ({2 * args.samples:,} results, {size_mb:,.0f} MB on disk)")
    for label, secs in rows:
        print(f"  {label:<52} {secs * 1000:>10,.1f} ms")
    if args.export_samples:
        small = args.dir / f"run-{args.export_samples}"
        if not (small / "run.sqlite").exists():
            make_run(small, args.export_samples, seed=1)
        out = args.dir / f"export-{args.export_samples}"
        shutil.rmtree(out, ignore_errors=True)
        t0 = time.perf_counter()
        export(Viewer([small]).runs, out)
        secs = time.perf_counter() - t0
        files = list(out.rglob("*.html"))
        mb = sum(p.stat().st_size for p in files) / 1e6
        print(f"\nstatic export of {args.export_samples:,} samples: {len(files):,} pages, {mb:,.0f} MB, {secs:.1f} s "
              f"({1000 * secs / len(files):.1f} ms per page)")


if __name__ == "__main__":
    main()
