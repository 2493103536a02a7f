"""The run page's tool-use section: per task (and pooled) and tool condition, how often the model called a tool,
accuracy with and without a tool call, the paired 2×2×2 against the baseline with its cells named, and answers
that disagree with their tools (all from :class:`evals.analysis.ToolUse`, never re-derived here)."""

from __future__ import annotations

from evals.analysis import TaskComparison, ToolUse
from evals.report import pct
from evals.view.charts import POOLED
from evals.view.funnel import funnel_counts
from evals.view.links import Linker
from evals.view.listing import ListQuery
from evals.view.markup import Safe, esc, h, join
from evals.view.runs import RunHandle
from evals.view.summary import Summary
from evals.view.widgets import acc_cell

COLUMNS = ("gained", "lost", "same, right in both", "same, wrong in both")


def _count(n: int, url: str | None) -> Safe:
    return h('<a href="{u}">{n}</a>', u=url, n=n) if url and n else esc(n)


def _cells(u: ToolUse, baseline: str, condition: str, no_tool_url: str | None) -> Safe:
    """The 2×2×2 as two rows (called a tool, never tried) by the four paired outcomes, each cell named."""
    p = u.paired
    if p is None or not p.n_paired:
        return h('<p class="muted small">No pairs with {b}.</p>', b=baseline)
    rows = [("with tools", "called a tool", [
        ("gained with tools", f"{baseline} wrong, called a tool, right", p.gained_with_tools),
        ("lost despite tools", f"{baseline} right, called a tool, wrong", p.lost_despite_tools),
        ("same with tools", "called a tool, right in both", p.same_with_tools_right),
        ("same with tools", "called a tool, wrong in both", p.same_with_tools_wrong)]),
        ("never tried", "answered without calling a tool", [
            ("never tried, gained", f"{baseline} wrong, no tool call, right", p.never_tried_gained),
            ("never tried, lost", f"{baseline} right, no tool call, wrong", p.never_tried_lost),
            ("never tried, same", "no tool call, right in both", p.never_tried_same_right),
            ("never tried, same", "no tool call, wrong in both", p.never_tried_same_wrong)])]
    body = []
    for label, why, cells in rows:
        head = h('<a href="{u}">{l}</a>', u=no_tool_url, l=label) if label == "never tried" and no_tool_url \
            else esc(label)
        body.append(h('<tr><th scope="row" title="{w}">{head}</th>{cells}</tr>', w=why, head=head, cells=join(
            h('<td class="num" title="{name}: {what}">{n}</td>', name=name, what=what, n=n) for name, what, n in cells)))
    return h('<table class="grid tooluse"><thead><tr><th>{c} vs {b} ({n} pairs)</th>{heads}</tr></thead>'
             "<tbody>{body}</tbody></table>", c=condition, b=baseline, n=p.n_paired,
             heads=join(h('<th class="num">{x}</th>', x=x) for x in COLUMNS), body=join(body))


def _block(run: RunHandle, summary: Summary, comp: TaskComparison, condition: str, u: ToolUse, link: Linker,
           pooled: bool, open_: bool) -> Safe:
    task = None if pooled else comp.task
    no_tool = link.samples(run.rid, ListQuery(task=task, outcome="no_tool_call", vs=condition))
    disagrees = link.samples(run.rid, ListQuery(task=task, outcome="disagrees", vs=condition))
    f = u.fidelity
    used = (f"{u.used_tools}/{u.n} ({pct(u.used_share)} %)" if u.n else "–") + (
        f"; {u.unknown_tool_calls} calls to tools not offered, in {u.samples_with_unknown_calls} samples (apart)"
        if u.unknown_tool_calls else "")
    fidelity = h("{d} of {c} checked{s}{nc}", d=_count(f.disagree, disagrees), c=f.checked,
                 s=f" ({pct(f.share)} %)" if f.share is not None else "",
                 nc=f" ({f.not_comparable} not comparable)" if f.not_comparable else "")
    return h('<details{o}><summary><b>{t}</b> · {c}: called a tool in {used} · disagrees with its '
             "tools {fid}</summary>"
             '<dl class="kv"><dt>accuracy with a tool call</dt><dd>{w} <span class="muted small">{wn}</span></dd>'
             '<dt>accuracy without</dt><dd>{wo} <span class="muted small">{won}</span></dd></dl>{cells}{funnel}</details>',
             o=Safe(" open") if open_ else "", t=POOLED if pooled else comp.task, c=condition, used=used, fid=fidelity,
             w=acc_cell(u.with_tools.model_dump(), compared=True), wn=f"{u.with_tools.correct}/{u.with_tools.n}",
             wo=acc_cell(u.without_tools.model_dump()), won=f"{u.without_tools.correct}/{u.without_tools.n}",
             cells=_cells(u, summary.baseline, condition, no_tool),
             funnel=funnel_counts(u.funnel) if u.funnel is not None else "")


NOTE = ("Tool conditions: their model calls were offered tools (or their name starts with tools). Called a tool: at "
        "least one executed call to a tool the sample was offered (calls to other names are counted apart). Pairs: the same sample and epoch answered in both conditions; samples whose "
        "model call failed never enter. Disagrees with its tools: an answer that parsed, after a tool call that "
        "succeeded, matching no value the tools returned (numbers within 1 % or 0.5, texts ignoring case and "
        "spaces, options by their text); not comparable when no result is JSON or none has the answer's kind.")


def tool_use_section(run: RunHandle, summary: Summary, link: Linker, open_all: bool = False) -> Safe:
    """One block per task (the pooled one last) and tool condition; nothing when no condition offered tools."""
    rows = [(c, False) for c in summary.comparisons] + ([(summary.overall, True)] if summary.overall else [])
    blocks = [_block(run, summary, comp, cond, u, link, pooled, open_all or pooled or len(rows) == 1)
              for comp, pooled in rows for cond, u in comp.tool_use.items()]
    if not blocks:
        return esc("")
    return h('<h2>Tool use <span class="sub">baseline {b}</span></h2>{blocks}<p class="note small">{n}</p>',
             b=summary.baseline, blocks=join(blocks), n=NOTE)
