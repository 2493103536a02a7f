"""Budget honesty: output tokens per answered sample (mean, median) and the truncated share, per condition, in
results.json and the table; failed samples spend tokens but are not answers."""

from __future__ import annotations

import json
from pathlib import Path

from evals.analysis import summarise
from evals.records import SampleResult
from evals.report import build_report, compare, render_table, write_results_json
from tasks.records import Parsed, Score


def _result(i: int, cond: str, out: int, status: str = "answered", error: bool = False) -> SampleResult:
    parsed = Parsed.success("FINAL ANSWER: 1 km", 1.0) if status == "answered" else Parsed(
        raw="with R = 6371 km, the distance is", ok=False, status=status, reason="cut")  # type: ignore[arg-type]
    score = Score(correct=True, value=1.0) if status == "answered" else Score.unanswered(parsed)
    return SampleResult(run_id="r", sample_id=f"t.x/test/{i:05d}", task="t.x", condition=cond, model="m",
                        parsed=None if error else parsed, score=None if error else score, output_tokens=out,
                        status="error" if error else "ok")


RESULTS = [
    _result(0, "intrinsic", 512, "truncated"), _result(1, "intrinsic", 512, "truncated"),
    _result(2, "intrinsic", 40), _result(3, "intrinsic", 900, error=True),  # the error: not an answer
    _result(0, "tools", 300), _result(1, "tools", 1400), _result(2, "tools", 1024, "truncated"),
    _result(3, "tools", 200),
]


def test_output_tokens_per_sample_and_truncated_share_per_condition(tmp_path: Path) -> None:
    intrinsic = summarise([r for r in RESULTS if r.condition == "intrinsic"])
    assert intrinsic.output_tokens_per_sample == {"mean": 354.6666666666667, "median": 512}
    assert intrinsic.truncated_share == 2 / 3 and intrinsic.n == 3 and intrinsic.correct == 1
    assert intrinsic.output_tokens == 512 + 512 + 40 + 900  # spent, the failed sample included
    report = build_report(RESULTS, ["intrinsic", "tools"], {"run_id": "r"})
    data = json.loads(write_results_json(tmp_path / "results.json", report).read_text())
    tools = data["tasks"][0]["conditions"]["tools"]
    assert tools["output_tokens_per_sample"] == {"mean": 731.0, "median": 662.0} and tools["truncated_share"] == 0.25
    table = render_table(compare(RESULTS, ["intrinsic", "tools"]), ["intrinsic", "tools"])
    headers = [c.header for c in table.columns]
    assert table.columns[headers.index("out tokens mean (median)")]._cells == ["355 (512) / 731 (662)"]
    assert table.columns[headers.index("truncated %")]._cells == ["66.7 / 25.0"]


def test_no_answered_sample_gives_no_budget_figures() -> None:
    s = summarise([_result(0, "intrinsic", 900, error=True)])
    assert s.n == 0 and s.output_tokens_per_sample is None and s.truncated_share is None
