"""The Ray executor on a local 2-CPU Ray instance: same scores as the local executor, a lost worker's sample
retried and stored once, resume, and the compare CLI with ``--executor ray`` against a local endpoint.

Skipped when Ray is not installed, unless the environment variable CI is set (then Ray must be there).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from fault_server import FaultServer, Reply, completion, tool_results, user_prompt
from langchain_core.messages import AIMessage, ToolMessage

from agents.model_call import ModelCaller, RetryPolicy
from agents.scripted import ScriptedChatModel
from evals.compare import main
from evals.conditions import get_condition
from evals.records import RunSpec
from evals.runner import Endpoint, run_all
from evals.store import RunStore
from tasks import get_task

if not os.environ.get("CI"):
    pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[ray]'); CI must have it")
import ray  # noqa: E402

from evals.ray_executor import local_runtime_env, run_ray  # noqa: E402

HERE = Path(__file__).resolve().parent
POINT = re.compile(r"\((-?\d+\.\d+), (-?\d+\.\d+)\)")
TASK = "gpsbench.distance"


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray instance (2 CPUs, so 2 workers) for the module; workers import this test file too."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env=local_runtime_env((str(HERE),)))
    yield
    ray.shutdown()


def policy(messages, tools):
    """Intrinsic: a fixed (wrong) guess. Tools: call distance_km, then answer with its result."""
    prompt = next(m.content for m in messages if m.type == "human")
    if not tools:
        return "FINAL ANSWER: 1 km"
    results = [m for m in messages if isinstance(m, ToolMessage)]
    if results:
        return f"FINAL ANSWER: {json.loads(results[-1].content)['distance_km']} km"
    (a1, o1), (a2, o2) = POINT.findall(prompt)[:2]
    return AIMessage("", tool_calls=[{"name": "distance_km", "id": "c", "args": {
        "lat1": float(a1), "lon1": float(o1), "lat2": float(a2), "lon2": float(o2)}}])


@dataclass(frozen=True)
class ScriptedFactory:
    """Each epoch's endpoint: the scripted policy (picklable: Ray ships it to the workers)."""

    def __call__(self, epoch: int) -> Endpoint:
        return Endpoint(ScriptedChatModel(script=policy), ModelCaller(RetryPolicy(max_attempts=1)))


@dataclass(frozen=True)
class CrashOnce:
    """Kills the worker process the first time it is asked about ``victim``; logs every time it is asked."""

    victim: str
    marker: str
    log: str
    always: bool = False

    def reply(self, messages, tools):
        prompt = next(m.content for m in messages if m.type == "human")
        if prompt == self.victim and not tools:
            with open(self.log, "a") as f:
                f.write(f"{os.getpid()}\n")
            if self.always or not os.path.exists(self.marker):
                Path(self.marker).write_text("crashed")
                os._exit(1)  # the worker dies mid-sample
        return policy(messages, tools)

    def __call__(self, epoch: int) -> Endpoint:
        return Endpoint(ScriptedChatModel(script=self.reply), ModelCaller(RetryPolicy(max_attempts=1)))


def setup(tmp_path: Path, name: str, limit: int = 6, epochs: int = 1):
    task = get_task(TASK)
    samples = task.samples(limit=limit, seed=7)
    spec = RunSpec(model="scripted/policy", tasks=[TASK], conditions=["intrinsic", "tools"], limit=limit, seed=7,
                   epochs=epochs, max_connections=4)
    store = RunStore(tmp_path / name)
    store.write_spec(name, spec)
    store.add_samples(samples)
    return spec, store, [(s, task) for s in samples]


def scores(store: RunStore) -> dict[tuple[str, str, int], tuple]:
    return {(r.sample_id, r.condition, r.epoch): (r.status, r.score.correct, r.score.value, r.final_text, r.tool_calls)
            for r in store.results(with_trace=False)}


def conditions():
    return [get_condition("intrinsic"), get_condition("tools")]


def test_two_workers_give_the_local_scores(tmp_path: Path) -> None:
    spec, local_store, work = setup(tmp_path, "local", epochs=2)
    asyncio.run(run_all("local", spec, local_store, work, conditions(), ScriptedFactory()))
    _, ray_store, _ = setup(tmp_path, "ray", epochs=2)
    seen = []
    written = run_ray("ray", spec, ray_store, work, conditions(), ScriptedFactory(), seen.append, workers=2)
    assert written == len(seen) == 6 * 2 * 2 == ray_store.count()
    local, remote = scores(local_store), scores(ray_store)
    assert local == remote
    assert {v[1] for k, v in remote.items() if k[1] == "tools"} == {True}  # tools answers are right
    traces = {(r.sample_id, r.condition): [e.kind for e in r.trace] for r in ray_store.results() if r.epoch == 0}
    assert traces[(work[0][0].id, "tools")] == ["model_call", "tool_call", "model_call"]
    assert [r.condition for r in seen] == ["intrinsic"] * 12 + ["tools"] * 12  # conditions one after another


