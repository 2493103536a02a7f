"""Tables to publish, written with every run: Markdown (GitHub tables) and LaTeX (``booktabs``: ``\\toprule``,
``\\midrule``, ``\\bottomrule``), rendered by ``tabulate`` from the run's report (``results.json``), so they hold
the numbers the terminal, ``results.json`` and ``report.html`` show.

``tables/`` of a run directory: ``per_task.md``/``.tex`` (per task and pooled: n, accuracy [Wilson 95 % CI] per
condition, the paired gap [95 % CI] and McNemar p per compared condition) and, for a suite run, ``paper.md``/
``.tex`` (the paper-shaped tables); with two conditions or more besides the baseline, ``pairwise.md``/``.tex`` (the
paired gap between every two of them, per task and pooled). A run of several models (or one with ``--baseline``) adds
``leaderboard.md``/``.tex``. :func:`write_run_outputs` writes the tables and the figures (:mod:`evals.figures`).
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tabulate import LATEX_ESCAPE_RULES, tabulate

from evals.analysis import ALL_TASKS, BASELINE_CONDITION
from evals.leaderboard import HEADERS, fmt_difference, pairwise_rows, row_cells, short_task
from evals.report import interval_text, p_text, pair_text, pct, write_text_atomic

POOLED = "all tasks (pooled)"
# LaTeX forms of the characters the tables use beyond what tabulate's escape rules cover (after those rules)
LATEX_TEXT = {"–": "--", "−": "$-$", "×": "$\\times$", "≤": "$\\leq$", "·": "$\\cdot$", "→": "$\\rightarrow$",
              "Δ": "$\\Delta$", "±": "$\\pm$", "°": "$^{\\circ}$"}
_MINUS = re.compile(r"(?<![\w.])-(?=\d)")  # a hyphen before a number is a minus sign
_INTERVAL = re.compile(r"^(.*\S) (\[[^\]]*\])$")  # "value [lo, hi]": the interval goes on a second line
TEXTWIDTH_PT = 345.0  # \textwidth of a plain article (10 pt, letter or A4)
# (size command, width of one character in pt, a guess erring wide) tried in order until the table fits
SIZES = (("\\small", 5.0), ("\\footnotesize", 4.5), ("\\scriptsize", 3.9))
FILL = 0.95  # of the text width a table may fill by the estimate (a margin for the estimate's error)
HEADER_WRAP = 14  # header lines wrap at spaces to this many characters (a longer word keeps its line)
TEXT_WRAP = 24  # so do the cells of a text column
TABCOLSEP_PT = 4.0
LATEX_PREAMBLE = "% needs \\usepackage{booktabs} (a plain article class otherwise)\n"


def _latex_text(value: str) -> str:
    """Escape LaTeX's special characters; minus signs, Δ, ×, ... as math."""
    text = "".join(LATEX_ESCAPE_RULES.get(ch, ch) for ch in value)
    text = _MINUS.sub("$-$", text)
    for char, tex in LATEX_TEXT.items():
        text = text.replace(char, tex)
    return text


def _lines(value: Any, wrap: int | None = None) -> list[str]:
    """A cell's lines: with ``wrap`` (a header, a text column) the text wraps at spaces to that many characters;
    else an interval after its value goes on a line of its own."""
    text = str(value)
    if wrap:
        return textwrap.wrap(text, wrap, break_long_words=False, break_on_hyphens=False) or [text]
    m = _INTERVAL.match(text)
    return [m.group(1), m.group(2)] if m else [text]


def _latex_cell(value: Any, align: str, wrap: int | None = None) -> str:
    lines = [_latex_text(line) for line in _lines(value, wrap)]
    if len(lines) == 1:
        return lines[0]
    return f"\\begin{{tabular}}[t]{{@{{}}{align}@{{}}}}" + " \\\\ ".join(f"{{{x}}}" for x in lines) + "\\end{tabular}"


def _numeric(column: Sequence[Any]) -> bool:
    """A column of numbers (signs, intervals, ``a / b`` pairs, '–' for none) is right-aligned; text left."""
    cells = [c for v in column if (c := re.sub(r"[–/\s]+", "", str(v)))]
    return all(re.match(r"^[+\-−]?\d", c) for c in cells)


def _width(column: Sequence[Any], char_pt: float, first: bool = False) -> float:
    """Estimated width of a column (header first) in pt."""
    wrap = None if not first and _numeric(column[1:]) else TEXT_WRAP
    longest = max(_ems(line) for i, v in enumerate(column) for line in _lines(v, HEADER_WRAP if i == 0 else wrap))
    return longest * char_pt + 2 * TABCOLSEP_PT


