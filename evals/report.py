"""Reports of a run: the terminal table, ``results.json`` and the percent formats every report uses (``report.html``
is the viewer's run page: :mod:`evals.view.report`)."""

from __future__ import annotations

import io
import json
import math
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table

from agents.secrets import redact_json
from evals import funnel
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
from evals.run_report import report_of
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


def interval_text(point: float | None, lo: float | None, hi: float | None,
                  fmt: Callable[[float | None], str] = signed_pct) -> str:
    """``+30.0 [+10.0, +50.0]``: a point and its interval, each by ``fmt`` (``–`` where missing, so a gap
    without an interval reads ``+100.0 [–, –]``); every table, terminal and page prints gaps with it."""
    return f"{fmt(point)} [{fmt(lo)}, {fmt(hi)}]"


def p_text(p: float | None) -> str:
    """A p-value to two significant digits (``0.062``); ``–`` when missing."""
    return "–" if _missing(p) else f"{p:.2g}"


STATUS_ORDER = "/".join(ANSWER_STATUSES)


def status_shares(s: ConditionSummary) -> str:
    """Shares of the answer statuses in :data:`STATUS_ORDER` in whole percent, e.g. ``71/14/14/0/0/0``."""
    return "/".join(f"{100 * s.status_shares.get(k, 0.0):.0f}" for k in ANSWER_STATUSES)


def output_budget(s: ConditionSummary) -> str:
    """Output tokens per answered sample, mean (median), e.g. ``412 (380)``; ``–`` without answers."""
    per = s.output_tokens_per_sample
    return f"{per['mean']:.0f} ({per['median']:.0f})" if per else "–"


TABLE_LEVELS = 7
"""Layouts of the main table, widest first (:func:`render_table`)."""
TASK_MIN_WIDTH = 16
CONDITION_MIN_WIDTH = 9


def render_table(comparisons: list[TaskComparison], conditions: list[str], title: str = "",
                 baseline: str = BASELINE_CONDITION, width: int | None = None) -> Table:
    """Per task: answered samples n (items: each item's epochs averaged), accuracy [Wilson CI] per condition,
    gap vs ``baseline`` [bootstrap CI] with McNemar p, the answer-status shares per condition, output tokens per
    answered sample, the truncated share, tool calls per sample and samples ended in error. A task with errors
    is marked incomplete; errors are in neither n, accuracy nor the gap.

    The table fits ``width`` columns (None: no limit), leaving out or wrapping by priority: first the status
    shares and output tokens, then the truncated share and tool calls per sample, then intervals go under their
    values, then the errors column (the task still says incomplete), then task names wrap (after their dots, in
    the width the other columns leave), and last one row per task and condition (any number of conditions fits).
    The gap, its interval and p are never dropped or cut; the caption names what was left out (results.json and
    report.html have it all)."""
    names = max([cell_len(_label(c)) for c in comparisons] + [4])  # the task column's natural width
    wraps = max(0, max((cell_len(c) for c in conditions), default=0) - CONDITION_MIN_WIDTH)
    for level in range(TABLE_LEVELS):
        table = (_main_table if level < 6 else _long_table)(comparisons, conditions, title, baseline, level)
        # from level 5 task names (and in the long layout condition names) may wrap down to their minimum
        saved = 0 if level < 5 else max(0, names - TASK_MIN_WIDTH) + (wraps if level == 6 else 0)
        if width is None or _natural_width(table) - saved <= width:
            break
    if level == 5 and width is not None:  # task names wrap after their dots, in what the other columns leave
        table = _fit_task_names(
            lambda task_width: _main_table(comparisons, conditions, title, baseline, level, task_width),
            width, TASK_MIN_WIDTH)
    return table


def _fit_task_names(build: Callable[[int], Table], width: int, minimum: int) -> Table:
    """``build(task_width)`` with the task names broken after their dots to the width the other columns leave
    within ``width`` (at least ``minimum``), measured on the table built without names."""
    others = _natural_width(build(0)) - len("task")
    return build(max(minimum, width - others))


def _natural_width(table: Table) -> int:
    console = Console(width=10_000, file=io.StringIO())
    return Measurement.get(console, console.options, table).maximum


