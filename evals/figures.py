"""Figures to publish, written with every run as SVG, PNG and PDF (for ``\\includegraphics``) (matplotlib, the ``figures`` extra), in the viewer's
colours: green for a gap whose interval lies above zero, red below, grey around it; the baseline's bars grey,
the compared condition's blue.

``figures/`` of a run directory: ``gap_forest`` (per task and pooled, the paired gap with its 95 % interval),
``accuracy_by_region`` (per region pooled over tasks, each condition's accuracy with its Wilson interval; only
when the samples carry a region) and ``tool_use`` (per task and tool condition, the pairs with the baseline:
gained / lost / same with a tool call, and the same for answers that never called one). A leaderboard gets
``leaderboard_gaps`` (each model's gap per task). Without matplotlib nothing is drawn and a one-line note says so.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evals.analysis import ALL_TASKS
from evals.view.charts import FLAT, GAIN, LOSE, POOLED

FG, MUTED, LINE = "#1f2328", "#656d76", "#d8dee4"
CONDITION_COLOURS = ("#8c959f", "#0969da", "#bc4c00", "#8250df")  # baseline grey, then the viewer's accents
CELLS = (  # tool-use cells: (label, key(s) in the paired counts, colour)
    ("gained with tools", ("gained_with_tools",), GAIN),
    ("lost despite tools", ("lost_despite_tools",), LOSE),
    ("same with tools", ("same_with_tools_right", "same_with_tools_wrong"), "#4b6a53"),
    ("never tried: gained", ("never_tried_gained",), "#dafbe1"),
    ("never tried: lost", ("never_tried_lost",), "#ffebe9"),
    ("never tried: same", ("never_tried_same_right", "never_tried_same_wrong"), "#eaeef2"),
)
MISSING = "figures not written: matplotlib is not installed (pip install matplotlib)"


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and math.isfinite(x)


STYLE: dict[Any, Any] = {  # matplotlib's rc keys, typed as literals there
    "font.family": "DejaVu Sans", "font.size": 9, "axes.edgecolor": LINE, "axes.labelcolor": FG, "xtick.color": MUTED,
    "ytick.color": FG, "svg.hashsalt": "geogap", "svg.fonttype": "none"}


def _figure(width: float, height: float) -> tuple[Any, Any]:
    """A figure and its axes, outside pyplot (nothing global is kept: the figure goes with its last reference)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    return fig, fig.subplots()