def _ems(text: str) -> float:
    """A line's width in average characters: capitals, %, − and Δ are wider."""
    return sum(1.5 if ch.isupper() or ch in "%−Δ—" else 1.0 for ch in text)


def _chunks(headers: Sequence[str], rows: Sequence[Sequence[Any]], char_pt: float) -> list[list[int]]:
    """Column groups (each repeating the first column) whose estimated widths fit the text width."""
    cols = [[h, *(r[i] for r in rows)] for i, h in enumerate(headers)]
    first = _width(cols[0], char_pt, first=True)
    groups: list[list[int]] = [[0]]
    used = first
    for i in range(1, len(cols)):
        w = _width(cols[i], char_pt)
        if used + w > TEXTWIDTH_PT * FILL and len(groups[-1]) > 1:
            groups.append([0])
            used = first
        groups[-1].append(i)
        used += w
    return groups


def _tabular(headers: Sequence[str], rows: Sequence[Sequence[Any]], columns: list[int]) -> str:
    aligns = ["l" if i == 0 or not _numeric([r[i] for r in rows]) else "r" for i in columns]
    wraps = [TEXT_WRAP if a == "l" else None for a in aligns]
    head = " & ".join(_latex_cell(headers[i], a, HEADER_WRAP) for i, a in zip(columns, aligns, strict=True))
    body = "\n".join(" & ".join(_latex_cell(r[i], a, w) for i, a, w in zip(columns, aligns, wraps, strict=True))
                     + " \\\\" for r in rows)
    return (f"\\begin{{tabular}}{{{''.join(aligns)}}}\n\\toprule\n{head} \\\\\n\\midrule\n{body}\n"
            "\\bottomrule\n\\end{tabular}")


