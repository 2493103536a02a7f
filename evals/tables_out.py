"""Tables to publish, written with every run: Markdown (GitHub tables) and LaTeX (``booktabs``: ``\\toprule``,
``\\midrule``, ``\\bottomrule``), rendered by ``tabulate`` from the run's report (``results.json``), so they hold
the numbers the terminal, ``results.json`` and ``report.html`` show.

``tables/`` of a run directory: ``per_task.md``/``.tex`` (per task and pooled: n, accuracy [Wilson 95 % CI] per
condition, the paired gap [95 % CI] and McNemar p per compared condition) and, for a suite run, ``paper.md``/
``.tex`` (the paper-shaped tables). A run of several models (or one with ``--baseline``) adds
``leaderboard.md``/``.tex``. :func:`write_run_outputs` writes the tables and the figures (:mod:`evals.figures`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tabulate import LATEX_ESCAPE_RULES, tabulate

from evals.analysis import ALL_TASKS
from evals.leaderboard import HEADERS, fmt_difference, row_cells, short_task
from evals.report import pct, signed_pct, write_text_atomic

POOLED = "all tasks (pooled)"
# LaTeX text-mode forms of the characters the tables use beyond ASCII (tabulate escapes & % $ # _ { } ~ ^ \)
LATEX_TEXT = {"–": "--", "−": "-", "×": "x", "≤": "<=", "·": "/", "→": "->", "Δ": "Delta "}


def _latex_cell(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    for char, plain in LATEX_TEXT.items():
        value = value.replace(char, plain)
    return value


def markdown(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub Markdown table (``|`` inside a cell escaped)."""
    def cell(v: Any) -> Any:
        return v.replace("|", "\\|") if isinstance(v, str) else v

    return tabulate([[cell(v) for v in r] for r in rows], headers=[cell(h) for h in headers], tablefmt="github",
                    disable_numparse=True) + "\n"


def latex(headers: Sequence[str], rows: Sequence[Sequence[Any]], caption: str | None = None) -> str:
    """A ``booktabs`` tabular (special characters escaped), in a ``table`` float with ``caption`` when given."""
    body = tabulate([[_latex_cell(v) for v in r] for r in rows], headers=[_latex_cell(h) for h in headers],
                    tablefmt="latex_booktabs", disable_numparse=True,
                    colalign=["left"] + ["right"] * (len(headers) - 1))
    if caption is None:
        return body + "\n"
    cap = "".join(LATEX_ESCAPE_RULES.get(ch, ch) for ch in _latex_cell(caption))
    return f"\\begin{{table}}[ht]\n\\centering\n{body}\n\\caption{{{cap}}}\n\\end{{table}}\n"


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and math.isfinite(x)


def acc_text(s: dict[str, Any] | None) -> str:
    """``70.0 [39.7, 89.2]``: accuracy and its Wilson interval in percent; ``–`` without answers."""
    if not s or not s.get("n"):
        return "–"
    lo, hi = s["ci"]
    return f"{pct(s['accuracy'])} [{pct(lo)}, {pct(hi)}]"


def gap_text(g: dict[str, Any] | None) -> str:
    """``+30.0 [+10.0, +50.0]`` in points; the point alone when it has no interval; ``–`` without pairs."""
    if not g or not g.get("n_paired") or not _finite(g.get("gap")):
        return "–"
    lo, hi = (g.get("ci") or [None, None])[:2]
    return signed_pct(g["gap"]) + (f" [{signed_pct(lo)}, {signed_pct(hi)}]" if _finite(lo) and _finite(hi) else "")


def p_text(g: dict[str, Any] | None) -> str:
    return f"{g['mcnemar_p']:.3g}" if g and g.get("n_paired") and _finite(g.get("mcnemar_p")) else "–"


