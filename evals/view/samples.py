"""Sample-level pages: the filtered, sorted, paginated sample list and one sample with its answers side by
side and each answer's timeline."""

from __future__ import annotations

import json

from evals.records import SampleResult
from evals.view.funnel import sample_funnel
from evals.view.links import ServerLinker, SiteLinker
from evals.view.listing import ANSWER_FLAGS, OUTCOMES, ListQuery, Row, classify, family_of
from evals.view.markup import Safe, esc, fmt_num, fmt_secs, fmt_value, h, join, page
from evals.view.runs import RunHandle
from evals.view.sketch import sketch
from evals.view.timeline import timeline
from evals.view.widgets import outcome_badge, verdict
from tasks.records import Sample


class NotFound(LookupError):
    """The page names a sample the run does not hold."""



def status_flags(row: Row) -> Safe:
    """Badges for a row's answers that earned nothing by status (hedged, unparsed, refused), for errors and for a
    compared answer that disagrees with its tools."""
    badges = [h('<span class="badge o-{f}" title="an answer was {f}">{f}</span>', f=f) for f in ANSWER_FLAGS
              if row.has(f)]
    badges += [h('<span class="badge o-disagrees" title="the answer matches no value its tools returned">'
                 "disagrees with its tools</span>")] * row.disagrees
    return join(badges + [h('<span class="badge o-error">error</span>')] * row.error, " ")

def short_id(sample_id: str, task: str) -> str:
    return sample_id[len(task) + 1:] if sample_id.startswith(task + "/") else sample_id


def _chip(url: str | None, label: str, n: int | None, on: bool, cls: str = "") -> Safe:
    count = h('<span class="n">{n}</span>', n=f"{n:,}") if n is not None else esc("")
    if url is None:
        return h('<span class="chip muted">{l}{c}</span>', l=label, c=count)
    return h('<a class="chip{on}{cls}" href="{u}">{l}{c}</a>', on=" on" if on else "", cls=f" {cls}" if cls else "",
             u=url, l=label, c=count)


def _answer_cell(r: SampleResult | None) -> Safe:
    cls, icon, label = verdict(r)
    if r is None:
        return h('<span class="muted">not answered</span>')
    if r.status == "error":
        return h('<span class="{c}" title="{l}">{i}</span> <span class="small">{e}</span>', c=cls, l=label, i=icon,
                 e=(r.error or "error")[:90])
    if r.parsed is not None and not r.parsed.ok:
        return h('<span class="{c}" title="{l}">{i}</span> <span class="small muted">{e}</span>', c=cls, l=label, i=icon,
                 e=(r.parsed.reason or "parse failure")[:90])
    err = ""
    if r.score is not None and r.score.error is not None:
        err = f"err {fmt_num(r.score.error)} {r.score.error_unit or ''}".rstrip()
    value = fmt_value(r.parsed.value if r.parsed else None, 60)
    return h('<span class="{c}" title="{l}">{i}</span> <span class="mono">{v}</span> <span class="muted small">{e}</span>',
             c=cls, l=label, i=icon, v=value, e=err)


def _sort_header(run: RunHandle, link: SiteLinker, q: ListQuery, key: str | None, label: str, num: bool = False) -> Safe:
    cls = ' class="num"' if num else ""
    if key is None or not link.dynamic:
        return h("<th{c}>{l}</th>", c=Safe(cls), l=label)
    current = q.sort.lstrip("-") == key
    desc = q.sort.startswith("-")
    target = f"-{key}" if current and not desc else key
    arrow = (" ▼" if desc else " ▲") if current else ""
    return h('<th{c}><a href="{u}">{l}{a}</a></th>', c=Safe(cls), u=link.samples(run.rid, q.with_(sort=target, page=1)),
             l=label, a=arrow)


def _pager(run: RunHandle, link: SiteLinker, q: ListQuery, page_no: int, pages: int, total: int, shown: int) -> Safe:
    def a(label: str, p: int, key: str = "") -> Safe:
        url = link.samples(run.rid, q.with_(page=p)) if 1 <= p <= pages and p != page_no else None
        if url is None:
            return h('<span class="off">{l}</span>', l=label)
        return h('<a href="{u}"{k}>{l}</a>', u=url, k=Safe(f' data-key="{key}"') if key else "", l=label)

    start = (page_no - 1) * q.per_page + 1 if total else 0
    return h('<div class="pager">{f}{p}<span>page {n} of {N} · {a}–{b} of {t}</span>{x}{l}</div>',
             f=a("« first", 1), p=a("‹ prev", page_no - 1, "prev"), n=f"{page_no:,}", N=f"{pages:,}", a=f"{start:,}",
             b=f"{start + shown - 1 if shown else 0:,}", t=f"{total:,}", x=a("next ›", page_no + 1, "next"),
             l=a("last »", pages))