def _save(fig: Any, folder: Path, name: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{name}.svg", folder / f"{name}.png", folder / f"{name}.pdf"]
    fig.savefig(paths[0], bbox_inches="tight", metadata={"Date": None})
    fig.savefig(paths[1], bbox_inches="tight", dpi=150, metadata={"Software": None})
    fig.savefig(paths[2], bbox_inches="tight", metadata={"CreationDate": None})  # vector, for LaTeX
    return paths


def forest(rows: Sequence[tuple[str, dict[str, Any], bool]], title: str, baseline: str = "baseline") -> Any:
    """A forest plot of gaps against ``baseline``: one row per (label, gap dict with gap, ci, n_paired, bold), in
    points."""
    fig, ax = _figure(7.5, 0.9 + 0.32 * len(rows))
    for i, (_, g, _) in enumerate(rows):
        y = len(rows) - 1 - i
        lo, hi = (g.get("ci") or [None, None])[:2]
        has_ci = _finite(lo) and _finite(hi)
        colour = (GAIN if lo > 0 else LOSE if hi < 0 else FLAT) if has_ci else FLAT
        if has_ci:
            ax.plot([100 * lo, 100 * hi], [y, y], color=colour, linewidth=2.5, solid_capstyle="round")
        ax.plot([100 * g["gap"]], [y], "o", color=colour, markersize=6)
        ax.annotate(f"{100 * g['gap']:+.1f}", (1.01, y), xycoords=("axes fraction", "data"), va="center",
                    color=colour, fontsize=8, fontweight="bold")
    ax.axvline(0, color="#57606a", linewidth=1)
    ax.set_yticks(range(len(rows)), [label for label, _, _ in reversed(rows)])
    for tick, (_, _, bold) in zip(ax.get_yticklabels(), list(reversed(rows)), strict=True):
        tick.set_fontweight("bold" if bold else "normal")
    ax.set_xlabel(f"gap in accuracy points (compared − {baseline}), 95% CI")
    ax.set_title(title, color=FG, fontsize=10, loc="left")
    ax.grid(axis="x", color="#e3e8ee")
    ax.set_axisbelow(True)
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def _gap_rows(report: dict[str, Any]) -> list[tuple[str, dict[str, Any], bool]]:
    tasks = [*report["tasks"], *([report["overall"]] if len(report["tasks"]) > 1 and report.get("overall") else [])]
    compared = list(dict.fromkeys(c for t in tasks for c in (t.get("gap") or {})))
    rows = []
    for t in tasks:
        for c in compared:
            g = (t.get("gap") or {}).get(c)
            if g and g.get("n_paired") and _finite(g.get("gap")):
                name = POOLED if t["task"] == ALL_TASKS else t["task"]
                rows.append((f"{name} · {c}" if len(compared) > 1 else name, g, t["task"] == ALL_TASKS))
    return rows


def region_figure(report: dict[str, Any]) -> Any | None:
    """Grouped bars: per region (pooled over tasks), each condition's accuracy with its Wilson interval."""
    rows = (report.get("breakdowns") or {}).get("region") or []
    if not rows:
        return None
    conditions = list(dict.fromkeys(c for r in rows for c in r["conditions"]))
    width = 0.8 / max(1, len(conditions))
    fig, ax = _figure(max(5.0, 1.1 * len(rows)), 3.4)
    for j, c in enumerate(conditions):
        xs: list[float] = []
        ys: list[float] = []
        err: list[list[float]] = [[], []]
        for i, r in enumerate(rows):
            s = r["conditions"].get(c)
            if not s or not s.get("n"):
                continue
            xs.append(i + (j - (len(conditions) - 1) / 2) * width)
            ys.append(100 * s["accuracy"])
            err[0].append(max(0.0, 100 * (s["accuracy"] - s["ci"][0])))  # rounding: never below zero
            err[1].append(max(0.0, 100 * (s["ci"][1] - s["accuracy"])))
        ax.bar(xs, ys, width * 0.92, yerr=err, color=CONDITION_COLOURS[j % len(CONDITION_COLOURS)],
               label=c, error_kw={"ecolor": FG, "elinewidth": 1, "capsize": 2})
    ax.set_xticks(range(len(rows)), [f"{r['value']}" for r in rows])
    ax.set_ylim(0, 100)
    ax.set_ylabel("accuracy %, Wilson 95% CI")
    ax.set_title("Accuracy by region (all tasks pooled)", color=FG, fontsize=10, loc="left")
    ax.legend(frameon=False, fontsize=8)
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def tool_use_figure(report: dict[str, Any]) -> Any | None:
    """Stacked bars per task and tool condition: the pairs with the baseline by tool call and outcome."""
    rows = [(t["task"], c, u["paired"]) for t in report["tasks"] for c, u in (t.get("tool_use") or {}).items()
            if u.get("paired") and u["paired"].get("n_paired")]
    if not rows:
        return None
    multi = len({c for _, c, _ in rows}) > 1
    fig, ax = _figure(7.5, 1.2 + 0.34 * len(rows))
    for i, (_, _, p) in enumerate(rows):
        y, left = len(rows) - 1 - i, 0
        for label, keys, colour in CELLS:
            n = sum(p.get(k, 0) for k in keys)
            ax.barh(y, n, left=left, color=colour, edgecolor="white", linewidth=0.5, label=label if i == 0 else None)
            left += n
    ax.set_yticks(range(len(rows)), [f"{t} · {c}" if multi else t for t, c, _ in reversed(rows)])
    ax.set_xlabel("paired samples (answered in both conditions)")
    ax.set_title("Tool use: pairs with the baseline by tool call and outcome", color=FG, fontsize=10, loc="left")
    ax.legend(frameon=False, fontsize=7, ncols=3, loc="upper center", bbox_to_anchor=(0.5, -0.25))
    ax.spines[["top", "right"]].set_visible(False)
    return fig


def write_figures(folder: Path, report: dict[str, Any]) -> str | None:
    """Write a run's figures into ``folder``; a one-line note (and nothing written) without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        return MISSING
    with matplotlib.rc_context(STYLE):  # the style for these figures only, not for the caller's
        rows = _gap_rows(report)
        if rows:
            _save(forest(rows, "Tool-free gap by task", (report.get("meta") or {}).get("baseline_condition")
                         or "baseline"), folder, "gap_forest")
        for name, fig in (("accuracy_by_region", region_figure(report)), ("tool_use", tool_use_figure(report))):
            if fig is not None:
                _save(fig, folder, name)
    if report.get("leaderboard"):
        return write_leaderboard_figures(folder, report["leaderboard"])
    return None


def write_leaderboard_figures(folder: Path, board: dict[str, Any]) -> str | None:
    """``leaderboard_gaps``: every model's gap per task (and pooled), grouped by task."""
    try:
        import matplotlib
    except ImportError:
        return MISSING
    multi = len(board["compared"]) > 1
    rows = []
    for r in board["rows"]:
        for c, g in r["gap"].items():
            if g and g.get("n_paired") and _finite(g.get("gap")):
                task = POOLED if r["task"] == ALL_TASKS else r["task"]
                rows.append((f"{task} · {r['model']}" + (f" · {c}" if multi else ""), g, r["task"] == ALL_TASKS))
    rows.sort(key=lambda x: (x[2], x[0]))
    if rows:
        with matplotlib.rc_context(STYLE):
            _save(forest(rows, "Tool-free gap by model and task"), folder, "leaderboard_gaps")
    return None