def markdown(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A GitHub Markdown table (``|`` inside a cell escaped)."""
    def cell(v: Any) -> Any:
        return v.replace("|", "\\|") if isinstance(v, str) else v

    return tabulate([[cell(v) for v in r] for r in rows], headers=[cell(h) for h in headers], tablefmt="github",
                    disable_numparse=True) + "\n"


def latex(headers: Sequence[str], rows: Sequence[Sequence[Any]], caption: str | None = None,
          label: str | None = None) -> str:
    """A ``booktabs`` table that fits a plain article's text width: text columns left- and numbers
    right-aligned, intervals under their values, minus signs and symbols as math, special characters escaped,
    the smallest of ``\\small``, ``\\footnotesize``, ``\\scriptsize`` that fits, else the columns split into
    several tabulars (the first column repeated); in a ``table`` float with ``caption`` and ``label`` when a
    caption is given."""
    size, groups = next(((sz, g) for sz, pt in SIZES if len(g := _chunks(headers, rows, pt)) == 1),
                        (SIZES[-1][0], _chunks(headers, rows, SIZES[-1][1])))
    body = "\n\\medskip\n\n".join(_tabular(headers, rows, g) for g in groups)
    if caption is None:
        return f"{{{size}\n\\setlength{{\\tabcolsep}}{{{TABCOLSEP_PT:g}pt}}\n{body}\n}}\n"
    tag = f"\n\\label{{{label}}}" if label else ""
    return (f"\\begin{{table}}[htbp]\n\\centering\n{size}\n\\setlength{{\\tabcolsep}}{{{TABCOLSEP_PT:g}pt}}\n"
            f"\\caption{{{_latex_text(caption)}}}{tag}\n{body}\n\\end{{table}}\n")


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and math.isfinite(x)


def acc_text(s: dict[str, Any] | None) -> str:
    """``70.0 [39.7, 89.2]``: accuracy and its Wilson interval in percent; ``–`` without answers."""
    if not s or not s.get("n"):
        return "–"
    lo, hi = s["ci"]
    return f"{pct(s['accuracy'])} [{pct(lo)}, {pct(hi)}]"


def gap_text(g: dict[str, Any] | None) -> str:
    """``+30.0 [+10.0, +50.0]`` in points (:func:`evals.report.interval_text`, as the terminal prints it); ``–``
    without pairs."""
    if not g or not g.get("n_paired") or not _finite(g.get("gap")):
        return "–"
    lo, hi = (g.get("ci") or [None, None])[:2]
    return interval_text(g["gap"], lo, hi)


def gap_p_text(g: dict[str, Any] | None) -> str:
    """The gap's McNemar p as the terminal prints it (:func:`evals.report.p_text`); ``–`` without pairs."""
    return p_text(g["mcnemar_p"]) if g and g.get("n_paired") else "–"


def per_task_table(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Headers and rows of the per-task table of a report (tasks, then the pooled row when there are several)."""
    tasks = list(report["tasks"])
    conditions = list(dict.fromkeys(c for t in tasks for c in t["conditions"]))
    baseline = baseline_of(report, conditions)
    compared = [c for c in conditions if c != baseline]
    shown = [*tasks, *([report["overall"]] if len(tasks) > 1 and report.get("overall") else [])]
    epochs = any(s.get("items") not in (None, 0, s.get("n")) for t in shown for s in t["conditions"].values())
    headers = ["task", "n", *(["answers"] if epochs else []), *(f"{c} acc % [95% CI]" for c in conditions),
               *(x for c in compared for x in (f"gap {c} − {baseline} (pts) [95% CI]", f"McNemar p {c}"))]
    rows = []
    for t in shown:
        present = [t["conditions"][c] for c in conditions if c in t["conditions"]]
        gaps = t.get("gap") or {}
        rows.append([POOLED if t["task"] == ALL_TASKS else t["task"], _counts([s.get("items") or s.get("n", 0)
                                                                           for s in present]),
                     *([_counts([s.get("n", 0) for s in present])] if epochs else []),
                     *(acc_text(t["conditions"].get(c)) for c in conditions),
                     *(x for c in compared for x in (gap_text(gaps.get(c)), gap_p_text(gaps.get(c))))])
    return headers, rows


PAIRWISE_HEADERS = ["task", "gap b − a", "n", "gap (pts) [95% CI]", "McNemar p"]


def pairwise_table(report: dict[str, Any]) -> list[list[str]]:
    """Rows (:data:`PAIRWISE_HEADERS`) per task (and pooled) and pair of conditions neither of which is the
    baseline: the paired gap b − a with its interval and McNemar p (those against the baseline are in the
    per-task table); empty with fewer than two such conditions."""
    tasks = list(report["tasks"])
    shown = [*tasks, *([report["overall"]] if len(tasks) > 1 and report.get("overall") else [])]
    return [[POOLED if t["task"] == ALL_TASKS else t["task"], pair_text(key), str(g.get("n_paired", 0)), gap_text(g),
             gap_p_text(g)] for t in shown for key, g in (t.get("pairwise") or {}).items()]


def _counts(values: list[int]) -> str:
    """One count, or each condition's (``a / b``) when they differ: the terminal's n cell."""
    return " / ".join(map(str, values)) if len(set(values)) > 1 else str(values[0] if values else 0)


def baseline_of(report: dict[str, Any], conditions: Sequence[str]) -> str:
    """The condition a report's gaps are against (``meta.baseline_condition``; reports written before it:
    ``intrinsic`` when present, else the first)."""
    named = (report.get("meta") or {}).get("baseline_condition")
    if named:
        return str(named)
    return BASELINE_CONDITION if BASELINE_CONDITION in conditions or not conditions else conditions[0]


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
    if pairs := pairwise_rows(board):
        out.append(("Paired gap between every two compared conditions (b − a, neither the baseline) on the items "
                    "both answered; bootstrap over items", ["model", "task", "gap b − a", "items",
                                                             "gap (pts) [95% CI]"], pairs))
    if board["differences"]:
        rows = [[f"{d['a']} − {d['b']}", d["condition"], short_task(d["task"]), str(d["n_items"]), fmt_difference(d)]
                for d in board["differences"]]
        out.append(("Difference of two models' gaps (A − B), paired over the items both answered in both "
                    "conditions; bootstrap over items", ["A − B", "condition", "task", "items",
                                                         "Δ gap (pts) [95% CI]"], rows))
    return out


def _write_pair(folder: Path, name: str, tables: list[tuple[str | None, list[str], list[list[str]]]]) -> list[Path]:
    md = "\n".join((f"**{cap}**\n\n" if cap else "") + markdown(hd, rows) for cap, hd, rows in tables)
    tex = LATEX_PREAMBLE + "\n".join(latex(hd, rows, cap, f"tab:geogap-{name}" + (f"-{i + 1}" if len(tables) > 1 else ""))
                                     for i, (cap, hd, rows) in enumerate(tables))
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
               "95 % CI, exact McNemar p); n = items answered (answers apart with epochs)").strip(": ")
    paths = _write_pair(folder, "per_task", [(caption, headers, rows)])
    if pairs := pairwise_table(report):
        paths += _write_pair(folder, "pairwise", [(
            f"{spec.get('model', '')}: paired gap between every two conditions other than the baseline, on the items "
            "both answered (bootstrap 95 % CI, exact McNemar p)".strip(": "), PAIRWISE_HEADERS, pairs)])
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
