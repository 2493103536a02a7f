"""inspect_ai doing the echo benchmark's work: N samples "Repeat the number i", ``mockllm/model`` answering
``FINAL ANSWER: i`` (with usage set, so no tokenizer download), ``match(numeric=True)`` scoring, default
logging. Runs in the separate inspect_ai venv (it does not import this project). Reports one JSON line.

    /work/venv-bench/bin/python benchmarks/inspect_echo.py --n 1000 --connections 8
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match
from inspect_ai.solver import generate


def echo(input, tools, tool_choice, config):  # noqa: ANN001, ANN201 - mockllm's custom_outputs signature
    text = input[-1].text
    number = text.split("number ", 1)[1].split(".", 1)[0]
    out = ModelOutput.from_content(model="mockllm", content=f"FINAL ANSWER: {number}")
    words = sum(len(m.text.split()) for m in input)
    out.usage = ModelUsage(input_tokens=words, output_tokens=3, total_tokens=words + 3)
    return out


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=1000)
    p.add_argument("--connections", type=int, default=8)
    args = p.parse_args()
    dataset = MemoryDataset([Sample(input=f"Repeat the number {i}. End with 'FINAL ANSWER: <n>'.", target=str(i),
                                    id=i) for i in range(args.n)])
    task = Task(dataset=dataset, solver=generate(), scorer=match(numeric=True))
    model = get_model("mockllm/model", custom_outputs=echo)
    with tempfile.TemporaryDirectory() as logs:
        t0, c0 = time.perf_counter(), time.process_time()
        result = inspect_eval(task, model=model, log_dir=logs, display="none", max_connections=args.connections)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    log = result[0]
    accuracy = log.results.scores[0].metrics["accuracy"].value if log.results else None
    print("BENCH-RESULT " + json.dumps({"framework": "inspect_ai", "n": args.n, "wall_s": wall, "cpu_s": cpu,
                                        "status": log.status, "accuracy": accuracy}), flush=True)


if __name__ == "__main__":
    main()
