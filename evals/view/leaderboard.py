"""The leaderboard page (:mod:`evals.leaderboard`): per compared condition, one row per model and task with each
condition's accuracy, the gap with its interval, tool adoption, the truncated, hedged and unlocated shares and the cost; the
gaps as a chart; and the difference of every two models' gaps with its paired interval.

The server shows it at ``/leaderboard``: the leaderboard a parent directory of several models holds in its
``results.json`` (``python -m evals.view PARENT``), else one computed from the runs being viewed. The parent's
``report.html`` is the same page as one file.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

from evals.analysis import ALL_TASKS, TaskComparison
from evals.leaderboard import (
    SHOWN_STATUSES,
    build_leaderboard,
    fmt_cost,
    read_entry,
    unique_labels,
)
from evals.report import pair_text, pct, write_text_atomic
from evals.run_reader import is_run_dir
from evals.run_report import read_report
from evals.view.charts import POOLED, gap_chart
from evals.view.markup import Safe, esc, h, join, page
from evals.view.widgets import acc_cell, gap_cell, pairwise_table

FOOTER = ("geogap leaderboard: python -m evals.view on this directory browses every model's samples and traces.")
NOTES = ("Gap: compared − baseline on the same items, paired bootstrap over items (2,000 resamples). Tool use: "
         "answered samples of the compared condition that called a tool. Truncated, hedged: shares of answers (errors "
         "and not-applicable samples left out), baseline / compared. Cost: every condition, – when a price is "
         "unknown. Difference of gaps: item by item over the items both models answered in both conditions, "
         "percentile bootstrap over items (epochs of one item kept together).")


def read_board(directory: Path) -> dict[str, Any] | None:
    """The leaderboard in ``directory/results.json`` (a parent of several models' runs), or None."""
    try:
        board = read_report(Path(directory) / "results.json").leaderboard
    except (OSError, ValueError):
        return None
    return board if isinstance(board, dict) and board.get("rows") is not None else None


def find_boards(paths: list[Path]) -> dict[str, Path]:
    """Parent directories among ``paths`` whose ``results.json`` holds a leaderboard, by name."""
    return {p.resolve().name: p for p in paths if p.is_dir() and not is_run_dir(p) and read_board(p) is not None}


def _shares(row: dict[str, Any], baseline: str, condition: str, status: str) -> str:
    def one(c: str) -> str:
        st = row["conditions"].get(c, {}).get("statuses") or {}
        return pct(st.get(status, 0.0)) if st else "–"

    return f"{one(baseline)} / {one(condition)}"


def _model_cell(row: dict[str, Any], links: dict[str, str]) -> Safe:
    url = links.get(row["model"])
    name = h('<a href="{u}">{m}</a>', u=url, m=row["model"]) if url else esc(row["model"])
    mark = esc("") if row["complete"] else h(' <span class="incomplete" title="samples missing or ended in error">'
                                             "(incomplete)</span>")
    return h("{n}{m}", n=name, m=mark)


def _table(board: dict[str, Any], condition: str, links: dict[str, str]) -> Safe:
    b = board["baseline"]
    tasks = [*board["tasks"], *([ALL_TASKS] if len(board["tasks"]) > 1 else [])]
    body = []
    for task in tasks:
        body.append(h('<tr class="group"><td colspan="{n}"><b>{t}</b></td></tr>', t=POOLED if task == ALL_TASKS else task,
                      n=6 + len(SHOWN_STATUSES)))
        for row in (r for r in board["rows"] if r["task"] == task):
            base, comp = row["conditions"].get(b), row["conditions"].get(condition)
            adoption = (comp or {}).get("tool_adoption")
            body.append(h(
                '<tr data-model="{m}" data-task="{t}"><td>{name}</td><td class="num">{a}</td><td class="num">{c}</td>'
                '<td class="num gap">{g}</td><td class="num">{u}</td>{shares}<td class="num">{cost}</td></tr>',
                m=row["model"], t=task, name=_model_cell(row, links), a=acc_cell(base, detail=False),
                c=acc_cell(comp, detail=False, compared=True), g=gap_cell(row["gap"].get(condition)),
                u="–" if adoption is None else f"{100 * adoption:.0f}",
                shares=join([h('<td class="num">{v}</td>', v=_shares(row, b, condition, st)) for st in SHOWN_STATUSES]),
                cost=fmt_cost(row["cost_usd"])))
    return h('<table class="grid leaderboard" data-condition="{c}"><thead><tr><th>model</th><th class="num">{b} acc % '
             '[95% CI]</th><th class="num">{c} acc % [95% CI]</th><th class="num">gap (pts) [95% CI]</th>'
             '<th class="num">tool use %</th>{heads}<th class="num">cost</th></tr></thead><tbody>{rows}</tbody>'
             "</table>", b=b, c=condition, rows=join(body),
             heads=join([h('<th class="num">{s} % {b} / {c}</th>', s=st, b=b, c=condition) for st in SHOWN_STATUSES]))


def _chart(board: dict[str, Any], condition: str) -> Safe:
    one_task = len(board["tasks"]) == 1
    rows = [TaskComparison(task=r["model"] if one_task else f"{POOLED if r['task'] == ALL_TASKS else r['task']} · "
                           f"{r['model']}", conditions={}, gap={condition: r["gap"][condition]})
            for r in board["rows"] if r["gap"].get(condition)]
    return gap_chart(sorted(rows, key=lambda c: (c.task.startswith(POOLED), c.task)), [condition])


def _differences(board: dict[str, Any]) -> Safe:
    if not board["differences"]:
        return esc("")
    multi = len(board["compared"]) > 1
    rows = [h('<tr class="diff"><td>{a} − {b}{c}</td><td>{t}</td><td class="num">{n}</td><td class="num gap">{g}</td>'
              "</tr>", a=d["a"], b=d["b"], c=f" · {d['condition']}" if multi else "",
              t=POOLED if d["task"] == ALL_TASKS else d["task"], n=d["n_items"],
              g=gap_cell({"n_paired": d["n_items"], "gap": d["difference"], "ci": d["ci"]}))
            for d in board["differences"]]
    return h('<h2>Difference of gaps <span class="sub">A − B, paired over items</span></h2>'
             '<table class="grid differences"><thead><tr><th>A − B</th><th>task</th><th class="num">items</th>'
             '<th class="num">Δ gap (pts) [95% CI]</th></tr></thead><tbody>{r}</tbody></table>', r=join(rows))


def leaderboard_body(board: dict[str, Any], links: dict[str, str] | None = None, embedded: bool = False) -> Safe:
    """The page's content; ``links`` maps a model's label to its run page; ``embedded``: a section of a run page
    (an ``h2`` heading instead of the page's ``h1``)."""
    links = links or {}
    sections = [h('<h2>{c} vs {b}</h2>{t}<h3>Gap by model and task</h3>{chart}', c=c, b=board["baseline"],
                  t=_table(board, c, links), chart=_chart(board, c)) for c in board["compared"]]
    if not board["compared"]:
        sections = [h('<p class="note">The runs share no condition to compare with {b}.</p>', b=board["baseline"])]
    models = join(h('<li>{m} <span class="muted small mono">{d}</span></li>', m=m["label"], d=m["run_dir"])
                  for m in board["models"])
    tag = Safe("h2" if embedded else "h1")
    return h('<{tag}>Leaderboard <span class="sub">{n} models · {k} task{pl}</span></{tag}><ul class="small">{models}'
             '</ul>{sections}{pairs}{diffs}<p class="note small">{notes}</p>', tag=tag, n=len(board["models"]),
             k=len(board["tasks"]), pl="" if len(board["tasks"]) == 1 else "s", models=models,
             sections=join(sections), pairs=pairwise_table(["model", "task", "gap b − a"], [
                 ([r["model"], POOLED if r["task"] == ALL_TASKS else r["task"], pair_text(key)], g)
                 for r in board["rows"] for key, g in (r.get("pairwise") or {}).items()]),
             diffs=_differences(board), notes=NOTES)


def write_leaderboard_html(parent: Path, board: dict[str, Any]) -> Path:
    """``parent/report.html``: the leaderboard as one file, each model linked to its run's ``report.html``."""
    links = {m["label"]: f"{Path(m['run_dir']).name}/report.html" for m in board["models"]
             if Path(m["run_dir"]).parent.resolve() == Path(parent).resolve()}
    path = Path(parent) / "report.html"
    write_text_atomic(path, page("Leaderboard", leaderboard_body(board, links), brand="leaderboard", footer=FOOTER))
    return path


class LiveBoard:
    """A leaderboard computed from the runs being viewed (when no parent directory holds one), recomputed when
    a run gains results."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cached: tuple[object, dict[str, Any]] | None = None

    def get(self, runs: dict[str, Any]) -> dict[str, Any]:
        """The board of ``runs`` (run id -> handle); a run that cannot be read (no spec yet, a broken store) is
        left out and named in ``skipped``, never the whole page."""
        stamp = tuple((rid, r.reader.stamp()) for rid, r in runs.items())
        with self._lock:
            if self._cached is None or self._cached[0] != stamp:
                entries, skipped = [], []
                for rid, r in runs.items():
                    try:
                        entries.append(read_entry(r.dir))
                    except (ValueError, OSError, sqlite3.Error) as exc:
                        skipped.append(f"{rid}: {exc}")
                labels = unique_labels([e.model for e in entries], [e.run_dir for e in entries])
                entries = [replace(e, label=lab) for e, lab in zip(entries, labels, strict=True)]
                self._cached = (stamp, {**build_leaderboard(entries), "skipped": skipped})
            return self._cached[1]


def run_picker(runs: dict[str, Any], chosen: list[str]) -> Safe:
    """A form of one checkbox per run: the leaderboard of the runs ticked (``?run=ID`` repeated)."""
    boxes = join(h('<label class="chip"><input type="checkbox" name="run" value="{v}"{c}> {n}</label>', v=rid,
                   c=Safe(" checked") if not chosen or rid in chosen else "", n=r.name) for rid, r in runs.items())
    return h('<form method="get" class="chips">{b} <button type="submit">show these runs</button></form>', b=boxes)


def leaderboard_page(board: dict[str, Any] | None, runs: dict[str, Any], link: Any,
                     chosen: list[str] | None = None) -> str:
    """The viewer's page: ``board``, each model linked to its run page (matched by run directory); with the
    server's linker a form to choose the runs (``chosen``: those ticked)."""
    crumbs = [("runs", link.index()), ("leaderboard", None)]
    picker = run_picker(runs, chosen or []) if getattr(link, "dynamic", False) and len(runs) > 1 else esc("")
    if board is None:
        return page("Leaderboard", join([picker, h('<p class="note">A leaderboard needs two runs or a directory of '
                                                   "several models' runs.</p>")]), crumbs)
    by_dir = {str(r.dir): rid for rid, r in runs.items()}
    links = {m["label"]: link.run(by_dir[str(Path(m["run_dir"]).resolve())]) for m in board["models"]
             if str(Path(m["run_dir"]).resolve()) in by_dir}
    skipped = join(h('<p class="note">left out: {s}</p>', s=s) for s in board.get("skipped") or [])
    return page("Leaderboard", join([picker, skipped, leaderboard_body(board, links)]), crumbs)
