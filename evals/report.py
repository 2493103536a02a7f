"""Reports of a run: the terminal table, ``results.json`` and the percent formats every report uses (``report.html``
is the viewer's run page: :mod:`evals.view.report`)."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from agents.secrets import redact_json
from evals.analysis import (
    ALL_TASKS,
    ANSWER_STATUSES,
    BASELINE_CONDITION,
    ConditionSummary,
    TaskComparison,
    breakdowns,
    compare,
    compare_runs,
    overall,
    summarise,
)
from evals.records import SampleResult

__all__ = ["ConditionSummary", "TaskComparison", "build_report", "compare", "pct", "print_table", "render_table",
           "signed_pct", "summarise", "write_results_json"]


def _missing(x: float | None) -> bool:
    return x is None or (isinstance(x, float) and not math.isfinite(x))


def pct(x: float | None) -> str:
    """A share as percent with one decimal (``0.705`` → ``70.5``); ``–`` when missing or not finite."""
    return "–" if _missing(x) else f"{100 * x:.1f}"  # type: ignore[operator]


def signed_pct(x: float | None) -> str:
    """A difference of shares in percentage points with its sign (``0.05`` → ``+5.0``); ``–`` when missing."""
    return "–" if _missing(x) else f"{100 * x:+.1f}"  # type: ignore[operator]


def status_shares(s: ConditionSummary) -> str:
    """``answered/hedged/unparsed/refused`` shares in whole percent, e.g. ``71/14/14/0``."""
    return "/".join(f"{100 * s.status_shares.get(k, 0.0):.0f}" for k in ANSWER_STATUSES)


def render_table(comparisons: list[TaskComparison], conditions: list[str], title: str = "",
                 baseline: str = BASELINE_CONDITION) -> Table:
    """Per task: answered samples n, accuracy [Wilson CI] per condition, gap vs ``baseline`` [bootstrap CI] with
    McNemar p, the answer-status shares per condition, tool calls per sample and samples ended in error. A task
    with errors is marked incomplete; errors are in neither n, accuracy nor the gap."""
    table = Table(title=title or "Tool-free gap", show_lines=False,
                  caption="n: answered samples (errors left out of accuracy and gap) · status %: answered/hedged/"
                          "unparsed/refused")
    table.add_column("task")
    table.add_column("n", justify="right")
    for c in conditions:
        table.add_column(f"{c} acc % [95% CI]", justify="right")
    others = [c for c in conditions if c != baseline]
    for c in others:
        table.add_column(f"gap {c} (pts) [95% CI] p", justify="right")
    for c in conditions:
        table.add_column(f"{c} status %", justify="right")
    table.add_column("tool calls/sample", justify="right")
    table.add_column("errors", justify="right")
    for comp in comparisons:
        present = [comp.conditions[c] for c in conditions if c in comp.conditions]
        ns = sorted({s.n for s in present})
        row = [comp.task + ("" if comp.complete else " (incomplete)"),
               " / ".join(str(s.n) for s in present) if len(ns) > 1 else str(ns[0] if ns else 0)]
        for c in conditions:
            s = comp.conditions.get(c)
            row.append(f"{pct(s.accuracy)} [{pct(s.ci[0])}, {pct(s.ci[1])}]" if s and s.n else "–")
        for c in others:
            g = (comp.gap or {}).get(c)
            row.append(f"{signed_pct(g['gap'])} [{signed_pct(g['ci'][0])}, {signed_pct(g['ci'][1])}] {g['mcnemar_p']:.2g}"
                       if g and g["n_paired"] else "–")
        for c in conditions:
            s = comp.conditions.get(c)
            row.append(status_shares(s) if s and s.n else "–")
        row.append(" / ".join(f"{s.tool_calls_per_sample:.1f}" for s in present))
        row.append(" / ".join(str(s.errors) for s in present))
        if comp.task == ALL_TASKS:
            table.add_section()
        table.add_row(*row)
    return table


def print_table(comparisons: list[TaskComparison], conditions: list[str], console: Console | None = None,
                title: str = "") -> None:
    (console or Console()).print(render_table(comparisons, conditions, title))


def build_report(results: list[SampleResult], conditions: list[str], meta: dict[str, Any],
                 baseline_results: list[SampleResult] | None = None) -> dict[str, Any]:
    """Everything ``results.json`` and ``report.html`` show."""
    tasks = compare(results, conditions, with_breakdowns=True)
    report: dict[str, Any] = {
        "meta": meta,
        "tasks": [c.model_dump() for c in tasks],
        "overall": overall(results, conditions).model_dump(),
        "breakdowns": breakdowns(results, conditions),
    }
    if baseline_results is not None:
        report["baseline_run"] = compare_runs(results, baseline_results)
    return report


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def write_text_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file renamed over it: a full disk or a kill leaves the old
    file (or none), never half of the new one."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_results_json(path: Path, report: dict[str, Any]) -> Path:
    """Write ``results.json`` from a :func:`build_report` dict."""
    write_text_atomic(Path(path), redact_json(_clean(report), indent=2))
    return Path(path)
