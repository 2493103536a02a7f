"""The gap chart: one row per task, the paired gap (compared − baseline, in points) with its bootstrap interval."""

from __future__ import annotations

import math

from evals.analysis import TaskComparison
from evals.report import p_text, signed_pct
from evals.view.markup import Safe, h, join

GAIN, LOSE, FLAT = "#1a7f37", "#cf222e", "#6e7781"
POOLED = "all tasks (pooled)"


def gap_colour(lo: float, hi: float) -> str:
    """Green when the whole interval is above zero, red when below, grey when it covers zero."""
    return GAIN if lo > 0 else LOSE if hi < 0 else FLAT


def _finite(v: object) -> bool:
    return isinstance(v, int | float) and math.isfinite(v)


def _plottable(g: dict | None) -> bool:
    return bool(g and g.get("n_paired")) and _finite(g.get("gap")) if g else False


def _whisker(g: dict) -> tuple[float, float] | None:
    """The interval to draw, or None when the gap has none (a single pair): then only the point is drawn."""
    ci = g.get("ci") or [None, None]
    return (ci[0], ci[1]) if _finite(ci[0]) and _finite(ci[1]) else None


def gap_chart(comparisons: list[TaskComparison], compared: list[str], width: int = 900) -> Safe:
    """A forest plot of the gaps with 95 % intervals; empty when no task has a gap."""
    rows = [(c.task, cond, c.gap[cond]) for c in comparisons for cond in compared
            if c.gap and _plottable(c.gap.get(cond))]
    if not rows:
        return Safe("")
    label_w, pad, row_h, top = 300, 16, 22, 24
    spans = [_whisker(g) or (g["gap"], g["gap"]) for _, _, g in rows]
    lo = min(min(a for a, _ in spans), -0.1)
    hi = max(max(b for _, b in spans), 0.1)
    lo, hi = math.floor(lo * 10) / 10, math.ceil(hi * 10) / 10
    plot_w = width - label_w - pad - 50
    height = top + row_h * len(rows) + 26

    def x(v: float) -> float:
        return label_w + (v - lo) / (hi - lo) * plot_w

    parts = []
    tick = 0.1 if hi - lo <= 0.8 else 0.2 if hi - lo <= 1.2 else 0.5
    t = math.ceil(lo / tick) * tick
    while t <= hi + 1e-9:
        parts.append(h('<line x1="{x}" y1="{y0}" x2="{x}" y2="{y1}" stroke="{c}" stroke-width="{sw}"/>'
                       '<text x="{x}" y="{ty}" font-size="10" fill="#656d76" text-anchor="middle">{t}</text>',
                       x=f"{x(t):.1f}", y0=top - 6, y1=height - 22, c="#57606a" if abs(t) < 1e-9 else "#e3e8ee",
                       sw=1.2 if abs(t) < 1e-9 else 1, ty=height - 8, t=f"{100 * t:+.0f}" if abs(t) > 1e-9 else "0"))
        t += tick
    multi = len(compared) > 1
    for i, ((task, cond, g), (w0, w1)) in enumerate(zip(rows, spans, strict=True)):
        y = top + i * row_h + row_h / 2
        c = gap_colour(w0, w1) if _whisker(g) else FLAT
        label = f"{task} · {cond}" if multi else task
        parts.append(h(
            '<g><title>{tip}</title>'
            '<text x="{lx}" y="{ty}" font-size="12" fill="#1f2328" text-anchor="end" font-weight="{fw}">{label}</text>'
            '<line x1="{x0}" y1="{y}" x2="{x1}" y2="{y}" stroke="{c}" stroke-width="2.5" stroke-linecap="round"/>'
            '<circle cx="{xm}" cy="{y}" r="5" fill="{c}"/>'
            '<text x="{vx}" y="{ty}" font-size="11" fill="{c}" font-weight="600">{v}</text></g>',
            tip=f"{label}: gap {signed_pct(g['gap'])} pts, 95% CI [{signed_pct(g['ci'][0])}, {signed_pct(g['ci'][1])}], "
                f"gained {g['gained']}, lost {g['lost']}, n={g['n_paired']}, McNemar p={p_text(g['mcnemar_p'])}",
            lx=label_w - 8, ty=f"{y + 4:.1f}", label=label if len(label) <= 44 else label[:43] + "…", fw=700 if task == POOLED else 400, x0=f"{x(w0):.1f}", x1=f"{x(w1):.1f}",
            y=f"{y:.1f}", c=c, xm=f"{x(g['gap']):.1f}", vx=f"{x(hi) + 6:.1f}", v=signed_pct(g["gap"])))
    parts.append(h('<text x="{x}" y="12" font-size="11" fill="#656d76" text-anchor="middle">'
                   'gap in accuracy points (compared − baseline), 95% bootstrap CI</text>', x=f"{x((lo + hi) / 2):.1f}"))
    return h('<svg class="gapchart" viewBox="0 0 {w} {h}" width="{w}" height="{h}" role="img" '
             'aria-label="gap chart">{body}</svg>', w=width, h=height, body=join(parts))
