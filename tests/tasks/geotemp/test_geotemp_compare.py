"""Every GeoTemp task runs in both conditions through ``python -m evals.compare`` (OpenAI-compatible fake
endpoint): the tools condition calls the real timezone tools and reaches the gold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from geotemp_policy import final_text, follow_up, plan

from evals.compare import main
from evals.store import RunStore
from tests.evals.fault_server import FaultServer, Reply, completion, tool_results, user_prompt


def respond(body: dict, headers: dict, n: int) -> Reply:
    prompt = user_prompt(body)
    if not body.get("tools"):
        return completion("I believe it is 12:00 PM.\nFINAL ANSWER: 12:00 PM")  # intrinsic: a fixed guess
    results = tool_results(body)
    if not results:
        name, args = plan(prompt)[0]
        return completion(None, tool_calls=[(name, json.dumps(args))])
    last = json.loads(results[-1]["content"])
    more = follow_up(prompt, last)
    if more:
        return completion(None, tool_calls=[(more[0], json.dumps(more[1]))])
    return completion(final_text(prompt, last))


def test_all_geotemp_tasks_in_both_conditions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    with FaultServer(respond) as server:
        code = main(["--model", "openai-compatible/fake", "--base-url", server.url, "--tasks", "geotemp.*",
                     "--limit", "1", "--output", str(tmp_path / "run")])
    assert code == 0
    with RunStore(tmp_path / "run") as store:
        results = list(store.results())
    tasks = {r.task for r in results}
    assert len(tasks) == 11 and all(t.startswith("geotemp.") for t in tasks)  # 7 tasks, 4 in all three styles
    assert len(results) == (7 + 4 * 3) * 2
    tools = [r for r in results if r.condition == "tools"]
    assert all(r.score.correct and r.tool_calls >= 1 for r in tools), [
        (r.sample_id, r.final_text, r.score.explanation) for r in tools if not r.score.correct]
    assert all(r.tool_calls == 0 for r in results if r.condition == "intrinsic")
    assert "geotemp.time_time_place" in capsys.readouterr().out
