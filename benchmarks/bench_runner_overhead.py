"""Per-sample framework overhead of the runner with a zero-latency scripted model (no network, no sleeps).

Runs N samples of gpsbench.distance through the real runner and run store (SQLite, WAL, one transaction per
result), in the intrinsic condition (1 model call) and the tools condition (2 model calls + 1 tool call), then
builds the reports (results.json, report.html, JSONL + CSV). The "bare model" line is the cost of the scripted
model's calls alone, so overhead = runner time − bare model time.

    python benchmarks/bench_runner_overhead.py            # N = 1000
    python benchmarks/bench_runner_overhead.py --n 200 --max-connections 8
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402

from agents.scripted import ScriptedChatModel  # noqa: E402
from evals.conditions import get_condition  # noqa: E402
from evals.export import export  # noqa: E402
from evals.pricing import PriceTable  # noqa: E402
from evals.records import RunSpec  # noqa: E402
from evals.report import build_report, write_results_json  # noqa: E402
from evals.runner import run_all  # noqa: E402
from evals.store import RunStore  # noqa: E402
from evals.view.report import write_report_html  # noqa: E402
from tasks import get_task  # noqa: E402

POINT = re.compile(r"\((-?\d+\.\d+), (-?\d+\.\d+)\)")


def policy(messages, tools):  # noqa: ANN001, ANN201
    """Intrinsic: a fixed guess. Tools: call distance_km on the prompt's points, then answer with its result."""
    if not tools:
        return "FINAL ANSWER: 5000 km"
    results = [m for m in messages if isinstance(m, ToolMessage)]
    if results:
        return f"FINAL ANSWER: {json.loads(results[-1].content)['distance_km']} km"
    prompt = next(m.content for m in messages if m.type == "human")
    (a1, o1), (a2, o2) = POINT.findall(prompt)[:2]
    return AIMessage("", tool_calls=[{"name": "distance_km", "id": "c", "args": {
        "lat1": float(a1), "lon1": float(o1), "lat2": float(a2), "lon2": float(o2)}}])


async def bare_model(n: int) -> float:
    model = ScriptedChatModel(script=policy)
    t0 = time.perf_counter()
    for _ in range(n):
        await model.ainvoke([HumanMessage("What is the distance? FINAL ANSWER")])
    return time.perf_counter() - t0


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=1000)
    p.add_argument("--max-connections", type=int, default=8)
    args = p.parse_args()
    t0 = time.perf_counter()
    task = get_task("gpsbench.distance", size=max(3400, int(args.n / 0.3) + 10))
    samples = task.samples(limit=args.n)
    gen_s = time.perf_counter() - t0
    assert len(samples) == args.n
    work = [(s, task) for s in samples]
    print(f"generated {args.n} samples in {gen_s:.2f} s; max_connections={args.max_connections}")
    bare = asyncio.run(bare_model(args.n))
    print(f"bare scripted model: {args.n} calls in {bare:.2f} s ({1000 * bare / args.n:.2f} ms/call)")
    with tempfile.TemporaryDirectory() as tmp:
        for cond_name in ("intrinsic", "tools"):
            spec = RunSpec(model="scripted/bench", tasks=[task.name], conditions=[cond_name], limit=args.n,
                           max_connections=args.max_connections)
            store = RunStore(Path(tmp) / cond_name)
            store.write_spec("bench", spec)
            store.add_samples(samples)
            t0 = time.perf_counter()
            written = asyncio.run(run_all("bench", spec, store, work, [get_condition(cond_name)],
                                          ScriptedChatModel(script=policy), prices=PriceTable()))
            wall = time.perf_counter() - t0
            calls = 1 if cond_name == "intrinsic" else 2
            overhead = (wall - calls * bare) / written
            print(f"{cond_name:<9} {written} samples in {wall:.2f} s: {1000 * wall / written:.2f} ms/sample, "
                  f"{1000 * overhead:.2f} ms/sample over the bare model ({calls} model call(s) per sample)")
            t0 = time.perf_counter()
            results = list(store.results(with_trace=False))
            report = build_report(results, [cond_name], {"run_id": "bench", "spec": spec.model_dump()})
            write_results_json(Path(tmp) / cond_name / "results.json", report)
            write_report_html(Path(tmp) / cond_name, report)
            export(store, ["jsonl", "csv"])
            print(f"{'':<9} reports (results.json, report.html, JSONL, CSV) in {time.perf_counter() - t0:.2f} s")
            store.close()


if __name__ == "__main__":
    main()