def list_page(run: RunHandle, link: SiteLinker, q: ListQuery) -> str:
    index = run.index()
    vs = index.resolve_vs(q.vs)
    matching = run.search(q.q)
    pg = index.page(q, matching)
    ids = [r.sample_id for r in pg.rows]
    samples = run.reader.samples(ids)
    results = {(r.sample_id, r.epoch, r.condition): r for r in run.reader.results(ids, with_trace=False)}
    base = index.baseline

    filters = []
    if index.compared != [base]:
        filters.append(h('<div class="chips"><span class="muted">compare {b} with:</span>{c}</div>', b=base, c=join(
            _chip(link.samples(run.rid, q.with_(vs=c, page=1)), c, None, c == vs) for c in index.compared)))
    outcome_chips = [_chip(link.samples(run.rid, q.with_(outcome=None, page=1)), "all", sum(
        pg.counts[o] for o in ("gained", "lost", "both_wrong", "both_right")), q.outcome is None)]
    outcome_chips += [_chip(link.samples(run.rid, q.with_(outcome=o, page=1)), label, pg.counts[o], q.outcome == o,
                            f"o-{o}") for o, label in OUTCOMES.items()]
    filters.append(h('<div class="chips"><span class="muted">outcome:</span>{c}</div>', c=join(outcome_chips)))
    rows_all = index.rows(vs)
    if len(index.families) > 1:
        fam = index.counts_by(vs, "family")
        chips = [_chip(link.samples(run.rid, q.with_(family=None, task=None, page=1)), "all", len(rows_all),
                       not q.family)]
        chips += [_chip(link.samples(run.rid, q.with_(family=f, task=None, page=1)), f, fam[f], q.family == f)
                  for f in index.families]
        filters.append(h('<div class="chips"><span class="muted">family:</span>{c}</div>', c=join(chips)))
    if len(index.tasks) > 1:
        per_task = index.counts_by(vs, "task")
        tasks = [t for t in index.tasks if not q.family or family_of(t) == q.family]
        chips = [_chip(link.samples(run.rid, q.with_(task=None, page=1)), "all", None, not q.task)]
        chips += [_chip(link.samples(run.rid, q.with_(task=t, family=None, page=1)), t, per_task[t], q.task == t)
                  for t in tasks]
        filters.append(h('<div class="chips"><span class="muted">task:</span>{c}</div>', c=join(chips)))
    if link.dynamic:
        hidden = join(h('<input type="hidden" name="{k}" value="{v}">', k=k, v=v)
                      for k, v in q.params(q="", page=1).items())
        clear = h(' <a href="{u}">clear</a>', u=link.samples(run.rid, q.with_(q="", page=1))) if q.q else esc("")
        filters.append(h('<form class="filters" method="get" action="{a}">{hidden}<label>text search (prompt, '
                         'answers, tool calls)<input type="search" name="q" value="{v}" placeholder="e.g. Tokyo, '
                         'distance_km, error"></label><button type="submit">search</button>{clear}</form>',
                         a=link.samples(run.rid, ListQuery()), hidden=hidden, v=q.q, clear=clear))
        sort_note = esc("")
    else:
        sort_note = h('<p class="muted small">Static export: sorted by sample id; text search and sorting need '
                      "<code>python -m evals.view</code>.</p>")

    heads = join([
        h('<th class="num">#</th>'), _sort_header(run, link, q, "id", "sample"), _sort_header(run, link, q, "outcome", "outcome"),
        h("<th>gold</th>"), _sort_header(run, link, q, "err_a", f"{base} answer"),
        _sort_header(run, link, q, "err_b", f"{vs} answer"), _sort_header(run, link, q, "calls", "tool calls", True),
        _sort_header(run, link, q, "latency", "latency", True)])
    body_rows = []
    first = (pg.page - 1) * q.per_page
    for i, r in enumerate(pg.rows):
        s = samples.get(r.sample_id)
        ra, rb = results.get((r.sample_id, r.epoch, base)), results.get((r.sample_id, r.epoch, vs))
        flags = status_flags(r)
        ident = short_id(r.sample_id, r.task) + (f" · epoch {r.epoch}" if r.epoch else "")
        body_rows.append(h(
            '<tr class="r-{o}"><td class="num muted">{n}</td><td><a href="{u}" class="mono">{id}</a><div class="muted small">{t}</div></td>'
            "<td>{badge} {flags}</td><td class=\"mono small\">{gold}</td><td>{a}</td><td>{b}</td>"
            '<td class="num">{calls}</td><td class="num">{lat}</td></tr>',
            o=r.outcome or "none", n=first + i + 1, u=link.sample(run.rid, r.sample_id, r.epoch, q), id=ident, t=r.task,
            badge=outcome_badge(r.outcome), flags=flags, gold=fmt_value(s.target, 60) if s else "–",
            a=_answer_cell(ra), b=_answer_cell(rb), calls=r.b.tool_calls if r.b else "–",
            lat=fmt_secs(r.b.latency_s) if r.b else "–"))
    empty = h('<tr><td colspan="8" class="muted">No sample matches these filters.</td></tr>')
    pager = _pager(run, link, q, pg.page, pg.pages, pg.total, len(pg.rows))
    search_note = h(' · text “{q}” matches {n} samples', q=q.q, n=f"{len(matching or ()):,}") if q.q else esc("")
    body = h('<h1>Samples <span class="sub">{run} · {b} vs {vs}{sn}</span></h1>{filters}{sort_note}{pager}'
             '<table class="grid samples"><thead><tr>{heads}</tr></thead><tbody>{rows}</tbody></table>{pager}',
             run=run.name, b=base, vs=vs, sn=search_note, filters=join(filters), sort_note=sort_note, pager=pager,
             heads=heads, rows=join(body_rows) if body_rows else empty)
    return page(f"{run.name} samples", body, [("runs", link.index()), (run.name, link.run(run.rid)), ("samples", None)])


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1, default=str)


