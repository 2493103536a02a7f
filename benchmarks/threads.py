"""Benchmark 8: the job's wall time with 1 or 2 llama.cpp threads × 2, 4 or 8 slots, quiet and beside a busy neighbour.

Each trial runs ``python -m evals.compare`` (the embedded model, ``--no-cache`` so every call reaches the model)
with ``--local-threads T --local-slots S`` and times it from start to exit. The default trial is sized so that
the six quiet trials take under 10 minutes on 2 quiet cores: 8 plain ``gpsbench.bearing`` items in the intrinsic
condition with a 48-token answer budget (8 requests at once, about 1,650 prompt and 380 output tokens), enough
to fill 8 slots; ``--tasks quick --conditions intrinsic,tools`` times the main job itself (the quick suite, about
4-12 minutes a trial). Each row also gives the prompt and output tokens the trial's calls processed and their
rate over the wall time. "busy" starts a neighbour first: one process spinning on one core (``while True:
pass``), as another engineer's build or test would, and stops it after the trial. Beside each figure: the
1-minute load average just before the trial (neighbour not yet started) and the mean of the 1-minute load average
sampled every 5 s during it (the job's own load included). The machine is named with the figures; a shared
machine's "quiet" is only as quiet as its load says.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

from common import ROOT, table

SLICE = "gpsbench.bearing"
QUICK = "quick"
"""``--tasks quick``: the quick suite itself (the main job)."""
BUSY_LOOP = "while True: pass"


class LoadSampler:
    """Mean of the 1-minute load average, sampled every ``every_s`` seconds while it runs."""

    def __init__(self, every_s: float = 5.0) -> None:
        self.every_s = every_s
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self.samples.append(os.getloadavg()[0])

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def mean(self) -> float:
        return sum(self.samples) / len(self.samples) if self.samples else os.getloadavg()[0]


def call_tokens(out: str) -> tuple[int, int]:
    """Prompt tokens the server processed (cached ones left out) and output tokens, over a run's results."""
    prompt = output = 0
    with open(os.path.join(out, "results.jsonl"), encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            prompt += r["input_tokens"] - r.get("cached_tokens", 0)
            output += r["output_tokens"]
    return prompt, output


def trial(threads: int, slots: int, busy: bool, tasks: str, limit: int, max_tokens: int,
          conditions: str = "intrinsic") -> dict[str, Any]:
    """One timed job; returns its row."""
    load_before = os.getloadavg()[0]
    neighbour = subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) if busy else None
    try:
        with tempfile.TemporaryDirectory() as out, LoadSampler() as load:
            chosen = [] if tasks == QUICK else ["--tasks", tasks, "--limit", str(limit), "--max-tokens", str(max_tokens)]
            cmd = [sys.executable, "-m", "evals.compare", *chosen, "--condition", conditions, "--no-cache",
                   "--local-threads", str(threads), "--local-slots", str(slots), "--output", out]
            env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
            t0 = time.perf_counter()
            done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
            wall = time.perf_counter() - t0
            prompt, output = call_tokens(out) if done.returncode in (0, 3) else (0, 0)
    finally:
        if neighbour is not None:
            neighbour.kill()
            neighbour.wait()
    if done.returncode not in (0, 3):  # 3: some samples failed (still a timing); anything else did not measure
        raise RuntimeError(f"the job failed (exit {done.returncode}): {done.stderr[-2000:]}")
    row = {"neighbour": "busy" if busy else "quiet", "threads": threads, "slots": slots, "wall s": round(wall, 1),
           "exit": done.returncode, "prompt tok": prompt, "out tok": output,
           "tok/s": round((prompt + output) / wall, 1), "load before": round(load_before, 2), "load during": round(load.mean, 2)}
    print("  " + "  ".join(f"{k} {v}" for k, v in row.items()), flush=True)
    return row


def run(threads: str = "1,2", slots: str = "2,4,8", neighbours: str = "quiet,busy", tasks: str = SLICE,
        limit: int = 8, max_tokens: int = 48, conditions: str = "intrinsic") -> dict[str, Any]:
    rows = [trial(t, s, n == "busy", tasks, limit, max_tokens, conditions)
            for n in neighbours.split(",") for s in map(int, slots.split(",")) for t in map(int, threads.split(","))]
    print(table(rows, list(rows[0])))
    return {"tasks": tasks, "limit": limit, "max_tokens": max_tokens, "conditions": conditions,
            "cores": os.cpu_count(), "trials": rows}