def _caption(comparisons: list[TaskComparison], conditions: list[str], statuses: bool, left_out: list[str]) -> str:
    return ("n: items answered (errors left out of accuracy and gap; truncated, blocked, refused and hedged answers "
            "are in n, never credited; with epochs, each item's epochs averaged: answers in results.json)"
            f"{' · status %: ' + STATUS_ORDER if statuses else ''} · out tokens: per answered sample, all its model "
            "calls (tools: up to --max-steps calls of up to --max-tokens each) · truncated: last call cut at the "
            "token limit\n"
            + (f"not shown at this width: {', '.join(left_out)} (in results.json, report.html)\n" if left_out else "")
            + escape(cached_tokens_line(comparisons, conditions))
            + "".join("\n" + escape(line) for line in cost_latency_lines(comparisons, conditions)))


def _task_cell(task: str, task_width: int | None) -> str:
    """A task's name; ``task_width`` breaks it after its dots to that width (0: no name, to measure the rest)."""
    return escape(task if task_width is None else dotted_lines(task, task_width) if task_width else "")


def _label(comp: TaskComparison, task_width: int | None = None) -> str:
    return _task_cell(comp.task, task_width) + ("" if comp.complete else " (incomplete)")


def _accuracy_cell(s: ConditionSummary | None, sep: str) -> str:
    return f"{pct(s.accuracy)}{sep}[{pct(s.ci[0])}, {pct(s.ci[1])}]" if s and s.n else "–"


def _main_table(comparisons: list[TaskComparison], conditions: list[str], title: str, baseline: str,
                level: int, task_width: int | None = None) -> Table:
    """The main table at one layout ``level`` (0: everything on one line each; see :func:`render_table`), task
    names broken after their dots to ``task_width`` (0: no names)."""
    statuses, tool_calls, stacked, errors, fold = level < 1, level < 2, level >= 3, level < 4, level >= 5
    others = [c for c in conditions if c != baseline]
    left_out = [name for name, kept in (("status %", statuses), ("out tokens/sample", statuses),
                                        ("truncated %", tool_calls), ("tool calls/sample", tool_calls),
                                        ("errors (see 'incomplete')", errors)) if not kept]
    sep = "\n" if stacked else " "
    table = Table(title=title or "Tool-free gap", show_lines=stacked,
                  caption=_caption(comparisons, conditions, statuses, left_out))
    table.add_column("task", no_wrap=not fold, overflow="fold",
                     min_width=TASK_MIN_WIDTH if fold and task_width != 0 else None)
    table.add_column("n", justify="right", no_wrap=True)
    for c in conditions:
        table.add_column(escape(f"{c}{sep}acc % [95% CI]"), justify="right", no_wrap=True)
    for c in others:
        table.add_column(escape(f"gap {c}{sep}(pts) [95% CI] p"), justify="right", no_wrap=True)
    if statuses:
        for c in conditions:
            table.add_column(escape(f"{c} status %"), justify="right", no_wrap=True)
    if statuses:
        table.add_column(f"out tokens{sep}mean (median)", justify="right", no_wrap=True)
    if tool_calls:
        table.add_column(f"truncated{sep}%", justify="right", no_wrap=True)
        table.add_column(f"tool calls{sep}/sample", justify="right", no_wrap=True)
    if errors:
        table.add_column("errors", justify="right", no_wrap=True)
    for comp in comparisons:
        present = [comp.conditions[c] for c in conditions if c in comp.conditions]
        ns = sorted({s.items or s.n for s in present})
        items = " / ".join(str(s.items or s.n) for s in present) if len(ns) > 1 else str(ns[0] if ns else 0)
        row = [_label(comp, task_width), items]
        row.extend(_accuracy_cell(comp.conditions.get(c), sep) for c in conditions)
        row.extend(_gap_cell(comp, c, sep) for c in others)
        if statuses:
            for c in conditions:
                s = comp.conditions.get(c)
                row.append(status_shares(s) if s and s.n else "–")
        if statuses:
            row.append(" / ".join(output_budget(s) for s in present))
        if tool_calls:
            row.append(" / ".join(pct(s.truncated_share) for s in present))
            row.append(" / ".join(f"{s.tool_calls_per_sample:.1f}" for s in present))
        if errors:
            row.append(" / ".join(str(s.errors) for s in present))
        if comp.task == ALL_TASKS:
            table.add_section()
        table.add_row(*row)
    return table