def _answer(cond: str, r: SampleResult | None) -> Safe:
    cls, icon, label = verdict(r)
    box = {"ok": "right", "bad": "wrong", "pf": "pfail", "er": "failed"}.get(cls, "")
    if r is None:
        return h('<div class="answer"><div class="head"><b>{c}</b><span class="muted">not answered</span></div></div>',
                 c=cond)
    parts = [h('<div><div class="label">answer (raw text)</div><pre class="final">{t}</pre></div>',
               t=r.final_text or "(empty)")]
    kv = []
    if r.answer_channel == "structured":
        kv.append(("final_answer", "no call" if r.structured_answer is None else _json(r.structured_answer)))
    if r.parsed is not None:
        kv.append(("parsed", fmt_value(r.parsed.value) if r.parsed.ok else f"parse failure: {r.parsed.reason}"))
    if r.score is not None:
        sc = f"{r.score.value:g}"
        if r.score.error is not None:
            sc += f" · error {fmt_num(r.score.error, 3)} {r.score.error_unit or ''}".rstrip()
        kv.append(("score", sc))
        if r.score.explanation:
            kv.append(("why", r.score.explanation))
    parts.append(h('<dl class="kv">{items}</dl>', items=join(h("<dt>{k}</dt><dd>{v}</dd>", k=k, v=v) for k, v in kv)))
    if r.status == "error":
        parts.append(h('<div><div class="label">error</div><pre class="res">{e}</pre></div>', e=r.error or "error"))
    if r.funnel is not None:
        parts.append(sample_funnel(r.funnel))
    stats = [f"{r.input_tokens:,} → {r.output_tokens:,} tokens"] + ([f"{r.cached_tokens:,} cached"] if r.cached_tokens else [])
    stats += [fmt_secs(r.latency_s), f"{r.tool_calls} tool call{'s' if r.tool_calls != 1 else ''}"]
    stats += [f"stop: {r.stop_reason}"] if r.stop_reason else []
    stats += [f"{r.attempts} attempts"] if r.attempts > 1 else []
    parts.append(h('<div class="muted small">{s}</div>', s=" · ".join(stats)))
    parts.append(h('<div><div class="label">timeline</div>{t}</div>', t=timeline(r.trace)))
    return h('<div class="answer {box}"><div class="head"><b>{c}</b><span class="{cls}">{i} {l}</span></div>'
             '<div class="body">{parts}</div></div>', box=box, c=cond, cls=cls, i=icon, l=label, parts=join(parts))


