"""The leaderboard of several runs on the same items (several models in one command, or a run and its
``--baseline``): per model × task, each condition's accuracy, the paired gap against ``intrinsic`` with its
interval, tool adoption, the shares of answers by status and the cost; and, for every two models, the
difference of their gaps with a paired interval.

Per model and task the figures are :func:`evals.analysis.compare`'s (the same numbers as that run's own table).
The difference of two models' gaps is paired over the items both models answered in both conditions: item i's
gap is the mean over its epochs of (compared − baseline) correctness, and the percentile bootstrap
(:func:`evals.stats.paired_bootstrap_gap`) resamples items, so epochs of one item stay together.

Statuses are read generically: a result's status is its own (``error``, ``not_applicable`` and any other a
runner records) or, for an answered result, its answer status (``answered``, ``hedged``, ``unparsed``,
``refused``, and any later one such as ``truncated``); shares are over the results that are neither errors nor
not applicable.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from evals.analysis import ALL_TASKS, BASELINE_CONDITION, answer_status, compare, overall
from evals.records import SampleResult
from evals.report import interval_text, p_text, pair_text, pct, report_baseline
from evals.run_reader import RunReader
from evals.stats import paired_bootstrap_gap

NOT_SHARED = ("error", "not_applicable")  # results that are no answer: outside the status shares
SHOWN_STATUSES = ("truncated", "hedged", "unlocated")  # the shares the terminal and the pages show beside the gap
SHORT_STATUS = {"truncated": "trunc", "unlocated": "unloc"}  # column heads where space is short


@dataclass(frozen=True)
class Entry:
    """One run of the leaderboard: its label (the model, made unique), directory, conditions and results, and
    whether every selected (sample, condition, epoch) has a result that is not an error."""

    label: str
    model: str
    run_dir: Path
    conditions: list[str]
    results: list[SampleResult]
    complete: bool
    dataset_hash: str | None = None
    baseline_condition: str | None = None


def read_entry(run_dir: Path, label: str | None = None) -> Entry:
    """The leaderboard entry of a stored run (its spec's conditions; complete when each of its samples has a
    result in every condition and epoch and none ended in error)."""
    reader = RunReader(run_dir)
    stored = reader.read_spec()
    if stored is None:
        raise ValueError(f"{run_dir}: the run has not written its spec")
    spec = stored.spec
    results = [r for r in reader.results(with_trace=False) if r.condition in spec.conditions]
    expected = reader.count("samples") * len(spec.conditions) * spec.epochs
    complete = len(results) == expected and not any(r.status == "error" for r in results)
    return Entry(label or spec.model, spec.model, Path(run_dir), list(spec.conditions), results, complete,
                 spec.dataset_hash, report_baseline(Path(run_dir)))


def unique_labels(names: Sequence[str], dirs: Sequence[Path]) -> list[str]:
    """Each run's model, with its directory's name added where two runs share a model."""
    counts = Counter(names)
    return [n if counts[n] == 1 else f"{n} ({d.name})" for n, d in zip(names, dirs, strict=True)]


def status_shares(results: Iterable[SampleResult]) -> dict[str, float]:
    """Share of each status among the results that are neither errors nor not applicable (see the module)."""
    counts = Counter(r.status if r.status != "ok" else answer_status(r) for r in results if r.status not in NOT_SHARED)
    n = sum(counts.values())
    return {k: v / n for k, v in sorted(counts.items())} if n else {}


def _cost(results: Sequence[SampleResult]) -> float | None:
    costs = [r.cost_usd for r in results if r.status != "not_applicable"]
    return None if any(c is None for c in costs) else sum(c or 0.0 for c in costs)


def _rows(entry: Entry, conditions: list[str], baseline: str) -> list[dict[str, Any]]:
    """Per task (and all tasks pooled): per condition accuracy and statuses, per compared condition the gap."""
    by_task: dict[str, list[SampleResult]] = defaultdict(list)
    for r in entry.results:
        by_task[r.task].append(r)
    comparisons = compare(entry.results, conditions, baseline)
    if len(comparisons) > 1:
        comparisons.append(overall(entry.results, conditions, baseline))
    rows = []
    for comp in comparisons:
        rs = entry.results if comp.task == ALL_TASKS else by_task[comp.task]
        per_cond: dict[str, dict[str, Any]] = {}
        for c in conditions:
            s = comp.conditions.get(c)
            mine = [r for r in rs if r.condition == c]
            use = comp.tool_use.get(c)
            per_cond[c] = {
                "n": (s.items or s.n) if s else 0, "answers": s.n if s else 0, "accuracy": s.accuracy if s and s.n else None,
                "ci": list(s.ci) if s and s.n else None, "errors": s.errors if s else 0,
                "statuses": status_shares(mine), "cost_usd": _cost(mine),
                "tool_adoption": use.used_share if use else None,
            }
        rows.append({"model": entry.label, "task": comp.task, "complete": comp.complete and entry.complete,
                     "conditions": per_cond, "gap": {c: g for c, g in (comp.gap or {}).items()},
                     "pairwise": dict(comp.pairwise or {}), "cost_usd": _cost(rs)})
    return rows


def item_gaps(results: Iterable[SampleResult], baseline: str, condition: str) -> dict[tuple[str, str], float]:
    """Per item (task, sample id): the mean over its epochs answered in both conditions of (``condition`` −
    ``baseline``) correctness; items with no such epoch are left out."""
    cells: dict[tuple[str, str, int], dict[str, SampleResult]] = defaultdict(dict)
    for r in results:
        if r.condition in (baseline, condition):
            cells[(r.task, r.sample_id, r.epoch)][r.condition] = r
    diffs: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (task, sid, _), pair in cells.items():
        if len(pair) == 2 and all(r.status == "ok" for r in pair.values()):
            right = [float(bool((score := pair[c].score) and score.correct)) for c in (baseline, condition)]
            diffs[(task, sid)].append(right[1] - right[0])
    return {k: sum(v) / len(v) for k, v in diffs.items()}


def gap_difference(a: dict[tuple[str, str], float], b: dict[tuple[str, str], float],
                   task: str | None = None) -> dict[str, Any]:
    """Gap of A − gap of B over the items both have (of ``task``, or all), with its paired bootstrap interval."""
    keys = sorted(k for k in a.keys() & b.keys() if task is None or k[0] == task)
    mean, lo, hi = paired_bootstrap_gap([b[k] for k in keys], [a[k] for k in keys])
    return {"n_items": len(keys), "difference": mean if keys else None, "ci": [lo, hi] if keys else [None, None]}


def build_leaderboard(entries: Sequence[Entry], baseline: str | None = None) -> dict[str, Any]:
    """The leaderboard of ``entries`` (JSON-ready; intervals not finite are None when written), gaps against
    ``baseline`` (default: the runs' own ``--baseline-condition`` when they share one, else intrinsic, else the
    first common condition)."""
    common = [c for c in entries[0].conditions if all(c in e.conditions for e in entries)] if entries else []
    named = {e.baseline_condition for e in entries}
    if baseline is None and len(named) == 1 and (only := named.pop()) in common:
        baseline = only
    if baseline is None or baseline not in common:
        baseline = BASELINE_CONDITION if BASELINE_CONDITION in common else (common or [BASELINE_CONDITION])[0]
    compared = [c for c in common if c != baseline]
    rows = [row for e in entries for row in _rows(e, common, baseline)]
    tasks = sorted({r["task"] for r in rows if r["task"] != ALL_TASKS})
    differences = []
    for c in compared:
        gaps = {e.label: item_gaps(e.results, baseline, c) for e in entries}
        for first, second in combinations(entries, 2):
            for task in [*tasks, *([ALL_TASKS] if len(tasks) > 1 else [])]:
                d = gap_difference(gaps[first.label], gaps[second.label], None if task == ALL_TASKS else task)
                differences.append({"a": first.label, "b": second.label, "task": task, "condition": c, **d})
    return {
        "models": [{"label": e.label, "model": e.model, "run_dir": str(e.run_dir), "complete": e.complete,
                    "cost_usd": _cost(e.results), "dataset_hash": e.dataset_hash} for e in entries],
        "same_items": len({e.dataset_hash for e in entries}) == 1,
        "baseline": baseline, "compared": compared, "conditions": common, "tasks": tasks, "rows": rows,
        "differences": differences,
    }


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and math.isfinite(x)


def fmt_gap(g: dict[str, Any] | None) -> str:
    """``+12.5 [+3.0, +20.0]`` in points (:func:`evals.report.interval_text`: ``[–, –]`` without an interval);
    ``–`` without pairs."""
    if not g or not g.get("n_paired") or not _finite(g.get("gap")):
        return "–"
    lo, hi = (g.get("ci") or [None, None])[:2]
    return interval_text(g["gap"], lo, hi)


def fmt_difference(d: dict[str, Any]) -> str:
    """A difference of gaps in points with its interval, as :func:`fmt_gap`."""
    return fmt_gap({"n_paired": d["n_items"], "gap": d["difference"], "ci": d["ci"]})


def fmt_cost(cost: float | None) -> str:
    return "–" if cost is None else f"${cost:.4f}" if cost < 100 else f"${cost:,.0f}"


def short_task(task: str) -> str:
    return "all tasks" if task == ALL_TASKS else task


def row_cells(row: dict[str, Any], baseline: str, condition: str) -> list[str]:
    """One leaderboard row as text: baseline and compared accuracy, gap, adoption, status shares, cost."""
    base, comp = row["conditions"].get(baseline, {}), row["conditions"].get(condition, {})
    adoption = comp.get("tool_adoption")
    shares = [f"{pct(base.get('statuses', {}).get(s, 0.0) if base.get('statuses') else None)}/"
              f"{pct(comp.get('statuses', {}).get(s, 0.0) if comp.get('statuses') else None)}" for s in SHOWN_STATUSES]
    return [pct(base.get("accuracy")), pct(comp.get("accuracy")), fmt_gap(row["gap"].get(condition)),
            "–" if adoption is None else f"{100 * adoption:.0f}", *shares, fmt_cost(row["cost_usd"])]


HEADERS = ["acc {b} %", "acc {c} %", "gap (pts) [95% CI]", "tool use %",
           *(f"{SHORT_STATUS.get(s, s)} % b/c" for s in SHOWN_STATUSES), "cost"]

def pairwise_rows(board: dict[str, Any], label: str | None = None) -> list[list[str]]:
    """Per model (or only ``label``), task and pair of compared conditions (``b vs a``, neither the baseline): model,
    task, ``b − a``, items and the paired gap with its interval; empty when the runs share fewer than two compared
    conditions."""
    return [[r["model"], short_task(r["task"]), pair_text(key), str(g.get("n_paired", 0)), fmt_gap(g)]
            for r in board["rows"] if label is None or r["model"] == label
            for key, g in (r.get("pairwise") or {}).items()]


def _terminal_row(row: dict[str, Any], baseline: str, condition: str) -> list[str]:
    base, comp = row["conditions"].get(baseline, {}), row["conditions"].get(condition, {})
    adoption = comp.get("tool_adoption")
    st = comp.get("statuses") or {}
    return [pct(base.get("accuracy")), pct(comp.get("accuracy")), fmt_gap(row["gap"].get(condition)),
            "–" if adoption is None else f"{100 * adoption:.0f}",
            "/".join(f"{100 * st.get(s, 0.0):.0f}" for s in SHOWN_STATUSES) if st else "–"]


SHOWN_HEAD = "/\n".join(SHORT_STATUS.get(s, s) for s in SHOWN_STATUSES) + " %"  # trunc/ hedged/ unloc %


def render_leaderboard(board: dict[str, Any]) -> list[Table]:
    """The terminal tables (narrow enough for 80 columns, the gap never cut): per compared condition and model,
    one row per task (and pooled) with the model's cost in the title; then, per two models, the difference of
    their gaps per task."""
    b = board["baseline"]
    tasks = [*board["tasks"], *([ALL_TASKS] if len(board["tasks"]) > 1 else [])]
    costs = {m["label"]: m["cost_usd"] for m in board["models"]}
    out = []
    for c in board["compared"] or [b]:  # no compared condition: each model's accuracy alone
        alone = c == b
        for label in [m["label"] for m in board["models"]]:
            rows = {r["task"]: r for r in board["rows"] if r["model"] == label}
            complete = all(r["complete"] for r in rows.values())
            cost = costs.get(label)
            t = Table(title=escape(f"{label} · {b if alone else f'{c} vs {b}'} · cost "
                                   f"{'unknown' if cost is None else fmt_cost(cost)}"
                                   + ("" if complete else " · incomplete")), box=box.SIMPLE_HEAD, title_justify="left",
                      pad_edge=False)
            t.add_column("task", overflow="fold", min_width=12, ratio=1)
            t.add_column(escape(f"{b}\nacc %"), justify="right", overflow="fold", max_width=10)
            if not alone:
                t.add_column(escape(f"{c}\nacc %"), justify="right", overflow="fold", max_width=10)
                t.add_column("gap (pts)\n[95% CI]", justify="right", no_wrap=True)
                t.add_column("tool\nuse %", justify="right", no_wrap=True)
            t.add_column(SHOWN_HEAD, justify="right", no_wrap=True)
            for task in tasks:
                if task in rows:
                    if task == ALL_TASKS:
                        t.add_section()
                    cells = _terminal_row(rows[task], b, b if alone else c)
                    t.add_row(escape(short_task(task)), *map(escape, [cells[0], cells[4]] if alone else cells))
            out.append(t)
    out[-1].caption = escape(f"gap: compared − {b} on the same items, bootstrap over items · tool use: answered "
                             f"samples that called a tool · {'/'.join(SHORT_STATUS.get(s, s) for s in SHOWN_STATUSES)}: shares of the compared "
                             "condition's answers "
                             "· cost: all conditions (– unknown)")
    for label in [m["label"] for m in board["models"]]:  # every two compared conditions, neither the baseline
        if between := pairwise_rows(board, label):
            t = Table(title=escape(f"{label} · paired gaps between compared conditions"), box=box.SIMPLE_HEAD,
                      title_justify="left", pad_edge=False,
                      caption="b − a on the items both answered, neither the baseline; bootstrap over items")
            t.add_column("task", overflow="fold", min_width=12, ratio=1)
            t.add_column("gap b − a", overflow="fold", ratio=1)
            t.add_column("items", justify="right")
            t.add_column("gap (pts) [95% CI]", justify="right", no_wrap=True)
            for i, pair in enumerate(between):
                if pair[1] == short_task(ALL_TASKS) and between[i - 1][1] != pair[1]:
                    t.add_section()
                t.add_row(*map(escape, pair[1:]))
            out.append(t)
    pairs = list(dict.fromkeys((d["a"], d["b"], d["condition"]) for d in board["differences"]))
    for a, other, c in pairs:
        t = Table(title=escape(f"Difference of gaps (A − B), {c}: A = {a}, B = {other}"), box=box.SIMPLE_HEAD,
                  title_justify="left", pad_edge=False)
        t.add_column("task", overflow="fold", min_width=12, ratio=1)
        t.add_column("items", justify="right")
        t.add_column("Δ gap (pts) [95% CI]", justify="right", no_wrap=True)
        for d in board["differences"]:
            if (d["a"], d["b"], d["condition"]) == (a, other, c):
                t.add_row(escape(short_task(d["task"])), str(d["n_items"]), escape(fmt_difference(d)))
        out.append(t)
    if pairs:
        out[-1].caption = ("paired over the items both models answered in both conditions; bootstrap over items "
                           "(epochs of an item kept together)")
    if not board.get("same_items", True):
        out[-1].caption = f"{out[-1].caption}\n" + ("the runs hold different items (their dataset hashes differ): "
                                                    "each gap is over its own run's items")
    return out


def render_run_differences(rows: list[dict[str, Any]]) -> Table:
    """This run against its ``--baseline`` run per task and condition on the same items
    (:func:`evals.analysis.compare_runs`): both accuracies and the difference with its interval and McNemar p."""
    t = Table(title="This run − the baseline run, per condition on the same items", box=box.SIMPLE_HEAD,
              title_justify="left", pad_edge=False)
    t.add_column("task", overflow="fold", min_width=12, ratio=1)
    t.add_column("condition", overflow="fold")
    t.add_column("n", justify="right")
    t.add_column("baseline\nacc %", justify="right")
    t.add_column("this run\nacc %", justify="right")
    t.add_column("difference (pts)\n[95% CI]", justify="right", no_wrap=True)
    t.add_column("McNemar\np", justify="right")
    for r in rows:
        t.add_row(escape(r["task"]), escape(r["condition"]), str(r["n_paired"]), pct(r["baseline_accuracy"]),
                  pct(r["accuracy"]), escape(fmt_gap(r)), p_text(r["mcnemar_p"]))
    return t


def print_leaderboard(board: dict[str, Any], console: Console) -> None:
    for table in render_leaderboard(board):
        console.print(table)


def slug(model: str) -> str:
    """A directory name for a model: ``openai/gpt-4o`` → ``openai_gpt-4o``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("._") or "model"
