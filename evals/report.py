"""Aggregate stored results into per-task comparisons; print a table; write results.json."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from rich.console import Console
from rich.table import Table

from evals.records import SampleResult
from evals.stats import mcnemar_exact, paired_bootstrap_gap, wilson


class ConditionSummary(BaseModel):
    n: int
    correct: int
    accuracy: float
    ci: tuple[float, float]
    mean_score: float
    parse_failures: int
    errors: int
    mean_error: float | None = None
    error_unit: str | None = None
    tool_calls_per_sample: float = 0.0
    output_tokens: int = 0
    mean_latency_s: float = 0.0


class TaskComparison(BaseModel):
    task: str
    conditions: dict[str, ConditionSummary]
    gap: dict[str, Any] | None = None  # tools − intrinsic on the paired sample ids


def summarise(results: list[SampleResult]) -> ConditionSummary:
    n = len(results)
    correct = sum(1 for r in results if r.score and r.score.correct)
    errors = [r.score.error for r in results if r.score and r.score.error is not None]
    unit = next((r.score.error_unit for r in results if r.score and r.score.error_unit), None)
    return ConditionSummary(
        n=n, correct=correct, accuracy=correct / n if n else 0.0, ci=wilson(correct, n),
        mean_score=sum(r.score.value for r in results if r.score) / n if n else 0.0,
        parse_failures=sum(1 for r in results if r.score and r.score.parse_failed),
        errors=sum(1 for r in results if r.status == "error"),
        mean_error=sum(errors) / len(errors) if errors else None, error_unit=unit,
        tool_calls_per_sample=sum(r.tool_calls for r in results) / n if n else 0.0,
        output_tokens=sum(r.output_tokens for r in results),
        mean_latency_s=sum(r.latency_s for r in results) / n if n else 0.0,
    )


def compare(results: list[SampleResult], conditions: list[str], baseline: str = "intrinsic") -> list[TaskComparison]:
    """Per task: a summary per condition and, for each other condition, the paired gap against ``baseline``."""
    by_task: dict[str, dict[str, dict[str, SampleResult]]] = defaultdict(lambda: defaultdict(dict))
    for r in results:
        by_task[r.task][r.condition][f"{r.sample_id}#{r.epoch}"] = r
    out = []
    for task in sorted(by_task):
        conds = by_task[task]
        summary = {c: summarise(list(conds[c].values())) for c in conditions if c in conds}
        gap = None
        others = [c for c in conditions if c != baseline and c in conds]
        if baseline in conds and others:
            gap = {}
            for other in others:
                ids = sorted(set(conds[baseline]) & set(conds[other]))
                a = [float(bool(conds[baseline][i].score and conds[baseline][i].score.correct)) for i in ids]
                b = [float(bool(conds[other][i].score and conds[other][i].score.correct)) for i in ids]
                mean, lo, hi = paired_bootstrap_gap(a, b)
                gained = sum(1 for x, y in zip(a, b, strict=True) if y > x)
                lost = sum(1 for x, y in zip(a, b, strict=True) if x > y)
                gap[other] = {"n_paired": len(ids), "gap": mean, "ci": [lo, hi], "gained": gained, "lost": lost,
                              "mcnemar_p": mcnemar_exact(lost, gained)}
        out.append(TaskComparison(task=task, conditions=summary, gap=gap))
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def render_table(comparisons: list[TaskComparison], conditions: list[str], title: str = "") -> Table:
    table = Table(title=title or "Tool-free gap", show_lines=False)
    table.add_column("task")
    table.add_column("n", justify="right")
    for c in conditions:
        table.add_column(f"{c} acc % [95% CI]", justify="right")
    others = [c for c in conditions if c != "intrinsic"]
    for c in others:
        table.add_column(f"gap {c} (pts) [95% CI]", justify="right")
    table.add_column("parse fail", justify="right")
    for comp in comparisons:
        n = max((s.n for s in comp.conditions.values()), default=0)
        row = [comp.task, str(n)]
        for c in conditions:
            s = comp.conditions.get(c)
            row.append(f"{_pct(s.accuracy)} [{_pct(s.ci[0])}, {_pct(s.ci[1])}]" if s else "–")
        for c in others:
            g = (comp.gap or {}).get(c)
            row.append(f"{100 * g['gap']:+.1f} [{100 * g['ci'][0]:+.1f}, {100 * g['ci'][1]:+.1f}]" if g else "–")
        row.append(" / ".join(str(comp.conditions[c].parse_failures) for c in conditions if c in comp.conditions))
        table.add_row(*row)
    return table


def print_table(comparisons: list[TaskComparison], conditions: list[str], console: Console | None = None,
                title: str = "") -> None:
    (console or Console()).print(render_table(comparisons, conditions, title))


def write_results_json(path: Path, comparisons: list[TaskComparison], meta: dict[str, Any]) -> Path:
    path.write_text(json.dumps({"meta": meta, "tasks": [c.model_dump() for c in comparisons]}, indent=2))
    return path
