"""Benchmark 7: prompt tokens of the tools condition.

Side by side in one run, per task: the first tools-condition prompt as the embedded model's chat template renders
it, with each tool sent in LangChain's full form (the pydantic JSON schema of its arguments and the whole
docstring, what every tool sent before ``tools.make_tool`` built lean ones) and in the lean form the agent sends
now; tokens counted by the model's own tokenizer. With ``--runs BEFORE AFTER`` it also reads two run directories
of the same tasks in the tools condition and gives the model-dependent figures from their traces: input tokens
per tools sample (all model calls of a sample), prompt tokens the server had cached, accuracy.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from pathlib import Path
from typing import Any

FIXED_SUITE = ("gpsbench.distance", "gpsbench.bearing", "gpsbench.place_association", "geotemp.time_time_place",
               "geotemp.tz_probe", "stbench.direction", "gtr.next_spot")


def _full_form(tool: Any) -> dict[str, Any]:
    """A tool as LangChain sends a plain StructuredTool: full pydantic schema, the whole docstring."""
    from langchain_core.tools import StructuredTool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    plain = StructuredTool.from_function(func=tool.func, name=tool.name, description=(tool.func.__doc__ or "").strip(),
                                         args_schema=tool.args_schema)
    return convert_to_openai_tool(plain)


def prompt_tokens(tasks: tuple[str, ...]) -> list[dict[str, Any]]:
    """First-call prompt tokens per task, full vs lean tool form."""
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from llama_cpp import Llama

    from agents.llama_server import render_prompt
    from agents.local_model import ensure_model_file
    from evals.conditions import with_tools_note
    from tasks.registry import get_task
    from tools.registry import get_tools

    llm = Llama(model_path=str(ensure_model_file()), vocab_only=True, verbose=False)
    template = llm.metadata["tokenizer.chat_template"]

    def count(text: str) -> int:
        return len(llm.tokenize(text.encode(), add_bos=False, special=True))

    rows = []
    for name in tasks:
        task = get_task(name)
        sample = next(iter(task.samples(split="test", seed=42)))
        messages = [m.model_dump() for m in with_tools_note(sample.messages)]
        tools = get_tools(list(task.toolsets))
        full = count(render_prompt(template, messages, [_full_form(t) for t in tools]))
        lean = count(render_prompt(template, messages, [convert_to_openai_tool(t) for t in tools]))
        bare = count(render_prompt(template, messages, None))
        rows.append({"task": name, "tools": len(tools), "full": full, "lean": lean, "no_tools": bare,
                     "lean_over_full": round(lean / full, 3)})
    return rows


def run_figures(run_dir: Path) -> dict[str, dict[str, float]]:
    """Per task of a run's tools condition: samples, input/cached tokens per sample, accuracy, tool use."""
    out: dict[str, dict[str, float]] = {}
    with sqlite3.connect(f"file:{run_dir / 'run.sqlite'}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT task, correct, record FROM results WHERE condition = 'tools' AND status = 'ok'")
        acc: dict[str, list[tuple[int, dict[str, Any]]]] = defaultdict(list)
        for task, correct, record in rows:
            acc[task].append((int(correct or 0), json.loads(record)))
    for task, items in sorted(acc.items()):
        n = len(items)
        out[task] = {"n": n, "correct": sum(c for c, _ in items),
                     "input_tokens_per_sample": round(sum(r["input_tokens"] for _, r in items) / n, 1),
                     "cached_tokens_per_sample": round(sum(r.get("cached_tokens", 0) for _, r in items) / n, 1),
                     "used_tools": sum(1 for _, r in items if r.get("tool_calls", 0) > 0)}
    return out


def run(tasks: tuple[str, ...] = FIXED_SUITE, runs: tuple[Path, Path] | None = None) -> dict[str, Any]:
    rows = prompt_tokens(tasks)
    print(f"{'task':30s} {'tools':>5s} {'full':>6s} {'lean':>6s} {'no tools':>8s} {'lean/full':>9s}")
    for r in rows:
        print(f"{r['task']:30s} {r['tools']:5d} {r['full']:6d} {r['lean']:6d} {r['no_tools']:8d} {r['lean_over_full']:9.3f}")
    full, lean = sum(r["full"] for r in rows), sum(r["lean"] for r in rows)
    print(f"all tasks: lean / full = {lean / full:.3f}")
    out: dict[str, Any] = {"first_prompt": rows, "lean_over_full": round(lean / full, 3)}
    if runs is not None:
        before, after = run_figures(runs[0]), run_figures(runs[1])
        out["runs"] = {"before": {"dir": str(runs[0]), "tasks": before}, "after": {"dir": str(runs[1]), "tasks": after}}
        print(f"{'task':30s} {'n':>3s} {'in/sample before':>16s} {'after':>7s} {'ratio':>6s} {'cached after':>12s} "
              f"{'right before':>12s} {'after':>6s}")
        for task in sorted(before.keys() & after.keys()):
            b, a = before[task], after[task]
            print(f"{task:30s} {a['n']:3.0f} {b['input_tokens_per_sample']:16.0f} {a['input_tokens_per_sample']:7.0f} "
                  f"{a['input_tokens_per_sample'] / b['input_tokens_per_sample']:6.3f} "
                  f"{a['cached_tokens_per_sample'] / a['input_tokens_per_sample']:12.1%} "
                  f"{b['correct']:8.0f}/{b['n']:.0f} {a['correct']:4.0f}/{a['n']:.0f}")
        common = sorted(before.keys() & after.keys())
        # each task weighs the same, whatever its sample count in either run
        tb = sum(before[t]["input_tokens_per_sample"] for t in common)
        ta = sum(after[t]["input_tokens_per_sample"] for t in common)
        out["input_tokens_after_over_before"] = round(ta / tb, 3) if tb else None
        print(f"input tokens per tools sample (mean over {len(common)} tasks), after / before: "
              f"{out['input_tokens_after_over_before']}")
    return out
