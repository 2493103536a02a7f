"""``report.html``: one self-contained offline page (inline CSS and SVG, no script, no CDN, no fonts).

Shows the gap per task with its 95 % interval as a chart, accuracy by region per condition as a chart, and
the tables: per task (accuracy over answered samples, answer-status shares, errors apart, tasks with errors
marked incomplete), breakdowns, and the run-vs-run comparison when a baseline run was given.
"""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Any

from agents.secrets import redact_obj
from evals.report import write_text_atomic

CSS = """
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:20px}h2{font-size:17px;margin-top:32px}table{border-collapse:collapse;margin:8px 0}
th,td{border-bottom:1px solid #ddd;padding:3px 8px;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}th{background:#f4f4f4}.meta td{text-align:left}
.note{color:#666;font-size:12px}.incomplete{color:#a00}.wide{overflow-x:auto}svg text{font:12px system-ui,sans-serif}
"""
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]


def _e(x: Any) -> str:
    return html.escape(str(x))


def _pct(x: float | None) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}"


def _spct(x: float | None) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:+.1f}"


def gap_chart(tasks: list[dict[str, Any]], width: int = 760) -> str:
    """Horizontal interval plot: per task and compared condition, the gap (points) and its 95 % interval."""
    rows = [(t["task"], c, g) for t in tasks for c, g in (t.get("gap") or {}).items() if g and g.get("n_paired")]
    if not rows:
        return '<p class="note">No paired gap to draw (run at least two conditions, one of them intrinsic).</p>'
    conds = sorted({c for _, c, _ in rows})
    left, right, row_h, top = 260, 20, 20, 24
    plot_w = width - left - right
    height = top + row_h * len(rows) + 30

    def x(v: float) -> float:
        return left + (max(-1.0, min(1.0, v)) + 1) / 2 * plot_w

    parts = [f'<svg width="{width}" height="{height}" role="img" '
             f'aria-label="gap per task with 95% intervals">']
    for tick in (-1, -0.5, 0, 0.5, 1):
        parts.append(f'<line x1="{x(tick):.1f}" y1="{top - 6}" x2="{x(tick):.1f}" y2="{height - 24}" '
                     f'stroke="{"#999" if tick == 0 else "#eee"}"/>')
        parts.append(f'<text x="{x(tick):.1f}" y="{height - 8}" text-anchor="middle">{100 * tick:+.0f}</text>')
    for i, (task, cond, g) in enumerate(rows):
        y = top + i * row_h + row_h / 2
        colour = COLOURS[conds.index(cond) % len(COLOURS)]
        lo, hi = g["ci"]
        label = task if len(conds) == 1 else f"{task} · {cond}"
        parts.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{_e(label)}</text>')
        if lo is not None and hi is not None:
            parts.append(f'<line x1="{x(lo):.1f}" y1="{y:.1f}" x2="{x(hi):.1f}" y2="{y:.1f}" stroke="{colour}" '
                         f'stroke-width="2"/>')
        parts.append(f'<circle cx="{x(g["gap"]):.1f}" cy="{y:.1f}" r="4" fill="{colour}">'
                     f'<title>{_e(label)}: {_spct(g["gap"])} pts [{_spct(lo)}, {_spct(hi)}], n={g["n_paired"]}, '
                     f'McNemar p={g["mcnemar_p"]:.3g}</title></circle>')
    parts.append(f'<text x="{left + plot_w / 2:.1f}" y="{top - 10}" text-anchor="middle">gap vs intrinsic, '
                 f'percentage points (95 % paired bootstrap interval)</text></svg>')
    return "".join(parts)


