"""Speed and memory benchmarks: one entry point (not run by CI; figures and commands in benchmarks/README.md).

    python benchmarks/run.py overhead      # 1. per-sample framework overhead vs inspect_ai (mockllm)
    python benchmarks/run.py concurrency   # 2. 1 → 64 connections against a fixed-latency local endpoint
    python benchmarks/run.py generation    # 3. sample generation of every task family at paper size
    python benchmarks/run.py local         # 4. embedded model: 1 slot vs N slots; prompt cache
    python benchmarks/run.py memory        # 5. memory of a 100k-sample scripted run
    python benchmarks/run.py prompts       # 7. tools-condition prompt tokens, full vs lean tools [--runs A B]
    python benchmarks/run.py threads       # 8. the job with 1/2 threads × 2/4/8 slots, quiet and busy
    python benchmarks/run.py wait          # 10. llama.cpp threads sleeping at once vs spinning between steps
    python benchmarks/run.py warm          # 11. four requests sharing a long head, with and without the warm-up
    python benchmarks/run.py all --json benchmarks/results.json

Every figure is measured within one invocation (ratios, medians), so a noisy shared machine shifts both sides.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

import concurrency  # noqa: E402
import generation  # noqa: E402
import local_model  # noqa: E402
import memory  # noqa: E402
import overhead  # noqa: E402
import prefix_warm  # noqa: E402
import prompts  # noqa: E402
import threads  # noqa: E402
import wait_policy  # noqa: E402

BENCHMARKS = ("overhead", "concurrency", "generation", "local", "memory", "prompts", "threads", "wait", "warm")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python benchmarks/run.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in (*BENCHMARKS, "all"):
        s = sub.add_parser(name)
        s.add_argument("--json", type=Path, help="also write the figures to this JSON file")
        if name in ("overhead", "all"):
            s.add_argument("--n", type=int, default=1000, help="samples of the large overhead run")
            s.add_argument("--base-n", type=int, default=100, help="samples of the small overhead run")
            s.add_argument("--repeats", type=int, default=3)
            s.add_argument("--inspect-python", default="/work/venv-bench/bin/python",
                           help="Python of a venv with inspect-ai installed")
        if name in ("concurrency", "all"):
            s.add_argument("--samples", type=int, default=256)
            s.add_argument("--latency", type=float, default=0.05, help="endpoint latency in seconds")
            s.add_argument("--ray", action="store_true", help="also run the top concurrency on the Ray executor")
            s.add_argument("--ray-samples", type=int, default=1024, help="samples of the Ray comparison")
        if name in ("generation", "all"):
            s.add_argument("--families", default="", help="comma-separated families (default: all)")
        if name in ("local", "all"):
            s.add_argument("--prompts", type=int, default=4, help="requests sent at once")
            s.add_argument("--max-tokens", type=int, default=64)
            s.add_argument("--tool-samples", type=int, default=0, help="tools-condition samples of the cache check")
            s.add_argument("--slots", type=int, default=4, help="slots compared with one")
            s.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: half the cores)")
        if name in ("prompts", "all"):
            s.add_argument("--runs", type=Path, nargs=2, metavar=("BEFORE", "AFTER"),
                           help="two run directories of the same tools-condition tasks to compare")
        if name in ("threads", "all"):
            s.add_argument("--thread-counts", default="1,2", help="llama.cpp threads to try")
            s.add_argument("--slot-counts", default="2,4,8", help="slots to try")
            s.add_argument("--neighbours", default="quiet,busy", help="quiet, busy (one spinning process) or both")
            s.add_argument("--tasks", default=threads.SLICE, help="the tasks of each trial ('quick': the quick suite)")
            s.add_argument("--limit", type=int, default=8, help="samples per task")
            s.add_argument("--answer-tokens", type=int, default=48, help="--max-tokens of the job")
            s.add_argument("--conditions", default="intrinsic", help="the job's --condition")
        if name in ("wait", "all"):
            s.add_argument("--wait-threads", type=int, default=os.cpu_count() or 1, help="llama.cpp threads")
            s.add_argument("--tokens", type=int, default=60, help="tokens each reply writes")
            s.add_argument("--rounds", type=int, default=2, help="rounds over the three policies")
        if name in ("warm", "all"):
            s.add_argument("--warm-threads", type=int, default=os.cpu_count() or 1, help="llama.cpp threads")
            s.add_argument("--warm-slots", type=int, default=4, help="slots, and requests sent at once")
            s.add_argument("--warm-rounds", type=int, default=2, help="rounds over the two modes")
        if name in ("memory", "all"):
            s.add_argument("--sizes", default="10000,30000,100000")
            s.add_argument("--gather-sizes", default="10000,30000",
                           help="sizes for the pre-fix gather runner (empty: skip)")
    echo = sub.add_parser("_echo")  # children of the benchmarks above
    echo.add_argument("--n", type=int, required=True)
    echo.add_argument("--connections", type=int, default=8)
    mem = sub.add_parser("_memory")
    mem.add_argument("--n", type=int, required=True)
    mem.add_argument("--runner", choices=["pool", "gather"], default="pool")
    args = p.parse_args(argv)

    if args.cmd == "_echo":
        overhead.echo_child(args.n, args.connections)
        return 0
    if args.cmd == "_memory":
        memory.memory_child(args.n, args.runner)
        return 0
    figures: dict[str, object] = {"machine": {"python": platform.python_version(), "platform": platform.platform(),
                                              "cpus": os.cpu_count()},
                                  "command": " ".join(["python benchmarks/run.py", *(argv or sys.argv[1:])])}
    todo = BENCHMARKS if args.cmd == "all" else (args.cmd,)
    for name in todo:
        print(f"== {name}", flush=True)
        t0 = time.perf_counter()
        if name == "overhead":
            out = overhead.run(args.n, args.base_n, args.repeats, inspect_python=args.inspect_python)
        elif name == "concurrency":
            out = concurrency.run(args.samples, args.latency, ray=args.ray, ray_samples=args.ray_samples)
        elif name == "generation":
            out = generation.run(tuple(f for f in args.families.split(",") if f))
        elif name == "local":
            out = local_model.run(args.prompts, args.max_tokens, args.tool_samples, args.slots, args.threads)
        elif name == "threads":
            out = threads.run(args.thread_counts, args.slot_counts, args.neighbours, args.tasks, args.limit,
                              args.answer_tokens, args.conditions)
        elif name == "wait":
            out = wait_policy.run(args.wait_threads, args.tokens, args.rounds)
        elif name == "warm":
            out = prefix_warm.run(args.warm_threads, args.warm_slots, args.warm_rounds)
        elif name == "prompts":
            out = prompts.run(runs=tuple(args.runs) if args.runs else None)
        else:
            out = memory.run(tuple(int(x) for x in args.sizes.split(",") if x),
                             tuple(int(x) for x in args.gather_sizes.split(",") if x))
        out["seconds"] = round(time.perf_counter() - t0, 1)
        figures[name] = out
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
