"""Aggregation on hand-made results: summaries, paired gaps, tool use, breakdowns, run-vs-run, reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.trace import ModelCallEvent, ToolCallEvent, TraceEvent
from evals.analysis import breakdowns, compare, compare_runs, overall, summarise
from evals.records import SampleResult
from evals.report import build_report, render_table, write_results_json
from tasks.records import Score


def result(i: int, cond: str, correct: bool, *, task: str = "fam.t", status: str = "ok", region: str = "EU",
           tool_calls: int = 0, tool_errors: int = 0, error: float | None = None, parse_failed: bool = False,
           value: float | None = None) -> SampleResult:
    score = None if status == "not_applicable" else Score(
        correct=correct, value=float(correct) if value is None else value, error=error, error_unit="km",
        parse_failed=parse_failed)
    return SampleResult(run_id="r", sample_id=f"{task}/test/{i:05d}", task=task, condition=cond, model="m",
                        score=score, status=status, tool_calls=tool_calls, tool_errors=tool_errors,
                        meta={"continent": region, "track": "pure"}, output_tokens=10, cost_usd=0.001)


def dataset() -> list[SampleResult]:
    rs = []
    # 10 items: intrinsic right on 0-3; tools right on 2-9 (so 6 gained, 2 lost: right→wrong on 0, 1)
    for i in range(10):
        rs.append(result(i, "intrinsic", i < 4, region="EU" if i < 5 else "AS", error=float(i),
                         parse_failed=i == 9))
        rs.append(result(i, "tools", i >= 2, region="EU" if i < 5 else "AS", tool_calls=2,
                         tool_errors=1 if i == 0 else 0))
    rs.append(result(10, "tools", False, status="error"))  # failed: not an answer, unpaired (no intrinsic)
    rs.append(result(11, "intrinsic", True))
    rs.append(result(11, "tools", False, status="error"))  # failed on one side: not a pair, not in accuracy
    rs.append(result(12, "intrinsic", True, status="not_applicable"))
    return rs


def test_summary_counts_accuracy_tool_use_and_failures() -> None:
    by = {c: summarise([r for r in dataset() if r.condition == c]) for c in ("intrinsic", "tools")}
    i, t = by["intrinsic"], by["tools"]
    assert (i.n, i.correct, i.not_applicable, i.parse_failures) == (11, 5, 1, 1)
    assert i.parse_failure_rate == pytest.approx(1 / 11)
    assert i.error_summary == {"n": 10, "mean": 4.5, "median": 4.5, "p90": pytest.approx(8.1), "max": 9.0}
    assert i.complete and i.errors == 0
    # errors are not answers: 2 failed tools samples are in neither n nor accuracy, and mark the condition incomplete
    assert (t.n, t.correct, t.errors, t.complete) == (10, 8, 2, False) and t.accuracy == pytest.approx(0.8)
    assert t.tool_calls_per_sample == pytest.approx(20 / 10) and t.tool_error_rate == pytest.approx(1 / 20)
    assert t.samples_with_tool_calls == 10 and t.cost_usd == pytest.approx(0.012)  # what failed was spent too


def test_paired_gap_right_to_wrong_and_mcnemar() -> None:
    [comp] = compare(dataset(), ["intrinsic", "tools"])
    g = comp.gap["tools"]
    # paired items: 0..9 (10 has no intrinsic answer, 11 failed with tools, 12 is not applicable)
    assert g["n_paired"] == 10 and g["gained"] == 6 and g["lost"] == 2
    assert g["right_to_wrong"] == 2 and g["wrong_to_right"] == 6
    assert g["gap"] == pytest.approx((8 - 4) / 10)
    assert g["mcnemar_p"] == pytest.approx(2 * (1 + 8 + 28) / 256)  # exact binomial, 2 of 8 discordant
    assert not comp.complete and comp.errors == 2
    assert g["ci"][0] < g["gap"] < g["ci"][1]


def test_breakdowns_by_region_and_family() -> None:
    rows = breakdowns(dataset(), ["intrinsic", "tools"])
    region = {r["value"]: r for r in rows["region"]}
    assert region["AS"]["conditions"]["intrinsic"]["n"] == 5 and region["AS"]["conditions"]["intrinsic"]["correct"] == 0
    assert region["AS"]["gap"]["tools"]["gap"] == pytest.approx(1.0)
    assert "track" not in rows  # one value only: no breakdown
    two = dataset() + [result(0, "intrinsic", True, task="other.t"), result(0, "tools", True, task="other.t")]
    fam = {r["value"]: r for r in breakdowns(two, ["intrinsic", "tools"])["family"]}
    assert set(fam) == {"fam", "other"} and fam["other"]["conditions"]["tools"]["accuracy"] == 1.0


def test_compare_runs_sample_by_sample() -> None:
    base = [result(i, "tools", i < 5) for i in range(10)]
    cur = [result(i, "tools", i < 8) for i in range(10)] + [result(99, "tools", True)]
    [row] = compare_runs(cur, base)
    assert row["n_paired"] == 10 and row["gap"] == pytest.approx(0.3) and row["wrong_to_right"] == 3
    assert row["accuracy"] == pytest.approx(0.8) and row["baseline_accuracy"] == pytest.approx(0.5)


def test_reports_json_and_table(tmp_path: Path) -> None:
    rs = dataset() + [result(0, "intrinsic", True, task="other.t"), result(0, "tools", False, task="other.t")]
    meta = {"run_id": "r", "spec": {"model": "m", "conditions": ["intrinsic", "tools"]}}
    report = build_report(rs, ["intrinsic", "tools"], meta, baseline_results=rs)
    path = write_results_json(tmp_path / "results.json", report)
    data = json.loads(path.read_text())
    assert {t["task"] for t in data["tasks"]} == {"fam.t", "other.t"} and data["overall"]["task"] == "all"
    assert data["breakdowns"]["region"] and data["baseline_run"][0]["gap"] == 0.0
    rows = [*compare(rs, ["intrinsic", "tools"]), overall(rs, ["intrinsic", "tools"])]
    cells = render_table(rows, ["intrinsic", "tools"]).columns[0]._cells
    assert cells == ["fam.t (incomplete)", "other.t", "all (incomplete)"]  # fam.t has samples ended in error


def test_not_applicable_only_condition_is_empty_not_an_error() -> None:
    rs = [result(i, "intrinsic", True) for i in range(3)] + [
        result(i, "inject-tz", False, status="not_applicable") for i in range(3)]
    [comp] = compare(rs, ["intrinsic", "inject-tz"])
    assert comp.conditions["inject-tz"].n == 0 and comp.conditions["inject-tz"].not_applicable == 3
    assert comp.gap["inject-tz"]["n_paired"] == 0
    assert "–" in render_table([comp], ["intrinsic", "inject-tz"]).columns[3]._cells[0]


def test_trace_event_kinds_are_counted_from_the_runner() -> None:
    from evals.records import RunSpec
    from evals.runner import _accounting

    trace: list[TraceEvent] = [ModelCallEvent(input_tokens=10, output_tokens=2, retries=1),
                               ToolCallEvent(status="ok"), ToolCallEvent(status="error"),
                               ToolCallEvent(status="repeated"),
                               ModelCallEvent(input_tokens=5, output_tokens=1, cache_hit=True)]
    acc = _accounting(trace, RunSpec(model="local/x", tasks=[], conditions=[]), None)
    assert acc == {"input_tokens": 15, "output_tokens": 3, "cached_tokens": 0, "model_calls": 2, "tool_calls": 2,
                   "tool_errors": 1, "retries": 1, "cache_hits": 1, "cost_usd": None}