def accuracy_chart(rows: list[dict[str, Any]], conditions: list[str], width: int = 760) -> str:
    """Grouped horizontal bars: accuracy per value (e.g. region) and condition, with Wilson intervals."""
    if not rows:
        return '<p class="note">No region recorded on these samples.</p>'
    left, right, bar_h, gap_h, top = 140, 20, 12, 10, 20
    plot_w = width - left - right
    conds = [c for c in conditions if any(c in r["conditions"] for r in rows)]
    group_h = bar_h * len(conds) + gap_h
    height = top + group_h * len(rows) + 40
    parts = [f'<svg width="{width}" height="{height}" role="img" '
             f'aria-label="accuracy by region">']
    for tick in (0, 0.25, 0.5, 0.75, 1):
        xt = left + tick * plot_w
        parts.append(f'<line x1="{xt:.1f}" y1="{top}" x2="{xt:.1f}" y2="{height - 34}" stroke="#eee"/>')
        parts.append(f'<text x="{xt:.1f}" y="{height - 20}" text-anchor="middle">{100 * tick:.0f} %</text>')
    for i, row in enumerate(rows):
        y0 = top + i * group_h
        parts.append(f'<text x="{left - 8}" y="{y0 + group_h / 2:.1f}" text-anchor="end">{_e(row["value"])}</text>')
        for j, c in enumerate(conds):
            s = row["conditions"].get(c)
            if not s:
                continue
            y = y0 + j * bar_h
            colour = COLOURS[j % len(COLOURS)]
            parts.append(f'<rect x="{left}" y="{y:.1f}" width="{s["accuracy"] * plot_w:.1f}" height="{bar_h - 2}" '
                         f'fill="{colour}" opacity="0.75"><title>{_e(row["value"])} · {_e(c)}: '
                         f'{_pct(s["accuracy"])} % (n={s["n"]})</title></rect>')
            lo, hi = s["ci"]
            parts.append(f'<line x1="{left + lo * plot_w:.1f}" y1="{y + bar_h / 2 - 1:.1f}" x2="{left + hi * plot_w:.1f}"'
                         f' y2="{y + bar_h / 2 - 1:.1f}" stroke="#333"/>')
    legend_y = height - 6
    for j, c in enumerate(conds):
        lx = left + j * 150
        parts.append(f'<rect x="{lx}" y="{legend_y - 9}" width="10" height="10" fill="{COLOURS[j % len(COLOURS)]}"/>'
                     f'<text x="{lx + 14}" y="{legend_y}">{_e(c)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _table(headers: list[str], rows: list[list[Any]]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{_e(v)}</td>" for v in r) + "</tr>" for r in rows)
    return f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def task_table(tasks: list[dict[str, Any]], conditions: list[str]) -> str:
    headers = ["task", "condition", "n", "accuracy %", "95 % CI", "mean score", "answered %", "hedged %",
               "unparsed %", "refused %", "errors", "n/a",
               "error (median)", "tool calls/sample", "tool error %", "gap pts [95 % CI]", "McNemar p",
               "right→wrong", "wrong→right", "output tokens", "cost USD", "latency s"]
    rows = []
    for t in tasks:
        for c in conditions:
            s = t["conditions"].get(c)
            if not s:
                continue
            g = (t.get("gap") or {}).get(c)
            es = s.get("error_summary")
            shares = s.get("status_shares") or {}
            rows.append([
                t["task"] + ("" if t.get("complete", True) else " (incomplete)"), c, s["n"], _pct(s["accuracy"]),
                f"{_pct(s['ci'][0])}–{_pct(s['ci'][1])}", f"{s['mean_score']:.3f}",
                *(_pct(shares.get(k)) for k in ("answered", "hedged", "unparsed", "refused")),
                s["errors"], s["not_applicable"],
                f"{es['median']:.3g} {s.get('error_unit') or ''}".strip() if es else "–",
                f"{s['tool_calls_per_sample']:.2f}", _pct(s["tool_error_rate"]),
                f"{_spct(g['gap'])} [{_spct(g['ci'][0])}, {_spct(g['ci'][1])}]" if g and g["n_paired"] else "–",
                f"{g['mcnemar_p']:.3g}" if g and g["n_paired"] else "–",
                g["right_to_wrong"] if g else "–", g["wrong_to_right"] if g else "–",
                s["output_tokens"], "–" if s.get("cost_usd") is None else f"{s['cost_usd']:.4f}",
                f"{s['mean_latency_s']:.2f}",
            ])
    return _table(headers, rows)


def breakdown_tables(breakdowns: dict[str, list[dict[str, Any]]], conditions: list[str]) -> str:
    out = []
    for dim, rows in breakdowns.items():
        others = sorted({c for r in rows for c in (r.get("gap") or {})})
        headers = [dim] + [f"{c} acc % (n)" for c in conditions] + [f"gap {c} pts [95 % CI]" for c in others]
        table_rows = []
        for r in rows:
            line: list[Any] = [r["value"]]
            for c in conditions:
                s = r["conditions"].get(c)
                line.append(f"{_pct(s['accuracy'])} ({s['n']})" if s else "–")
            for c in others:
                g = (r.get("gap") or {}).get(c)
                line.append(f"{_spct(g['gap'])} [{_spct(g['ci'][0])}, {_spct(g['ci'][1])}]" if g and g["n_paired"]
                            else "–")
            table_rows.append(line)
        out.append(f"<h3>by {_e(dim)}</h3>" + _table(headers, table_rows))
    return "".join(out) or '<p class="note">No breakdown keys with two or more values.</p>'


def paper_sections(paper: dict[str, Any] | None) -> list[str]:
    """A suite run's paper-shaped tables (``evals.paper_tables``): rows per condition, gap, hedged %, n and, with
    --compare-paper, the published rows."""
    if not paper:
        return []
    out = [f"<h2>Paper-shaped tables · {_e(paper['suite'])}</h2>"]
    for t in paper["tables"]:
        source = f" Published: {t['published']['source']}." if t.get("published") else ""
        out += [f"<h3>{_e(t['title'])}</h3>", _table(t["grid"]["headers"], t["grid"]["rows"]),
                f'<p class="note">{_e(t["caption"])}.{_e(source)}</p>']
    return out


def render(report: dict[str, Any]) -> str:
    meta = report.get("meta", {})
    spec = meta.get("spec", {})
    conditions: list[str] = spec.get("conditions") or sorted(
        {c for t in report.get("tasks", []) for c in t["conditions"]})
    tasks = report.get("tasks", [])
    all_rows = tasks + ([report["overall"]] if report.get("overall") else [])
    meta_rows = [["run", meta.get("run_id", "")], ["model", spec.get("model", "")],
                 ["split / seed / epochs", f"{spec.get('split')} / {spec.get('seed')} / {spec.get('epochs')}"],
                 ["conditions", ", ".join(conditions)], ["wall time s", meta.get("wall_s", "")],
                 ["results", meta.get("results", "")], ["cost USD", meta.get("cost_usd", "–")],
                 ["git revision", spec.get("git_revision") or "–"], ["dataset hash", spec.get("dataset_hash") or "–"]]
    sections = [
        f"<h1>geogap report · {_e(spec.get('model', ''))}</h1>",
        '<table class="meta">' + "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in meta_rows)
        + "</table>",
        *paper_sections(report.get("paper_tables")),
        "<h2>Gap per task</h2>", gap_chart(tasks),
        "<h2>Accuracy by region</h2>", accuracy_chart(report.get("breakdowns", {}).get("region", []), conditions),
        "<h2>Per task</h2>", task_table(all_rows, conditions),
        "<h2>Breakdowns (all tasks pooled)</h2>", breakdown_tables(report.get("breakdowns", {}), conditions),
    ]
    if report.get("baseline_run") is not None:
        rows = [[r["task"], r["condition"], r["n_paired"], _pct(r["baseline_accuracy"]), _pct(r["accuracy"]),
                 f"{_spct(r['gap'])} [{_spct(r['ci'][0])}, {_spct(r['ci'][1])}]", f"{r['mcnemar_p']:.3g}",
                 r["right_to_wrong"], r["wrong_to_right"]] for r in report["baseline_run"]]
        sections += [f"<h2>Against baseline run {_e(meta.get('baseline_run_dir', ''))}</h2>",
                     _table(["task", "condition", "n paired", "baseline acc %", "this run acc %",
                             "difference pts [95 % CI]", "McNemar p", "right→wrong", "wrong→right"], rows)]
    incomplete = [t["task"] for t in tasks if not t.get("complete", True)]
    if incomplete:
        sections.insert(2, f'<p class="incomplete"><strong>Incomplete:</strong> samples ended in error in '
                           f'{_e(", ".join(incomplete))}; they are left out of accuracy and the gap.</p>')
    sections.append('<p class="note">n: samples the model answered; samples whose model call failed (errors) are '
                    "left out of accuracy, the gap and McNemar. Answer statuses: answered (one answer, creditable), "
                    "hedged (several candidates), unparsed (no answer found), refused. Accuracy intervals: Wilson 95 %. "
                    "Gaps: paired on the same sample ids answered in both conditions, percentile bootstrap (2,000 "
                    "resamples); p: exact McNemar on the discordant pairs.</p>")
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>geogap report</title>"
            f"<style>{CSS}</style></head><body>{''.join(sections)}</body></html>")


def write_html(path: Path, report: dict[str, Any]) -> Path:
    write_text_atomic(Path(path), render(redact_obj(report)))
    return Path(path)
