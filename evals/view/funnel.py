"""The tool-use funnel in the viewer (:mod:`evals.funnel`): on a sample page, which step a tools answer reached
and why it stopped; on the run page and report.html, a tool condition's counts down the steps and the reasons
samples stopped."""

from __future__ import annotations

from evals.funnel import Funnel
from evals.records import FUNNEL_STEPS, FunnelStep
from evals.view.markup import Safe, h, join

STEP_LABELS = {
    "called_tool": "called a tool",
    "right_tool": "a tool that computes the answer",
    "right_args": "with the item's arguments",
    "tool_returned_gold": "the tool returned the gold",
    "answer_matches_tool": "the answer kept the tool's result",
    "credited": "credited",
}


def sample_funnel(step: FunnelStep) -> Safe:
    """The six steps of one tools answer: passed ones ticked, the failed one crossed with its reason (the names
    :mod:`evals.funnel` records), the rest not reached."""
    items = []
    for i, name in enumerate(FUNNEL_STEPS):
        state = "pass" if i < step.passed else "fail" if name == step.failed else "skip"
        mark = {"pass": "✓", "fail": "✗", "skip": "·"}[state]
        why = h(': <b class="reason">{r}</b>', r=step.reason) if state == "fail" and step.reason else ""
        items.append(h('<li class="f-{s}" data-step="{n}" title="{n}">{m} {l}{w}</li>', s=state, n=name, m=mark,
                       l=STEP_LABELS[name], w=why))
    verdict = (h("stopped at <b>{f}</b> ({r})", f=step.failed, r=step.reason or "no reason")
               if step.failed else h("<b>credited</b>: every step passed"))
    tool = h(" · tool {t}", t=step.tool) if step.tool else ""
    return h('<div class="funnel" data-failed="{f}" data-reason="{r}"><div class="fhead small">tool-use funnel: {v}{t}'
             '</div><ol class="fsteps">{items}</ol></div>', f=step.failed or "", r=step.reason or "", v=verdict, t=tool,
             items=join(items))


def funnel_counts(funnel: Funnel) -> Safe:
    """A condition's funnel: samples that passed each step, then why the others stopped."""
    steps = join(h('<td class="num" data-step="{s}" title="{l}">{k}</td>', s=s, l=STEP_LABELS[s], k=funnel.reached[s])
                 for s in FUNNEL_STEPS)
    heads = join(h('<th class="num" title="{s}">{l}</th>', s=s, l=STEP_LABELS[s]) for s in FUNNEL_STEPS)
    stopped = ", ".join(f"{k} {v}" for k, v in sorted(funnel.stopped.items(), key=lambda kv: (-kv[1], kv[0])))
    off = (f" · credited off the funnel: {funnel.credited_without_funnel}" if funnel.credited_without_funnel else "")
    return h('<table class="grid funnel-counts"><thead><tr><th>tool-use funnel</th>{heads}</tr></thead><tbody><tr>'
             '<th scope="row" class="num">{n} samples</th>{steps}</tr></tbody></table>'
             '<p class="small funnel-stopped">stopped: {st}{off}</p>', heads=heads, n=funnel.n, steps=steps,
             st=stopped or "none", off=off)