def _long_table(comparisons: list[TaskComparison], conditions: list[str], title: str, baseline: str,
                level: int) -> Table:
    """The narrowest layout: one row per task and condition (accuracy, and the gap vs ``baseline``)."""
    table = Table(title=title or "Tool-free gap", caption=_caption(
        comparisons, conditions, False,
        ["status %", "out tokens/sample", "truncated %", "tool calls/sample", "errors (see 'incomplete')"]))
    table.add_column("task", overflow="fold", min_width=TASK_MIN_WIDTH)
    table.add_column("condition", overflow="fold", min_width=CONDITION_MIN_WIDTH)
    table.add_column("n", justify="right", no_wrap=True)
    table.add_column("acc %\n[95% CI]", justify="right", no_wrap=True)
    table.add_column(escape(f"gap vs {baseline}\n(pts) [95% CI] p"), justify="right", no_wrap=True)
    for comp in comparisons:
        if comp.task == ALL_TASKS:
            table.add_section()
        present = [c for c in conditions if c in comp.conditions]
        for i, c in enumerate(present):
            s = comp.conditions[c]
            table.add_row(_label(comp) if i == 0 else "", escape(c), str(s.items or s.n), _accuracy_cell(s, "\n"),
                          "" if c == baseline else _gap_cell(comp, c, "\n"), end_section=i == len(present) - 1)
    return table


def _gap_cell(comp: TaskComparison, condition: str, sep: str) -> str:
    g = (comp.gap or {}).get(condition)
    if not g or not g["n_paired"]:
        return "–"
    gap, ci = interval_text(g["gap"], *g["ci"]).split(" ", 1)
    p = p_text(g["mcnemar_p"])
    return f"{gap} p {p}\n{ci}" if sep == "\n" else f"{gap} {ci} {p}"


def cached_tokens_line(comparisons: list[TaskComparison], conditions: list[str]) -> str:
    """Prompt tokens read from the provider's cache per condition, summed over the tasks, with their share of
    the input tokens, e.g. ``cached prompt tokens: intrinsic 0 (0 %), tools 41,200 (62 %)``."""
    parts = []
    for c in conditions:
        rows = [t.conditions[c] for t in comparisons if t.task != ALL_TASKS and c in t.conditions]
        cached, total = sum(s.cached_tokens for s in rows), sum(s.input_tokens for s in rows)
        parts.append(f"{c} {cached:,} ({100 * cached / total:.0f} %)" if total else f"{c} {cached:,}")
    return "cached prompt tokens: " + ", ".join(parts)


def fmt_usd(x: float | None) -> str:
    """Dollars with four significant digits (``$0.001234``); ``–`` when unknown."""
    return "–" if _missing(x) else f"${x:.4g}"


def cost_latency_lines(comparisons: list[TaskComparison], conditions: list[str],
                       baseline: str = BASELINE_CONDITION) -> list[str]:
    """The footer's latency and cost lines for all tasks (the ``all`` row, or the only task): per condition the
    p50 / p95 seconds, tokens and USD per answered sample, then USD per answer gained over ``baseline``."""
    pooled = [c for c in comparisons if c.task == ALL_TASKS] or (comparisons if len(comparisons) == 1 else [])
    if not pooled:
        return []
    comp = pooled[0]
    per = []
    for c in conditions:
        s = comp.conditions.get(c)
        if s is None or not s.n or s.latency_s is None:
            continue
        per.append(f"{c} p50 {s.latency_s['p50']:.2f} s / p95 {s.latency_s['p95']:.2f} s, "
                   f"{s.tokens_per_answered or 0:,.0f} tokens, {fmt_usd(s.cost_per_answered_usd)}")
    lines = ["per answered sample: " + " · ".join(per)] if per else []
    gained = [f"{c} {fmt_usd(g.get('cost_per_gained_usd'))}" for c, g in (comp.gap or {}).items() if g.get("n_paired")]
    if gained:
        lines.append(f"USD per answer gained over {baseline} (extra spend on paired items / net right answers "
                     f"gained; – when none gained or cost unknown): " + ", ".join(gained))
    return lines


