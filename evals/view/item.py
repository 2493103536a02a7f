"""One item across the runs being viewed: every model's answer to the same sample, per condition and epoch."""

from __future__ import annotations

from typing import Any

from evals.view.links import ServerLinker
from evals.view.markup import Safe, esc, h, join, page
from evals.view.widgets import verdict


def _answer(r: Any) -> str:
    if r.status == "error":
        return r.error or "error"
    if r.parsed is not None and r.parsed.value is not None:
        return str(r.parsed.value)
    return (r.final_text or "")[-200:]


def item_page(runs: dict[str, Any], link: ServerLinker, sample_id: str) -> str | None:
    """A table of ``sample_id``'s stored results in every run (model, condition, epoch, verdict, answer, tool
    calls, latency), each linked to its sample page; None when no run holds the item."""
    rows: list[Safe] = []
    prompt = None
    for rid, run in runs.items():
        results = list(run.reader.results([sample_id], with_trace=False))
        if not results:
            continue
        if prompt is None:
            sample = run.reader.samples([sample_id]).get(sample_id)
            prompt = sample.prompt if sample is not None else None
        spec = run.spec()
        model = spec[1].model if spec else ""
        for r in results:
            cls, icon, label = verdict(r)
            rows.append(h('<tr><td><a href="{u}">{run}</a><div class="muted small">{m}</div></td><td>{c}</td>'
                          '<td class="num">{e}</td><td class="{cls}" title="{lab}">{i} {lab}</td>'
                          '<td class="mono">{a}</td><td class="num">{t}</td><td class="num">{s}</td></tr>',
                          u=link.sample(rid, sample_id, r.epoch), run=run.name, m=model, c=r.condition, e=r.epoch,
                          cls=cls, lab=label, i=icon, a=_answer(r), t=r.tool_calls, s=f"{r.latency_s:.2f}"))
    if not rows:
        return None
    body = h('<h1>{sid} <span class="sub">across {n} answers</span></h1>{p}<table class="grid"><thead><tr><th>run</th>'
             '<th>condition</th><th class="num">epoch</th><th>verdict</th><th>answer</th><th class="num">tool calls'
             '</th><th class="num">latency s</th></tr></thead><tbody>{rows}</tbody></table>', sid=sample_id,
             n=len(rows), p=h("<pre>{p}</pre>", p=prompt) if prompt else esc(""), rows=join(rows))
    return page(sample_id, body, [("runs", link.index()), ("item across runs", None)])
