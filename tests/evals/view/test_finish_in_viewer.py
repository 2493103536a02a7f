"""Finish reasons and the statuses they decide in the viewer: the timeline marks a call cut at the token limit or
blocked, the sample list filters by truncated and blocked, the run page's status shares count them."""

from __future__ import annotations

from pathlib import Path

from agents.trace import ModelCallEvent
from evals.records import RunSpec, SampleResult
from evals.report import build_report, write_results_json
from evals.store import RunStore
from evals.view.app import Viewer
from evals.view.timeline import timeline
from tasks.records import Parsed, Score


def test_the_timeline_marks_how_each_call_ended() -> None:
    html = str(timeline([
        ModelCallEvent(raw_text="thinking", output_tokens=512, finish_reason="length", finish_reason_raw="length"),
        ModelCallEvent(raw_text="", finish_reason="prompt_blocked",
                       finish_reason_raw="prompt_feedback.block_reason=SAFETY"),
        ModelCallEvent(raw_text="FINAL ANSWER: 3 km", finish_reason="stop", finish_reason_raw="end_turn"),
    ]))
    assert 'class="badge o-truncated" title="finish reason length">cut at the token limit<' in html
    assert 'class="badge o-blocked" title="finish reason prompt_feedback.block_reason=SAFETY">prompt blocked<' in html
    assert "finish length" in html and "finish stop (end_turn)" in html
    assert html.count('class="badge o-') == 2  # a natural stop gets no badge


def _result(i: int, status: str, finish: str) -> SampleResult:
    parsed = Parsed(raw="x", ok=False, status=status, reason=f"the call ended with {finish}")  # type: ignore[arg-type]
    return SampleResult(run_id="r", sample_id=f"t.x/test/{i:05d}", task="t.x", condition="intrinsic", model="m",
                        parsed=parsed, score=Score.unanswered(parsed), output_tokens=512,
                        trace=[ModelCallEvent(finish_reason=finish, finish_reason_raw=finish)])  # type: ignore[arg-type]


def test_the_run_page_and_the_sample_list_show_truncated_and_blocked(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    results = [_result(0, "truncated", "length"), _result(1, "blocked", "content_filter"),
               _result(2, "truncated", "length")]
    with RunStore(run_dir) as store:
        store.write_spec("r", RunSpec(model="m", tasks=["t.x"], conditions=["intrinsic"]))
        for r in results:
            store.add_result(r)
    write_results_json(run_dir / "results.json", build_report(results, ["intrinsic"], {"run_id": "r"}))
    viewer = Viewer([run_dir], wait_s=30)
    rid = next(iter(viewer.runs))
    page = viewer.handle(f"/runs/{rid}/").body.decode()
    assert ">0/0/0/0/0/67/33<" in page and "truncated 2, blocked 1 of 3 answered samples" in page
    truncated = viewer.handle(f"/runs/{rid}/samples?outcome=truncated").body.decode()
    assert "00000" in truncated and "00002" in truncated and "00001" not in truncated
    blocked = viewer.handle(f"/runs/{rid}/samples?outcome=blocked").body.decode()
    assert "00001" in blocked and "00000" not in blocked
    sample = viewer.handle(f"/runs/{rid}/sample?id=t.x/test/00000").body.decode()
    assert "cut at the token limit" in sample and 'class="badge o-truncated"' in sample
