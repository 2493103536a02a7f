"""Fault injection through a local OpenAI-compatible endpoint, driven through the real compare CLI.

Every run must finish, with each fault recorded on its sample: retried faults (429 + Retry-After, 500,
timeouts, truncated JSON) in the trace event's ``retries``/``retry_errors``, faults that outlast the retries
as the sample's error, and agent-level faults (unknown tool, malformed arguments, endless tool loop) as tool
errors and stop reasons.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from fault_server import FaultServer, Reply, completion, error, tool_results, user_prompt

from evals.compare import main
from evals.store import RunStore
from tasks import get_task

POINT = re.compile(r"\((-?\d+\.\d+), (-?\d+\.\d+)\)")
TASK = "gpsbench.distance"
N = 9


def distance_call(prompt: str, shift: float = 0.0) -> Reply:
    (a1, o1), (a2, o2) = POINT.findall(prompt)[:2]
    args = {"lat1": float(a1) + shift, "lon1": float(o1), "lat2": float(a2), "lon2": float(o2)}
    return completion(None, tool_calls=[("distance_km", json.dumps(args))])


def good(body: dict) -> Reply:
    """A competent model: intrinsic guesses 100 km; with tools it calls distance_km and reports the result."""
    if not body.get("tools"):
        return completion("FINAL ANSWER: 100 km")
    results = tool_results(body)
    if results:
        try:
            return completion(f"FINAL ANSWER: {json.loads(results[-1]['content'])['distance_km']} km")
        except (json.JSONDecodeError, KeyError):
            return completion("FINAL ANSWER: 0 km")
    return distance_call(user_prompt(body))


class Script:
    """Faults keyed on (sample index, condition), counting calls per key (thread-safe)."""

    def __init__(self, prompts: list[str]) -> None:
        self.index = {p: i for i, p in enumerate(prompts)}
        self.calls: Counter[tuple[int, bool]] = Counter()
        self.lock = threading.Lock()

    def __call__(self, body: dict, headers: dict, n: int) -> Reply:
        prompt = user_prompt(body)
        i = self.index.get(prompt, -1)
        tools = bool(body.get("tools"))
        with self.lock:
            k = self.calls[(i, tools)]
            self.calls[(i, tools)] += 1
        if not tools:
            if i == 0 and k == 0:
                return error(429, "slow down", headers={"Retry-After": "0.3"})
            if i == 1:
                return error(500, "boom")
            if i == 2 and k == 0:
                return Reply(delay_s=1.5, body=completion("FINAL ANSWER: 1 km").body)
            if i == 3 and k == 0:
                return Reply(raw=b'{"id": "chatcmpl-x", "object": "chat.comp')
            if i == 4:
                return error(400, "bad request: context length exceeded")
            return good(body)
        if i == 5 and k == 0:
            return completion(None, tool_calls=[("teleport", '{"to": "Paris"}')])
        if i == 6 and k == 0:
            return completion(None, tool_calls=[("distance_km", '{"lat1": 1.0, "lon1": ')])
        if i == 7:  # endless loop: a new call every time, never an answer
            return distance_call(prompt, shift=0.001 * k)
        if i == 8 and k == 1:
            return error(503, "overloaded", headers={"retry-after-ms": "50"})
        return good(body)


def test_every_fault_is_recorded_and_the_run_finishes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    prompts = [s.prompt for s in get_task(TASK).samples(limit=N)]
    script = Script(prompts)
    run_dir = tmp_path / "run"
    with FaultServer(script) as server:
        t0 = time.time()
        rc = main(["--model", "openai-compatible/fake", "--base-url", server.url, "--tasks", TASK, "--limit", str(N),
                   "--output", str(run_dir), "--max-attempts", "3", "--retry-delay", "0.05", "--call-timeout", "0.5", "--max-steps", "4",
                   "--no-cache", "--max-connections", "4"])
        wall = time.time() - t0
    assert rc == 3  # finished with samples ended in error: incomplete
    with RunStore(run_dir) as store:
        results = {(prompts.index(store.samples()[r.sample_id].prompt), r.condition): r for r in store.results()}
    assert len(results) == 2 * N

    def model_events(r):
        return [e for e in r.trace if e.kind == "model_call"]

    rate = model_events(results[(0, "intrinsic")])[0]  # 429 with Retry-After, then success
    assert results[(0, "intrinsic")].status == "ok" and rate.retries == 1 and "rate_limit" in rate.retry_errors[0]
    assert results[(0, "intrinsic")].retries == 1
    assert wall >= 0.3  # the Retry-After was honoured

    failed = results[(1, "intrinsic")]  # 500 on every attempt: the sample fails with its error, run goes on
    assert failed.status == "error" and "server_error_500" in failed.error and "after 3 attempts" in failed.error
    assert failed.trace[-1].status == "error" and failed.trace[-1].retries == 2
    assert not failed.score.correct

    timeout = model_events(results[(2, "intrinsic")])[0]
    assert results[(2, "intrinsic")].status == "ok" and timeout.retries == 1 and "timeout" in timeout.retry_errors[0]

    truncated = model_events(results[(3, "intrinsic")])[0]
    assert truncated.retries == 1 and "bad_response" in truncated.retry_errors[0]

    bad_request = results[(4, "intrinsic")]  # not retryable: one attempt
    assert bad_request.status == "error" and "http_400" in bad_request.error and bad_request.trace[-1].retries == 0
    assert script.calls[(4, False)] == 1

    unknown = results[(5, "tools")]
    tool_events = [e for e in unknown.trace if e.kind == "tool_call"]
    assert tool_events[0].tool == "teleport" and tool_events[0].status == "error" and unknown.tool_errors == 1
    assert unknown.status == "ok"

    malformed = results[(6, "tools")]
    bad = [e for e in malformed.trace if e.kind == "tool_call"][0]
    assert bad.status == "error" and "not valid JSON" in bad.error and malformed.tool_errors == 1

    loop = results[(7, "tools")]
    assert loop.status == "ok" and loop.stop_reason == "step_limit" and loop.model_calls == 4  # --max-steps 4 = 4 calls
    assert loop.score.parse_failed  # it never answered: a parse failure, not a crash

    overloaded = results[(8, "tools")]
    assert overloaded.status == "ok" and overloaded.score.correct and overloaded.retries == 1
    assert "server_error_503" in model_events(overloaded)[1].retry_errors[0]

    for i in (0, 2, 3):
        assert results[(i, "tools")].score.correct
    summary = json.loads((run_dir / "results.json").read_text())
    intrinsic = summary["tasks"][0]["conditions"]["intrinsic"]
    assert intrinsic["errors"] == 2 and intrinsic["retries"] == 1 + 2 + 1 + 1  # samples 0, 1 (failed), 2, 3


def test_sample_wall_time_limit_keeps_the_partial_trace(tmp_path: Path) -> None:
    prompts = [s.prompt for s in get_task(TASK).samples(limit=1)]

    def respond(body: dict, headers: dict, n: int) -> Reply:
        if tool_results(body):
            return Reply(delay_s=2.0, body=completion("FINAL ANSWER: 1 km").body)
        return good(body)

    with FaultServer(respond) as server:
        rc = main(["--model", "openai-compatible/fake", "--base-url", server.url, "--tasks", TASK, "--limit", "1",
                   "--condition", "tools", "--output", str(tmp_path / "run"), "--sample-timeout", "0.8", "--no-cache"])
    assert rc == 3  # finished with samples ended in error: incomplete
    with RunStore(tmp_path / "run") as store:
        (r,) = list(store.results())
        assert store.samples()[r.sample_id].prompt == prompts[0]
    assert r.status == "error" and r.error.startswith("timeout")
    assert [e.kind for e in r.trace] == ["model_call", "tool_call"]  # what happened before the limit
