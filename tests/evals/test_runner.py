"""The runner and run store with a scripted model: both conditions, failures, parse failures, resume."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from langchain_core.messages import AIMessage, ToolMessage

from agents.scripted import ScriptedChatModel
from evals.conditions import get_condition
from evals.records import RunSpec
from evals.report import compare, render_table
from evals.runner import run_all
from evals.store import RunStore
from tasks import get_task

POINT = re.compile(r"\((-?\d+\.\d+), (-?\d+\.\d+)\)")


def policy(messages, tools):
    """Intrinsic: a wrong guess. Tools: call distance_km on the prompt's points, then answer with its result."""
    prompt = next(m.content for m in messages if m.type == "human")
    if "EXPLODE" in prompt:
        raise RuntimeError("provider exploded")
    if not tools:
        return "I think it is far. FINAL ANSWER: 1 km" if "garble" not in prompt else "no idea"
    results = [m for m in messages if isinstance(m, ToolMessage)]
    if results:
        return f"FINAL ANSWER: {json.loads(results[-1].content)['distance_km']} km"
    (a1, o1), (a2, o2) = POINT.findall(prompt)[:2]
    return AIMessage("", tool_calls=[{"name": "distance_km", "id": "c", "args": {
        "lat1": float(a1), "lon1": float(o1), "lat2": float(a2), "lon2": float(o2)}}])


def setup(tmp_path: Path, limit: int = 4):
    task = get_task("gpsbench.distance")
    samples = task.samples(limit=limit)
    spec = RunSpec(model="scripted/policy", tasks=[task.name], conditions=["intrinsic", "tools"], limit=limit)
    store = RunStore(tmp_path / "run")
    store.write_spec("r1", spec)
    store.add_samples(samples)
    return spec, store, [(s, task) for s in samples]


def test_both_conditions_stored_with_traces_and_gap(tmp_path: Path) -> None:
    spec, store, work = setup(tmp_path)
    conds = [get_condition("intrinsic"), get_condition("tools")]
    written = asyncio.run(run_all("r1", spec, store, work, conds, ScriptedChatModel(script=policy)))
    assert written == 8
    results = list(store.results())
    by = {(r.sample_id, r.condition): r for r in results}
    ok_ids = [s.id for s, _ in work]
    for sid in ok_ids:
        tools = by[(sid, "tools")]
        assert tools.score.correct and tools.tool_calls == 1
        assert [e.kind for e in tools.trace] == ["model_call", "tool_call", "model_call"]
        assert tools.trace[1].tool == "distance_km" and tools.trace[1].status == "ok"
        assert not by[(sid, "intrinsic")].score.correct
    comp = compare(results, ["intrinsic", "tools"])[0]
    assert comp.conditions["tools"].correct == len(ok_ids)
    assert comp.gap["tools"]["gained"] == len(ok_ids) and comp.gap["tools"]["gap"] > 0
    assert "gpsbench.distance" in str(render_table([comp], ["intrinsic", "tools"]).columns[0]._cells)


def with_prompt_suffix(sample, suffix: str):
    return sample.model_copy(update={"messages": (sample.messages[0], sample.messages[1].model_copy(
        update={"content": sample.prompt + suffix}))})


def test_failed_sample_is_recorded_and_run_goes_on(tmp_path: Path) -> None:
    spec, store, work = setup(tmp_path)
    failing = with_prompt_suffix(work[0][0], " EXPLODE")
    work[0] = (failing, work[0][1])
    asyncio.run(run_all("r1", spec, store, work, [get_condition("intrinsic")], ScriptedChatModel(script=policy)))
    results = {r.sample_id: r for r in store.results()}
    assert len(results) == len(work)
    bad = results[failing.id]
    assert bad.status == "error" and "provider exploded" in bad.error and not bad.score.correct
    assert all(r.status == "ok" for sid, r in results.items() if sid != failing.id)


def test_parse_failure_is_recorded(tmp_path: Path) -> None:
    spec, store, work = setup(tmp_path, limit=1)
    s, task = work[0]
    garbled = with_prompt_suffix(s, " garble")
    asyncio.run(run_all("r1", spec, store, [(garbled, task)], [get_condition("intrinsic")],
                        ScriptedChatModel(script=policy)))
    r = next(store.results())
    assert r.status == "ok" and not r.parsed.ok and r.parsed.raw == "no idea" and r.score.parse_failed


def test_resume_skips_completed_and_redoes_failed(tmp_path: Path) -> None:
    spec, store, work = setup(tmp_path)
    work[1] = (with_prompt_suffix(work[1][0], " EXPLODE"), work[1][1])
    conds = [get_condition("intrinsic")]
    model = ScriptedChatModel(script=policy)
    first = asyncio.run(run_all("r1", spec, store, work, conds, model))
    calls_after_first = len(model.calls)
    store.close()
    store = RunStore(tmp_path / "run")  # a new process would reopen the same directory
    errors = sum(1 for r in store.results() if r.status == "error")
    second = asyncio.run(run_all("r1", spec, store, work, conds, model))
    assert first == len(work) and errors == 1
    assert second == errors  # only failed samples are redone
    assert len(model.calls) == calls_after_first + errors


def test_epochs_use_one_endpoint_each_with_accounting(tmp_path: Path) -> None:
    from agents.model_call import ModelCaller
    from evals.pricing import PriceTable
    from evals.runner import Endpoint

    spec, store, work = setup(tmp_path, limit=2)
    spec = spec.model_copy(update={"epochs": 2, "model": "local/x"})
    made: list[int] = []

    def factory(epoch: int) -> Endpoint:
        made.append(epoch)
        return Endpoint(ScriptedChatModel(script=policy), ModelCaller())

    written = asyncio.run(run_all("r1", spec, store, work, [get_condition("tools")], factory, prices=PriceTable()))
    assert written == 4 and sorted(made) == [0, 1]
    results = list(store.results())
    assert sorted((r.sample_id, r.epoch) for r in results) == sorted((s.id, e) for s, _ in work for e in (0, 1))
    for r in results:
        assert r.model_calls == 2 and r.tool_calls == 1 and r.tool_errors == 0 and r.cost_usd == 0.0
        assert r.input_tokens == sum(e.input_tokens for e in r.trace if e.kind == "model_call") > 0 and r.attempts == 1
