"""Record a behaviour snapshot: every task's samples at a fixed size and a scripted run of every task and suite.

Used to prove a refactor changes no behaviour: record before, record after, then ``compare.py`` the two folders.
The scripted policy is a function of the messages only (a hash picks a reply shape: options, numbers, hedges,
refusals, tool calls with bad arguments), so two runs of unchanged code write identical files.

    python -m tests.snapshot.record OUT_DIR
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

SIZE = 30
SEED = 7
STBENCH_SAMPLE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "stbench-sample"
REPLIES = ["FINAL ANSWER: A", "FINAL ANSWER: 3", "FINAL ANSWER: yes", "FINAL ANSWER: 12.5 km", "FINAL ANSWER: N",
           "FINAL ANSWER: A or B", "I cannot determine this.", "FINAL ANSWER: 40.0, -73.0", "The answer is 2.",
           "FINAL ANSWER: Paris: UTC+1", "FINAL ANSWER: 14:30", "FINAL ANSWER: B"]


def policy(messages: list[BaseMessage], tool_names: list[str]) -> AIMessage | str:
    """A deterministic reply from the messages: a tool call (bad arguments) first in two of three tools samples."""
    digest = int(hashlib.sha256("\n".join(str(m.content) for m in messages).encode()).hexdigest(), 16)
    if tool_names and not any(isinstance(m, ToolMessage) for m in messages) and digest % 3:
        name = sorted(tool_names)[digest % len(tool_names)]
        return AIMessage("", tool_calls=[{"name": name, "args": {}, "id": f"call{digest % 1000}"}])
    return REPLIES[digest % len(REPLIES)]


def record_samples(out: Path) -> None:
    """Every registered task's samples (all splits) at SIZE items, one JSON file per task."""
    from tasks.registry import get_task, task_names

    folder = out / "samples"
    folder.mkdir(parents=True, exist_ok=True)
    for name in task_names():
        probe = get_task(name)
        task = (get_task(name, path=str(STBENCH_SAMPLE), kind=None) if getattr(probe, "dataset_option", False)
                else get_task(name, size=SIZE))
        rows: dict[str, Any] = {}
        for split in ("train", "dev", "test"):
            rows[split] = [s.model_dump(mode="json") for s in task.samples(split=split, seed=SEED)]
        (folder / f"{name}.json").write_text(json.dumps(rows, indent=1, sort_keys=True, default=str))


def record_runs(out: Path, run: Any) -> None:
    """A run of :func:`policy` (the ``scripted`` provider) over every task in both conditions, and each paper
    suite; ``run(argv)`` is the CLI."""
    common = ["--model", "scripted/tests.snapshot.record:policy", "--base-url", "http://127.0.0.1:9/v1", "--no-cache",
              "--condition", "intrinsic,tools", "--seed", str(SEED), "--export", "jsonl,csv"]
    codes = {"all": run([*common, "--tasks", "*", "--size", str(SIZE), "--dataset", str(STBENCH_SAMPLE),
                         "--output", str(out / "run-all")])}
    for suite in ("gpsbench-paper", "geotemp-paper", "stbench-paper", "gtr-paper"):
        codes[suite] = run([*common, "--suite", suite, "--size", "20", "--limit", "2",
                            "--output", str(out / f"run-{suite}")])
    (out / "exit_codes.json").write_text(json.dumps(codes, indent=1))


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    record_samples(out)
    from evals import compare

    record_runs(out, compare.main)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