def sample_page(run: RunHandle, link: SiteLinker, sample_id: str, epoch: int, lq: ListQuery | None) -> str:
    found = run.reader.samples([sample_id])
    stored = run.reader.results([sample_id])
    results = {(r.sample_id, r.epoch, r.condition): r for r in stored if r.epoch == epoch}
    sample: Sample | None = found.get(sample_id)
    if sample is None and not results:
        raise NotFound(sample_id)
    index = run.index()
    lq = lq or ListQuery()
    vs = index.resolve_vs(lq.vs)
    cells = index.by_key.get((sample_id, epoch), {})
    task = sample.task if sample else next(iter(results.values())).task
    badges = join(h('<span class="muted small">{c}:</span> {b}', c=c, b=outcome_badge(
        classify(cells.get(index.baseline), cells.get(c)))) for c in index.compared if c in cells) \
        if index.baseline in cells else esc("")
    row = Row.of(sample_id, epoch, task, cells.get(index.baseline), cells.get(vs), (sample_id, epoch, vs) in index.disagree)
    flags = status_flags(row)

    matching = run.search(lq.q)
    prev, nxt, pos, total = index.neighbours(lq, (sample_id, epoch), matching)
    nav = []
    if pos is not None:
        back = link.samples(run.rid, lq.with_(page=(pos - 1) // lq.per_page + 1))
        nav.append(h('<a href="{u}" data-key="prev">‹ prev</a>', u=link.sample(run.rid, prev.sample_id, prev.epoch, lq))
                   if prev else h('<span class="muted">‹ prev</span>'))
        nav.append(h('<a href="{u}" data-key="up">{p} of {t} in list</a>', u=back, p=f"{pos:,}", t=f"{total:,}") if back
                   else h('<span class="muted">{p} of {t}</span>', p=f"{pos:,}", t=f"{total:,}"))
        nav.append(h('<a href="{u}" data-key="next">next ›</a>', u=link.sample(run.rid, nxt.sample_id, nxt.epoch, lq))
                   if nxt else h('<span class="muted">next ›</span>'))
    if isinstance(link, ServerLinker):  # the static export has no JSON route
        nav.append(h('<a href="{u}" download>JSON</a>', u=link.sample_json(run.rid, sample_id)))
        nav.append(h('<a href="{u}">across runs</a>', u=link.item(sample_id)))
    epochs = sorted({r.epoch for r in stored})
    if len(epochs) > 1:
        nav.append(join(h('<a href="{u}">epoch {e}</a>', u=link.sample(run.rid, sample_id, e, lq)) if e != epoch
                        else h("<b>epoch {e}</b>", e=e) for e in epochs))

    conds = [c for c in index.conditions if any(k[2] == c for k in results)]
    conds += sorted({k[2] for k in results} - set(conds))
    answers = {c: results[(sample_id, epoch, c)] for c in conds}
    if sample is not None:
        system = next((m.content for m in sample.messages if m.role == "system"), None)
        left = h('<h2>Prompt</h2><pre>{p}</pre>{sys}<h2>Gold</h2><pre class="mono">{gold}</pre>{choices}',
                 p=sample.prompt, gold=_json(sample.target),
                 sys=h("<details><summary>system prompt</summary><pre>{s}</pre></details>", s=system) if system else "",
                 choices=h("<h3>Choices</h3><ol>{c}</ol>", c=join(h("<li>{x}</li>", x=c) for c in sample.choices))
                 if sample.choices else "")
        drawing = sketch(sample.payload, sample.target,
                         {c: r.parsed.value for c, r in answers.items() if r.parsed and r.parsed.ok})
        meta = join(h("<dt>{k}</dt><dd>{v}</dd>", k=k, v=fmt_value(v, 80)) for k, v in sample.meta.items())
        right = h('{sk}<h2>Meta</h2><dl class="kv">{meta}</dl><details><summary>payload</summary><pre>{p}</pre></details>',
                  sk=h("<h2>Sketch</h2>{s}", s=drawing) if drawing else "", meta=meta, p=_json(sample.payload))
    else:
        left, right = h('<p class="note">The sample record is missing from this run.</p>'), esc("")
    cols = join(_answer(c, answers.get(c)) for c in conds)
    ncols = max(1, min(3, len(conds)))
    body = h('<div class="navkeys">{nav}</div><h1 class="mono">{sid}</h1><p>{task} · split {split} · epoch {e} · '
             '{badges} {flags}</p><div class="layout2"><div>{left}</div><div>{right}</div></div>'
             '<h2>Answers</h2><div class="cols" style="--ncols:{n}">{cols}</div>',
             nav=join(nav, " "), sid=sample_id, task=task, split=sample.split if sample else "?", e=epoch, badges=badges,
             flags=flags, left=left, right=right, n=ncols, cols=cols)
    return page(sample_id, body, [("runs", link.index()), (run.name, link.run(run.rid)),
                                  ("samples", link.samples(run.rid, lq.with_(page=1))), (short_id(sample_id, task), None)])
