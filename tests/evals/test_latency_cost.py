"""Latency percentiles, tokens and dollars per answered sample, and the cost of one gained answer (issue 38)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from evals.analysis import compare, overall, summarise
from evals.records import SampleResult
from evals.report import build_report, print_table
from tasks.records import Score


def result(i: int, cond: str, correct: bool, *, latency: float = 1.0, cost: float | None = 0.001,
           status: str = "ok", task: str = "fam.t", epoch: int = 0) -> SampleResult:
    return SampleResult(run_id="r", sample_id=f"{task}/test/{i:05d}", task=task, condition=cond, model="m",
                        epoch=epoch, score=Score(correct=correct, value=float(correct)), status=status,
                        latency_s=latency, cost_usd=cost, input_tokens=100, output_tokens=20)


def test_latency_p50_p95_over_answered_samples_only() -> None:
    rs = [result(i, "intrinsic", True, latency=float(i)) for i in range(1, 21)]
    rs.append(result(99, "intrinsic", False, latency=500.0, status="error"))  # failed: no answer, no latency
    s = summarise(rs)
    # 1..20 s: the median lies between 10 and 11; p95 at rank 0.95 × 19 = 18.05 → 19 + 0.05 × (20 − 19)
    assert s.latency_s == {"p50": pytest.approx(10.5), "p95": pytest.approx(19.05)}


def test_tokens_and_dollars_per_answered_sample_count_what_failed() -> None:
    rs = [result(i, "intrinsic", i < 2) for i in range(4)] + [result(9, "intrinsic", False, status="error")]
    s = summarise(rs)
    # 5 samples paid for (one failed), 4 answered: 5 × 120 tokens / 4, 5 × $0.001 / 4
    assert s.tokens_per_answered == pytest.approx(150.0)
    assert s.cost_per_answered_usd == pytest.approx(0.00125)


def test_cost_unknown_or_nothing_answered_is_null() -> None:
    s = summarise([result(0, "intrinsic", True, cost=None), result(1, "intrinsic", True)])
    assert s.cost_per_answered_usd is None and s.tokens_per_answered == pytest.approx(120.0)
    s = summarise([result(0, "intrinsic", False, status="error")])
    assert s.latency_s is None and s.cost_per_answered_usd is None and s.tokens_per_answered is None


def gap_data() -> list[SampleResult]:
    # 10 paired items; intrinsic $0.001 each, right on 0..1; tools $0.011 each, right on 1..6: 5 gained, 1 lost
    rs = []
    for i in range(10):
        rs.append(result(i, "intrinsic", i < 2, cost=0.001))
        rs.append(result(i, "tools", 1 <= i <= 6, cost=0.011))
    return rs


def test_cost_per_gained_answer_is_extra_spend_over_net_gain() -> None:
    [comp] = compare(gap_data(), ["intrinsic", "tools"])
    g = comp.gap["tools"]
    assert (g["gained"], g["lost"]) == (5, 1)
    # 10 items × $0.010 more, 4 right answers more (6 − 2): $0.025 per gained answer
    assert g["cost_per_gained_usd"] == pytest.approx(0.025)


def test_cost_per_gained_counts_failed_epochs_spend_and_is_null_without_a_gain() -> None:
    rs = gap_data() + [result(0, "tools", False, cost=0.011, status="error", epoch=1)]
    g = compare(rs, ["intrinsic", "tools"])[0].gap["tools"]
    # item 0 now costs the mean of its two tools results (both $0.011): same per-item spend
    assert g["cost_per_gained_usd"] == pytest.approx(0.025)
    worse = [r.model_copy(update={"score": Score(correct=False, value=0.0)}) if r.condition == "tools" else r
             for r in gap_data()]
    assert compare(worse, ["intrinsic", "tools"])[0].gap["tools"]["cost_per_gained_usd"] is None
    unknown = [r.model_copy(update={"cost_usd": None}) if r.sample_id.endswith("3") else r for r in gap_data()]
    assert compare(unknown, ["intrinsic", "tools"])[0].gap["tools"]["cost_per_gained_usd"] is None


def test_results_json_and_table_footer_carry_latency_and_cost() -> None:
    rs = gap_data() + [result(i, "intrinsic", True, task="fam.u", latency=3.0) for i in range(4)] \
        + [result(i, "tools", True, task="fam.u", latency=5.0, cost=0.011) for i in range(4)]
    report = build_report(rs, ["intrinsic", "tools"], {})
    all_tools = report["overall"]["conditions"]["tools"]
    assert all_tools["latency_s"]["p50"] == pytest.approx(1.0) and all_tools["latency_s"]["p95"] == pytest.approx(5.0)
    # pooled: 14 paired items, each $0.010 dearer with tools; tools right on 10 vs 6: 14 × $0.010 / 4
    assert report["overall"]["gap"]["tools"]["cost_per_gained_usd"] == pytest.approx(0.035)
    rows = compare(rs, ["intrinsic", "tools"]) + [overall(rs, ["intrinsic", "tools"])]
    out = io.StringIO()
    print_table(rows, ["intrinsic", "tools"], Console(file=out, width=400))
    text = out.getvalue()
    assert "per answered sample: intrinsic p50 1.00 s / p95 3.00 s, 120 tokens, $0.001" in text
    assert "tools p50 1.00 s / p95 5.00 s, 120 tokens, $0.011" in text
    assert "USD per answer gained over intrinsic" in text and "tools $0.035" in text


def test_viewer_cells_show_latency_cost_per_answer_and_per_gained_answer() -> None:
    from evals.view.widgets import acc_cell, gap_cell

    [comp] = compare(gap_data(), ["intrinsic", "tools"])
    cell = str(acc_cell(comp.conditions["tools"], detail=True))
    assert "1.00 s mean, p50 1.00 / p95 1.00 s" in cell and "120 tokens/answer" in cell and "$0.011/answer" in cell
    assert "$0.025/answer gained" in str(gap_cell(comp.gap["tools"]))