def _rate(r: Rate, sep: str = " ") -> str:
    """Accuracy with right/n, or with its item count when it is not right/n (items with uneven epochs count equally)."""
    if not r.n:
        return "–"
    even = r.accuracy is not None and math.isclose(r.accuracy, r.correct / r.n, abs_tol=1e-12)
    count = f"({r.correct}/{r.n})" if even else f"({r.items} items)"
    return f"{pct(r.accuracy)}{sep}{count}"


def _disagree(u: ToolUse, sep: str = " ") -> str:
    f = u.fidelity
    return f"{f.disagree}/{f.checked}" + (f"{' · ' if sep == ' ' else sep}{f.not_comparable} n/c" if f.not_comparable else "")


def render_tool_use(comparisons: list[TaskComparison], baseline: str = BASELINE_CONDITION,
                    width: int | None = None) -> Table | None:
    """Per task and tool condition: samples that called a tool, accuracy with and without tool calls, the
    paired cells against ``baseline`` and answers that disagree with their tools; None without tool conditions.
    Past ``width`` columns its cells and headers go on several lines."""
    if not any(comp.tool_use for comp in comparisons):
        return None
    table = _tool_use_table(comparisons, baseline, compact=False)
    if width is not None and _natural_width(table) > width:
        table = _fit_task_names(
            lambda task_width: _tool_use_table(comparisons, baseline, compact=True, task_width=task_width),
            width, TASK_FOLD_MIN)
    return table


TASK_FOLD_MIN = 10
"""The narrowest the Tool use table's task column gets: a longer part of a name is folded inside it."""


def dotted_lines(name: str, width: int) -> str:
    """``name`` on lines of at most ``width`` characters, broken after its dots ("stbench.direction.completion"
    at 12: "stbench.", "direction.", "completion"); a part longer than ``width`` stays whole on its line."""
    lines: list[str] = []
    for part in re.findall(r"[^.]*\.|[^.]+$", name):
        if lines and len(lines[-1]) + len(part) <= width:
            lines[-1] += part
        else:
            lines.append(part)
    return "\n".join(lines)


def _tool_use_table(comparisons: list[TaskComparison], baseline: str, *, compact: bool,
                    task_width: int | None = None) -> Table:
    """The Tool use table; ``task_width`` breaks task names after their dots to that width (0: no names)."""
    sep, slash = ("\n", "/") if compact else (" ", " / ")
    table = Table(title="Tool use", box=box.SIMPLE_HEAD, caption=escape(
        "used: answered samples with a call to a tool they were offered (+k unknown: calls to tools not offered, "
        "counted apart) · acc: % right (right/n) with / without a tool call · with tools, "
        f"never tried: pairs with {baseline} gained / lost / same · disagree: answers matching no value their "
        "tools returned / answers checked (n/c: not comparable)"))
    table.add_column("task", overflow="fold", min_width=TASK_FOLD_MIN if task_width != 0 else None)
    table.add_column("condition", overflow="fold", min_width=6)
    headers = (("used", "acc\nwith\ntools", "acc\nwithout", "with\ntools\ng/l/s", "never\ntried\ng/l/s", "dis-\nagree")
               if compact else ("used", "acc with\ntools", "acc\nwithout", "with tools\ng/l/s", "never tried\ng/l/s",
                                "disagree"))
    for name in headers:
        table.add_column(name, justify="right", no_wrap=compact)
    for comp in comparisons:
        if comp.task == ALL_TASKS:
            table.add_section()
        for c, u in comp.tool_use.items():
            p = u.paired
            table.add_row(
                _task_cell(comp.task, task_width), escape(c),
                (f"{u.used_tools}/{u.n}{sep}{100 * u.used_share:.0f}%" if u.used_share is not None else "–")
                + (f"{sep}+{u.unknown_tool_calls} unknown" if u.unknown_tool_calls else ""),
                _rate(u.with_tools, sep), _rate(u.without_tools, sep),
                slash.join(map(str, (p.gained_with_tools, p.lost_despite_tools,
                                     p.same_with_tools_right + p.same_with_tools_wrong))) if p else "–",
                slash.join(map(str, (p.never_tried_gained, p.never_tried_lost,
                                     p.never_tried_same_right + p.never_tried_same_wrong))) if p else "–",
                _disagree(u, sep))
    return table


