"""Small pieces shared by the pages: outcome badges, accuracy and gap cells, verdicts of one answer."""

from __future__ import annotations

import math
from typing import Any

from evals.analysis import ConditionSummary
from evals.records import SampleResult
from evals.report import interval_text, p_text, pct
from evals.view.charts import GAIN, LOSE, gap_colour
from evals.view.listing import OUTCOMES, Cell
from evals.view.markup import Safe, esc, fmt_num, h, join


def outcome_badge(outcome: str | None, label: str | None = None) -> Safe:
    if not outcome:
        return h('<span class="badge">not paired</span>')
    return h('<span class="badge o-{o}">{t}</span>', o=outcome, t=label or OUTCOMES.get(outcome, outcome))


def _finite(x: Any) -> bool:
    return isinstance(x, int | float) and math.isfinite(x)


def acc_cell(s: ConditionSummary | dict[str, Any] | None, detail: bool = True, compared: bool = False) -> Safe:
    """Accuracy with its bar and Wilson interval (from a summary or a breakdown row's dict); with ``detail``
    a second muted line with counts, mean score (when not the accuracy), median error, tool calls and their error
    share, latency, output tokens, the share of input tokens read from the provider's cache, cost, parse failures,
    failed and not-applicable samples."""
    if s is None:
        return esc("–")
    if isinstance(s, dict):  # a breakdown row: no detail line
        n, accuracy, ci = s.get("n", 0), s.get("accuracy", 0.0), s.get("ci") or (0.0, 1.0)
        summary = None
    else:
        n, accuracy, ci, summary = s.n, s.accuracy, s.ci, s
    if not n:
        return esc("–")
    lo, hi = ci
    main = h('<span class="bar"><i{t} style="width:{w}%"></i></span><b>{a}</b> <span class="muted small">[{lo}, {hi}]'
             "</span>", t=Safe(' class="t"') if compared else "", w=f"{100 * accuracy:.1f}", a=pct(accuracy),
             lo=pct(lo), hi=pct(hi))
    if not detail or summary is None:
        return main
    s = summary
    bits = [f"{s.correct}/{s.n}" if s.items in (0, s.n) else f"{s.items} items · {s.correct}/{s.n} answers"]
    if abs(s.mean_score - s.accuracy) > 1e-12:
        bits.append(f"score {s.mean_score:.3f}")
    if s.error_summary:
        bits.append(f"median err {fmt_num(s.error_summary['median'])} {s.error_unit or ''}".rstrip())
    if s.tool_calls_per_sample:
        bits.append(f"{s.tool_calls_per_sample:.2f} calls")
    if s.tool_error_rate:
        bits.append(f"{pct(s.tool_error_rate)} % tool errors")
    if s.latency_s:
        bits.append(f"{s.mean_latency_s:.2f} s mean, p50 {s.latency_s['p50']:.2f} / p95 {s.latency_s['p95']:.2f} s")
    if s.tokens_per_answered is not None:
        bits.append(f"{s.tokens_per_answered:,.0f} tokens/answer")
    bits.append(f"{s.output_tokens:,} out tokens")
    if s.cached_tokens:
        bits.append(f"{pct(s.cached_share)} % of input tokens cached")
    if s.cost_usd is not None:
        bits.append(f"${s.cost_usd:.4f}")
    if s.cost_per_answered_usd is not None:
        bits.append(f"${s.cost_per_answered_usd:.4g}/answer")
    if s.parse_failures:
        bits.append(f"{s.parse_failures} parse fail")
    if s.errors:
        bits.append(f"{s.errors} failed")
    if s.not_applicable:
        bits.append(f"{s.not_applicable} n/a")
    return h('{m}<div class="muted small">{b}</div>', m=main, b=" · ".join(bits))


def gap_cell(g: dict | None) -> Safe:
    """The paired gap in points with its bootstrap interval, coloured by the interval's side of zero."""
    if not g or not g.get("n_paired") or not _finite(g.get("gap")):
        return esc("–")
    ci = g.get("ci") or [None, None]
    has_ci = all(_finite(x) for x in ci)
    colour = gap_colour(ci[0], ci[1]) if has_ci else ""
    cls = {GAIN: "pos", LOSE: "neg"}.get(colour, "")
    point, interval = interval_text(g["gap"], ci[0], ci[1]).split(" ", 1)  # as every table prints it
    p, usd = g.get("mcnemar_p"), g.get("cost_per_gained_usd")
    return h('<span class="{c}">{g}</span> <span class="muted small">{ci}</span><div class="muted small">n={n}{p}{u}'
             '</div>', c=cls, g=point, ci=interval, n=g["n_paired"],
             p=f" · McNemar p={p_text(p)}" if _finite(p) else "", u=f" · ${usd:.4g}/answer gained" if _finite(usd) else "")


def verdict(r: SampleResult | Cell | None) -> tuple[str, str, str]:
    """(css class, icon, label) for one answer: error, parse failure, right or wrong."""
    if r is None:
        return "", "·", "not answered"
    if r.status == "not_applicable":
        return "", "–", "not applicable"
    if isinstance(r, Cell):
        failed, pf, ok = r.failed, r.parse_failed, r.correct
    else:
        failed = r.status == "error"
        pf = bool(r.score and r.score.parse_failed)
        ok = bool(r.score and r.score.correct)
    if failed:
        return "er", "⊘", "error"
    if pf:
        return "pf", "⚠", "parse failure"
    return ("ok", "✓", "right") if ok else ("bad", "✗", "wrong")


def pairwise_table(heads: list[str], rows: list[tuple[list[str], dict | None]]) -> Safe:
    """The paired gap between every two conditions other than the baseline: each row's text cells (``heads``) and
    its gap (``b − a``, :func:`gap_cell`); nothing without rows."""
    if not rows:
        return esc("")
    body = join(h('<tr class="pair">{cells}<td class="num gap">{g}</td></tr>',
                  cells=join(h("<td>{c}</td>", c=c) for c in cells), g=gap_cell(g)) for cells, g in rows)
    return h('<h3>Between compared conditions <span class="sub">paired gap b − a on the items both answered, neither '
             'the baseline</span></h3><table class="grid pairwise"><thead><tr>{heads}<th class="num">gap (pts) '
             "[95% CI]</th></tr></thead><tbody>{body}</tbody></table>",
             heads=join(h("<th>{x}</th>", x=x) for x in heads), body=body)
