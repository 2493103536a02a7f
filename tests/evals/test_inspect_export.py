"""``python -m evals.export RUN --format inspect``: one inspect_ai eval log per condition that inspect_ai's own
reader reads back with every sample, its conversation (tool calls and results), score, model and the run spec."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from evals import export
from evals.compare import main
from evals.store import RunStore

log_api = pytest.importorskip("inspect_ai.log")

POINT = re.compile(r"\((-?\d+(?:\.\d+)?), (-?\d+(?:\.\d+)?)\)")


def policy(messages: list[BaseMessage], tools: list[str]) -> AIMessage | str:
    """With tools: calls distance_km on the prompt's points and answers its km. Without: fails (raises) when the
    first latitude's whole part is odd, else answers 0 km."""
    user = next(str(m.content) for m in messages if isinstance(m, HumanMessage))
    (lat1, lon1), (lat2, lon2) = POINT.findall(user)[:2]
    done = [m for m in messages if isinstance(m, ToolMessage)]
    if "distance_km" in tools and not done:
        args = {"lat1": float(lat1), "lon1": float(lon1), "lat2": float(lat2), "lon2": float(lon2)}
        return AIMessage("", tool_calls=[{"name": "distance_km", "args": args, "id": "d1"}])
    if done:
        return f"FINAL ANSWER: {json.loads(str(done[0].content))['distance_km']} km"
    if int(abs(float(lat1))) % 2:
        raise ValueError("scripted failure")
    return "FINAL ANSWER: 0 km"


def test_every_condition_becomes_an_inspect_log_that_inspect_reads_back(tmp_path: Path) -> None:
    run = tmp_path / "run"
    code = main(["--model", f"scripted/{__name__}:{policy.__name__}", "--tasks", "gpsbench.distance,gpsbench.bearing",
                 "--limit", "4", "--condition", "intrinsic,tools", "--no-cache", "--output", str(run),
                 "--max-attempts", "1"])
    assert code == 3  # some intrinsic samples failed
    assert export.main([str(run), "--format", "inspect"]) == 0  # the command as docs/viewer.md gives it
    with RunStore(run, create=False) as store:
        results = list(store.results())
        run_id, spec, _ = store.read_spec()
    logs = {log.eval.metadata["condition"]: log
            for log in map(log_api.read_eval_log, sorted((run / "inspect").glob("*.eval")))}
    assert sorted(logs) == ["intrinsic", "tools"]
    assert len(log_api.list_eval_logs(str(run / "inspect"))) == 2  # what inspect view lists
    for condition, log in logs.items():
        mine = {(r.sample_id, r.epoch + 1): r for r in results if r.condition == condition}
        assert {(s.id, s.epoch) for s in log.samples} == set(mine) and len(mine) == 8
        assert log.eval.model == spec.model and log.eval.run_id == run_id
        assert log.eval.metadata["geogap_run_spec"] == json.loads(spec.model_dump_json())
        failed = [r for r in mine.values() if r.status == "error"]
        assert log.status == ("error" if failed else "success")
        answered = [r for r in mine.values() if r.status == "ok"]
        accuracy = sum(r.score.correct for r in answered) / len(answered)
        assert log.results.scores[0].metrics["accuracy"].value == pytest.approx(accuracy)
        for s in log.samples:
            r = mine[(s.id, s.epoch)]
            assert s.output.completion == r.final_text
            kinds = [e.event for e in s.events if e.event in ("model", "tool")]  # the transcript tab's trace
            assert kinds == ["model" if e.kind == "model_call" else "tool" for e in r.trace] and kinds
            tools = [e for e in s.events if e.event == "tool"]
            assert [(t.function, t.arguments, t.result) for t in tools] == [
                (e.tool, e.args, e.result) for e in r.trace if e.kind == "tool_call"]
            models = [e for e in s.events if e.event == "model"]
            assert all(m.model == r.model for m in models)
            assert [bool(m.tools) for m in models] == [bool(e.tools_offered) for e in r.trace if e.kind == "model_call"]
            assert [m.role for m in s.input] == ["system", "user"]
            if r.status == "error":
                assert s.error is not None and "scripted failure" in s.error.message and s.scores is None
                continue
            assert s.scores["geogap"].value == r.score.value
            assert s.scores["geogap"].metadata["correct"] == r.score.correct
            calls = [c for m in s.messages if m.role == "assistant" for c in (m.tool_calls or [])]
            tool_msgs = [m for m in s.messages if m.role == "tool"]
            events = [e for e in r.trace if e.kind == "tool_call"]
            assert [(c.function, c.arguments) for c in calls] == [(e.tool, e.args) for e in events]
            assert [m.text for m in tool_msgs] == [e.result for e in events]
            assert s.messages[-1].role == "assistant" and s.messages[-1].text == r.final_text
    assert logs["intrinsic"].status == "error" and logs["tools"].status == "success"
    assert logs["tools"].results.scores[0].metrics["accuracy/gpsbench.distance"].value == 1.0


def test_without_inspect_ai_the_format_is_a_one_line_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    run = tmp_path / "run"
    assert main(["--model", f"scripted/{__name__}:{policy.__name__}", "--tasks", "gpsbench.distance", "--limit", "1",
                 "--condition", "tools", "--no-cache", "--output", str(run)]) == 0
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "inspect_ai.log", None)  # import fails as if not installed
    assert export.main([str(run), "--format", "inspect"]) == 2
    assert capsys.readouterr().err.strip() == "error: the inspect format needs inspect_ai: pip install 'geogap[inspect]'"