def test_lost_worker_sample_is_retried_and_stored_once(tmp_path: Path) -> None:
    spec, store, work = setup(tmp_path, "crash", limit=4)
    victim = work[1][0]
    factory = CrashOnce(victim.messages[-1].content, str(tmp_path / "crashed"), str(tmp_path / "asked.log"))
    written = run_ray("crash", spec, store, work, conditions(), factory, workers=2)
    assert (tmp_path / "crashed").exists()  # the worker really died
    pids = (tmp_path / "asked.log").read_text().split()
    assert len(pids) == 2 and pids[0] != pids[1]  # asked again, in a restarted worker process
    assert written == store.count() == 8
    results = {(r.sample_id, r.condition): r for r in store.results(with_trace=False)}
    assert len(results) == 8 and all(r.status == "ok" for r in results.values())
    assert results[(victim.id, "intrinsic")].final_text == "FINAL ANSWER: 1 km"


def test_worker_lost_for_good_fails_its_samples_and_the_run_goes_on(tmp_path: Path) -> None:
    spec, store, work = setup(tmp_path, "dead", limit=4)
    victim = work[0][0]
    factory = CrashOnce(victim.messages[-1].content, str(tmp_path / "crashed"), str(tmp_path / "asked.log"), True)
    written = run_ray("dead", spec, store, work, conditions(), factory, workers=2, max_retries=1)
    assert len((tmp_path / "asked.log").read_text().split()) == 2  # tried, restarted once, tried again
    assert written == store.count() == 8  # every item stored once, failed or not
    results = {(r.sample_id, r.condition): r for r in store.results(with_trace=False)}
    lost = results[(victim.id, "intrinsic")]
    assert lost.status == "error" and lost.error.startswith("worker lost")
    assert all(r.status == "ok" for (_, cond), r in results.items() if cond == "tools")  # the other worker goes on
    assert store.completed().isdisjoint({(victim.id, "intrinsic", 0)})  # a resume redoes it


def test_resume_runs_only_missing_samples(tmp_path: Path) -> None:
    spec, store, work = setup(tmp_path, "resume", limit=5)
    assert run_ray("resume", spec, store, work[:2], conditions(), ScriptedFactory(), workers=2) == 4
    assert run_ray("resume", spec, store, work, conditions(), ScriptedFactory(), workers=2) == 6
    assert store.count() == 10 and run_ray("resume", spec, store, work, conditions(), ScriptedFactory()) == 0


def answer(body: dict, headers: dict, n: int) -> Reply:
    """A competent endpoint: intrinsic guesses 100 km; with tools it calls distance_km and reports the result."""
    if not body.get("tools"):
        return completion("FINAL ANSWER: 100 km")
    results = tool_results(body)
    if results:
        return completion(f"FINAL ANSWER: {json.loads(results[-1]['content'])['distance_km']} km")
    (a1, o1), (a2, o2) = POINT.findall(user_prompt(body))[:2]
    args = {"lat1": float(a1), "lon1": float(o1), "lat2": float(a2), "lon2": float(o2)}
    return completion(None, tool_calls=[("distance_km", json.dumps(args))])


def test_compare_cli_ray_executor_matches_local(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    with FaultServer(answer) as server:
        common = ["--model", "openai-compatible/fake", "--base-url", server.url, "--tasks", TASK, "--limit", "4"]
        assert main([*common, "--no-cache", "--output", str(tmp_path / "local")]) == 0
        # the cache path travels to the workers: a second ray run answers everything from the cache
        ray_run = [*common, "--cache", "--executor", "ray", "--ray-workers", "2"]
        assert main([*ray_run, "--output", str(tmp_path / "ray")]) == 0
        calls = len(server.requests)
        assert main([*ray_run, "--output", str(tmp_path / "cached")]) == 0
        assert len(server.requests) == calls
    capsys.readouterr()
    with RunStore(tmp_path / "local") as a, RunStore(tmp_path / "ray") as b, RunStore(tmp_path / "cached") as c:
        assert scores(a) == scores(b) == scores(c)
        assert len(scores(a)) == 8
        assert all(r.cache_hits == 0 for r in b.results(with_trace=False))
        assert all(r.cache_hits == r.model_calls > 0 for r in c.results(with_trace=False))