def funnel_lines(comparisons: list[TaskComparison]) -> list[str]:
    """The tool-use funnel of each tool condition, pooled over the tasks that declare their gold call: one line
    each (docs/tools.md); none when no result carries a funnel step."""
    pooled = next((c for c in comparisons if c.task == ALL_TASKS), comparisons[-1] if len(comparisons) == 1 else None)
    if pooled is None:
        return []
    lines = []
    for cond, use in pooled.tool_use.items():
        if use.funnel is not None:
            reasons = ", ".join(f"{k} {v}" for k, v in sorted(use.funnel.stopped.items(), key=lambda kv: -kv[1]))
            lines.append(f"funnel {cond}: {funnel.line(use.funnel)}" + (f" · stopped: {reasons}" if reasons else "")
                         + (f" · credited off the funnel: {use.funnel.credited_without_funnel}"
                            if use.funnel.credited_without_funnel else ""))
    return lines


def pair_text(key: str) -> str:
    """A ``pairwise`` key (``b vs a``) as the gap it holds: ``b − a``."""
    b, _, a = key.partition(" vs ")
    return f"{b} − {a}" if a else key


def pairwise_lines(comparisons: list[TaskComparison]) -> list[str]:
    """With three or more conditions, the pooled paired gap between every two non-baseline conditions: one line
    each (the table shows each against the baseline)."""
    pooled = next((c for c in comparisons if c.task == ALL_TASKS), None)
    if pooled is None or not pooled.pairwise:
        return []
    return [f"paired, all tasks: {pair} {100 * g['gap']:+.1f} points [{100 * g['ci'][0]:+.1f}, {100 * g['ci'][1]:+.1f}]"
            f" over {g['n_paired']} items, {g['gained']} gained / {g['lost']} lost, p {g['mcnemar_p']:.2g}"
            for pair, g in pooled.pairwise.items()]


def print_table(comparisons: list[TaskComparison], conditions: list[str], console: Console | None = None,
                title: str = "", baseline: str = BASELINE_CONDITION) -> None:
    """The comparison table, then the tool-use table when a condition offered tools (gaps against ``baseline``)."""
    console = console or Console()
    console.print(render_table(comparisons, conditions, title, baseline, width=console.width))
    tools = render_tool_use(comparisons, baseline, width=console.width)
    if tools is not None:
        console.print(tools)
    for line in [*funnel_lines(comparisons), *pairwise_lines(comparisons)]:  # after the tables, wrapped to width
        console.print(escape(line))


def build_report(results: list[SampleResult], conditions: list[str], meta: dict[str, Any],
                 baseline_results: list[SampleResult] | None = None,
                 samples: Mapping[str, Sample] | None = None, baseline: str = BASELINE_CONDITION) -> dict[str, Any]:
    """Everything ``results.json`` and ``report.html`` show, every gap against the condition ``baseline`` (in
    ``meta["baseline_condition"]``); ``samples`` (by id) let fidelity read option answers."""
    tasks = compare(results, conditions, baseline, with_breakdowns=True, samples=samples)
    report: dict[str, Any] = {
        "meta": {**meta, "baseline_condition": baseline},
        "tasks": [c.model_dump() for c in tasks],
        "overall": overall(results, conditions, baseline, samples=samples).model_dump(),
        "breakdowns": breakdowns(results, conditions, baseline),
    }
    if baseline_results is not None:
        report["baseline_run"] = compare_runs(results, baseline_results)
    return report


def report_baseline(run_dir: Path) -> str | None:
    """The baseline condition a run's ``results.json`` was written with (None without one)."""
    try:
        meta = json.loads((Path(run_dir) / "results.json").read_text()).get("meta") or {}
        return meta.get("baseline_condition")
    except (OSError, ValueError, AttributeError):
        return None


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
    """Write ``results.json`` from a :func:`build_report` dict (or a leaderboard's), through the typed, versioned
    :class:`evals.run_report.RunReport`."""
    write_text_atomic(Path(path), redact_json(report_of(_clean(report)).as_dict(), indent=2))
    return Path(path)
