"""Reports of a run: the terminal table, ``results.json`` and the percent formats every report uses (``report.html``
is the viewer's run page: :mod:`evals.view.report`)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from agents.secrets import redact_json
from evals.analysis import (
    ALL_TASKS,
    ANSWER_STATUSES,
    BASELINE_CONDITION,
    ConditionSummary,
    Rate,
    TaskComparison,
    ToolUse,
    breakdowns,
    compare,
    compare_runs,
    overall,
    summarise,
)
from evals.records import SampleResult
from tasks.records import Sample

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


STATUS_ORDER = "/".join(ANSWER_STATUSES)


def status_shares(s: ConditionSummary) -> str:
    """Shares of the answer statuses in :data:`STATUS_ORDER` in whole percent, e.g. ``71/14/14/0/0/0``."""
    return "/".join(f"{100 * s.status_shares.get(k, 0.0):.0f}" for k in ANSWER_STATUSES)


def output_budget(s: ConditionSummary) -> str:
    """Output tokens per answered sample, mean (median), e.g. ``412 (380)``; ``–`` without answers."""
    per = s.output_tokens_per_sample
    return f"{per['mean']:.0f} ({per['median']:.0f})" if per else "–"


def render_table(comparisons: list[TaskComparison], conditions: list[str], title: str = "",
                 baseline: str = BASELINE_CONDITION) -> Table:
    """Per task: answered samples n, accuracy [Wilson CI] per condition, gap vs ``baseline`` [bootstrap CI] with
    McNemar p, the answer-status shares per condition, tool calls per sample and samples ended in error. A task
    with errors is marked incomplete; errors are in neither n, accuracy nor the gap."""
    table = Table(title=title or "Tool-free gap", show_lines=False,
                  caption="n: answered samples (errors left out of accuracy and gap; truncated, blocked, refused and "
                          f"hedged answers are in n, never credited) · status %: {STATUS_ORDER} · output tokens per "
                          "answered sample, all its model calls (tools: up to --max-steps calls of up to --max-tokens "
                          f"each) · truncated: last call cut at the token limit\n"
                          f"{escape(cached_tokens_line(comparisons, conditions))}")
    table.add_column("task", no_wrap=True)
    table.add_column("n", justify="right")
    for c in conditions:
        table.add_column(escape(f"{c} acc % [95% CI]"), justify="right")
    others = [c for c in conditions if c != baseline]
    for c in others:
        table.add_column(escape(f"gap {c} (pts) [95% CI] p"), justify="right")
    for c in conditions:
        table.add_column(escape(f"{c} status %"), justify="right")
    table.add_column("out tokens/sample mean (median)", justify="right")
    table.add_column("truncated %", justify="right")
    table.add_column("tool calls/sample", justify="right")
    table.add_column("errors", justify="right")
    for comp in comparisons:
        present = [comp.conditions[c] for c in conditions if c in comp.conditions]
        ns = sorted({s.n for s in present})
        row = [escape(comp.task) + ("" if comp.complete else " (incomplete)"),
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
        row.append(" / ".join(output_budget(s) for s in present))
        row.append(" / ".join(pct(s.truncated_share) for s in present))
        row.append(" / ".join(f"{s.tool_calls_per_sample:.1f}" for s in present))
        row.append(" / ".join(str(s.errors) for s in present))
        if comp.task == ALL_TASKS:
            table.add_section()
        table.add_row(*row)
    return table


def cached_tokens_line(comparisons: list[TaskComparison], conditions: list[str]) -> str:
    """Prompt tokens read from the provider's cache per condition, summed over the tasks, with their share of
    the input tokens, e.g. ``cached prompt tokens: intrinsic 0 (0 %), tools 41,200 (62 %)``."""
    parts = []
    for c in conditions:
        rows = [t.conditions[c] for t in comparisons if t.task != ALL_TASKS and c in t.conditions]
        cached, total = sum(s.cached_tokens for s in rows), sum(s.input_tokens for s in rows)
        parts.append(f"{c} {cached:,} ({100 * cached / total:.0f} %)" if total else f"{c} {cached:,}")
    return "cached prompt tokens: " + ", ".join(parts)


def _rate(r: Rate) -> str:
    return f"{pct(r.accuracy)} ({r.correct}/{r.n})" if r.n else "–"


def _disagree(u: ToolUse) -> str:
    f = u.fidelity
    return f"{f.disagree}/{f.checked}" + (f" · {f.not_comparable} n/c" if f.not_comparable else "")


def render_tool_use(comparisons: list[TaskComparison], baseline: str = BASELINE_CONDITION) -> Table | None:
    """Per task and tool condition: samples that called a tool, accuracy with and without tool calls, the
    paired cells against ``baseline`` and answers that disagree with their tools; None without tool conditions."""
    if not any(comp.tool_use for comp in comparisons):
        return None
    table = Table(title="Tool use", box=box.SIMPLE_HEAD, caption=escape(
        "used: answered samples with a tool call · acc: % right (right/n) with / without a tool call · with tools, "
        f"never tried: pairs with {baseline} gained / lost / same · disagree: answers matching no value their "
        "tools returned / answers checked (n/c: not comparable)"))
    table.add_column("task", overflow="fold", min_width=10)
    table.add_column("condition", overflow="fold", min_width=6)
    for name in ("used", "acc with\ntools", "acc\nwithout", "with tools\ng/l/s", "never tried\ng/l/s", "disagree"):
        table.add_column(name, justify="right")
    for comp in comparisons:
        if comp.task == ALL_TASKS:
            table.add_section()
        for c, u in comp.tool_use.items():
            p = u.paired
            table.add_row(
                escape(comp.task), escape(c), f"{u.used_tools}/{u.n} {100 * u.used_share:.0f}%" if u.used_share is not None else "–",
                _rate(u.with_tools), _rate(u.without_tools),
                f"{p.gained_with_tools} / {p.lost_despite_tools} / {p.same_with_tools_right + p.same_with_tools_wrong}"
                if p else "–",
                f"{p.never_tried_gained} / {p.never_tried_lost} / {p.never_tried_same_right + p.never_tried_same_wrong}"
                if p else "–",
                _disagree(u))
    return table


def print_table(comparisons: list[TaskComparison], conditions: list[str], console: Console | None = None,
                title: str = "") -> None:
    """The comparison table, then the tool-use table when a condition offered tools."""
    console = console or Console()
    console.print(render_table(comparisons, conditions, title))
    tools = render_tool_use(comparisons)
    if tools is not None:
        console.print(tools)


def build_report(results: list[SampleResult], conditions: list[str], meta: dict[str, Any],
                 baseline_results: list[SampleResult] | None = None,
                 samples: Mapping[str, Sample] | None = None) -> dict[str, Any]:
    """Everything ``results.json`` and ``report.html`` show; ``samples`` (by id) let fidelity read option
    answers."""
    tasks = compare(results, conditions, with_breakdowns=True, samples=samples)
    report: dict[str, Any] = {
        "meta": meta,
        "tasks": [c.model_dump() for c in tasks],
        "overall": overall(results, conditions, samples=samples).model_dump(),
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
