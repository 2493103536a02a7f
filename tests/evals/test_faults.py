"""Fault injection through a local OpenAI-compatible endpoint, driven through the real compare CLI.

Every run must finish, with each fault recorded on its sample: retried faults (429 + Retry-After, 500,
timeouts, truncated JSON) in the trace event's ``retries``/``retry_errors``, faults that outlast the retries
as the sample's error, and agent-level faults (unknown tool, malformed arguments, endless tool loop) as tool
errors and stop reasons.
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from fault_server import FaultServer, Reply, completion, error, tool_results, user_prompt

import agents.call_cache as call_cache
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


# The fault-injection suite: one loopback server mode per fault a model server can send, each run through the
# real CLI. Every mode asserts the exit code and its message, that every sample is accounted for (a stored result
# for each sample and condition, or a stop message that says how to resume), that every answered call is stored
# as answered, and that no secret (a short --api-key-env key, a base URL's user:pass and the Basic header built
# from it) is in any file written, the model-call cache included.

SHORT_KEY = "k3y9zQ"  # shorter than the 8 characters an unnamed secret needs: masked because it is named
USER, PASSWORD = "alice", "s3cr3t-pw"
BASIC = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
SECRETS = [SHORT_KEY, PASSWORD, BASIC, f"{USER}:{PASSWORD}"]
SURROGATE = "\\ud83d"  # half of an emoji, as JSON sends it
M = 3  # samples per mode


def _raw(content: str, **usage: int) -> Reply:
    """A completion whose JSON is written by hand (``content`` may hold JSON escapes such as a lone surrogate)."""
    body = completion("CONTENT").body
    body["usage"].update(usage)
    return Reply(raw=json.dumps(body).replace('"CONTENT"', f'"{content}"').encode())


def _echo(body: dict, headers: dict, n: int) -> Reply:
    return completion(f"headers {json.dumps(headers)}; FINAL ANSWER: 5 km")


@dataclass
class Mode:
    name: str
    respond: Callable[[dict, dict, int], Reply]
    code: int
    message: str | None = None  # in the stderr of the run
    answered: int = M  # samples whose calls were answered and must be stored as answered
    args: tuple[str, ...] = ()
    cache: bool = False
    url: Callable[[str], str] = lambda url: url


def _cut(body: dict, headers: dict, n: int) -> Reply:
    return Reply(raw=json.dumps(completion("FINAL ANSWER: 5 km").body).encode(), cut_at=40)


class _CutFirst:
    def __init__(self) -> None:
        self.seen: set[str] = set()

    def __call__(self, body: dict, headers: dict, n: int) -> Reply:
        prompt = user_prompt(body)
        if prompt not in self.seen:
            self.seen.add(prompt)
            return _cut(body, headers, n)
        return completion("FINAL ANSWER: 5 km")


MODES = [
    Mode("lone-surrogate", lambda b, h, n: _raw(f"FINAL ANSWER: 5 km {SURROGATE}"), 0),
    Mode("lone-surrogate-cached", lambda b, h, n: _raw(f"FINAL ANSWER: 5 km {SURROGATE}"), 0, cache=True),
    Mode("surrogate-in-reasoning", lambda b, h, n: _raw(f"I think {SURROGATE}{SURROGATE} so\\nFINAL ANSWER: 5 km"), 0),
    Mode("cut-body", _cut, 3, "incomplete: 3 samples ended in error", answered=0),
    Mode("cut-body-once", _CutFirst(), 0),
    Mode("echoed-basic-credentials", _echo, 0, url=lambda url: url.replace("://", f"://{USER}:{PASSWORD}@")),
    Mode("echoed-key", _echo, 0),
    Mode("key-in-error", lambda b, h, n: error(401, f"bad key {h.get('authorization')} ({SHORT_KEY})"), 3,
         "incomplete: 3 samples ended in error", answered=0),
    Mode("http-500", lambda b, h, n: error(500, "boom"), 3, "incomplete: 3 samples ended in error", answered=0),
    Mode("rate-limited", lambda b, h, n: error(429, "slow down", {"Retry-After": "0"}), 3,
         "incomplete: 3 samples ended in error", answered=0),
    Mode("html-page", lambda b, h, n: Reply(raw=b"<html><body>502 proxy error</body></html>"), 3,
         "incomplete: 3 samples ended in error", answered=0),
    Mode("empty-choices", lambda b, h, n: Reply(body={"id": "x", "object": "chat.completion", "created": 0,
                                                      "model": "fake", "choices": []}), 3,
         "incomplete: 3 samples ended in error", answered=0),
    Mode("absurd-token-counts", lambda b, h, n: _raw("FINAL ANSWER: 5 km", prompt_tokens=10**12,
                                                     completion_tokens=-5), 0),
    Mode("fifty-thousand-newlines", lambda b, h, n: _raw("\\n" * 50_000 + "FINAL ANSWER: 5 km"), 0),
    Mode("slow", lambda b, h, n: Reply(delay_s=1.0, body=completion("FINAL ANSWER: 5 km").body), 3,
         "incomplete: 3 samples ended in error", answered=0, args=("--call-timeout", "0.2")),
]


def _run_mode(mode: Mode, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, list, list[str]]:
    with FaultServer(mode.respond) as server:
        rc = main(["--model", "openai-compatible/fake", "--base-url", mode.url(server.url), "--tasks", TASK,
                   "--limit", str(M), "--condition", "intrinsic", "--output", str(tmp_path / "run"),
                   "--max-attempts", "2", "--retry-delay", "0.01", "--api-key-env", "GEOGAP_FAULT_KEY",
                   "--export", "jsonl,csv", *(() if mode.cache else ("--no-cache",)), *mode.args])
        prompts = {user_prompt(r["body"]) for r in server.requests}
    with RunStore(tmp_path / "run") as store:
        results = list(store.results())
    return rc, capsys.readouterr().err, results, sorted(prompts)


@pytest.mark.parametrize("mode", MODES, ids=[m.name for m in MODES])
def test_fault_mode(mode: Mode, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GEOGAP_FAULT_KEY", SHORT_KEY)
    rc, err, results, asked = _run_mode(mode, tmp_path, capsys)
    assert "Traceback" not in err
    assert rc == mode.code, err[-3000:]
    if mode.message:
        assert mode.message in err
    assert len(results) == M and len(asked) == M  # every sample asked, and accounted for by a stored result
    answered = [r for r in results if r.status == "ok"]
    assert len(answered) == mode.answered  # no answered call lost
    assert all(r.error for r in results if r.status == "error")
    for path in [*(tmp_path / "run").rglob("*"), *(tmp_path / "cache").rglob("*")]:
        if path.is_file():
            data = path.read_bytes()
            assert not [s for s in SECRETS if s.encode() in data], f"{path.name} holds a secret"
    assert not [s for s in SECRETS if s in err]


def test_the_fault_modes_cover_the_faults_of_issue_29() -> None:
    names = {m.name for m in MODES}
    assert {"lone-surrogate", "cut-body", "echoed-basic-credentials", "echoed-key", "absurd-token-counts",
            "fifty-thousand-newlines"} <= names and len(MODES) >= 15


def test_lone_surrogates_are_stored_as_replacement_characters(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GEOGAP_FAULT_KEY", SHORT_KEY)
    rc, err, results, _ = _run_mode(MODES[0], tmp_path, capsys)
    assert rc == 0 and all(r.final_text.endswith("5 km \ufffd") and r.score.correct is not None for r in results)
    assert all(r.input_tokens == 11 for r in results)


def test_absurd_token_counts_are_not_trusted(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GEOGAP_FAULT_KEY", SHORT_KEY)
    mode = next(m for m in MODES if m.name == "absurd-token-counts")
    rc, err, results, _ = _run_mode(mode, tmp_path, capsys)
    assert rc == 0 and [(r.input_tokens, r.output_tokens) for r in results] == [(0, 0)] * M


def test_a_cache_that_cannot_be_written_loses_no_answer(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("GEOGAP_FAULT_KEY", SHORT_KEY)
    real_connect = sqlite3.connect

    class FullDisk:  # the cache's connection: reads work, every write fails as on a full disk
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def execute(self, sql: str, *args: object) -> object:
            if sql.lstrip().upper().startswith(("INSERT", "UPDATE")):
                raise sqlite3.OperationalError("database or disk is full")
            return self.db.execute(sql, *args)

        def __getattr__(self, name: str) -> object:
            return getattr(self.db, name)

        def __enter__(self) -> FullDisk:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

    def connect(path: object, *args: object, **kwargs: object) -> object:
        db = real_connect(path, *args, **kwargs)  # type: ignore[arg-type]
        return FullDisk(db) if str(path).endswith("model_calls.sqlite") else db

    monkeypatch.setattr(call_cache.sqlite3, "connect", connect)
    mode = Mode("cache-disk-full", lambda b, h, n: completion("FINAL ANSWER: 5 km"), 0, cache=True)
    rc, err, results, _ = _run_mode(mode, tmp_path, capsys)
    assert rc == 0 and [r.status for r in results] == ["ok"] * M
    warnings = [line for line in err.splitlines() if "model-call cache" in line]
    assert len(warnings) == 1 and "database or disk is full" in warnings[0] and "Traceback" not in err


def test_nothing_listening_stops_the_run_with_resume_advice(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEOGAP_CACHE_DIR", str(tmp_path / "cache"))
    with socket.socket() as s:  # a port that was free a moment ago: connections are refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rc = main(["--model", "openai-compatible/fake", "--base-url", f"http://127.0.0.1:{port}/v1", "--tasks", TASK,
               "--limit", "4", "--condition", "intrinsic", "--output", str(tmp_path / "run"), "--max-attempts", "1",
               "--no-cache", "--max-connections", "1"])
    err = capsys.readouterr().err
    assert rc == 4 and "is unreachable" in err and f"--resume {tmp_path / 'run'}" in err and "Traceback" not in err
    with RunStore(tmp_path / "run") as store:
        assert [r.status for r in store.results()] == ["error"] * 3  # the rest is left for --resume


def test_sigterm_stops_the_run_with_one_line_and_exit_143(tmp_path: Path) -> None:
    release = threading.Event()

    def respond(body: dict, headers: dict, n: int) -> Reply:
        if n >= 1:
            release.wait(60)  # the second sample waits until the run was terminated
        return completion("FINAL ANSWER: 5 km")

    with FaultServer(respond) as server:
        env = {**os.environ, "GEOGAP_CACHE_DIR": str(tmp_path / "cache")}
        child = subprocess.Popen(
            [sys.executable, "-m", "evals.compare", "--model", "openai-compatible/fake", "--base-url", server.url,
             "--tasks", TASK, "--limit", "3", "--condition", "intrinsic", "--output", str(tmp_path / "run"),
             "--no-cache", "--max-connections", "1"], cwd=Path(__file__).resolve().parents[2], env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while len(server.requests) < 2 and child.poll() is None:
            time.sleep(0.05)
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=120)
        release.set()
    assert child.returncode == 143, err[-2000:]
    assert "Traceback" not in err
    assert f"error: terminated (SIGTERM): completed samples are stored; resume with --resume {tmp_path / 'run'}" in err
    with RunStore(tmp_path / "run") as store:
        assert [r.status for r in store.results()] == ["ok"]  # the answered sample is kept
