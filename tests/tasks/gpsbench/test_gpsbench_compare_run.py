"""All GPSBench tasks through the evaluation runner in both conditions (what `python -m evals.compare --tasks
'gpsbench.*'` does), with a scripted model: intrinsic answers a fixed guess, tools plays the reference solver."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from gps_solvers import SOLVERS
from langchain_core.messages import AIMessage, ToolMessage

from agents.scripted import ScriptedChatModel
from evals.conditions import get_condition
from evals.records import RunSpec
from evals.report import compare
from evals.runner import run_all
from evals.store import RunStore
from tasks import get_task, resolve_tasks


def test_gpsbench_glob_runs_in_both_conditions(tmp_path: Path) -> None:
    # the glob without the level variants (same items) and without a task that has no solver here (a new one)
    names = [n for n in resolve_tasks(["gpsbench.*"]) if n in SOLVERS]
    assert len(names) == 19  # 17 tasks, the probe, route geometry as multiple choice
    work = [(s, task) for task in (get_task(n) for n in names) for s in task.samples(limit=1)]
    by_prompt = {s.prompt: s for s, _ in work}
    solvers: dict[str, object] = {}

    def policy(messages, tools):  # type: ignore[no-untyped-def]
        prompt = next(m.content for m in messages if m.type == "human")
        sample = by_prompt[prompt]
        if not tools:
            return "I am not sure.\nFINAL ANSWER: 0"
        results = [m for m in messages if isinstance(m, ToolMessage)]
        try:
            if not results:
                solvers[sample.id] = SOLVERS[sample.task](sample)
                call = next(solvers[sample.id])  # type: ignore[call-overload]
            else:
                call = solvers[sample.id].send(json.loads(results[-1].content))  # type: ignore[attr-defined]
        except StopIteration as stop:
            return str(stop.value)
        return AIMessage("", tool_calls=[{"name": call[0], "args": call[1], "id": f"c{len(results)}"}])

    spec = RunSpec(model="scripted/solver", tasks=names, conditions=["intrinsic", "tools"], limit=1)
    store = RunStore(tmp_path / "run")
    store.write_spec("r1", spec)
    store.add_samples([s for s, _ in work])
    conds = [get_condition("intrinsic"), get_condition("tools")]
    written = asyncio.run(run_all("r1", spec, store, work, conds, ScriptedChatModel(script=policy)))
    assert written == 38
    results = list(store.results())
    tools = [r for r in results if r.condition == "tools"]
    assert all(r.score.correct and r.tool_calls >= 1 for r in tools), [
        (r.sample_id, r.score.explanation) for r in tools if not r.score.correct]
    intrinsic = [r for r in results if r.condition == "intrinsic"]
    assert len(intrinsic) == 19 and sum(r.score.correct for r in intrinsic) <= 3
    assert all(r.trace and r.trace[0].kind == "model_call" and not r.tool_calls for r in intrinsic)
    table = compare(results, ["intrinsic", "tools"])
    assert {row.task for row in table} >= set(names)