def per_task_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the per-task table of a report (tasks, then the pooled row when there are several)."""
    tasks = list(report["tasks"])
    conditions = list(dict.fromkeys(c for t in tasks for c in t["conditions"]))
    baseline = "intrinsic" if "intrinsic" in conditions else conditions[0] if conditions else "intrinsic"
    compared = [c for c in conditions if c != baseline]
    headers = ["task", "n", *(f"{c} acc % [95% CI]" for c in conditions),
               *(x for c in compared for x in (f"gap {c} (pts) [95% CI]", f"McNemar p {c}"))]
    rows = []
    for t in [*tasks, *([report["overall"]] if len(tasks) > 1 and report.get("overall") else [])]:
        n = max((s.get("n", 0) for s in t["conditions"].values()), default=0)
        gaps = t.get("gap") or {}
        rows.append([POOLED if t["task"] == ALL_TASKS else t["task"], str(n),
                     *(acc_text(t["conditions"].get(c)) for c in conditions),
                     *(x for c in compared for x in (gap_text(gaps.get(c)), p_text(gaps.get(c))))])
    return headers, rows


def leaderboard_tables(board: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(caption, headers, rows) of the leaderboard per compared condition, then of the differences of gaps."""
    b = board["baseline"]
    out = []
    for c in board["compared"] or [b]:
        headers = ["model", "task", *(h.format(b=b, c=c) for h in HEADERS)]
        rows = [[r["model"] + ("" if r["complete"] else " (incomplete)"), short_task(r["task"]), *row_cells(r, b, c)]
                for r in board["rows"]]
        out.append((f"Leaderboard: {c} vs {b}; gap in points with its 95 % bootstrap interval over items", headers,
                    rows))
    if board["differences"]:
        rows = [[f"{d['a']} − {d['b']}", d["condition"], short_task(d["task"]), str(d["n_items"]), fmt_difference(d)]
                for d in board["differences"]]
        out.append(("Difference of two models' gaps (A − B), paired over the items both answered in both "
                    "conditions; bootstrap over items", ["A − B", "condition", "task", "items",
                                                         "Δ gap (pts) [95% CI]"], rows))
    return out


def _write_pair(folder: Path, name: str, tables: list[tuple[str | None, list[str], list[list[str]]]]) -> list[Path]:
    md = "\n".join((f"**{cap}**\n\n" if cap else "") + markdown(hd, rows) for cap, hd, rows in tables)
    tex = "\n".join(latex(hd, rows, cap) for cap, hd, rows in tables)
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{name}.md", folder / f"{name}.tex"]
    write_text_atomic(paths[0], md)
    write_text_atomic(paths[1], tex)
    return paths


def write_tables(folder: Path, report: dict[str, Any]) -> list[Path]:
    """The per-task table, a suite's paper tables and a ``--baseline`` leaderboard as Markdown and LaTeX."""
    headers, rows = per_task_table(report)
    meta = report.get("meta") or {}
    spec = meta.get("spec") or {}
    caption = (f"{spec.get('model', '')}: accuracy per condition (Wilson 95 % CI) and the paired gap (bootstrap "
               "95 % CI, exact McNemar p); n = answered samples").strip(": ")
    paths = _write_pair(folder, "per_task", [(caption, headers, rows)])
    paper = (report.get("paper_tables") or {}).get("tables") or []
    if paper:
        paths += _write_pair(folder, "paper", [(f"{t['title']}. {t['caption']}", t["grid"]["headers"],
                                               [[str(v) for v in r] for r in t["grid"]["rows"]]) for t in paper])
    if report.get("leaderboard"):
        paths += write_leaderboard_tables(folder, report["leaderboard"])
    return paths


def write_leaderboard_tables(folder: Path, board: dict[str, Any]) -> list[Path]:
    return _write_pair(folder, "leaderboard", list(leaderboard_tables(board)))  # type: ignore[arg-type]


def write_run_outputs(run_dir: Path, report: dict[str, Any]) -> str | None:
    """Write ``tables/`` and ``figures/`` into ``run_dir``; returns a one-line note when figures were skipped."""
    from evals.figures import write_figures

    write_tables(Path(run_dir) / "tables", report)
    return write_figures(Path(run_dir) / "figures", report)
