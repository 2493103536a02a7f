"""Run-level pages: the list of runs, runs side by side, one run (spec, comparison table, gap chart,
breakdowns), and a run directory's files."""

from __future__ import annotations

import datetime as dt
import math
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

from evals.analysis import ALL_TASKS, ANSWER_STATUSES, ConditionSummary, TaskComparison
from evals.report import STATUS_ORDER, pair_text, status_shares
from evals.view.charts import POOLED, gap_chart
from evals.view.leaderboard import leaderboard_body
from evals.view.links import Linker, ServerLinker, SiteLinker
from evals.view.listing import OUTCOMES, ListQuery
from evals.view.markup import Safe, esc, fmt_secs, h, join, page
from evals.view.paper import baseline_run_table, paper_sections
from evals.view.runs import RunHandle
from evals.view.summary import Summary
from evals.view.tooluse import tool_use_section
from evals.view.widgets import acc_cell, gap_cell, pairwise_table


def _when(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M")


def _tally(summary: Summary | None) -> Safe:
    """Tasks whose gap interval lies above zero, below zero, or covers it."""
    if summary is None:
        return h('<span class="muted">computing…</span>')
    cis = [g.get("ci") or [None, None] for c in summary.comparisons for g in (c.gap or {}).values() if g.get("n_paired")]
    cis = [ci for ci in cis if all(isinstance(x, int | float) and math.isfinite(x) for x in ci)]
    if not cis:
        return h('<span class="muted">no paired conditions</span>')
    up = sum(1 for lo, _ in cis if lo > 0)
    down = sum(1 for _, hi in cis if hi < 0)
    return h('<span class="pos">▲ {u}</span> · <span class="neg">▼ {d}</span> · <span class="muted">≈ {f}</span>',
             u=up, d=down, f=len(cis) - up - down)


def index_page(runs: dict[str, RunHandle], link: SiteLinker, wait_s: float | None = 0.2, boards: bool = False) -> str:
    """The runs with their models, conditions, counts and gap tally; a link to the leaderboard when a parent
    directory holds one (``boards``) or there are several runs."""
    selectable = link.dynamic and len(runs) > 1
    rows = []
    for rid, run in runs.items():
        spec = run.spec()
        n_samples, n_results = run.reader.count("samples"), run.reader.count()
        summary, _, _ = run.summary(wait_s)
        s = spec[1] if spec else None
        pick = h('<td><input type="checkbox" name="run" value="{r}" checked aria-label="select {n}"></td>', r=rid,
                 n=run.name) if selectable else esc("")
        rows.append(h(
            '<tr>{pick}<td><a href="{u}"><b>{name}</b></a><div class="muted small mono">{dir}</div></td><td>{model}</td>'
            '<td>{conds}</td><td class="num">{tasks}</td><td class="num">{ns}</td><td class="num">{nr}</td>'
            '<td>{tally}</td><td class="small">{when}</td></tr>',
            pick=pick, u=link.run(rid), name=run.name, dir=str(run.dir), model=s.model if s else "–",
            conds=", ".join(s.conditions) if s else "–", tasks=len(s.tasks) if s else "–", ns=f"{n_samples:,}",
            nr=f"{n_results:,}", tally=_tally(summary), when=_when(spec[2]) if spec else "–"))
    if selectable:
        compare_link = h('<p><button type="submit">compare selected runs side by side →</button></p>')
    elif len(runs) > 1:
        compare_link = h('<p><a href="{u}">Compare these runs side by side →</a></p>', u=link.compare())
    else:
        compare_link = esc("")
    board = h('<p class="leaderboard-link"><a href="{u}"><b>Leaderboard →</b></a> models side by side: gaps, '
              "tool use, statuses, cost and the difference of gaps</p>", u=link.leaderboard()) \
        if boards or len(runs) > 1 else esc("")
    body = h('<h1>Runs <span class="sub">({n})</span></h1>{board}{form}'
             '<table class="grid"><thead><tr>{pick}<th>run</th><th>model</th><th>conditions</th><th class="num">tasks</th>'
             '<th class="num">samples</th><th class="num">results</th>'
             '<th title="tasks whose gap interval is above / below / around zero">gap by task</th><th>created</th>'
             "</tr></thead><tbody>{rows}</tbody></table>{cmp}{end}",
             n=len(runs), board=board, rows=join(rows), cmp=compare_link, pick=Safe("<th></th>") if selectable else "",
             form=h('<form method="get" action="{u}">', u=link.compare()) if selectable else "",
             end=Safe("</form>") if selectable else "")
    return page("Runs", body, [("runs", None)])


def compare_page(runs: dict[str, RunHandle], link: SiteLinker, wait_s: float | None = 5.0,
                 selected: list[str] | None = None) -> str:
    """Every run's accuracy per condition and gap per task side by side, a checkbox per run to show or hide
    its columns (``selected``: the runs shown at first; default all)."""
    summaries: dict[str, Summary] = {}
    busy = False
    for rid, run in runs.items():
        s, b, _ = run.summary(wait_s)
        busy |= b and s is None
        if s is not None:
            summaries[rid] = s
    tasks = sorted({c.task for s in summaries.values() for c in s.comparisons})
    shown = {rid: not selected or rid in selected for rid in summaries}
    toggles = join(h('<label class="chip"><input type="checkbox"{c} data-run-toggle="{i}"> {n}</label>',
                     c=Safe(" checked") if shown[rid] else "", i=i, n=runs[rid].name) for i, rid in enumerate(summaries))
    head1, head2 = [], []
    for i, (rid, s) in enumerate(summaries.items()):
        hd = Safe("" if shown[rid] else " hidden")
        spec = runs[rid].spec()
        head1.append(h('<th class="group" colspan="{n}" data-run="{i}"{hd}><a href="{u}">{name}</a>'
                       '<div class="muted small">{model}</div></th>', n=len(s.conditions) + len(s.compared), i=i,
                       hd=hd, u=link.run(rid), name=runs[rid].name, model=spec[1].model if spec else ""))
        head2 += [h('<th class="num{lb}" data-run="{i}"{hd}>{c} acc %</th>', lb=" lb" if j == 0 else "", i=i, c=c, hd=hd)
                  for j, c in enumerate(s.conditions)]
        head2 += [h('<th class="num" data-run="{i}"{hd}>gap {c}</th>', i=i, c=c, hd=hd) for c in s.compared]

    def cells(i: int, rid: str, s: Summary, comp: TaskComparison | None) -> list[Safe]:
        hd = Safe("" if shown[rid] else " hidden")
        out = [h('<td class="num{lb}" data-run="{i}"{hd}>{v}</td>', lb=" lb" if j == 0 else "", i=i, hd=hd,
                 v=acc_cell(comp.conditions.get(c) if comp else None, detail=False, compared=c != s.baseline))
               for j, c in enumerate(s.conditions)]
        return out + [h('<td class="num" data-run="{i}"{hd}>{v}</td>', i=i, hd=hd,
                        v=gap_cell((comp.gap or {}).get(c) if comp else None)) for c in s.compared]

    body_rows = [h("<tr><td><b>{t}</b></td>{cells}</tr>", t=task, cells=join(
        c for i, (rid, s) in enumerate(summaries.items())
        for c in cells(i, rid, s, next((x for x in s.comparisons if x.task == task), None)))) for task in tasks]
    if any(s.overall for s in summaries.values()):
        body_rows.append(h('<tr class="pooled"><td><b>{t}</b></td>{cells}</tr>', t=POOLED, cells=join(
            c for i, (rid, s) in enumerate(summaries.items()) for c in cells(i, rid, s, s.overall))))
    note = h('<p class="note">Some runs are still being summarised; this page refreshes.</p>') if busy else esc("")
    body = h('<h1>Runs side by side</h1>{note}<div class="chips">{toggles}</div>'
             '<table class="grid"><thead><tr><th rowspan="2">task</th>{h1}</tr><tr>{h2}</tr></thead>'
             "<tbody>{rows}</tbody></table>",
             note=note, toggles=toggles, h1=join(head1), h2=join(head2), rows=join(body_rows))
    return page("Compare runs", body, [("runs", link.index()), ("compare", None)], refresh_s=3 if busy else None)


def _run_totals(meta: dict[str, Any]) -> list[tuple[str, Any]]:
    """A report's totals (``results.json`` meta): wall time, failed samples, tokens, cost, the baseline run."""
    items: list[tuple[str, Any]] = []
    if meta.get("wall_s") is not None:
        items.append(("wall time", f"{meta['wall_s']} s"))
    if "failed" in meta:
        items.append(("failed samples", meta["failed"]))
    if "input_tokens" in meta:
        items.append(("tokens in / out", f"{meta['input_tokens']:,} / {meta.get('output_tokens', 0):,}"))
    if "cost_usd" in meta:
        items.append(("cost USD", "–" if meta["cost_usd"] is None else meta["cost_usd"]))
    if meta.get("baseline_run_dir"):
        items.append(("baseline run", meta["baseline_run_dir"]))
    return items


def _spec_block(run: RunHandle, meta: dict[str, Any]) -> Safe:
    spec = run.spec()
    if spec is None:
        return h('<p class="note">This run has not written its spec yet.</p>')
    run_id, s, created = spec
    items = [("model", s.model), ("base url", s.base_url or "–"), ("conditions", ", ".join(s.conditions)),
             *([("suite", s.suite)] if s.suite else []), ("split", s.split), ("limit", s.limit if s.limit is not None else "all"),
             ("seed", s.seed), ("epochs", s.epochs), ("generation", " | ".join(dict.fromkeys(p.describe() for p in s.generation.values()))
                                                        or f"temperature {s.temperature}, max tokens {s.max_tokens}"),
             ("max steps", s.max_steps), ("max tool calls", s.max_tool_calls),
             ("sample timeout", f"{s.sample_timeout_s:g} s"), ("connections", s.max_connections),
             ("git revision", s.git_revision or "–"), ("dataset hash", s.dataset_hash or "–"),
             ("run id", run_id), ("created", _when(created)), *_run_totals(meta)]
    versions = join(h("<div><dt>{k}</dt><dd class=\"mono\">{v}</dd></div>", k=k, v=v) for k, v in sorted(s.versions.items()))
    return h('<div class="card"><dl class="specgrid">{items}</dl>'
             '<details><summary>versions ({n})</summary><dl class="specgrid">{versions}</dl></details></div>',
             items=join([*(h("<div><dt>{k}</dt><dd>{v}</dd></div>", k=k, v=v) for k, v in items),
                         h('<div class="span"><dt>tasks ({n})</dt><dd>{v}</dd></div>', n=len(s.tasks),
                           v=", ".join(s.tasks))]), n=len(s.versions),
             versions=versions)


def _table_row(run: RunHandle, summary: Summary, comp: TaskComparison, link: Linker, pooled: bool = False) -> Safe:
    n = max((s.items or s.n for s in comp.conditions.values()), default=0)
    cells = [h('<td class="num">{v}</td>', v=acc_cell(comp.conditions.get(c), compared=c != summary.baseline))
             for c in summary.conditions]
    for c in summary.compared:
        g = (comp.gap or {}).get(c)
        cells.append(h('<td class="num">{v}</td>', v=gap_cell(g)))
        for outcome in ("gained", "lost"):
            count = g.get(outcome) if g else None
            url = link.samples(run.rid, ListQuery(task=None if pooled else comp.task, outcome=outcome, vs=c))
            cells.append(h('<td class="num">{v}</td>', v=h('<a class="badge o-{o}" href="{u}">{n}</a>', o=outcome,
                                                             u=url, n=count) if url and count else esc(count or 0)))
    cells += [h('<td class="num shares">{v}</td>', v=status_cell(comp.conditions.get(c))) for c in summary.conditions]
    errors = [comp.conditions[c].errors for c in summary.conditions if c in comp.conditions]
    cells.append(h('<td class="num">{v}</td>', v=" / ".join(str(e) for e in errors) or "–"))
    mark = h(' <span class="incomplete" title="samples ended in error: left out of accuracy and the gap">'
             "(incomplete)</span>") if not comp.complete else esc("")
    if pooled:
        task = h("<b>{t}</b>", t=POOLED)
    else:
        url = link.samples(run.rid, ListQuery(task=comp.task))
        task = h('<a href="{u}"><b>{t}</b></a>', u=url, t=comp.task) if url else h("<b>{t}</b>", t=comp.task)
    return h('<tr{cls}><td>{task}{mark}</td><td class="num">{n}</td>{cells}</tr>', cls=Safe(' class="pooled"')
             if pooled else "", task=task, mark=mark, n=f"{n:,}", cells=join(cells))


def status_cell(s: ConditionSummary | None) -> Safe:
    """Answer-status shares (:data:`evals.report.STATUS_ORDER`) in whole percent, counts in the tooltip."""
    if s is None or not s.n or not s.status_shares:
        return esc("–")
    shares = status_shares(s)
    counts = ", ".join(f"{k} {s.statuses.get(k, 0)}" for k in ANSWER_STATUSES)
    return h('<span title="{c} of {n} answered samples">{v}</span>', c=counts, n=s.n, v=shares)


def comparison_table(run: RunHandle, summary: Summary, link: Linker) -> Safe:
    """Per task: accuracy [Wilson CI] per condition, the paired gap [bootstrap CI] and links to the samples
    gained and lost, the answer-status shares per condition and the samples ended in error (a task with errors
    is marked incomplete); the pooled row last."""
    head = [h('<th class="num">{c} acc % [95% CI]</th>', c=c) for c in summary.conditions]
    head += [h('<th class="num">gap {c} (pts) [95% CI]</th><th class="num">gained</th><th class="num">lost</th>', c=c)
             for c in summary.compared]
    head += [h('<th class="num" title="{o}, % of answered samples">{c} status %</th>', o=STATUS_ORDER.replace("/", " / "),
               c=c) for c in summary.conditions]
    head.append(h('<th class="num" title="samples whose model call failed, per condition">errors</th>'))
    rows = [_table_row(run, summary, comp, link) for comp in summary.comparisons]
    if summary.overall is not None:
        rows.append(_table_row(run, summary, summary.overall, link, pooled=True))
    return h('<table class="grid"><thead><tr><th>task</th><th class="num">n</th>{head}</tr></thead>'
             "<tbody>{rows}</tbody></table>", head=join(head), rows=join(rows))


def breakdown_tables(summary: Summary, open_all: bool = False) -> Safe:
    """One table per dimension (region, difficulty, family, ...): each task's rows by value, pooled rows first;
    the first (or, with ``open_all``, every) table unfolded."""
    dims: dict[str, list[tuple[str, dict]]] = {}
    for dim, rows in summary.breakdowns.items():
        dims.setdefault(dim, []).extend((POOLED, r) for r in rows)
    for comp in summary.comparisons:
        for dim, rows in comp.breakdowns.items():
            dims.setdefault(dim, []).extend((comp.task, r) for r in rows)
    head = join([h('<th class="num">{c} acc %</th>', c=c) for c in summary.conditions]
                + [h('<th class="num">gap {c}</th><th class="num">gained / lost</th>', c=c) for c in summary.compared])
    out = []
    for i, (dim, task_rows) in enumerate(dims.items()):
        body, last = [], None
        for task, row in task_rows:
            conds = row.get("conditions") or {}
            n = max((c.get("n", 0) for c in conds.values()), default=0)
            cells = [h('<td class="num">{v}</td>', v=acc_cell(conds.get(c), compared=c != summary.baseline))
                     for c in summary.conditions]
            for c in summary.compared:
                g = (row.get("gap") or {}).get(c)
                cells.append(h('<td class="num">{v}</td><td class="num">{gl}</td>', v=gap_cell(g),
                               gl=f"{g.get('gained', 0)} / {g.get('lost', 0)}" if g else "–"))
            body.append(h('<tr><td>{task}</td><td><b>{v}</b></td><td class="num">{n}</td>{cells}</tr>',
                          task=task if task != last else "", v=row.get("value", "?"), n=f"{n:,}", cells=join(cells)))
            last = task
        out.append(h('<details{open}><summary><b>by {k}</b> ({n} rows)</summary>'
                     '<table class="grid"><thead><tr><th>task</th><th>{k}</th><th class="num">n</th>{head}</tr></thead>'
                     "<tbody>{rows}</tbody></table></details>",
                     open=Safe(" open") if i == 0 or open_all else "", k=dim, n=len(task_rows), head=head, rows=join(body)))
    return join(out) if out else h('<p class="muted">No breakdown dimension (region, difficulty, track, noise, '
                                   "style) takes two or more values in this run.</p>")


NOTES = ("n: samples the model answered; samples whose model call failed (errors) are left out of accuracy, the "
         "gap and McNemar. Answer statuses: answered (one answer, creditable), hedged (several candidates), unparsed "
         "(no answer found), refused. Accuracy intervals: Wilson 95 %. Gaps: paired on the same sample ids answered "
         "in both conditions, percentile bootstrap (2,000 resamples); p: exact McNemar on the discordant pairs. "
         "With epochs, each sample's epochs are averaged first: intervals, p and n are over samples (p: the exact "
         "sign-flip test on per-sample differences, McNemar when the epochs agree).")


def run_head(run: RunHandle, link: Linker, meta: dict[str, Any] | None = None) -> Safe:
    """The run's name, spec (with a report's totals) and its samples by outcome, linked where ``link`` can."""
    index = run.index()
    _, counts = index.select(ListQuery())

    def chip(url: str | None, cls: str, label: str, n: int | None = None) -> Safe:
        count = h('<span class="n">{n}</span>', n=f"{n:,}") if n is not None else ""
        if url is None:
            return h('<span class="{c}">{l}{n}</span>', c=cls, l=label, n=count)
        return h('<a class="{c}" href="{u}">{l}{n}</a>', c=cls, u=url, l=label, n=count)

    chips = [chip(link.samples(run.rid, ListQuery(outcome=o)), f"chip o-{o}", label, counts[o])
             for o, label in OUTCOMES.items()]
    browse = link.samples(run.rid, ListQuery())
    files = link.files(run.rid)
    spec = run.spec()
    return h('<h1>{name} <span class="sub">{model}</span></h1>{spec}'
             '<h2>Samples <span class="sub">{ns} samples · {nr} results · {b} vs {vs}</span></h2>'
             '<div class="chips">{all}{chips}{files}</div>',
             name=run.name, model=spec.spec.model if spec else "", ns=f"{run.reader.count('samples'):,}",
             nr=f"{run.reader.count():,}", b=index.baseline, vs=index.default_vs(),
             all=chip(browse, "chip", "browse all samples →") if browse else "", chips=join(chips),
             files=chip(files, "chip", "run files") if files else "", spec=_spec_block(run, meta or {}))


def run_sections(run: RunHandle, summary: Summary, link: Linker, open_all: bool = False) -> Safe:
    """What a run's summary shows: which tasks are incomplete, a suite's paper-shaped tables, the comparison
    table, tool use per tool condition, the gap chart, the breakdowns, the comparison with a baseline run and how
    to read them."""
    incomplete = [c.task for c in summary.comparisons if not c.complete]
    warn = h('<p class="note incomplete">Incomplete: samples ended in error in {t}; they are left out of accuracy '
             "and the gap.</p>", t=", ".join(incomplete)) if incomplete else esc("")
    how = "read from results.json" if summary.source == "results.json" else f"summarised in {fmt_secs(summary.seconds)}"
    chart_rows = summary.comparisons + ([summary.overall.model_copy(update={"task": POOLED})] if summary.overall else [])
    chart = gap_chart(chart_rows, summary.compared) or h('<p class="muted">No paired conditions to chart.</p>')
    bd = breakdown_tables(summary, open_all) if summary.complete else h(
        '<p class="note">Computing breakdowns and the pooled row… this page refreshes.</p>')
    n = len(summary.comparisons)
    return h('{warn}{paper}<h2>Comparison <span class="sub">{n} task{pl} · baseline {b} · {how}</span></h2>'
             "{table}{pairs}{tools}<h2>Gap by task</h2>{chart}<h2>Breakdowns</h2>{bd}{vs}<p class=\"note small\">{notes}</p>",
             warn=warn, paper=paper_sections(summary.paper_tables), n=n, pl="" if n == 1 else "s",
             b=summary.baseline, how=how, table=comparison_table(run, summary, link),
             pairs=pairwise_table(["task", "gap b − a"], [
                 ([POOLED if c.task == ALL_TASKS else c.task, pair_text(key)], g)
                 for c in [*summary.comparisons, *([summary.overall] if summary.overall else [])]
                 for key, g in (c.pairwise or {}).items()]),
             tools=tool_use_section(run, summary, link, open_all), chart=chart, bd=bd,
             vs=join([baseline_run_table(summary.baseline_run, summary.meta.get("baseline_run_dir")),
                      leaderboard_body(summary.leaderboard, embedded=True) if summary.leaderboard else esc("")]), notes=NOTES)


def run_page(run: RunHandle, link: SiteLinker, wait_s: float | None = 2.0) -> str:
    summary, busy, error = run.summary(wait_s)
    head = run_head(run, link, summary.meta if summary else None)
    crumbs = [("runs", link.index()), (run.name, None)]
    if summary is None:
        msg = f"Summary failed: {error}" if error and not busy else (
            f"Computing the comparison of {run.reader.count():,} results (bootstrap intervals)… this page refreshes.")
        return page(run.name, h('{head}<p class="note">{m}</p>', head=head, m=msg), crumbs,
                    refresh_s=3 if busy else None)
    notes = []
    if busy and summary.complete:
        notes.append(h('<p class="note">The run has changed; updating the summary…</p>'))
    if error:
        notes.append(h('<p class="note">Summary failed: {e}</p>', e=error))
    body = h("{head}{notes}{sections}", head=head, notes=join(notes), sections=run_sections(run, summary, link))
    return page(run.name, body, crumbs, refresh_s=5 if busy else None)


def files_page(run: RunHandle, link: ServerLinker, limit: int = 300) -> str:
    """The run directory's files; symlinks pointing outside it are listed but not linked (the server refuses them)."""
    rows = []
    for rel in _walk(run.dir, limit):
        p = run.dir / rel
        inside = p.resolve().is_relative_to(run.dir)
        size = p.stat().st_size if inside and p.is_file() else None
        url = (link.files(run.rid) or "") + "/".join(quote(part, safe="") for part in rel.split("/"))
        name = h('<a href="{u}" class="mono">{r}</a>', u=url, r=rel) if inside else h(
            '<span class="mono muted">{r} (outside the run directory)</span>', r=rel)
        rows.append(h('<tr><td>{n}</td><td class="num">{s}</td></tr>', n=name, s=f"{size:,}" if size is not None else "–"))
    body = h('<h1>Files <span class="sub">{d}</span></h1><table class="grid"><thead><tr><th>file</th>'
             '<th class="num">bytes</th></tr></thead><tbody>{rows}</tbody></table>', d=str(run.dir), rows=join(rows))
    return page(f"{run.name} files", body, [("runs", link.index()), (run.name, link.run(run.rid)), ("files", None)])


def _walk(root: Path, limit: int) -> list[str]:
    """Relative paths of files under ``root`` (not following directory symlinks), at most ``limit``."""
    out: list[str] = []
    for d, dirs, names in os.walk(root, followlinks=False):
        dirs.sort()
        for n in sorted(names) + [x for x in dirs if (Path(d) / x).is_symlink()]:
            out.append((Path(d) / n).relative_to(root).as_posix())
            if len(out) >= limit:
                return out
    return out
