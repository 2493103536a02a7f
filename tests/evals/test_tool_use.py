"""Tool use per tool condition on hand-made results: adoption, accuracy with and without tool calls, the paired
2×2×2 cells, fidelity counts, and where they are reported (results.json, the terminal tables, cached tokens)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from agents.trace import ModelCallEvent, ToolCallEvent, TraceEvent
from evals.analysis import compare, is_tool_condition, overall
from evals.records import SampleResult
from evals.report import build_report, print_table, write_results_json
from tasks.records import Message, Parsed, Sample, Score

TASK = "fam.t"
# per item: (intrinsic right, tools called, tools right, what the successful tool call returned, tools answer)
ITEMS = {
    0: (False, True, True, '{"v": 10.0}', 10.0),  # gained with tools; agrees with its tool
    1: (True, True, False, '{"v": 10.0}', 20.0),  # lost despite tools; disagrees
    2: (True, True, True, "ten", 10.0),  # same with tools, right; the tool result is not JSON: not comparable
    3: (False, True, False, None, 10.0),  # same with tools, wrong; its only tool call failed: not checked
    4: (False, False, True, None, 10.0),  # never tried, gained
    5: (True, False, False, None, 10.0),  # never tried, lost
    6: (True, False, True, None, 10.0),  # never tried, same right
    7: (False, False, False, None, 10.0),  # never tried, same wrong
    8: (False, False, True, None, 10.0),  # never tried, gained
}


def res(i: int, cond: str, correct: bool, *, task: str = TASK, status: str = "ok", trace: list[TraceEvent] | None = None,
        answer: object = 10.0, input_tokens: int = 0, cached: int = 0) -> SampleResult:
    trace = trace or []
    tools = [e for e in trace if isinstance(e, ToolCallEvent)]
    return SampleResult(run_id="r", sample_id=f"{task}/test/{i:05d}", task=task, condition=cond, model="m",
                        parsed=Parsed.success("raw", answer), score=Score(correct=correct, value=float(correct)),
                        status=status, trace=trace, tool_calls=len(tools),
                        tool_errors=sum(1 for e in tools if e.status == "error"), input_tokens=input_tokens,
                        cached_tokens=cached)


def tools_trace(called: bool, returned: str | None) -> list[TraceEvent]:
    offered = ModelCallEvent(tools_offered=["lookup"])
    if not called:
        return [offered]
    call = ToolCallEvent(tool="lookup", status="ok", result=returned) if returned is not None else \
        ToolCallEvent(tool="lookup", status="error", error="bad arguments")
    return [offered, call, ModelCallEvent(tools_offered=["lookup"])]


def dataset() -> list[SampleResult]:
    rs = []
    for i, (base_right, called, right, returned, answer) in ITEMS.items():
        rs.append(res(i, "intrinsic", base_right, input_tokens=100))
        rs.append(res(i, "tools", right, trace=tools_trace(called, returned), answer=answer, input_tokens=100,
                      cached=60))
    disagreeing = tools_trace(True, '{"v": 99.0}')
    rs.append(res(9, "intrinsic", True, input_tokens=100))
    rs.append(res(9, "tools", False, status="error", trace=disagreeing))  # failed: in nothing below
    rs.append(res(10, "intrinsic", False, status="error"))  # no baseline answer: not paired, counted otherwise
    rs.append(res(10, "tools", True, trace=tools_trace(True, '{"v": 10.0}'), input_tokens=100, cached=60))
    rs.append(res(11, "tools", False, status="not_applicable"))
    return rs


def test_adoption_accuracy_by_use_paired_cells_and_fidelity() -> None:
    [comp] = compare(dataset(), ["intrinsic", "tools"])
    assert list(comp.tool_use) == ["tools"]  # intrinsic offers no tools
    u = comp.tool_use["tools"]
    assert (u.n, u.used_tools, u.used_share) == (10, 5, 0.5)  # items 0-8 and 10; 9 failed, 11 not applicable
    assert (u.with_tools.n, u.with_tools.correct, u.with_tools.accuracy) == (5, 3, 0.6)  # 0, 2, 10 right
    assert (u.without_tools.n, u.without_tools.correct) == (5, 3)  # 4, 6, 8 right
    assert u.with_tools.ci == pytest.approx((0.2307, 0.8824), abs=1e-3)  # Wilson 95 % of 3/5
    p = u.paired
    assert p is not None and p.n_paired == 9
    assert (p.gained_with_tools, p.lost_despite_tools, p.same_with_tools_right, p.same_with_tools_wrong) == (1, 1, 1, 1)
    assert (p.never_tried_gained, p.never_tried_lost, p.never_tried_same_right, p.never_tried_same_wrong) == (2, 1, 1, 1)
    f = u.fidelity
    assert (f.checked, f.disagree, f.not_comparable) == (3, 1, 1)  # 0 and 10 agree, 1 disagrees, 2 not JSON
    assert f.share == pytest.approx(1 / 3)


def test_overall_pools_the_tasks() -> None:
    extra = [res(0, "intrinsic", False, task="fam.u"),
             res(0, "tools", True, task="fam.u", trace=tools_trace(True, '{"v": 3.0}'), answer=9.0)]
    u = overall(dataset() + extra, ["intrinsic", "tools"]).tool_use["tools"]
    assert (u.n, u.used_tools) == (11, 6)
    assert u.paired is not None and (u.paired.n_paired, u.paired.gained_with_tools) == (10, 2)
    assert (u.fidelity.checked, u.fidelity.disagree) == (4, 2)


def test_tool_conditions_by_offer_or_name_and_no_baseline() -> None:
    assert is_tool_condition("tools-required", [])  # by name, also without traces
    assert is_tool_condition("agentic", [res(0, "agentic", True, trace=tools_trace(False, None))])
    assert not is_tool_condition("cot", [res(0, "cot", True, trace=[ModelCallEvent()])])
    rs = [r for r in dataset() if r.condition == "tools"]
    [comp] = compare(rs, ["tools"], baseline="intrinsic")
    assert comp.tool_use["tools"].paired is None and comp.tool_use["tools"].n == 10


def test_option_answers_are_read_through_their_samples() -> None:
    sample = Sample(id=f"{TASK}/test/00000", task=TASK, messages=(Message(role="user", content="?"),), target={},
                    choices=("Lyon", "Paris"))
    rs = [res(0, "intrinsic", False), res(0, "tools", True, answer=1, trace=tools_trace(True, '{"city": "Paris"}'))]
    with_samples = compare(rs, ["intrinsic", "tools"], samples={sample.id: sample})[0].tool_use["tools"].fidelity
    without = compare(rs, ["intrinsic", "tools"])[0].tool_use["tools"].fidelity
    assert (with_samples.checked, with_samples.disagree) == (1, 0)
    assert (without.checked, without.not_comparable) == (0, 1)  # an int without its sample: option or number?


def test_results_json_carries_tool_use_and_cached_share(tmp_path: Path) -> None:
    path = write_results_json(tmp_path / "results.json", build_report(dataset(), ["intrinsic", "tools"], {}))
    report = json.loads(path.read_text())
    task = report["tasks"][0]
    assert task["tool_use"]["tools"]["paired"]["never_tried_gained"] == 2
    assert task["tool_use"]["tools"]["fidelity"] == {"checked": 3, "disagree": 1, "not_comparable": 1,
                                                     "share": pytest.approx(1 / 3)}
    assert report["overall"]["tool_use"]["tools"]["used_tools"] == 5
    assert task["conditions"]["tools"]["cached_share"] == 0.6  # 600 of 1,000 input tokens
    assert task["conditions"]["intrinsic"]["cached_share"] == 0.0
    assert "tool_use" not in task["conditions"]["tools"]


def test_terminal_tables_show_tool_use_and_cached_tokens() -> None:
    out = io.StringIO()
    rows = compare(dataset(), ["intrinsic", "tools"])
    print_table(rows, ["intrinsic", "tools"], Console(file=out, width=120))
    text = out.getvalue()
    assert "cached prompt tokens: intrinsic 0 (0 %), tools 600 (60 %)" in text
    line = next(ln for ln in text.splitlines() if ln.strip().startswith(TASK) and "tools" in ln)
    for cell in ("5/10 50%", "60.0 (3/5)", "60.0 (3/5)", "1 / 1 / 2", "2 / 1 / 2", "1/3 · 1 n/c"):
        assert cell in line, (cell, line)
    assert max(len(ln) for ln in text.splitlines()) <= 120


def test_no_tool_table_without_tool_conditions() -> None:
    out = io.StringIO()
    rs = [r for r in dataset() if r.condition == "intrinsic"]
    print_table(compare(rs, ["intrinsic"]), ["intrinsic"], Console(file=out, width=120))
    assert "Tool use" not in out.getvalue() and "cached prompt tokens: intrinsic 0 (0 %)" in out.getvalue()


def test_condition_names_with_brackets_survive_the_main_table() -> None:
    rs = [r.model_copy(update={"condition": "tools[geodesy]"}) if r.condition == "tools" else r for r in dataset()]
    out = io.StringIO()
    print_table(compare(rs, ["intrinsic", "tools[geodesy]"]), ["intrinsic", "tools[geodesy]"],
                Console(file=out, width=250))
    header = "".join(out.getvalue().splitlines()[:8])
    assert "tools[geodesy] acc %" in header and "gap tools[geodesy] (pts)" in header
